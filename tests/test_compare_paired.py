"""The paired test of ``ocw-hub compare`` (:mod:`ocw_hub.scoring.paired`): the sign-flip
permutation test by hand and against SciPy, Holm's adjustment by hand, type-I error and power
by seeded simulation with a known answer (the figures ``docs/statistics.md`` reports), the
family of the adjustment, and play logs ranked by their play figures."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from play_support import FIXTURE, human_log
from scipy import stats
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.scoring import paired
from ocw_hub.scoring.compare import System, rank

runner = CliRunner()


def test_sign_flip_by_hand() -> None:
    one = np.array([0.9])
    assert paired.sign_flip_p_value(one, one - 0.5, 10_000, 0) == 1.0  # 1 wall: never below 1
    # 2 walls, both better: 2 of the 4 sign vectors are as extreme (++, --)
    assert paired.sign_flip_p_value(np.ones(2), np.zeros(2), 10_000, 0) == 0.5
    # 5 walls all better: 2 / 32, above 0.05 however large the difference
    assert paired.sign_flip_p_value(np.ones(5), np.zeros(5), 10_000, 0) == 2 / 32
    same = np.array([0.1, 0.5, 0.9])
    assert paired.sign_flip_p_value(same, same, 100, 0) == 1.0
    # equal walls change no sum: 3 of 494 walls differ, tested exactly on them (2 / 8)
    a, b = np.zeros(494), np.zeros(494)
    a[:3] = 1.0
    assert paired.sign_flip_p_value(a, b, 100, 0) == 0.25
    # many walls all better: no random sign vector is as extreme, the least p, 1 / (N + 1)
    assert paired.sign_flip_p_value(np.ones(40), np.zeros(40), 999, 0) == 1 / 1000
    with pytest.raises(ValueError, match="shape"):
        paired.sign_flip_p_value(same, same[:2], 100, 0)


@pytest.mark.parametrize("n", [3, 8, 13, 16])
def test_exact_sign_flip_equals_scipy(n: int) -> None:
    """SciPy's ``permutation_test`` (``permutation_type='samples'``) enumerates every sign
    vector when asked for more resamples than there are; its two-sided p is ours."""
    d = np.random.default_rng(n).normal(0.3, 1.0, n)
    theirs = stats.permutation_test(
        (d,),
        lambda x, axis: np.mean(x, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=1 << 20,
    ).pvalue
    assert paired.sign_flip_p_value(d, np.zeros(n), 10, 0) == pytest.approx(theirs, abs=1e-12)


def test_columns_drawn_together_are_tested_alone() -> None:
    rng = np.random.default_rng(3)
    diffs = rng.normal(0.05, 0.3, (60, 4))
    diffs[5:, 2] = 0.0  # a column of 5 differing walls: exact
    together = paired.paired_p_values(diffs, 2000, 7)
    alone = [paired.paired_p_values(diffs[:, [k]], 2000, 7)[0] for k in range(4)]
    assert together.tolist() == alone
    assert together[2] == paired.sign_flip_p_value(diffs[:5, 2], np.zeros(5), 1, 0)
    # seeded: the same draws give the same p; another seed other draws
    assert paired.paired_p_values(diffs, 2000, 7).tolist() == together.tolist()
    assert paired.paired_p_values(diffs, 2000, 8).tolist() != together.tolist()


def test_holm_by_hand() -> None:
    """Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04; then the
    running maximum: 0.02, 0.03, 0.06, 0.06 (the 0.04 may not be below the 0.03's 0.06)."""
    assert paired.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert paired.holm([0.5, 0.3]) == pytest.approx([0.6, 0.6])  # capped at 1, ordered
    assert paired.holm([0.6, 0.9]) == [1.0, 1.0]
    assert paired.holm([0.02]) == [0.02] and paired.holm([]) == []


def _benchmarks(
    rng: np.random.Generator, n: int, kind: str, effect: float, count: int
) -> tuple[np.ndarray, float]:
    """Per-wall differences of ``count`` simulated pairs of systems on ``n`` walls, and their
    standard deviation. Continuous (as AMI): each wall a difficulty shared by both systems
    plus noise of sd 0.2 each, system A better by ``effect``. Binary (as full_wall): each
    wall solved with probability 0.3 by B, 0.3 + effect by A, independently."""
    if kind == "continuous":
        wall = rng.random((n, count))
        a = wall + 0.2 * rng.standard_normal((n, count)) + effect
        b = wall + 0.2 * rng.standard_normal((n, count))
        return a - b, 0.2 * math.sqrt(2)
    a = (rng.random((n, count)) < 0.3 + effect).astype(float)
    b = (rng.random((n, count)) < 0.3).astype(float)
    return a - b, math.sqrt(0.21 + (0.3 + effect) * (0.7 - effect))


def _normal_power(effect: float, sd: float, n: int) -> float:
    """The power of a two-sided level-0.05 test of a mean difference (normal approximation)."""
    z = effect * math.sqrt(n) / sd
    phi = stats.norm.cdf
    return float(phi(z - 1.959964) + phi(-z - 1.959964))


#: (walls, kind, effect for about 80 % power, measured rejection rate under the null, measured
#: power): the figures of docs/statistics.md, from 2,000 benchmarks each with 999 sign vectors.
SIMULATED = [
    (40, "continuous", 0.125, 0.0510, 0.7695),
    (494, "continuous", 0.0357, 0.0455, 0.7880),
    (40, "binary", 0.3, 0.03, 0.712),
    (494, "binary", 0.085, 0.0465, 0.7855),
]


@pytest.mark.parametrize(("n", "kind", "effect", "size", "power"), SIMULATED)
def test_type_one_error_and_power(
    n: int, kind: str, effect: float, size: float, power: float
) -> None:
    """No difference: the test rejects at level 0.05 in at most 5 % of 2,000 simulated pairs,
    within the noise of the estimate (3 standard errors, 1.5 points; the paired bootstrap it
    replaced rejected 7.6 % at 40 walls). A difference the normal approximation gives 80 %
    power: the measured power within 5 points of it (the binary test on 40 walls is
    conservative, by the discreteness of a sign test on a few differing walls)."""
    rng = np.random.default_rng(n + len(kind))
    count = 2000
    null, _ = _benchmarks(rng, n, kind, 0.0, count)
    rejected = float(np.mean(paired.paired_p_values(null, 999, 1) <= 0.05))
    assert rejected <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / count)
    shifted, sd = _benchmarks(rng, n, kind, effect, count)
    found = float(np.mean(paired.paired_p_values(shifted, 999, 2) <= 0.05))
    expected = _normal_power(effect, sd, n)
    assert 0.78 <= expected <= 0.82
    assert abs(found - expected) <= (0.12 if (n, kind) == (40, "binary") else 0.05)
    assert (rejected, found) == pytest.approx((size, power))  # the documented figures


