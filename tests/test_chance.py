"""Chance levels (docs/statistics.md, "Chance levels"): the formulas by exact counting, the
vectorised simulation against the metric itself, and every number the docs' table states."""

from __future__ import annotations

import functools
import itertools
import json
import math
import random
import re
from pathlib import Path

import numpy as np
import pytest

from ocw_hub.resources import load_metric_module
from ocw_hub.scoring import chance
from ocw_hub.scoring.groups import wall_groups

ROOT = Path(__file__).resolve().parents[1]
TEST_SPLIT = ROOT.parent / "shared" / "data" / "ocw" / "dataset" / "test.json"
GOLD = np.repeat(np.arange(4), 4)


@functools.cache
def _simulated() -> dict[str, tuple[float, float]]:
    return chance.simulated()


def _real_walls() -> list[list[list[str]]]:
    if not TEST_SPLIT.exists():
        pytest.skip(f"{TEST_SPLIT}: the real data is not on this machine")
    rows = json.loads(TEST_SPLIT.read_text(encoding="utf-8"))["dataset"]
    return [[w["groups"][g]["gt_words"] for g in sorted(w["groups"])] for w in rows]


def test_exact_counts() -> None:
    """The closed forms, by enumeration: partitions, groups of 4, near misses."""
    assert chance.N_PARTITIONS == 2_627_625
    subsets = list(itertools.combinations(range(16), 4))
    spreads = [np.bincount(GOLD[list(s)], minlength=4) for s in subsets]
    assert len(subsets) == chance.N_SUBSETS == 1820
    assert sum(max(c) == 3 for c in spreads) == chance.N_NEAR == 192
    # a gold group is a predicted group: the 3 clues placed with clue 0 are clues 1-3
    with_first = [s for s in subsets if 0 in s]
    assert sum(set(s) == {0, 1, 2, 3} for s in with_first) / len(with_first) == 1 / 455
    levels = chance.exact()
    assert levels["correct_groups_rate"] == 1 / 455
    assert levels["near_miss_rate"] == 192 / 1820
    assert levels["decoy_share"] == 192 / 1816
    # FMS: E[n_ij^2] of the hypergeometric cell (4 draws, 4 of 16) is 1.6
    cell = sum(k * k * math.comb(4, k) * math.comb(12, 4 - k) for k in range(5)) / 1820
    assert cell == pytest.approx(1.6)
    assert (16 * cell - 16) / 48 == pytest.approx(levels["fms"])


def test_vectorised_figures_equal_the_metric() -> None:
    """Per partition, :func:`chance.wall_figures` equals the metric's ``score_wall`` and
    ``wall_groups`` on a real-shaped wall (distinct clues)."""
    metric = load_metric_module("grouping")
    gold = [[f"c{g}{k}" for k in range(4)] for g in range(4)]
    labels = chance.random_labels(300, seed=1)
    labels[0] = GOLD  # the gold partition itself, and one with a near miss
    labels[1] = [0, 0, 0, 1, 1, 1, 1, 0, 2, 2, 2, 2, 3, 3, 3, 3]
    figures = chance.wall_figures(labels)
    for i, row in enumerate(labels):
        seen = [0, 0, 0, 0]
        clues = []
        for g in row:
            clues.append(gold[g][seen[g]])
            seen[g] += 1
        predicted = [clues[k : k + 4] for k in range(0, 16, 4)]
        scores = metric.score_wall(predicted, gold)
        groups = wall_groups(predicted, gold, ["g1", "g2", "g3", "g4"], [1, 1, 0, 0])
        assert figures["wd"][i] == scores["wd"]
        assert figures["fms"][i] == pytest.approx(scores["fms"], abs=1e-12)
        assert figures["correct_groups"][i] == scores["correct_groups"]
        for key in ("misplaced_clues", "near_misses", "wrong_groups", "decoys"):
            assert figures[key][i] == groups[key], key


def test_simulation_agrees_with_the_exact_levels() -> None:
    simulated = _simulated()
    levels = chance.exact()
    for key in ("fms", "correct_groups_rate", "near_miss_rate", "decoy_share"):
        mean, se = simulated[key]
        assert abs(mean - levels[key]) < 4 * se, key
    for key, stated in chance.SIMULATED.items():
        mean, se = simulated[key]
        assert abs(mean - stated) < 0.0005 + 4 * se, key


