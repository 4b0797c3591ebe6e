"""Benchmark the local ``ocw_metric`` on the 494-wall OCW test split.

Usage (from the repository root)::

    python benchmarks/bench_metric.py [DATASET_DIR] [--repeat N]

``DATASET_DIR`` defaults to ``../shared/data/ocw/dataset`` relative to the repository root
and must hold ``test.json`` in the official release layout. Scores, through
``evaluate.load("metrics/ocw_metric", ...)``:

* ``grouping``: deterministic imperfect predictions - per wall, a seeded RNG
  (``random.Random(0)``) either keeps the gold wall (1 in 4 walls), swaps two clues
  between two groups, or shuffles all 16 clues; groups are then shuffled;
* ``connections``: the gold connections with every second one replaced by a wrong
  string (no BERTScore).

Prints walls per second and seconds (best of ``--repeat`` runs) for each, plus the scores.
Target: each under 1 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from importlib import import_module
from pathlib import Path
from typing import Any

import evaluate

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASET = REPO_ROOT.parent / "shared" / "data" / "ocw" / "dataset"
METRIC_PATH = str(REPO_ROOT / "metrics" / "ocw_metric")


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
        if mode == 1 or mode == 2:  # swap one clue between two groups
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


def _time(fn: Any, repeat: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset_dir", nargs="?", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--repeat", type=int, default=3, help="runs per task; best is shown")
    args = parser.parse_args()

    walls = load_walls(args.dataset_dir)
    n = len(walls)
    refs = [gold_groups(w) for w in walls]
    preds = imperfect_groupings(walls)
    conn_refs = [w["gt_connections"] for w in walls]
    conn_preds = imperfect_connections(walls)

    grouping = evaluate.load(METRIC_PATH, "grouping")
    connections = evaluate.load(METRIC_PATH, "connections")

    # The scorer memoises AMI, ARI, FMS and WD per label pattern; clear those caches before
    # every run so the figure is the cold-cache time of a fresh process.
    cs = import_module(type(grouping).__module__.rsplit(".", 1)[0] + ".compute_score")

    def run_grouping() -> Any:
        for cached in (cs._ami, cs._ari, cs._fms, cs._wd_pair):
            cached.cache_clear()
        return grouping.compute(predictions=preds, references=refs)

    def run_connections() -> Any:
        return connections.compute(predictions=conn_preds, references=conn_refs)

    for name, fn in (("grouping", run_grouping), ("connections", run_connections)):
        seconds, result = _time(fn, args.repeat)
        print(f"{name:12s} {n} walls  {seconds:.3f} s  {n / seconds:,.0f} walls/s")
        print(f"{'':12s} {result}")


if __name__ == "__main__":
    main()
