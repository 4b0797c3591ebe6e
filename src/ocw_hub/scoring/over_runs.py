"""The paper's summary of several runs of one system: mean and std over runs of every figure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..configs import CONFIGS

#: The tasks of every config, in report order (``ConfigSpec.tasks``).
TASKS = tuple(dict.fromkeys(task for spec in CONFIGS.values() for task in spec.tasks))


def summarize_runs(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``mean`` and ``std`` (``numpy.std``, population, as upstream
    ``task1_grouping_evaluation_batch``) over runs of every figure of every task the runs
    share: ``{"mean": {task: {figure: x}}, "std": {task: {figure: x}}}``. Counts of scored
    items (``n_walls``, ``n_questions``) are not averaged."""
    import numpy as np

    tasks = [t for t in (*TASKS, "groups") if all(t in run for run in runs)]
    mean: dict[str, dict[str, float]] = {}
    std: dict[str, dict[str, float]] = {}
    for task in tasks:
        figures = [k for k in runs[0][task] if k not in ("n_walls", "n_questions")]
        figures = [k for k in figures if all(run[task].get(k) is not None for run in runs)]
        values = {k: np.array([float(run[task][k]) for run in runs]) for k in figures}
        mean[task] = {k: float(v.mean()) for k, v in values.items()}
        std[task] = {k: float(v.std()) for k, v in values.items()}
    return {"mean": mean, "std": std}
