"""The floor of ``ocw-hub evaluate``: the headline figures of OCW predictions with the metric's
own per-wall code (``metrics/ocw_metric``: NumPy and the standard library) and nothing else:
no CLI, no checks of the split or the files, no provenance, red-herring figures, seasons,
per-wall records nor bootstrap.

Run: ``python benchmarks/floor_score.py SPLIT.json PRED.json|RUNS_DIR [--out FIGURES.json]``.

Prints (or writes) ``{"grouping": {...}, "connections": {...}}`` for one predictions file, or
``{"mean": ..., "std": ...}`` (``numpy.std``, population) over the ``run-*.json`` of a folder:
the figures ``evaluate`` reports, which ``bench_floor.py`` compares. AMI's margin terms are
read from ``evaluate``'s memo when present (as ``evaluate`` does), so scikit-learn is not
imported for margins already seen.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

METRIC = Path(__file__).resolve().parents[1] / "metrics" / "ocw_metric"


def _metric(name: str):  # type: ignore[no-untyped-def]
    """``metrics/ocw_metric/<name>.py``, imported by path as a package module."""
    if "floor_metric" not in sys.modules:
        spec = importlib.machinery.ModuleSpec("floor_metric", None, is_package=True)
        spec.submodule_search_locations = [str(METRIC)]
        sys.modules["floor_metric"] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"floor_metric.{name}")


def _load_memo() -> None:
    """Fill the metric's AMI margin memo from evaluate's file, if one is there."""
    root = os.environ.get("OCW_HUB_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "ocw_hub"
    )
    memo = _metric("partition").margin_terms()
    for path in sorted(Path(root).glob("ami-margins-sklearn-*.json")):
        for rows, cols, emi, entropy in json.loads(path.read_text(encoding="utf-8")):
            memo.setdefault((tuple(rows), tuple(cols)), (float(emi), float(entropy)))


def score(walls: list[dict], predictions: list[dict]) -> dict[str, dict[str, float]]:
    """The grouping and connection figures of one predictions file on ``walls``."""
    grouping, connections = _metric("grouping"), _metric("connections")
    by_id = {p["wall_id"]: p for p in predictions}
    gold_groups = [[[str(c) for c in g["gt_words"]] for g in w["groups"].values()] for w in walls]
    preds = [by_id[w["wall_id"]] for w in walls]
    pairs = zip(preds, gold_groups, strict=True)
    items = [grouping.score_wall(p["predicted_groups"], g) for p, g in pairs]
    figures = {"grouping": grouping.aggregate_grouping(items)}
    figures["connections"] = connections.connection_scores(
        [p["predicted_connections"] for p in preds],
        [w["gt_connections"] for w in walls],
        validate=False,
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("split", type=Path)
    parser.add_argument("predictions", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    walls = json.loads(args.split.read_text(encoding="utf-8"))["dataset"]
    _load_memo()
    files = sorted(args.predictions.glob("run-*.json")) if args.predictions.is_dir() else []
    if not files:
        result = score(walls, json.loads(args.predictions.read_text(encoding="utf-8")))
    else:
        import numpy as np

        runs = [score(walls, json.loads(f.read_text(encoding="utf-8"))) for f in files]
        result = {"mean": {}, "std": {}}
        for task, figures in runs[0].items():
            keys = [k for k, v in figures.items() if k != "n_walls" and v is not None]
            values = {k: np.array([float(run[task][k]) for run in runs]) for k in keys}
            result["mean"][task] = {k: float(v.mean()) for k, v in values.items()}
            result["std"][task] = {k: float(v.std()) for k, v in values.items()}
    text = json.dumps(result, indent=1)
    if args.out is None:
        print(text)
    else:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
