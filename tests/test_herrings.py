"""Which gold groups a model found, and red herrings (``groups`` in the results JSON), on a
hand-written prediction for the six real walls of the OCW fixture's test split.

The fixture ``tests/data/herrings/predictions.json`` (walls in gold order A, B, C, D =
``group_1`` .. ``group_4``; "contestants" = the groups' ``human_performance.grouping``):

====== ===================================================== ========== =====================
wall   prediction                                            found      contestants found
====== ===================================================== ========== =====================
46fa44 A with B's Screw, B with A's Puck; C; D               C D        A B C D
740d45 A; C; B with D's Fox; D with B's Ahab                 A C        A B
cb4d9e A with "Frye" (a typo: no clue of the wall); B; C; D  B C D      A B C D
0436ff all four, other order and case                        A B C D    A B C D
654041 A; B; C+D mixed 2 + 2 (Bane Zoom Road Hay | rest)     A B        A B C D
b308e4 missing (--allow-missing: no clue placed)             -          A B C D
====== ===================================================== ========== =====================

Counted by hand, per wall: (both, model only, contestants only, neither | misplaced clues,
near misses, wrong groups, decoys):

* 46fa44: 2, 0, 2, 0 | 2 (Screw, Puck), 2, 2, 2 (both are 3 + 1 of another gold group);
* 740d45: 1 (A), 1 (C), 1 (B), 1 (D) | 2 (Fox, Ahab), 2, 2, 2;
* cb4d9e: 3, 0, 1, 0 | 1 (Frye, matched to A), 1 (3 of A), 1, 0 (its 4th clue is no gold
  group's: a near miss, not a decoy);
* 0436ff: 4, 0, 0, 0 | 0, 0, 0, 0;
* 654041: 2, 0, 2, 0 | 4 (2 in each mixed group), 0, 2, 0;
* b308e4: 0, 0, 4, 0 | 16 (every placeholder clue), 0, 4, 0.

Totals: both 12, model only 1, contestants only 10, neither 1 (24 gold groups); misplaced 25
of 96 clues; near misses 5 of 24 predicted groups; wrong groups 11, decoys 4: decoy share 4/11.
Season 1 (the first four walls): both 10, model only 1, contestants only 4, neither 1; misplaced
5; near misses 5; wrong 5; decoys 4.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from ocw_fixtures import DATA, OCW_FIXTURE
from scipy import stats
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.evaluation import evaluate_files
from ocw_hub.scoring.groups import aggregate_groups, wall_groups

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the typo's foreign clue
PREDICTIONS = DATA / "herrings" / "predictions.json"
runner = CliRunner()

#: The hand count of the module docstring, per wall.
BY_HAND = {
    "46fa44": (2, 0, 2, 0, 2, 2, 2, 2),
    "740d45": (1, 1, 1, 1, 2, 2, 2, 2),
    "cb4d9e": (3, 0, 1, 0, 1, 1, 1, 0),
    "0436ff": (4, 0, 0, 0, 0, 0, 0, 0),
    "654041": (2, 0, 2, 0, 4, 0, 2, 0),
    "b308e4": (0, 0, 4, 0, 16, 0, 4, 0),
}
KEYS = (
    "found_by_both",
    "found_by_model_only",
    "found_by_contestants_only",
    "found_by_neither",
    "misplaced_clues",
    "near_misses",
    "wrong_groups",
    "decoys",
)


def _score(path: Path = PREDICTIONS, **options: object) -> dict:
    return evaluate_files(
        [path],
        "default",
        "test",
        OCW_FIXTURE,
        verification_mode="no_checks",
        allow_missing=True,
        **options,
    )


@pytest.fixture(scope="module")
def results() -> dict:
    return _score(bootstrap=500, bootstrap_seed=3)


def test_per_wall_counts_equal_the_hand_count(results: dict) -> None:
    per_wall = {w["wall_id"]: w["groups"] for w in results["per_wall"]}
    assert {i: tuple(g[k] for k in KEYS) for i, g in per_wall.items()} == BY_HAND
    # the model's found groups agree with the metric's correct_groups on every wall
    for wall in results["per_wall"]:
        assert len(wall["groups"]["found"]) == wall["grouping"]["correct_groups"]


def test_per_wall_names_the_groups_and_the_spread(results: dict) -> None:
    per_wall = {w["wall_id"]: w["groups"] for w in results["per_wall"]}
    wall = per_wall["740d45"]
    assert wall["gold_groups"] == ["group_1", "group_2", "group_3", "group_4"]
    assert wall["found"] == ["group_1", "group_3"]
    assert wall["found_by_contestants"] == ["group_1", "group_2"]
    assert wall["spread"] == [[4, 0, 0, 0], [0, 0, 4, 0], [0, 3, 0, 1], [0, 1, 0, 3]]
    assert wall["matched"] == ["group_1", "group_3", "group_2", "group_4"]
    typo = per_wall["cb4d9e"]
    assert typo["spread"][0] == [3, 0, 0, 0]  # Frye is no gold group's clue
    assert per_wall["0436ff"]["found"] == ["group_1", "group_2", "group_3", "group_4"]
    assert per_wall["0436ff"]["spread"] == [[0, 0, 0, 4], [0, 0, 4, 0], [4, 0, 0, 0], [0, 4, 0, 0]]
    mixed = per_wall["654041"]["spread"]
    assert mixed[2:] == [[0, 0, 2, 2], [0, 0, 2, 2]]


def test_split_figures_equal_the_hand_count(results: dict) -> None:
    groups = results["groups"]
    assert (groups["n_walls"], groups["n_groups"]) == (6, 24)
    assert [groups[k] for k in KEYS] == [12, 1, 10, 1, 25, 5, 11, 4]
    assert groups["found_by_both_rate"] == 12 / 24
    assert groups["found_by_model_only_rate"] == 1 / 24
    assert groups["found_by_contestants_only_rate"] == 10 / 24
    assert groups["found_by_neither_rate"] == 1 / 24
    assert groups["misplaced_clue_rate"] == 25 / 96
    assert groups["near_miss_rate"] == 5 / 24
    assert groups["decoy_share"] == 4 / 11
    season = results["by_season"]["1"]["groups"]
    assert [season[k] for k in KEYS] == [10, 1, 4, 1, 5, 5, 5, 4]
    assert results["by_season"]["15"]["groups"]["found_by_contestants_only"] == 4
    # found by the model = the metric's correct groups; by the contestants = their total
    assert groups["found_by_both"] + groups["found_by_model_only"] == 13
    assert results["grouping"]["correct_groups"] == 13
    both_human = groups["found_by_both"] + groups["found_by_contestants_only"]
    assert both_human == results["human"]["correct_groups"]


def _by_hand(successes: np.ndarray, trials: np.ndarray) -> list[float]:
    """Clopper-Pearson on the effective number of trials (``docs/statistics.md``), wall by
    wall in plain Python."""
    rate = successes.sum() / trials.sum()
    var = sum((d - rate * w) ** 2 for d, w in zip(successes, trials, strict=True))
    var /= trials.sum() ** 2
    least, most = trials.sum() ** 2 / (trials**2).sum(), trials.sum()
    inner = min(
        sum(d > 0 for d in successes), sum(d < w for d, w in zip(successes, trials, strict=True))
    )
    factor = (stats.norm.ppf(0.975) / stats.t.ppf(0.975, max(inner - 1, 1))) ** 2
    n_eff = least if rate in (0, 1) else min(max(rate * (1 - rate) / var * factor, least), most)
    x = rate * n_eff
    low = stats.beta.ppf(0.025, x, n_eff - x + 1) if x > 0 else 0.0
    high = stats.beta.ppf(0.975, x + 1, n_eff - x) if x < n_eff else 1.0
    return [low, high]


def test_intervals_of_the_rates_by_hand(results: dict) -> None:
    order = [w["wall_id"] for w in results["per_wall"]]
    table = np.array([BY_HAND[i] for i in order], dtype=float)
    fours, sixteens = np.full(6, 4.0), np.full(6, 16.0)
    ci = results["ci95"]["groups"]
    assert ci["misplaced_clue_rate"] == pytest.approx(_by_hand(table[:, 4], sixteens))
    assert ci["near_miss_rate"] == pytest.approx(_by_hand(table[:, 5], fours))
    low, high = _by_hand(table[:, 0], fours)
    assert ci["found_by_both"] == pytest.approx([low * 24, high * 24])
    assert ci["found_by_contestants_only_rate"] == pytest.approx(_by_hand(table[:, 2], fours))
    # 1 of 24 groups, on one wall: the variance of one wall says little (1 degree of freedom),
    # so the least effective n, the 6 walls: Clopper-Pearson of 0.25 of 6
    assert ci["found_by_model_only_rate"] == pytest.approx(_by_hand(table[:, 1], fours))
    assert ci["found_by_model_only_rate"] == pytest.approx(
        [stats.beta.ppf(0.025, 0.25, 6.75), stats.beta.ppf(0.975, 1.25, 5.75)]
    )
    # the decoy share: decoys of the wrong groups, walls of no wrong group counting for nothing
    assert ci["decoy_share"] == pytest.approx(_by_hand(table[:, 7], table[:, 6]))
    assert ci["decoy_share"][0] <= 4 / 11 <= ci["decoy_share"][1]
    assert results["bootstrap"]["method"]["groups"]["decoy_share"] == (
        "clopper-pearson, effective n over walls"
    )


def test_several_runs_average_and_two_level_interval(tmp_path: Path) -> None:
    perfect = tmp_path / "perfect.json"
    walls = json.loads((OCW_FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]
    perfect.write_text(
        json.dumps(
            [
                {
                    "wall_id": w["wall_id"],
                    "predicted_connections": None,
                    "predicted_groups": [g["gt_words"] for g in w["groups"].values()],
                }
                for w in walls
            ]
        ),
        encoding="utf-8",
    )
    summary = evaluate_files(
        [PREDICTIONS, perfect],
        "default",
        "test",
        OCW_FIXTURE,
        verification_mode="no_checks",
        allow_missing=True,
        as_runs=True,
        bootstrap=300,
    )
    assert summary["runs"][1]["groups"]["found_by_model_only"] == 2  # the walls' C, D of 740d45
    mean = summary["mean"]["groups"]
    assert mean["misplaced_clue_rate"] == pytest.approx((25 / 96 + 0) / 2)
    assert mean["found_by_both"] == pytest.approx((12 + 22) / 2)
    assert "decoy_share" not in mean  # undefined for the perfect run (no wrong group)
    low, high = summary["ci95"]["groups"]["misplaced_clue_rate"]
    assert low <= mean["misplaced_clue_rate"] <= high
    assert summary["ci95"]["groups"]["decoy_share"][1] <= 1


def test_aggregate_without_wrong_groups_has_no_decoy_share() -> None:
    gold = [["a", "b", "c", "d"], ["e", "f", "g", "h"], ["i", "j", "k", "l"], ["m", "n", "o", "p"]]
    ids = ["group_1", "group_2", "group_3", "group_4"]
    record = wall_groups(gold[::-1], gold, ids, [1, 0, 1, 0])
    assert record["found_by_model_only"] == 2 and record["found_by_both"] == 2
    split = aggregate_groups([record])
    assert split["decoy_share"] is None and split["misplaced_clue_rate"] == 0
    # three clues of one gold group + one of another, its partner 3 + 1 the other way
    swapped = [["a", "b", "c", "e"], ["d", "f", "g", "h"], gold[2], gold[3]]
    record = wall_groups(swapped, gold, ids, [1, 1, 1, 1])
    assert (record["near_misses"], record["decoys"], record["misplaced_clues"]) == (2, 2, 2)


def test_evaluate_table_shows_the_group_rows(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(PREDICTIONS),
            "--data-dir",
            str(OCW_FIXTURE),
            "--no-checks",
            "--allow-missing",
            "--bootstrap",
            "200",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = [line for line in result.output.splitlines() if "decoy_share" in line]
    assert len(rows) == 1 and f"{4 / 11:.4f}" in rows[0]
    lo, hi = data["ci95"]["groups"]["decoy_share"]
    assert f"[{lo:.4f}, {hi:.4f}]" in rows[0]


def test_confusion_of_gold_groups_by_hand(results: dict, tmp_path: Path) -> None:
    """Clues of gold group g placed with gold group h (report), from the spreads above:
    A: 18 in place (3 + 4 + 3 + 4 + 4), 1 with B (Puck) of 19 placed (Fry was replaced by
    Frye); B: 1 with A (Screw), 18 in place, 1 with D (Ahab); C: 18 in place, 2 with D (654041's
    2 + 2, whichever way its tie is matched); D: 1 with B (Fox), 2 with C, 17 in place. The
    missing wall places no clue of the wall."""
    from ocw_hub.results import read_results
    from ocw_hub.views.herring_plots import confusion, plot_found_by
    from ocw_hub.views.report import build_report

    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    files = read_results([path])
    expected = [[18, 1, 0, 0], [1, 18, 0, 1], [0, 0, 18, 2], [0, 1, 2, 17]]
    for row, counts in zip(confusion(files[0]), expected, strict=True):
        assert row == pytest.approx([c / sum(counts) for c in counts])
    assert plot_found_by(files) is not None
    page = build_report(files)
    assert 'id="found-by-default-test"' in page and 'id="confusion-default-test"' in page


def test_matching_keeps_as_many_clues_in_place_as_the_hungarian_method() -> None:
    """``match_groups`` tries the 24 matchings; on 2,000 random walls (some with a clue of no
    gold group) it keeps exactly as many clues in place as SciPy's Hungarian assignment."""
    import random

    from scipy.optimize import linear_sum_assignment

    from ocw_hub.scoring.groups import match_groups, spread

    rng = random.Random(7)
    for _ in range(2000):
        clues: list[int | None] = [g for g in range(4) for _ in range(4)]
        rng.shuffle(clues)
        labels = [clues[4 * p : 4 * p + 4] for p in range(4)]
        if rng.random() < 0.3:
            labels[rng.randrange(4)][rng.randrange(4)] = None
        counts = np.array(spread(labels), dtype=float)
        rows, cols = linear_sum_assignment(-counts)
        match = match_groups(labels)
        assert sorted(match) == [0, 1, 2, 3]
        assert sum(counts[p, g] for p, g in enumerate(match)) == counts[rows, cols].sum()


