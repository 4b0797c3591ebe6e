"""``ocw-hub evaluate`` and every command's ``--help`` against their floors, as paired whole
processes, in CPU seconds (user + system, less moved by the machine's load than wall time).

Run: ``.venv/bin/python benchmarks/bench_floor.py [--data ../shared/data/ocw/dataset]
[--repeat 5] [--copies 1 10]``.

For each size (the 494 test walls times each ``--copies``), one round runs, one after the
other: ``evaluate`` of one run (default 1,000 bootstrap resamples, and ``--bootstrap 0``),
the floor on it (``floor_score.py``: the metric's per-wall code on the split and the file,
nothing else), then the same for a folder of 16 runs; ``--repeat`` rounds, medians printed
with the ratio to the floor, the bootstrap's share of ``evaluate`` and the load average. The
floor's figures are checked against ``evaluate``'s first (they must agree exactly). Then the
CPU time of ``ocw-hub --help`` and of each command's ``--help`` (the floor: a bare
``python -c pass``), median of ``--repeat``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import _big_release, _cpu, offline_env, random_runs  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OCW_HUB = [sys.executable, "-m", "ocw_hub"]
FLOOR = [sys.executable, str(REPO / "benchmarks" / "floor_score.py")]


def _agree(evaluated: Path, floor: Path) -> float:
    """The largest difference between the floor's figures and ``evaluate``'s."""
    results = json.loads(evaluated.read_text(encoding="utf-8"))
    figures = json.loads(floor.read_text(encoding="utf-8"))
    pairs = []
    for level in ("mean", "std") if "mean" in figures else (None,):
        ours = results if level is None else results[level]
        theirs = figures if level is None else figures[level]
        for task, values in theirs.items():
            pairs += [(ours[task][k], v) for k, v in values.items() if k != "n_walls"]
    return max(abs(float(a) - float(b)) for a, b in pairs)


def _size(data: Path, walls: list[dict], copies: int, tmp: Path, env: dict, repeat: int) -> None:
    rng = random.Random(copies)
    if copies == 1:
        split, folder = data / "test.json", data
    else:
        folder = tmp / f"x{copies}"
        walls = _big_release(walls, copies, folder)
        split = folder / "test.json"
    runs = random_runs(walls, tmp / f"runs-x{copies}", rng)
    one = runs / "run-00.json"
    checks = [] if copies == 1 else ["--no-checks"]
    base = ["evaluate", "--data-dir", str(folder), *checks]
    commands = {}
    for label, target in (("1 run", one), ("16 runs", runs)):
        commands[f"evaluate, {label}"] = [*OCW_HUB, *base, str(target)]
        commands[f"evaluate --bootstrap 0, {label}"] = [
            *OCW_HUB,
            *base,
            "--bootstrap",
            "0",
            str(target),
        ]
        commands[f"floor, {label}"] = [*FLOOR, str(split), str(target)]
        out, fig = tmp / "ev.json", tmp / "floor.json"
        _cpu([*OCW_HUB, *base, str(target), "--out", str(out)], env)  # warm-up, AMI memo
        _cpu([*FLOOR, str(split), str(target), "--out", str(fig)], env)
        print(f"{len(walls)} walls, {label}: floor and evaluate differ by {_agree(out, fig):.1e}")
        out.unlink()
    times: dict[str, list[float]] = {name: [] for name in commands}
    loads = [os.getloadavg()[0]]
    for _ in range(repeat):
        for name, command in commands.items():
            times[name].append(_cpu(command, env))
        loads.append(os.getloadavg()[0])
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{len(walls)} walls (load average {min(loads):.1f}-{max(loads):.1f}):")
    for name, seconds in median.items():
        label = name.split(", ")[1]
        floor = median[f"floor, {label}"]
        print(f"  {name:<34} {seconds:6.3f} s CPU  {seconds / floor:5.2f} x the floor")
    for label in ("1 run", "16 runs"):
        with_ci, without = median[f"evaluate, {label}"], median[f"evaluate --bootstrap 0, {label}"]
        print(f"  bootstrap's share, {label}: +{(with_ci / without - 1) * 100:.1f} %")


def _help(env: dict, repeat: int) -> None:
    from ocw_hub.cli import COMMANDS

    calls = [["--help"], *([name, "--help"] for name in COMMANDS)]
    bare = statistics.median(_cpu([sys.executable, "-c", "pass"], env) for _ in range(repeat))
    print(
        f"--help, CPU s (median of {repeat}; bare python {bare:.3f} s; load "
        f"{os.getloadavg()[0]:.1f}):"
    )
    for args in calls:
        seconds = statistics.median(_cpu([*OCW_HUB, *args], env) for _ in range(repeat))
        print(f"  ocw-hub {' '.join(args):<26} {seconds:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/ocw/dataset")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--copies", type=int, nargs="+", default=[1])
    parser.add_argument("--no-help", action="store_true")
    args = parser.parse_args()
    walls = json.loads((args.data / "test.json").read_text(encoding="utf-8"))["dataset"]
    with tempfile.TemporaryDirectory() as tmp:
        env = offline_env(Path(tmp))
        for copies in args.copies:
            _size(args.data, walls, copies, Path(tmp), env, args.repeat)
        if not args.no_help:
            _help(env, args.repeat)


if __name__ == "__main__":
    main()
