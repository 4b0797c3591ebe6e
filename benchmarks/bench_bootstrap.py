"""What the bootstrap intervals cost ``ocw-hub evaluate``: whole commands on the stand-in's 494
test walls (1 run, and 16 runs with the two-level bootstrap), with ``--bootstrap 0`` and with
the default 1,000 resamples, and the intervals alone in process (the split's and every
season's: ``slices.add_intervals``).

Run: ``.venv/bin/python benchmarks/bench_bootstrap.py [--data ../shared/data/ocw/dataset]``.

Each command figure is the median of ``--repeat`` fresh processes after a warm-up, the two
commands run by turns, in wall and CPU seconds (CPU time moves less with the machine's load).
Target (issue 24): the default must not make ``evaluate`` noticeably slower: at most 10 % or
0.2 s more than ``--bootstrap 0``.
Measured on this 2-core machine (shared, load average 4-5; ``--repeat 5``), before and after
the intervals were computed in one pass (one value table, shared draws, every season in one
computation, BLAS on one thread):

============================  ======================  ======================
added by the default           before                  after
============================  ======================  ======================
1 run, wall / CPU              +0.27 s / +0.25 s       +0.19 s / +0.19 s
16 runs, wall / CPU            +2.92 s / +2.73 s       +0.37 s / +0.23 s
                               (3.8 s -> 6.7 s)        (3.7 s -> 4.0 s)
intervals alone, 1 run         0.19 s                  0.05 s
intervals alone, 16 runs       2.80 s                  0.30 s
============================  ======================  ======================

16 runs is at the target in CPU time (+0.23 s of 3.3 s) and at its edge in wall time, which
the machine's load moves by more than that from one run to the next.
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

from bench_evaluate import OCW_HUB, REPO, _cpu, offline_env, random_runs  # noqa: E402


def _interleaved(
    off: list[str], on: list[str], env: dict[str, str], repeat: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall, CPU) seconds of two commands in fresh processes, run by turns after a
    warm-up of each (so a change of the machine's load falls on both alike)."""
    times: dict[int, list[tuple[float, float]]] = {0: [], 1: []}
    for args in (off, on):
        _cpu(args, env)
    for _ in range(repeat):
        for which, args in enumerate((off, on)):
            start = time.perf_counter()
            cpu = _cpu(args, env)
            times[which].append((time.perf_counter() - start, cpu))
    med = [
        (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
        for ts in times.values()
    ]
    return med[0], med[1]


def _in_process(walls: list[dict], runs_folder: Path, repeat: int) -> list[tuple[str, float]]:
    """Median seconds of the intervals alone (scoring done once beforehand): what
    ``evaluate`` adds, the split's and every season's (``slices.add_intervals``)."""
    import copy

    from ocw_hub.evaluation import evaluate_files
    from ocw_hub.scoring.slices import add_intervals

    one = evaluate_files([runs_folder / "run-00.json"], "default", rows=walls, bootstrap=0)
    many = evaluate_files([runs_folder], "default", rows=walls, bootstrap=0)
    out = []
    for name, results in (
        ("intervals, 1 run, with seasons", one),
        ("intervals, 16 runs (two-level), with seasons", many),
    ):
        times = []
        for _ in range(repeat):
            fresh = copy.deepcopy(results)
            start = time.perf_counter()
            add_intervals(fresh, 1000, 0)
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
        print(f"{'':<32} {'--bootstrap 0':>13} {'default 1000':>13} {'added':>15}")
        print(f"{'command (wall s | CPU s)':<32} {'wall   CPU':>13} {'wall   CPU':>13}")
        for name, target in (
            (f"evaluate, 1 run x {len(walls)} walls", str(runs / "run-00.json")),
            (f"evaluate, 16 runs x {len(walls)} walls", str(runs)),
        ):
            base = [*OCW_HUB, "evaluate", target, *common]
            off, on = _interleaved([*base, "--bootstrap", "0"], base, env, args.repeat)
            added = [b - a for a, b in zip(off, on, strict=True)]
            flags = [
                "ok" if a <= max(0.1 * o, 0.2) else "OVER" for o, a in zip(off, added, strict=True)
            ]
            print(
                f"{name:<32} {off[0]:>5.2f} {off[1]:>6.2f}  {on[0]:>5.2f} {on[1]:>6.2f}  "
                f"{added[0]:>+5.2f} {added[1]:>+6.2f} [wall {flags[0]}, CPU {flags[1]}]"
            )
        for name, seconds in _in_process(walls, runs, args.repeat):
            print(f"{name:<46} {seconds:>6.3f} s")


if __name__ == "__main__":
    main()
