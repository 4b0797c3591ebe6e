"""Client CPU per request of the one-shot protocol run through inspect-ai.

Run from the repository root, next to ``../shared/data``, with the ``[inspect]`` extra::

    python benchmarks/bench_inspect.py [--shared ../shared/data] [--shots 3] \
        [--max-connections 16]

It starts the scripted server of the tests (``tests/chat_server.py``, its own process on
127.0.0.1, answering at once), runs ``inspect eval ocw_hub/ocw_grouping`` on the test split
against it, and prints the ``inspect`` process's CPU time (user + system, start-up and the
split read included) over the samples it answered (one request each), with the wall
time and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_server(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    port_file, received = work / "port", work / "received"
    server = subprocess.Popen(
        [
            sys.executable,
            str(REPO_ROOT / "tests" / "chat_server.py"),
            "--port-file",
            str(port_file),
            "--received",
            str(received),
        ]
    )
    for _ in range(200):
        if port_file.exists():
            return server, f"http://127.0.0.1:{port_file.read_text()}/v1"
        time.sleep(0.05)
    server.kill()
    raise SystemExit("the scripted server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--shots", type=int, default=3)
    parser.add_argument("--max-connections", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        server, url = start_server(work)
        try:
            command = [
                str(Path(sys.executable).parent / "inspect"),
                "eval",
                "ocw_hub/ocw_grouping",
                "--model",
                "openai-api/local/fake",
                "--model-base-url",
                url,
                "--max-connections",
                str(args.max_connections),
                "--log-dir",
                str(work / "logs"),
                "--display",
                "none",
                "-T",
                f"data_dir={args.shared / 'ocw' / 'dataset'}",
                "-T",
                f"shots={args.shots}",
            ]
            env = {**os.environ, "LOCAL_API_KEY": "none", "HF_DATASETS_CACHE": str(work / "hf")}
            before, start = children_cpu(), time.perf_counter()
            subprocess.run(command, check=True, env=env, capture_output=True)
            seconds, cpu = time.perf_counter() - start, children_cpu() - before
        finally:
            server.kill()
            server.wait()
        from inspect_ai.log import list_eval_logs, read_eval_log

        (log,) = list_eval_logs(str(work / "logs"))
        header = read_eval_log(log, header_only=True)
        assert header.status == "success", header.status
        requests = header.results.completed_samples if header.results else 0
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"inspect eval ocw_hub/ocw_grouping ({args.shots} shots, --max-connections "
        f"{args.max_connections}): {requests} requests in {seconds:.1f} s; client CPU "
        f"{cpu:.1f} s = {1000 * cpu / requests:.1f} ms a request; load average {load}"
    )


if __name__ == "__main__":
    main()
