"""Benchmark the scoring code of ``metrics/ocw_metric`` on the OCW test split.

Usage (from the repository root)::

    python benchmarks/bench_metric.py [DATASET_DIR] [--repeat N] [--copies K] [--quick]

``DATASET_DIR`` defaults to ``../shared/data/ocw/dataset`` relative to the repository root
and must hold ``test.json`` in the official release layout (494 test walls).

Grouping predictions are deterministic and imperfect: per wall, a seeded RNG
(``random.Random(seed)``) either keeps the gold wall (1 in 4 walls), swaps two clues between
two groups, or shuffles all 16 clues; groups are then shuffled. The large case is the 494
walls repeated ``--copies`` times (default 100: 49,400 walls), copy ``r`` with seed ``r``,
as 100 runs of a model would be.

Printed, each with its wall time (best of ``--repeat``; every run starts with empty caches)
and the peak of Python memory allocations (``tracemalloc``, a separate run):

* grouping through ``grouping.grouping_scores`` (what ``ocw-hub evaluate`` calls), on
  494 and on 49,400 walls: the new path (AMI, ARI, FMS from the 4 x k contingency table) and,
  measured in the same run, the old path (scikit-learn's public scorers called per wall,
  memoised per table as before). Both must give identical figures; the script checks it.
* grouping and connections through ``evaluate.load(<metric folder>)`` on 494 walls.

Reference figures from issue 9 (this machine, before this change): scikit-learn's per-call
input validation about 2.4 ms a wall; the paper's grouping script 3.3 s for 494 walls.
Targets: 49,400 walls in well under 20 s (the whole ``ocw-hub evaluate``), memory growing
linearly with the number of walls. ``--quick`` skips the old path on the large case
(about 2 minutes).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
import tracemalloc
from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

from ocw_hub.resources import load_metric_module, metric_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASET = REPO_ROOT.parent / "shared" / "data" / "ocw" / "dataset"

grouping = load_metric_module("grouping")
partition = load_metric_module("partition")
connections = load_metric_module("connections")


def load_walls(dataset_dir: Path) -> list[dict[str, Any]]:
    """Walls of ``test.json`` (``{"dataset": [walls]}``) in ``dataset_dir``."""
    with open(dataset_dir / "test.json", encoding="utf-8") as f:
        return json.load(f)["dataset"]


def gold_groups(wall: dict[str, Any]) -> list[list[str]]:
    return [wall["groups"][f"group_{g}"]["gt_words"] for g in range(1, 5)]


def imperfect_groupings(walls: list[dict[str, Any]], seed: int = 0) -> list[list[list[str]]]:
    """Deterministic imperfect predictions (see the module docstring)."""
    rng = random.Random(seed)
    out = []
    for wall in walls:
        groups = [list(g) for g in gold_groups(wall)]
        mode = rng.randrange(4)
        if mode in (1, 2):  # swap one clue between two groups
            a, b = rng.sample(range(4), 2)
            i, j = rng.randrange(4), rng.randrange(4)
            groups[a][i], groups[b][j] = groups[b][j], groups[a][i]
        elif mode == 3:  # shuffle the whole wall
            clues = [c for g in groups for c in g]
            rng.shuffle(clues)
            groups = [clues[k : k + 4] for k in range(0, 16, 4)]
        rng.shuffle(groups)
        out.append(groups)
    return out


def imperfect_connections(walls: list[dict[str, Any]]) -> list[list[str]]:
    return [
        [c if k % 2 == 0 else "something else" for k, c in enumerate(wall["gt_connections"])]
        for wall in walls
    ]


class old_path:  # noqa: N801 - used as a context manager, reads like a mode
    """Within the block, AMI, ARI and FMS come from scikit-learn's public scorers, one call
    each per distinct contingency table (the code before issue 9 called them per wall,
    memoised per labeling)."""

    def __enter__(self) -> None:
        self.saved = partition._partition_scores
        partition._partition_scores = lru_cache(maxsize=65536)(partition.partition_scores_public)

    def __exit__(self, *exc: object) -> None:
        partition._partition_scores = self.saved


def measure(
    fn: Callable[[], Any], repeat: int, scorers: tuple[ModuleType, ...] = (grouping, connections)
) -> tuple[float, float, Any]:
    """(best seconds over ``repeat`` cold runs, peak traced MiB of one more run, result).

    ``scorers`` are the grouping and connections modules whose caches are emptied before each run
    (``evaluate.load`` imports its own copies of the files)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        for scorer in scorers:
            scorer.clear_caches()
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    for scorer in scorers:
        scorer.clear_caches()
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak, result


