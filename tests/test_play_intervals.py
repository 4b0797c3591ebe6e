"""Intervals of a play log's figures (``ci95.play``, and ``compare`` by a play figure): the
counts over walls (walls solved, frozen, groups found, connections right) get
``binomial.rate_interval``, never a point at a rate of 0 or 1, with its coverage; points and
the other figures the percentile bootstrap; ``bootstrap.method.play`` names each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from play_support import FIXTURE, fixture_rows, human_log
from scipy import optimize, stats
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.play.scoring import play_intervals
from ocw_hub.scoring import binomial, bootstrap
from ocw_hub.scoring.intervals import play_interval

runner = CliRunner()
DATA = ["--data-dir", str(FIXTURE), "--no-checks"]
RATES = (0.005, 0.01, 0.05, 0.5)
WALLS = (40, 494)


def _solved_all(path: Path) -> Path:
    """Every fixture wall solved in three gold guesses, every connection named right."""
    lines: list[dict[str, Any]] = []
    for wall in fixture_rows():
        groups = list(wall["groups"].values())
        clues = [g["gt_words"] for g in groups]
        for turn, group in enumerate(clues[:3], start=1):
            lines.append(
                {
                    "record": "guess",
                    "wall_id": wall["wall_id"],
                    "turn": turn,
                    "clues": group,
                    "invalid": None,
                    "verdict": "correct",
                }
            )
        lines.append(
            {
                "record": "connections",
                "wall_id": wall["wall_id"],
                "groups": clues,
                "answers": [g["gt_connection"] for g in groups],
            }
        )
        lines.append({"record": "end", "wall_id": wall["wall_id"], "reason": "solved"})
    return human_log(path, lines)


def _gave_up_all(path: Path) -> Path:
    ends = [{"record": "end", "wall_id": w["wall_id"], "reason": "gave_up"} for w in fixture_rows()]
    return human_log(path, ends)


def _evaluate(log: Path) -> dict[str, Any]:
    out = log.with_suffix(".json")
    result = runner.invoke(app, ["evaluate", str(log), *DATA, "-o", str(out), "--bootstrap", "200"])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("play-intervals")
    return {
        "all": _evaluate(_solved_all(folder / "all.jsonl")),
        "none": _evaluate(_gave_up_all(folder / "none.jsonl")),
    }


COUNTS = {
    "walls_solved_mean": 1,
    "frozen_mean": 1,
    "groups_found_mean": 4,
    "connections_right_mean": 4,
}


@pytest.mark.parametrize("which", ["all", "none"])
def test_rates_of_0_and_1_get_no_point(scored: dict[str, dict[str, Any]], which: str) -> None:
    """Six walls all solved (rate 1; none frozen) or all given up (rate 0; all frozen): each
    counted mean's interval holds it, is not a point, and is Clopper-Pearson's for 6 walls
    (0.025 ** (1 / 6) = 0.54 from the rate 1: walls of 4 trials alike count as 6 walls);
    the percentile bootstrap gave [4, 4] and [0, 0]."""
    result = scored[which]
    play, ci = result["play"], result["ci95"]["play"]
    assert play["n_played"] == 6
    assert play["walls_solved"] == (6 if which == "all" else 0)
    edge = 0.025 ** (1 / 6)
    for figure, most in COUNTS.items():
        low, high = ci[figure]
        value = play[figure]
        assert value in (0, most) and low <= value <= high and low < high, (figure, ci[figure])
        expected = [edge * most, most] if value == most else [0, (1 - edge) * most]
        assert [low, high] == pytest.approx(expected), figure
    methods = result["bootstrap"]["method"]["play"]
    assert methods == {
        **{f: binomial.EXACT for f in ("walls_solved_mean", "frozen_mean")},
        **{f: binomial.CLUSTERED for f in ("groups_found_mean", "connections_right_mean")},
        **{
            f"{k}_mean": "percentile"
            for k in ("guesses", "wrong_guesses", "lives_lost", "invalid", "points")
        },
    }
    assert methods.keys() == ci.keys()


def test_points_keep_the_bootstrap(scored: dict[str, dict[str, Any]]) -> None:
    """Points (0-10 a wall) are not a count of trials: the percentile bootstrap of the
    per-wall points, as ``bootstrap_ci`` gives it."""
    result = scored["all"]
    points = [w["play"]["points"] for w in result["per_wall"]]
    assert result["ci95"]["play"]["points_mean"] == pytest.approx(
        list(bootstrap.bootstrap_ci(points, 200, 0))
    )


def test_compare_by_a_play_count_is_binomial(
    scored: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """``compare --by walls_solved`` (a total) and ``--by groups_found_mean``: each row's
    interval is ``play_interval`` of its per-wall values (n times it for a total), the
    contestants' too, never a point, and ``bootstrap.method`` names it; ``--by points`` stays
    percentile."""
    paths = []
    for which, result in scored.items():
        paths.append(tmp_path / f"{which}.json")
        paths[-1].write_text(json.dumps(result), encoding="utf-8")
    args = [*map(str, paths), *DATA, "--format", "json", "--bootstrap", "200"]
    for figure, method in (
        ("walls_solved", binomial.EXACT),
        ("groups_found_mean", binomial.CLUSTERED),
        ("points", "percentile"),
    ):
        shown = runner.invoke(app, ["compare", *args, "--by", figure])
        assert shown.exit_code == 0, shown.output
        table = json.loads(shown.output)
        assert table["bootstrap"]["method"] == method
        key = figure.removesuffix("_mean")
        for row in table["systems"]:
            source = scored["all" if row["system"] != str(paths[1]) else "none"]
            part = "human" if row["system"] == "contestants" else None
            values = [
                (w["human"] if part else w)["play"][key]
                for w in source["per_wall"]
                if w["play"]["played"]
            ]
            scale = 1 if figure.endswith("_mean") else len(values)
            expected = [scale * x for x in play_interval(key, values, 200, 0)]
            assert row["ci95"] == pytest.approx(expected), (figure, row["system"])
            if method != "percentile":
                assert row["ci95"][0] < row["ci95"][1]


def test_play_intervals_of_counts_are_the_binomial() -> None:
    """``play_intervals`` of per-wall figures: the counts ``rate_interval`` of their
    successes (scaled back to the mean), the rest ``bootstrap_ci``."""
    rng = np.random.default_rng(3)
    found = rng.choice([0, 1, 2, 4], size=40)
    walls = [
        {
            "groups_found": int(g),
            "walls_solved": int(g == 4),
            "frozen": int(g < 4),
            "connections_right": int(r),
            "guesses": int(g) + 1,
            "wrong_guesses": 0,
            "lives_lost": 0,
            "invalid": 0,
            "points": int(g + r),
        }
        for g, r in zip(found, rng.integers(0, 5, size=40), strict=True)
    ]
    ci = play_intervals(walls, 300, 0)
    low, high = binomial.rate_interval(found, 4)
    assert ci["groups_found_mean"] == pytest.approx([4 * low, 4 * high])
    low, high = binomial.rate_interval(found == 4, 1)
    k = int((found == 4).sum())
    exact = stats.binomtest(k, 40).proportion_ci(method="exact")
    assert ci["walls_solved_mean"] == pytest.approx([exact.low, exact.high])
    guesses = [w["guesses"] for w in walls]
    assert ci["guesses_mean"] == pytest.approx(list(bootstrap.bootstrap_ci(guesses, 300, 0)))


def _found_in_play(rate: float, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Groups found (0, 1, 2 or 4: the fourth completes itself) of walls played group by
    group, each found with probability q until the first miss, q such that the mean of
    groups found / 4 is ``rate``."""

    def mean(q: float) -> float:
        return (q * (1 - q) + 2 * q**2 * (1 - q) + 4 * q**3) / 4

    q = optimize.brentq(lambda x: mean(x) - rate, 0.0, 1.0)
    found = np.minimum(rng.geometric(1 - q, size=shape) - 1, 3)
    return np.where(found == 3, 4, found)


