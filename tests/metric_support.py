"""Shared by the metric tests (``tests/test_metric*.py``): the metric's pure modules imported by
path, the hand-made wall W = A, B, C, D, and the ``loaded`` fixture (the three configs through
``evaluate.load``, registered for the suite by ``tests/conftest.py``).
"""

from __future__ import annotations

import math
from pathlib import Path

import evaluate
import pytest

from ocw_hub.resources import load_metric_module

REPO_ROOT = Path(__file__).resolve().parents[1]
METRIC_DIR = REPO_ROOT / "metrics" / "ocw_metric"

# The metric's pure modules (metrics/ocw_metric/<name>.py), imported by path
inputs = load_metric_module("inputs")
partition = load_metric_module("partition")
grouping = load_metric_module("grouping")
connections = load_metric_module("connections")
spans = load_metric_module("spans")

A = ["a1", "a2", "a3", "a4"]
B = ["b1", "b2", "b3", "b4"]
C = ["c1", "c2", "c3", "c4"]
D = ["d1", "d2", "d3", "d4"]
WALL = [A, B, C, D]
GOLD_CONN = ["Famous Mels", "Household tools", "Cocktails", "Monkey ___"]

LN2, LN3, LN4 = math.log(2), math.log(3), math.log(4)
EMI_4X4 = (396 * 2 * LN2 + 48 * 3 * LN3 + 1 * 4 * LN4) / 1820  # ~0.391603


def score(pred: list[list[str]], gold: list[list[str]] = WALL) -> dict:
    return grouping.score_wall(pred, gold)


@pytest.fixture(scope="module")
def loaded(request: pytest.FixtureRequest) -> dict[str, evaluate.EvaluationModule]:
    mp = pytest.MonkeyPatch()
    mp.chdir(REPO_ROOT)  # the documented relative path, from the repo root
    try:
        return {name: evaluate.load("metrics/ocw_metric", name) for name in cs_configs()}
    finally:
        mp.undo()


def cs_configs() -> tuple[str, ...]:
    return ("grouping", "connections", "spans")
