"""What the bootstrap intervals cost ``ocw-hub evaluate``: whole commands on the stand-in's 494
test walls (1 run, and 16 runs with the two-level bootstrap), with ``--bootstrap 0`` and with
the default 1,000 resamples, and the interval computation alone in process.

Run: ``.venv/bin/python benchmarks/bench_bootstrap.py [--data ../shared/data/ocw/dataset]``.

Each command figure is the median of ``--repeat`` fresh processes after a warm-up (as
``bench_evaluate.py``, whose helpers it uses). Target (issue 24): the default must not make
``evaluate`` noticeably slower: at most 10 % or 0.2 s more than ``--bootstrap 0``.
Measured on this 2-core machine (shared by others, so noisy): 1 run 1.09 s, +0.01 to
+0.10 s; 16 runs 1.8-1.9 s, +0.07 to +0.18 s (the two-level intervals alone 0.12-0.23 s).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_evaluate import OCW_HUB, REPO, _median, offline_env, random_runs  # noqa: E402


def _in_process(walls: list[dict], runs_folder: Path, repeat: int) -> list[tuple[str, float]]:
    """Median seconds of the intervals alone (scoring done once beforehand)."""
    from ocw_hub.scoring.intervals import run_intervals, runs_intervals
    from ocw_hub.scoring.runs import evaluate_files

    one = evaluate_files([runs_folder / "run-00.json"], "default", rows=walls, bootstrap=0)
    many = evaluate_files([runs_folder], "default", rows=walls, bootstrap=0)
    out = []
    for name, call in (
        ("intervals, 1 run", lambda: run_intervals(one, 1000)),
        ("intervals, 16 runs (two-level)", lambda: runs_intervals(many["runs"], 1000)),
    ):
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        out.append((name, statistics.median(times)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/ocw/dataset")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    walls = json.loads((args.data / "test.json").read_text(encoding="utf-8"))["dataset"]
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        env = offline_env(tmp_path)
        runs = random_runs(walls, tmp_path / "runs", rng)
        common = ["--config", "default", "--split", "test", "--data-dir", str(args.data)]
        print(f"{'command':<40} {'--bootstrap 0':>14} {'default 1000':>13} {'added':>8}")
        for name, target in (
            (f"evaluate, 1 run x {len(walls)} walls", str(runs / "run-00.json")),
            (f"evaluate, 16 runs x {len(walls)} walls", str(runs)),
        ):
            base = [*OCW_HUB, "evaluate", target, *common]
            off, _ = _median([*base, "--bootstrap", "0"], env, args.repeat)
            on, _ = _median(base, env, args.repeat)
            flag = "ok" if on - off <= max(0.1 * off, 0.2) else "OVER"
            print(f"{name:<40} {off:>13.2f}s {on:>12.2f}s {on - off:>+7.2f}s [{flag}]")
        for name, seconds in _in_process(walls, runs, args.repeat):
            print(f"{name:<40} {'':>14} {seconds:>12.3f}s")


if __name__ == "__main__":
    main()