def test_coverage_of_the_play_counts() -> None:
    """Walls solved, one trial a wall: at least 95 % at every rate and n, summed exactly over
    every count. Groups found as play finds them (0, 1, 2 or 4 a wall), 1,000 seeded
    benchmarks a cell: at least 94 % at every rate and n (the standard error of 95 % there is
    0.7 %)."""
    rng = np.random.default_rng(0)
    low_cells = {}
    for n in WALLS:
        k = np.arange(n + 1)
        exact = np.array([play_interval("walls_solved", [1] * i + [0] * (n - i), 1) for i in k])
        for p in RATES:
            held = (exact[:, 0] <= p) & (p <= exact[:, 1])
            coverage = stats.binom.pmf(k, n, p)[held].sum()
            if coverage < 0.95:
                low_cells["walls_solved", p, n] = coverage
            found = _found_in_play(p, (1000, n), rng)
            bounds = np.array([play_interval("groups_found", f.tolist(), 1) for f in found])
            coverage = float(np.mean((bounds[:, 0] <= 4 * p) & (4 * p <= bounds[:, 1])))
            if coverage < 0.94:
                low_cells["groups_found", p, n] = coverage
    assert not low_cells, low_cells


def points_coverage(size: int = 400, seed: int = 0) -> dict[tuple[float, int], float]:
    """The measured coverage of the points' percentile bootstrap (1,000 resamples), by (rate of
    groups found, walls): groups found as play finds them, a found group's connection named
    right with probability 0.5, a group not found's 0.2."""
    rng = np.random.default_rng(seed)
    out = {}
    for p in (0.05, 0.5):
        q = {k: float(np.mean(_found_in_play(p, (1, 200_000), rng) == k)) for k in (0, 1, 2, 4)}
        true = sum(f * w + (0.5 * f + 0.2 * (4 - f)) * w for f, w in q.items()) + 2 * q[4] / 16
        for n in WALLS:
            found = _found_in_play(p, (size, n), rng)
            right = rng.binomial(found, 0.5) + rng.binomial(4 - found, 0.2)
            points = found + right + 2 * ((found == 4) & (right == 4))
            held = [
                low <= true <= high
                for low, high in (bootstrap.bootstrap_ci(x, 1000, s) for s, x in enumerate(points))
            ]
            out[p, n] = float(np.mean(held))
    return out


@pytest.mark.slow
def test_coverage_of_the_points_bootstrap() -> None:
    """Points keep the percentile bootstrap: it covers down to 92 % on 40 walls, as the
    percentile bootstrap of a mean does on few walls (400 seeded benchmarks a cell; these are
    the numbers of ``docs/statistics.md``), and never less than 90 %."""
    found = points_coverage()
    assert min(found.values()) >= 0.90, found
    assert found == pytest.approx(
        {(0.05, 40): 0.9225, (0.05, 494): 0.955, (0.5, 40): 0.95, (0.5, 494): 0.94}, abs=1e-9
    )
