"""The ``ocw_metric`` evaluate module of this install, loadable from any folder."""

from __future__ import annotations

from functools import cache
from typing import Any

from ..resources import metric_dir

#: The metric's configs: OCW task 1, OCW task 2, WoTe spans.
METRIC_CONFIGS = ("grouping", "connections", "spans")


@cache
def load_metric(config_name: str) -> Any:
    """``evaluate.load`` of this install's ``metrics/ocw_metric`` folder, offline.

    Works from any working directory after ``pip install`` (the wheel carries the folder under
    ``ocw_hub/_hub/``), unlike ``evaluate.load("metrics/ocw_metric", ...)``, which resolves the
    path against the working directory. ``evaluate.load(str(ocw_hub.resources.metric_dir()),
    config_name)`` is the same call.

    Args:
        config_name: ``grouping`` (OCW task 1, figures on 0-1), ``connections`` (OCW task 2,
            0-1) or ``spans`` (WoTe, SQuAD v1.1 exact match and F1 on 0-100).

    Returns:
        An ``evaluate.EvaluationModule``; one instance per config and process.

    Raises:
        ValueError: unknown ``config_name``.
    """
    if config_name not in METRIC_CONFIGS:
        raise ValueError(
            f"unknown metric config {config_name!r}; expected one of {list(METRIC_CONFIGS)}"
        )
    import evaluate

    return evaluate.load(str(metric_dir()), config_name)