def _system(label: str, values: np.ndarray) -> System:
    per_wall = {f"w{i}": float(v) for i, v in enumerate(values)}
    results = {"config": "default", "split": "test"}
    return System(
        label, results, float(values.mean()), None, [0.0, 0.0], per_wall, 0, 0, frozenset(per_wall)
    )


def test_holm_over_every_pair_holds_the_family_wise_error() -> None:
    """Ten systems of equal quality on 40 walls (300 simulated comparisons): the observed
    best is picked from the data, so testing it against the nine others unadjusted finds a
    difference in most comparisons, and Holm over those nine still in about 11 %; Holm over
    all 45 pairs (``rank``'s ``p_holm``) keeps any false difference at most 5 %."""
    rng = np.random.default_rng(11)
    raw = best_only = every_pair = 0
    reps = 300
    for rep in range(reps):
        values = rng.beta(2, 5, size=(10, 40))
        ordered = rank([_system(f"s{k}", v) for k, v in enumerate(values)], "ami", 999, rep)
        p = [s.p_value for s in ordered[1:]]
        assert all(s.walls_in_common == 40 for s in ordered)
        raw += min(p) <= 0.05
        best_only += min(paired.holm(p)) <= 0.05
        every_pair += min(s.p_holm for s in ordered[1:]) <= 0.05
    assert raw / reps > 0.4 and best_only / reps > 0.07
    assert every_pair / reps <= 0.05
    assert (raw / reps, best_only / reps, every_pair / reps) == pytest.approx(
        (0.6233, 0.1267, 0.0133), abs=1e-3
    )