def test_gold_facts_are_computed_once_per_wall_whatever_the_runs(
    ocw_fixture_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every run's ``groups`` records read each wall's gold facts (its group ids, the
    contestants' finds, its sorted gold groups) from the split, computed once."""
    import random

    import ocw_hub.scoring.groups as groups_module
    from ocw_hub.data.sources import load_rows
    from ocw_hub.evaluation import evaluate_files

    rows = load_rows("default", "test", ocw_fixture_dir, verification_mode="no_checks").rows
    gold = [[list(g["gt_words"]) for g in w["groups"].values()] for w in rows]
    rng = random.Random(0)
    for run in range(3):
        preds = []
        for wall in rows:
            clues = [c for g in wall["groups"].values() for c in g["gt_words"]]
            rng.shuffle(clues)
            groups = [clues[i : i + 4] for i in range(0, 16, 4)]
            answer = {"predicted_groups": groups, "predicted_connections": ["?"] * 4}
            preds.append({"wall_id": wall["wall_id"], **answer})
        (tmp_path / f"run-{run}.json").write_text(json.dumps(preds), encoding="utf-8")
    sorted_gold = []
    original = groups_module.sorted_lower

    def counted(groups: list[list[str]]) -> list[list[str]]:
        if [list(g) for g in groups] in gold:
            sorted_gold.append(groups)
        return original(groups)

    monkeypatch.setattr(groups_module, "sorted_lower", counted)
    results = evaluate_files([tmp_path], "default", rows=rows, bootstrap=0)
    assert results["n_runs"] == 3 and "groups" in results["runs"][0]["per_wall"][0]
    assert len(sorted_gold) == len(rows)
