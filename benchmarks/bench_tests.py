"""Wall time of the default ``pytest`` from a plain clone: no ``../shared`` beside it.

Run from the repository root with the interpreter of the dev environment::

    python benchmarks/bench_tests.py [PYTEST ARGS ...]      e.g. --durations=40

The checkout's files (tracked and untracked, not ignored) are copied into a temporary folder
that has no ``shared/`` beside it; ``pytest`` runs there with that copy first on
``PYTHONPATH`` and without the ``OCW_*`` variables of ``.ci/run``, so the full-data tests and
the other environment's tests are skipped as on a contributor's plain clone. Prints pytest's
last line, the wall time and the CPU time (user + system, pytest and its children: near the
wall time of a run on idle cores, since pytest runs the tests one at a time).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def plain_clone(folder: Path) -> Path:
    """Copy the checkout's files (as ``git ls-files -co --exclude-standard``) into ``folder``."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    return folder


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = plain_clone(Path(tmp) / "ocw-hub")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OCW_")}
        env["PYTHONPATH"] = str(repo / "src")
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *sys.argv[1:]],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    if "--durations" in " ".join(sys.argv[1:]):
        print("\n".join(line for line in lines if line[:1].isdigit() and "s " in line[:12]))
    print("\n".join(line for line in lines if line.startswith(("FAILED", "ERROR"))))
    print(lines[-1] if lines else done.stderr.strip()[-500:])
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # pytest and what it started
    cpu = usage.ru_utime + usage.ru_stime
    load = os.getloadavg()[0]
    print(
        f"default pytest from a plain clone: {seconds:.1f} s wall, {cpu:.1f} s CPU, "
        f"{os.cpu_count()} cores, load average {load:.1f} at the end"
    )
    sys.exit(done.returncode)


if __name__ == "__main__":
    main()