def line(label: str, n: int, seconds: float, peak: float) -> str:
    return (
        f"{label:44s} {n:>7,} walls  {seconds:8.3f} s  {1000 * seconds / n:7.4f} ms/wall  "
        f"peak {peak:8.1f} MiB"
    )


def _figures(result: dict[str, Any]) -> dict[str, Any]:
    return {k: result[k] for k in ("wd", "ami", "ari", "fms", "correct_groups", "full_wall")}


def bench_grouping(
    name: str, preds: list, refs: list, repeat: int, with_old: bool
) -> dict[str, float]:
    """Time the new path (and the old one) on one input; check both give the same figures."""
    n = len(preds)
    new_s, new_peak, new = measure(lambda: grouping.grouping_scores(preds, refs, True), repeat)
    print(line(f"grouping {name}: contingency table (new)", n, new_s, new_peak))
    out = {"new_s": new_s, "new_peak": new_peak}
    if with_old:
        with old_path():
            old_s, old_peak, old = measure(lambda: grouping.grouping_scores(preds, refs, True), 1)
        print(line(f"grouping {name}: sklearn per call (old)", n, old_s, old_peak))
        assert old["per_item"] == new["per_item"], "old and new paths disagree"
        print(f"{'':44s} speed-up x{old_s / new_s:.1f}; per-wall figures identical")
        out.update(old_s=old_s, old_peak=old_peak)
    print(f"{'':44s} {_figures(new)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset_dir", nargs="?", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; best is shown")
    parser.add_argument("--copies", type=int, default=100, help="copies of the split (large)")
    parser.add_argument("--quick", action="store_true", help="no old path on the large case")
    args = parser.parse_args()

    walls = load_walls(args.dataset_dir)
    n = len(walls)
    refs = [gold_groups(w) for w in walls]
    preds = imperfect_groupings(walls)
    large_preds = [p for r in range(args.copies) for p in imperfect_groupings(walls, seed=r)]
    large_refs = refs * args.copies

    small = bench_grouping(f"{n}", preds, refs, args.repeat, with_old=True)
    large = bench_grouping(
        f"{len(large_refs)}", large_preds, large_refs, 1, with_old=not args.quick
    )
    print(
        f"{'':44s} memory x{large['new_peak'] / small['new_peak']:.0f} for "
        f"x{args.copies} walls; time x{large['new_s'] / small['new_s']:.0f}"
    )

    import evaluate

    grouping_metric = evaluate.load(str(metric_dir()), "grouping")
    connections_metric = evaluate.load(str(metric_dir()), "connections")
    conn_refs = [w["gt_connections"] for w in walls]
    conn_preds = imperfect_connections(walls)
    package = type(grouping_metric).__module__.rsplit(".", 1)[0]
    scorers = tuple(import_module(f"{package}.{name}") for name in ("grouping", "connections"))
    for name, fn in (
        (
            "grouping via evaluate.load",
            lambda: grouping_metric.compute(predictions=preds, references=refs),
        ),
        (
            "connections via evaluate.load",
            lambda: connections_metric.compute(predictions=conn_preds, references=conn_refs),
        ),
    ):
        seconds, peak, result = measure(fn, args.repeat, scorers)
        print(line(name, n, seconds, peak))
        print(f"{'':44s} {result}")
    print(
        "reference (issue 9, before): sklearn input validation ~2.4 ms/wall; "
        "the paper's grouping script 3.3 s for 494 walls"
    )


if __name__ == "__main__":
    main()