def test_play_logs_rank_by_play_figures(tmp_path: Path) -> None:
    """Two people's sessions: ana solves 46fa44 in 3 guesses (4 groups) and names 3
    connections (7 points) and gives up on 740d45 (0); bo gives up on 46fa44 (0). Ranked by
    points: ana 7, bo 0, on the one wall both played (p = 1: one wall can show nothing);
    the contestants on the walls of the first system given."""
    from play_support import fixture_rows

    rows = {w["wall_id"]: w for w in fixture_rows()}
    groups = [g["gt_words"] for g in rows["46fa44"]["groups"].values()]

    def guess(wall_id: str, turn: int, clues: list[str]) -> dict[str, Any]:
        return {
            "record": "guess",
            "wall_id": wall_id,
            "turn": turn,
            "clues": clues,
            "invalid": None,
            "verdict": "correct",
        }

    ana = human_log(
        tmp_path / "ana.jsonl",
        [
            *(guess("46fa44", t + 1, groups[g]) for t, g in enumerate((3, 0, 2))),
            {
                "record": "connections",
                "wall_id": "46fa44",
                "groups": [groups[i] for i in (3, 0, 2, 1)],
                "answers": ["Quarks", "made from rubber", "Nick", "Prison slang"],
            },
            {"record": "end", "wall_id": "46fa44", "reason": "solved"},
            {"record": "end", "wall_id": "740d45", "reason": "gave_up"},
        ],
    )
    gave_up = {"record": "end", "wall_id": "46fa44", "reason": "gave_up"}
    bo = human_log(tmp_path / "bo.jsonl", [gave_up])
    data = ["--data-dir", str(FIXTURE), "--no-checks"]
    for log in (ana, bo):  # compare reads a play log's results
        scored = runner.invoke(
            app,
            ["evaluate", str(log), "--allow-missing", "-o", str(log.with_suffix(".json")), *data],
        )
        assert scored.exit_code == 0, scored.output
    ana, bo = ana.with_suffix(".json"), bo.with_suffix(".json")
    data += ["--format", "json"]
    shown = runner.invoke(app, ["compare", str(bo), str(ana), "--by", "points", *data])
    assert shown.exit_code == 0, shown.output
    table = json.loads(shown.output)
    assert table["task"] == "play" and table["test"]["family"] == 3
    by = {r["system"]: r for r in table["systems"]}
    assert [r["system"] for r in table["systems"]][::2] == [str(ana), str(bo)]
    assert by[str(ana)]["value"] == 7 and by[str(bo)]["value"] == 0
    assert by[str(ana)]["in_common"] == 2 and by[str(ana)]["scored"] == 2
    assert by[str(bo)]["in_common"] == 1 and by[str(bo)]["scored"] == 1
    assert by[str(bo)]["difference"] == -7 and by[str(bo)]["p_value"] == 1.0
    contestants = by["contestants"]
    human = [rows[i]["groups"] for i in ("46fa44", "740d45")]
    found = sum(g["human_performance"]["grouping"] for w in human for g in w.values())
    assert (contestants["scored"], contestants["in_common"]) == (1, 1)  # bo's wall: given first
    by_mean = runner.invoke(app, ["compare", str(ana), str(bo), "--by", "groups_found_mean", *data])
    assert by_mean.exit_code == 0, by_mean.output
    mean = {r["system"]: r for r in json.loads(by_mean.output)["systems"]}
    assert mean[str(ana)]["value"] == 4 / 2 and mean["contestants"]["value"] == found / 2
    nyt = runner.invoke(app, ["compare", str(bo), str(ana), "--by", "lives", *data])
    assert nyt.exit_code == 1 and "points" in nyt.output  # the play figures are listed