def test_metric_on_real_walls_agrees() -> None:
    """Random partitions of each of the 494 real walls, scored by the metric: the mean of
    wd and fms within 3 standard errors of the simulation, and AMI and ARI of 0."""
    metric = load_metric_module("grouping")
    rng = random.Random(0)
    scores = []
    for gold in _real_walls():
        for _ in range(4):
            clues = [c for group in gold for c in group]
            rng.shuffle(clues)
            scores.append(metric.score_wall([clues[k : k + 4] for k in range(0, 16, 4)], gold))
    simulated = _simulated()
    for key, level in (("wd", simulated["wd"][0]), ("fms", 0.2), ("ami", 0.0), ("ari", 0.0)):
        values = np.array([s[key] for s in scores], dtype=float)
        se = values.std(ddof=1) / math.sqrt(len(values))
        assert abs(values.mean() - level) < 3 * se, key


def _docs_table() -> dict[str, str]:
    text = (ROOT / "docs" / "statistics.md").read_text(encoding="utf-8")
    section = text.split("## Chance levels", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1].startswith("`"):
            rows[cells[1]] = cells[2]
    return rows


def test_the_docs_state_the_computed_levels() -> None:
    rows = _docs_table()
    levels = chance.exact()
    simulated = _simulated()
    expected = {
        "`full_wall_rate`": levels["full_wall_rate"],
        "`full_wall` (494 walls)": 494 * levels["full_wall_rate"],
        "`correct_groups_rate`": levels["correct_groups_rate"],
        "`correct_groups` (494 walls)": 494 * levels["correct_groups_per_wall"],
        "`ami`": levels["ami"],
        "`ari`": levels["ari"],
        "`fms`": levels["fms"],
        "`near_miss_rate`": levels["near_miss_rate"],
        "`decoy_share`": levels["decoy_share"],
        "`exact_match`": levels["exact_match"],
        "`wd`": simulated["wd"][0],
        "`misplaced_clue_rate`": simulated["misplaced_clue_rate"][0],
    }
    assert set(expected) <= set(rows)
    for figure, value in expected.items():
        stated = rows[figure]
        digits = stated.split("e")[0].partition(".")[2]
        step = 10.0 ** -len(digits) * (10.0 ** int(stated.split("e")[1]) if "e" in stated else 1)
        assert abs(float(stated) - value) <= step / 2 + 1e-15, (figure, stated, value)
    # the simulated rows also state mean ± standard error of the seeded simulation
    how = (ROOT / "docs" / "statistics.md").read_text(encoding="utf-8")
    for key in ("wd", "misplaced_clue_rate"):
        mean, se = simulated[key]
        assert re.search(rf"`{key}` \| [^|]+ \| simulated: {mean:.4f} ± {se:.4f} \|", how), key
    # found_by rates: formulas of h, checked against chance_level
    h = 0.6
    for figure, value in (
        ("both", h / 455),
        ("model_only", (1 - h) / 455),
        ("contestants_only", 454 * h / 455),
        ("neither", 454 * (1 - h) / 455),
    ):
        level = chance.chance_level("groups", f"found_by_{figure}_rate", 494, h)
        assert level == pytest.approx(value)
        assert f"`found_by_{figure}_rate`" in rows


def test_chance_level_of_each_figure() -> None:
    assert chance.chance_level("grouping", "correct_groups", 2, None) == pytest.approx(8 / 455)
    assert chance.chance_level("grouping", "full_wall", 494, None) == pytest.approx(494 / 2_627_625)
    assert chance.chance_level("grouping", "wd", 5, None) == chance.SIMULATED["wd"]
    assert chance.chance_level("connections", "exact_match", 5, None) == 0
    assert chance.chance_level("connections", "rouge1", 5, None) is None
    assert chance.chance_level("groups", "decoy_share", 5, None) == 192 / 1816
    assert chance.chance_level("groups", "found_by_both_rate", 5, None) is None


def test_experiment_docs_give_the_random_baseline_its_chance_level() -> None:
    text = (ROOT / "docs" / "experiment.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| random |"))
    assert row.split("|")[4].strip() == f"{494 * 4 / 455:.2f}"
