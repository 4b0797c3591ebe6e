"""Property tests of the grouping metric, the upstream oracle, and the real OCW data.

``upstream_*`` below re-implement, literally, the grouping evaluation of the paper's
script ``evaluate_only_connect.py`` (``Evaluate.task1_grouping_evaluation``) and its helpers
``lower_case``, ``check_equal``, ``clue2group``, ``slice_list``, ``remove_same`` from
``utils.py`` of the public repository TaatiTeam/OCW. They serve as a reference oracle:
on walls without repeated clues our numbers must be identical (``==``, not approx).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import wasserstein_distance as wd
from sklearn.metrics import adjusted_mutual_info_score as ami
from sklearn.metrics import adjusted_rand_score as ari
from sklearn.metrics import fowlkes_mallows_score as fms
from test_metric import cs

# ----------------------------------------------------------------------------------------
# Upstream oracle (literal copy of the algorithm; only the data plumbing is removed)
# ----------------------------------------------------------------------------------------


def upstream_lower_case(lst: list[str]) -> list[str]:
    lst_new = []
    for i in lst:
        lst_new.append(i.lower())
    return lst_new


def upstream_check_equal(gt_groups: list, pred_groups: list) -> int:
    count = 0
    for i in gt_groups:
        if i in pred_groups:
            count += 1
    return count


def upstream_clue2group(lst_words: list, wall1_default: list) -> list:
    dict_bbb = {}
    lst_default = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    lst_replaced = [i for i in range(4, 20)]
    for i in range(len(wall1_default)):
        dict_bbb[wall1_default[i]] = lst_default[i]
    lst_words_new = lst_words.copy()
    for i in lst_words_new:
        if i in dict_bbb.keys():
            lst_words_new[lst_words_new.index(i)] = dict_bbb[i]
        else:
            lst_words_new[lst_words_new.index(i)] = lst_replaced.pop(0)
    return lst_words_new


def upstream_slice_list(lst: list, n: int) -> list:
    return [lst[i : i + n] for i in range(0, n * n, n)]


def upstream_remove_same(lst1: list, lst2: list) -> tuple[list, list]:
    lst1_new = lst1.copy()
    lst2_new = lst2.copy()
    for i in lst1:
        if i in lst2:
            lst1_new.remove(i)
            lst2_new.remove(i)
    return lst1_new, lst2_new


def upstream_wall(gt_words: list, pred_words: list) -> dict[str, Any]:
    gt_sorted = [sorted(upstream_lower_case(i)) for i in gt_words]
    pred_sorted = [sorted(upstream_lower_case(i)) for i in pred_words]
    correct_groups = upstream_check_equal(gt_sorted, pred_sorted)
    gt_lst = [item for sublist in gt_sorted for item in sublist]
    pred_lst = [item for sublist in pred_sorted for item in sublist]
    index_gt = upstream_clue2group(gt_lst, gt_lst)
    index_pred = upstream_clue2group(pred_lst, gt_lst)
    ami_val = ami(index_gt, index_pred)
    ari_val = ari(index_gt, index_pred)
    fms_val = fms(index_gt, index_pred)
    pred_sliced = upstream_slice_list(index_pred, 4)
    gt_sliced = upstream_slice_list(index_gt, 4)
    wd_val = 0
    pred_sliced, gt_sliced = upstream_remove_same(pred_sliced, gt_sliced)
    for i in range(len(pred_sliced)):
        wd_val += min(wd(pred_sliced[i], gt_sliced[i]), 1)
    return {
        "wd": wd_val / 4,
        "ami": ami_val,
        "ari": ari_val,
        "fms": fms_val,
        "correct_groups": correct_groups,
        "full_wall": correct_groups == 4,
    }


# ----------------------------------------------------------------------------------------
# Strategies
# ----------------------------------------------------------------------------------------

# Clue pool: distinct after lowercasing; mixed case on purpose.
POOL = [f"{c}{i}" for c in "aBcDeFgHiJ" for i in range(4)]
OUTSIDERS = ["zz", "Yy", "xX", "w w", "v-v", "UU"]


@st.composite
def wall_and_prediction(draw: st.DrawFn, outsiders: bool = True) -> tuple[list, list]:
    """A gold wall of 16 distinct clues and a prediction: a shuffled regrouping of it,
    sometimes keeping gold groups, with some clues replaced by clues not in the wall
    and random case changes. No clue repeats (upstream crashes on some repeats)."""
    clues = draw(st.permutations(POOL))[:16]
    gold = [clues[i : i + 4] for i in range(0, 16, 4)]
    keep = draw(st.lists(st.booleans(), min_size=4, max_size=4))
    kept = [g for g, k in zip(gold, keep, strict=True) if k]
    rest = [c for g, k in zip(gold, keep, strict=True) if not k for c in g]
    rest = draw(st.permutations(rest))
    pred = [list(g) for g in kept] + [list(rest[i : i + 4]) for i in range(0, len(rest), 4)]
    if outsiders:
        n_out = draw(st.integers(0, 3))
        positions = draw(st.lists(st.integers(0, 15), min_size=n_out, max_size=n_out, unique=True))
        for j, pos in enumerate(positions):
            pred[pos // 4][pos % 4] = OUTSIDERS[j]
    pred = draw(st.permutations(pred))
    flips = draw(st.lists(st.booleans(), min_size=16, max_size=16))
    pred = [
        [c.swapcase() if flips[4 * g + k] else c for k, c in enumerate(group)]
        for g, group in enumerate(pred)
    ]
    pred = [draw(st.permutations(group)) for group in pred]
    return gold, [list(g) for g in pred]


# ----------------------------------------------------------------------------------------
# Oracle equivalence
# ----------------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(wall_and_prediction())
def test_equals_upstream_on_walls_without_repeated_clues(case: tuple[list, list]) -> None:
    gold, pred = case
    assert cs.score_wall(pred, gold) == upstream_wall(gold, pred)


# ----------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(wall_and_prediction(), st.randoms(use_true_random=False))
def test_invariant_to_clue_order_inside_groups(case: tuple[list, list], rnd: random.Random) -> None:
    gold, pred = case
    shuffled = [rnd.sample(g, 4) for g in pred]
    gold_shuffled = [rnd.sample(g, 4) for g in gold]
    assert cs.score_wall(shuffled, gold_shuffled) == cs.score_wall(pred, gold)


@settings(max_examples=200, deadline=None)
@given(wall_and_prediction(), st.randoms(use_true_random=False))
def test_invariant_to_group_order(case: tuple[list, list], rnd: random.Random) -> None:
    # correct groups and the partition scores do not depend on the order of the predicted
    # groups, nor of the gold groups (WD does; see test_wd_depends_on_group_order).
    gold, pred = case
    base = cs.score_wall(pred, gold)
    for p, g in ((rnd.sample(pred, 4), gold), (pred, rnd.sample(gold, 4))):
        got = cs.score_wall(p, g)
        assert got["correct_groups"] == base["correct_groups"]
        assert got["full_wall"] == base["full_wall"]
        for key in ("ami", "ari", "fms"):
            assert got[key] == pytest.approx(base[key], abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(wall_and_prediction())
def test_bounds(case: tuple[list, list]) -> None:
    gold, pred = case
    got = cs.score_wall(pred, gold)
    assert 0.0 <= got["wd"] <= 1.0
    assert got["ami"] <= 1.0 + 1e-12
    assert -0.5 <= got["ari"] <= 1.0
    assert 0.0 <= got["fms"] <= 1.0
    assert 0 <= got["correct_groups"] <= 4
    if got["full_wall"]:
        assert (got["wd"], got["ami"], got["ari"], got["fms"]) == (0.0, 1.0, 1.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(wall_and_prediction(outsiders=False), st.randoms(use_true_random=False))
def test_perfect_prediction_is_perfect(case: tuple[list, list], rnd: random.Random) -> None:
    gold, _ = case
    pred = [[c.upper() if rnd.random() < 0.5 else c for c in rnd.sample(g, 4)] for g in gold]
    pred = rnd.sample(pred, 4)
    got = cs.score_wall(pred, gold)
    assert got == {
        "wd": 0.0,
        "ami": 1.0,
        "ari": 1.0,
        "fms": 1.0,
        "correct_groups": 4,
        "full_wall": True,
    }


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "b", "c", "A", "d", "zz"]), min_size=4, max_size=4),
        min_size=4,
        max_size=4,
    ),
    st.lists(
        st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), min_size=4, max_size=4),
        min_size=4,
        max_size=4,
    ),
)
def test_arbitrary_repeats_never_crash_and_stay_in_bounds(pred: list, gold: list) -> None:
    # Any repeats on either side (upstream can raise on these): scores stay in range.
    got = cs.score_wall(pred, gold)
    assert 0.0 <= got["wd"] <= 1.0
    assert got["ami"] <= 1.0 + 1e-12 and -0.5 <= got["ari"] <= 1.0 and 0 <= got["fms"] <= 1.0


# ----------------------------------------------------------------------------------------
# Real data
# ----------------------------------------------------------------------------------------


def _groups(wall: dict[str, Any]) -> list[list[str]]:
    return [wall["groups"][f"group_{g}"]["gt_words"] for g in range(1, 5)]


@pytest.fixture(scope="module")
def raw_walls(ocw_raw: Path) -> dict[str, dict[str, Any]]:
    with open(ocw_raw, encoding="utf-8") as f:
        return {w["wall_id"]: w for w in json.load(f)["dataset"]}


@pytest.fixture(scope="module")
def test_walls(ocw_dir: Path) -> list[dict[str, Any]]:
    with open(ocw_dir / "test.json", encoding="utf-8") as f:
        walls = json.load(f)["dataset"]
    assert len(walls) == 494
    return walls


@pytest.mark.parametrize("wall_id", ["654041", "b308e4"])
@pytest.mark.parametrize("seed", range(10))
def test_repeated_clue_walls_perfect_in_any_order(raw_walls: dict, wall_id: str, seed: int) -> None:
    gold = _groups(raw_walls[wall_id])
    lowered = [c.lower() for g in gold for c in g]
    assert len(set(lowered)) == 15  # the defect is really there
    rnd = random.Random(seed)
    pred = rnd.sample([rnd.sample(g, 4) for g in gold], 4)
    got = cs.score_wall(pred, gold)
    assert (got["wd"], got["ami"], got["ari"], got["fms"], got["correct_groups"]) == (
        0.0,
        1.0,
        1.0,
        1.0,
        4,
    )


def test_whole_test_split_perfect(test_walls: list, repo_root: Path) -> None:
    import evaluate

    rnd = random.Random(1)
    refs = [_groups(w) for w in test_walls]
    preds = [rnd.sample([rnd.sample(g, 4) for g in groups], 4) for groups in refs]
    metric = evaluate.load(str(repo_root / "metrics" / "ocw_metric"), "grouping")
    got = metric.compute(predictions=preds, references=refs)
    assert got == {
        "wd": 0.0,
        "ami": 1.0,
        "ari": 1.0,
        "fms": 1.0,
        "full_wall": 494,
        "correct_groups": 4 * 494,
        "full_wall_rate": 1.0,
        "correct_groups_rate": 1.0,
        "n_walls": 494,
    }
    conn = evaluate.load(str(repo_root / "metrics" / "ocw_metric"), "connections")
    got = conn.compute(
        predictions=[w["gt_connections"] for w in test_walls],
        references=[w["gt_connections"] for w in test_walls],
    )
    assert got == {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 494}


def test_test_split_equals_upstream_on_imperfect_predictions(test_walls: list) -> None:
    # The "paper's numbers" check on real walls: deterministic imperfect predictions,
    # every wall without repeated clues scores exactly as the upstream algorithm.
    rnd = random.Random(7)
    compared = 0
    for wall in test_walls:
        gold = _groups(wall)
        if len({c.lower() for g in gold for c in g}) < 16:
            continue
        clues = [c for g in gold for c in g]
        if rnd.random() < 0.5:
            rnd.shuffle(clues)
        else:  # swap two clues
            i, j = rnd.sample(range(16), 2)
            clues[i], clues[j] = clues[j], clues[i]
        pred = rnd.sample([clues[k : k + 4] for k in range(0, 16, 4)], 4)
        assert cs.score_wall(pred, gold) == upstream_wall(gold, pred), wall["wall_id"]
        compared += 1
    assert compared == 492
