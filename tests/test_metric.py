"""Hand-computed values, input errors and ``evaluate`` integration of ``metrics/ocw_metric``.

Every expected number below is worked out in the comments from the definitions (paper's
script ``evaluate_only_connect.py`` of TaatiTeam/OCW, SQuAD v1.1), not by calling the
code under test.

Notation: gold wall W = A, B, C, D with A = a1..a4 (gold index 0), B = b1..b4 (1), C (2),
D (3). For a predicted wall the 16 "predicted labels" are the gold indices of the
predicted clues (prediction order, clues sorted inside each group; clues not in the wall
get 4, 5, ...). Pair counts below are unordered pairs; C(n, 2) = n (n - 1) / 2.
When every gold group and every predicted group holds 4 clues (n = 16):
  sum_i C(rows_i, 2) = sum_j C(cols_j, 2) = 4 * 6 = 24, C(16, 2) = 120,
  H(rows) = H(cols) = ln 4, and the expected mutual information is
  EMI = sum_k k ln(k) P(k), P(k) = C(4,k) C(12,4-k) / C(16,4), C(16,4) = 1820:
  EMI = (396 * 2 ln 2 + 48 * 3 ln 3 + 1 * 4 ln 4) / 1820.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import types
from pathlib import Path

import evaluate
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ocw_hub.resources import load_metric_module, metric_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
METRIC_DIR = REPO_ROOT / "metrics" / "ocw_metric"
assert metric_dir() == METRIC_DIR, "tests run against this checkout's metric"

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

LN2, LN3, LN4 = math.log(2), math.log(3), math.log(4)
EMI_4X4 = (396 * 2 * LN2 + 48 * 3 * LN3 + 1 * 4 * LN4) / 1820  # ~0.391603


def score(pred: list[list[str]], gold: list[list[str]] = WALL) -> dict:
    return grouping.score_wall(pred, gold)


# ----------------------------------------------------------------------------------------
# grouping: hand-computed walls
# ----------------------------------------------------------------------------------------


def test_perfect_wall_any_order() -> None:
    # Every predicted group is a gold group: 4 correct groups, every run removed (WD 0),
    # identical partitions (AMI = ARI = FMS = 1).
    pred = [list(reversed(D)), C, [x.upper() for x in A], B[::-1]]
    assert score(pred) == {
        "wd": 0.0,
        "ami": 1.0,
        "ari": 1.0,
        "fms": 1.0,
        "correct_groups": 4,
        "full_wall": True,
    }


def test_one_swap_between_two_groups() -> None:
    # pred P0 = a1 a2 a3 b1 -> labels 0 0 0 1; P1 = b2 b3 b4 a4 -> sorted a4 b2 b3 b4 -> 0 1 1 1;
    # P2 = C -> 2 2 2 2; P3 = D -> 3 3 3 3. Correct groups: C, D -> 2.
    # WD: runs 2222 and 3333 removed; pairs (0001, 0000): W1 = (0+0+0+1)/4 = 0.25,
    #     (0111, 1111): 0.25; WD = 0.5 / 4 = 0.125.
    # Contingency (pred group x gold group): [[3,1,0,0],[1,3,0,0],[0,0,4,0],[0,0,0,4]].
    # Same-same pairs: C(3,2)*2 + C(4,2)*2 = 3+3+6+6 = 18; all margins 4 -> 24 and 24.
    # ARI = (18 - 24*24/120) / ((24+24)/2 - 24*24/120) = (18-4.8)/(24-4.8) = 13.2/19.2 = 0.6875
    # FMS = 18 / sqrt(24 * 24) = 0.75
    # MI = 2*(3/16) ln(16*3/16) + 2*(1/16) ln(16*1/16) + 2*(4/16) ln(16*4/16)
    #    = (3/8) ln 3 + (1/2) ln 4;  AMI = (MI - EMI) / (ln 4 - EMI) ~ 0.71734
    pred = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
    got = score(pred)
    mi = (3 / 8) * LN3 + (1 / 2) * LN4
    assert got["correct_groups"] == 2 and got["full_wall"] is False
    assert got["wd"] == pytest.approx(0.125)
    assert got["ari"] == pytest.approx(0.6875)
    assert got["fms"] == pytest.approx(0.75)
    assert got["ami"] == pytest.approx((mi - EMI_4X4) / (LN4 - EMI_4X4), abs=1e-12)
    assert got["ami"] == pytest.approx(0.71734, abs=1e-5)


def test_wd_depends_on_group_order() -> None:
    # P = a1 a2 a3 c1 -> 0 0 0 2 ;  Q = c2 c3 c4 a4 -> sorted a4 c2 c3 c4 -> 0 2 2 2; B, D correct.
    # Runs 1111 and 3333 are removed; the gold runs left are 0000, 2222 in that order.
    # Order [P, Q, B, D]: (0002 vs 0000) W1 = 2/4 = 0.5; (0222 vs 2222) W1 = 2/4 = 0.5
    #   -> WD = (0.5 + 0.5) / 4 = 0.25
    # Order [Q, P, B, D]: (0222 vs 0000) W1 = 6/4 -> capped 1; (0002 vs 2222) 6/4 -> 1
    #   -> WD = 2 / 4 = 0.5
    # AMI/ARI/FMS and correct groups do not depend on the order:
    # contingency [[3,0,1,0],[1,0,3,0],[0,4,0,0],[0,0,0,4]] has the same shape as the
    # one-swap wall above: ARI 0.6875, FMS 0.75.
    p = ["a1", "a2", "a3", "c1"]
    q = ["c2", "c3", "c4", "a4"]
    first, second = score([p, q, B, D]), score([q, p, B, D])
    assert first["wd"] == pytest.approx(0.25)
    assert second["wd"] == pytest.approx(0.5)
    for key in ("ami", "ari", "fms"):
        assert first[key] == pytest.approx(second[key], abs=1e-12)
    assert first["ari"] == pytest.approx(0.6875)
    assert first["fms"] == pytest.approx(0.75)
    assert first["correct_groups"] == second["correct_groups"] == 2


def test_transposed_wall_is_worst() -> None:
    # Every predicted group holds one clue of each gold group -> labels 0 1 2 3 per run.
    # WD: nothing removed; W1(0123, 0000) = 6/4 -> 1, W1(0123, 1111) = (1+0+1+2)/4 = 1,
    #     W1(0123, 2222) = (2+1+0+1)/4 = 1, W1(0123, 3333) = 6/4 -> 1; WD = 4/4 = 1.
    # Same-same pairs 0 -> ARI = (0 - 4.8)/(24 - 4.8) = -0.25; FMS = 0 / 24 = 0.
    # MI = 16 * (1/16) ln(16*1/16) = 0 -> AMI = -EMI / (ln 4 - EMI) ~ -0.39370
    pred = [[A[i], B[i], C[i], D[i]] for i in range(4)]
    got = score(pred)
    assert got["wd"] == 1.0
    assert got["ari"] == pytest.approx(-0.25)
    assert got["fms"] == 0.0
    assert got["ami"] == pytest.approx(-EMI_4X4 / (LN4 - EMI_4X4), abs=1e-12)
    assert got["correct_groups"] == 0


def test_clues_not_in_the_wall_get_fresh_indices() -> None:
    # P0 = a1 a2 a3 zz -> 0 0 0 4 (zz is the first unknown clue -> 4);
    # P1 = B, P2 = C (correct); P3 = d1 d2 d3 yy -> 3 3 3 5.
    # WD: runs 1111, 2222 removed; (0004 vs 0000) W1 = 4/4 = 1; (3335 vs 3333) W1 = 2/4 = 0.5
    #     -> WD = 1.5 / 4 = 0.375
    # Contingency rows (pred group) -> {0:3, 4:1}, {1:4}, {2:4}, {3:3, 5:1}.
    # Same-same pairs 3 + 6 + 6 + 3 = 18; rows 24; columns C(3,2)+C(4,2)+C(4,2)+C(3,2) = 18.
    # ARI = (18 - 24*18/120) / ((24+18)/2 - 24*18/120) = 14.4 / 17.4 ~ 0.827586
    # FMS = 18 / sqrt(24 * 18) = sqrt(0.75) ~ 0.866025
    pred = [["a1", "a2", "a3", "zz"], B, C, ["d1", "d2", "d3", "yy"]]
    got = score(pred)
    assert grouping.predicted_labels(
        grouping._sorted_lower(pred), grouping._sorted_lower(WALL)
    ) == ([0, 0, 0, 4] + [1] * 4 + [2] * 4 + [3, 3, 3, 5])
    assert got["wd"] == pytest.approx(0.375)
    assert got["ari"] == pytest.approx(14.4 / 17.4)
    assert got["fms"] == pytest.approx(math.sqrt(0.75))
    assert got["correct_groups"] == 2


def test_case_insensitive_but_not_stripped() -> None:
    # Upstream lowercases clues but does not strip them: "A1" matches "a1", "a1 " does not.
    upper = [[x.upper() for x in g] for g in WALL]
    assert score(upper)["correct_groups"] == 4
    padded = [["a1 ", "a2", "a3", "a4"], B, C, D]
    got = score(padded)
    assert got["correct_groups"] == 3
    # "a1 " is not in the wall -> label 4: run (sorted "a1 " < "a2") 4 0 0 0 vs 0000 -> W1 1
    assert got["wd"] == pytest.approx(0.25)


def test_grouping_aggregate() -> None:
    # Wall 1 perfect, wall 2 the one-swap wall (2 correct groups, WD 0.125, ARI 0.6875).
    swap = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
    got = grouping.grouping_scores([WALL, swap], [WALL, WALL], return_per_item=True)
    assert got["n_walls"] == 2
    assert got["full_wall"] == 1 and got["full_wall_rate"] == 0.5
    assert got["correct_groups"] == 6 and got["correct_groups_rate"] == 6 / 8
    assert got["wd"] == pytest.approx((0 + 0.125) / 2)
    assert got["ari"] == pytest.approx((1 + 0.6875) / 2)
    assert got["fms"] == pytest.approx((1 + 0.75) / 2)
    assert [item["correct_groups"] for item in got["per_item"]] == [4, 2]
    assert set(got["per_item"][0]) == {"wd", "ami", "ari", "fms", "correct_groups", "full_wall"}


# ----------------------------------------------------------------------------------------
# grouping: repeated clues
# ----------------------------------------------------------------------------------------

# Wall b308e4 of the raw export: "Glamour" is in gold groups 2 and 3.
B308E4 = [
    ["Mokbara", "Hip Hop Kido", "Ecky-Thump", "Rex Kwon Do"],
    ["Kamikaze", "Caipiroska", "Vesper", "Cosmopolitan"],
    ["Flamingo", "Lemon Drop", "Karate", "Glamour"],
    ["Lucky", "Nylon", "Allure", "Glamour"],
]


def test_repeated_clue_perfect_in_reverse_order() -> None:
    # Upstream maps "glamour" to its last gold group (3), so its gold labels are
    # 0000 1111 2322 3333 and a perfect prediction in another group order scores AMI < 1.
    # Here whole groups are matched first: perfect in any order scores perfect.
    got = grouping.score_wall(B308E4[::-1], B308E4)
    assert (got["wd"], got["ami"], got["ari"], got["fms"]) == (0.0, 1.0, 1.0, 1.0)
    assert got["correct_groups"] == 4


def test_repeated_clue_assigned_by_agreement() -> None:
    # Swap Karate and Lucky: P2 = Flamingo, Lemon Drop, Lucky, Glamour;
    #                        P3 = Karate, Nylon, Allure, Glamour.
    # Assignments of the two "glamour" (P2, P3), agreement = sum of squared label counts:
    #   (2,3): P2 {2:3, 3:1} -> 10, P3 {2:1, 3:3} -> 10 => 20, each gold occurrence used once
    #   (3,2): P2 {2:2, 3:2} -> 8,  P3 8 => 16;  (2,2), (3,3) use one gold occurrence twice.
    # => P2 = 2 2 2 3, P3 = 2 3 3 3: the one-swap wall again: WD 0.125, ARI 0.6875, FMS 0.75.
    p2 = ["Flamingo", "Lemon Drop", "Lucky", "Glamour"]
    p3 = ["Karate", "Nylon", "Allure", "Glamour"]
    pred = [B308E4[0], B308E4[1], p2, p3]
    labels = grouping.predicted_labels(grouping._sorted_lower(pred), grouping._sorted_lower(B308E4))
    # sorted P2: flamingo glamour lemon drop lucky -> 2 2 2 3; P3: allure glamour karate nylon
    assert labels[8:] == [2, 2, 2, 3, 3, 3, 2, 3]
    got = grouping.score_wall(pred, B308E4)
    assert got["wd"] == pytest.approx(0.125)
    assert got["ari"] == pytest.approx(0.6875)
    assert got["fms"] == pytest.approx(0.75)
    assert got["correct_groups"] == 2


def test_repeated_clue_within_one_group() -> None:
    # Wall 654041: "Bask" twice in the same gold group.
    wall = [
        ["Vain", "Blue Sky", "Writer", "Brightside"],
        ["Bask", "Mask", "Rok", "Bask"],
        ["Bane", "Zoom", "Kingpin", "Sandman"],
        ["Road", "Hay", "Deck", "Bullseye"],
    ]
    pred = [wall[3], ["Rok", "bask", "BASK", "Mask"], wall[0], wall[2]]
    got = grouping.score_wall(pred, wall)
    assert (got["wd"], got["ami"], got["ari"], got["fms"], got["correct_groups"]) == (
        0.0,
        1.0,
        1.0,
        1.0,
        4,
    )


# ----------------------------------------------------------------------------------------
# connections
# ----------------------------------------------------------------------------------------

GOLD_CONN = ["Famous Mels", "Household tools", "Cocktails", "Monkey ___"]


def test_connections_hand_values() -> None:
    # Lowercased and stripped; ROUGE-1 tokens are lowercase [a-z0-9]+ runs.
    # "famous mel" vs "famous mels": 1 common of 2/2 -> P = R = 1/2 -> F 0.5; EM 0
    # "tools" vs "household tools": P 1/1, R 1/2 -> F = 2*(1*0.5)/1.5 = 2/3; EM 0
    # " COCKTAILS " -> "cocktails" == "cocktails": EM 1, F 1
    # "monkey" vs "monkey ___": tokens [monkey] vs [monkey] -> F 1; strings differ -> EM 0
    # wall 1: EM 1/4 = 0.25, ROUGE (0.5 + 2/3 + 1 + 1)/4 = 19/24
    # wall 2: exact copy -> EM 1, ROUGE 1. Means: EM 0.625, ROUGE (19/24 + 1)/2 = 43/48
    pred = ["Famous Mel", "tools", " COCKTAILS ", "monkey"]
    got = connections.connection_scores(
        [pred, GOLD_CONN], [GOLD_CONN, GOLD_CONN], return_per_item=True
    )
    assert got["exact_match"] == pytest.approx(0.625)
    assert got["rouge1"] == pytest.approx(43 / 48)
    assert got["n_walls"] == 2
    assert got["per_item"][0] == pytest.approx({"exact_match": 0.25, "rouge1": 19 / 24})
    assert "bertscore_f1" not in got


def test_exact_match_semantics_of_evaluate() -> None:
    # evaluate's exact_match compares numpy unicode arrays: equal strings -> 1,
    # anything else (even punctuation) -> 0; numpy ignores trailing NUL characters.
    assert connections.exact_match("monkey ___", "monkey ___") == 1.0
    assert connections.exact_match("monkey", "monkey ___") == 0.0
    assert connections.exact_match("a\x00", "a") == 1.0


# ----------------------------------------------------------------------------------------
# spans (WoTe, SQuAD v1.1)
# ----------------------------------------------------------------------------------------


def test_spans_hand_values() -> None:
    # 1 "The Eiffel Tower!" -> "eiffel tower" == gold 1 -> EM 100, F1 100 (max over golds)
    # 2 "in the oven at 200 degrees" -> [in, oven, at, 200, degrees] vs [oven]:
    #   1 common, P = 1/5, R = 1 -> F1 = 2*(0.2*1)/1.2 = 1/3; EM 0
    # 3 "an apple" vs "the apple": both "apple" -> EM 100, F1 100 (single-string reference)
    # 4 "" vs "x": no common token -> 0, 0
    # EM = (100 + 0 + 100 + 0)/4 = 50; F1 = (100 + 100/3 + 100 + 0)/4 = 58.333...
    preds = ["The Eiffel Tower!", "in the oven at 200 degrees", "an apple", ""]
    refs = [["Paris", "eiffel tower"], ["oven"], "the apple", ["x"]]
    got = spans.span_scores(preds, refs, return_per_item=True)
    assert got["exact_match"] == pytest.approx(50.0)
    assert got["f1"] == pytest.approx((100 + 100 / 3 + 100 + 0) / 4)
    assert got["n_questions"] == 4
    assert got["per_item"][1] == pytest.approx({"exact_match": 0.0, "f1": 100 / 3})
    assert spans.normalize_answer("  The  Cat's, a  hat ") == "cats hat"


# ----------------------------------------------------------------------------------------
# malformed input
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        ([WALL[:3]], [WALL], r"predictions\[0\]: expected 4 groups of 4 clues, got 3 groups"),
        ([WALL], [[A, B, C, D + ["d5"]]], r"references\[0\]\[3\]: expected a group of 4 clues"),
        ([WALL, [A, B, C, ["d1", "d2", "d3", 8.5]]], [WALL, WALL], r"predictions\[1\]\[3\]\[3\]"),
        ([WALL], [[A, B, C, ["d1", "d2", "d3", 8.5]]], r"clue must be a string, got float 8.5"),
        (["a1 a2"], [WALL], r"predictions\[0\]: expected 4 groups of 4 clues, got str"),
        ([[A, B, C, "d1d2d3d4"]], [WALL], r"predictions\[0\]\[3\]: expected a group"),
        ([WALL, WALL], [WALL], r"differ in length: 2 predictions vs 1 references"),
        ([], [], r"nothing to score"),
        ("not a list", [WALL], r"predictions must be a list"),
    ],
)
def test_grouping_malformed(preds: object, refs: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        grouping.grouping_scores(preds, refs)


@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        ([GOLD_CONN[:3]], [GOLD_CONN], r"predictions\[0\]: expected 4 connection strings, got 3"),
        ([GOLD_CONN], [GOLD_CONN + ["x"]], r"references\[0\]: expected 4 connection strings"),
        ([["a", "b", None, "d"]], [GOLD_CONN], r"predictions\[0\]\[2\]: connection must be"),
        (["abcd"], [GOLD_CONN], r"predictions\[0\]: expected 4 connection strings, got str"),
        ([GOLD_CONN], [], r"differ in length"),
    ],
)
def test_connections_malformed(preds: object, refs: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        connections.connection_scores(preds, refs)


@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        ([3], ["x"], r"predictions\[0\]: prediction must be a string, got int"),
        (["x", "y"], [["x"], []], r"references\[1\]: reference has no gold answers"),
        (["x"], [[1]], r"references\[0\]\[0\]: gold answer must be a string"),
        (["x"], [None], r"references\[0\]: reference must be a string or a list"),
        (["x"], [], r"differ in length"),
    ],
)
def test_spans_malformed(preds: object, refs: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        spans.span_scores(preds, refs)


# ----------------------------------------------------------------------------------------
# evaluate integration
# ----------------------------------------------------------------------------------------


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


def test_evaluate_load_from_repo_root(loaded: dict) -> None:
    swap = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
    got = loaded["grouping"].compute(predictions=[WALL, swap], references=[WALL, WALL])
    assert got == grouping.grouping_scores([WALL, swap], [WALL, WALL])
    assert type(loaded["grouping"]).__name__ == "OcwMetric"


def test_evaluate_return_per_item(loaded: dict) -> None:
    got = loaded["spans"].compute(
        predictions=["an apple", "pear"], references=["the apple", ["apple"]], return_per_item=True
    )
    assert got["per_item"] == [{"exact_match": 100.0, "f1": 100.0}, {"exact_match": 0.0, "f1": 0.0}]
    assert got["exact_match"] == 50.0


@pytest.mark.parametrize("config", ["grouping", "connections", "spans"])
def test_add_batch_equals_one_compute(loaded: dict, config: str) -> None:
    if config == "grouping":
        swap = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
        preds, refs = [WALL, swap, WALL[::-1]], [WALL, WALL, WALL]
    elif config == "connections":
        preds, refs = [GOLD_CONN, ["x"] * 4, GOLD_CONN[::-1]], [GOLD_CONN] * 3
    else:
        preds, refs = ["a cat", "dog", "the bird"], [["cat"], "big dog", ["bird", "birds"]]
    metric = loaded[config]
    once = metric.compute(predictions=preds, references=refs, return_per_item=True)
    metric.add_batch(predictions=preds[:2], references=refs[:2])
    metric.add(prediction=preds[2], reference=refs[2])
    assert metric.compute(return_per_item=True) == once


def test_evaluate_validates_before_arrow(loaded: dict) -> None:
    bad = [A, B, C, ["d1", "d2", "d3", 8.5]]
    with pytest.raises(ValueError, match=r"predictions\[1\]\[3\]\[3\]: clue must be a string"):
        loaded["grouping"].compute(predictions=[WALL, bad], references=[WALL, WALL])
    with pytest.raises(ValueError, match=r"predictions\[0\]: expected 4 groups"):
        loaded["grouping"].add_batch(predictions=[WALL[:3]], references=[WALL])
    with pytest.raises(ValueError, match=r"references: expected 4 connection strings, got 2"):
        loaded["connections"].add(prediction=GOLD_CONN, reference=["a", "b"])
    with pytest.raises(ValueError, match=r"differ in length"):
        loaded["spans"].compute(predictions=["a"], references=[])


def test_unknown_config_and_bertscore_on_wrong_config(loaded: dict) -> None:
    with pytest.raises(ValueError, match=r"unknown config_name 'default'.*grouping"):
        evaluate.load(str(METRIC_DIR))
    with pytest.raises(ValueError, match=r"bertscore is only available with config 'connections'"):
        loaded["grouping"].compute(predictions=[WALL], references=[WALL], bertscore=True)


def test_bertscore_without_package_is_a_clear_error(
    loaded: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "bert_score", None)  # import fails like when missing
    with pytest.raises(RuntimeError, match=r"`bert_score` is not installed"):
        loaded["connections"].compute(
            predictions=[GOLD_CONN], references=[GOLD_CONN], bertscore=True
        )


def test_bertscore_without_model_is_a_clear_error(
    loaded: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = types.ModuleType("bert_score")

    def score(*args: object, **kwargs: object) -> None:
        raise OSError("We couldn't connect to 'https://huggingface.co' to load roberta-large")

    fake.score = score  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bert_score", fake)
    with pytest.raises(RuntimeError, match=r"model \('roberta-large'\).*could not be loaded"):
        connections.connection_scores([GOLD_CONN], [GOLD_CONN], bertscore=True)


def test_bertscore_values_are_averaged_per_wall(monkeypatch: pytest.MonkeyPatch) -> None:
    # With a stand-in bert_score: F1 per connection 0.1..0.8 -> walls 0.25 and 0.65 -> 0.45.
    import numpy as np

    fake = types.ModuleType("bert_score")
    seen: dict = {}

    def score(cands: list, refs: list, **kwargs: object) -> tuple:
        seen.update(kwargs, n=len(cands))
        f1 = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
        return f1, f1, f1

    fake.score = score  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bert_score", fake)
    got = connections.connection_scores([GOLD_CONN] * 2, [GOLD_CONN] * 2, bertscore=True)
    assert got["bertscore_f1"] == pytest.approx(0.45)
    assert seen["lang"] == "en" and seen["rescale_with_baseline"] is True and seen["n"] == 8


#: One input per config and its figures (see the hand-computed tests above).
_COPY_CASES = {
    "grouping": (
        [[["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]],
        [WALL],
        {"correct_groups": 2, "full_wall": 0, "wd": 0.125},
    ),
    "connections": ([GOLD_CONN], [GOLD_CONN], {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 1}),
    "spans": (["the oven"], [["oven"]], {"exact_match": 100.0, "f1": 100.0, "n_questions": 1}),
}


@pytest.mark.slow
def test_folder_copied_alone_loads_every_config(tmp_path: Path) -> None:
    """A copy of the metric folder alone, loaded in a fresh process with an empty modules
    cache: evaluate fetches every sibling module from the copy, and each config computes."""
    import json
    import subprocess

    target = tmp_path / "ocw_metric"
    shutil.copytree(METRIC_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import importlib, json, sys\n"
        "from pathlib import Path\n"
        "import evaluate\n"
        "out = {}\n"
        f"for config, (preds, refs, _) in {_COPY_CASES!r}.items():\n"
        "    metric = evaluate.load(sys.argv[1], config)\n"
        "    package = importlib.import_module(type(metric).__module__.rsplit('.', 1)[0])\n"
        "    fetched = sorted(p.name for p in Path(package.__file__).parent.glob('*.py'))\n"
        "    result = metric.compute(predictions=preds, references=refs)\n"
        "    out[config] = {'result': result, 'fetched': fetched,\n"
        "                   'module': sys.modules[type(metric).__module__].__file__}\n"
        "print(json.dumps(out))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_MODULES_CACHE=str(tmp_path / "modules"), HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(target)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    siblings = sorted(p.name for p in METRIC_DIR.glob("*.py") if p.name != "app.py")
    for config, (_, _, want) in _COPY_CASES.items():
        got = out[config]
        assert Path(got["module"]).is_relative_to(tmp_path / "modules"), config
        assert got["fetched"] == ["__init__.py", *siblings], config
        assert {k: got["result"][k] for k in want} == pytest.approx(want), config


@pytest.mark.parametrize("config", cs_configs())
def test_evaluate_empty_input_is_nothing_to_score(loaded: dict, config: str) -> None:
    # spans picks its features from the first item, which an empty input lacks: still the
    # ValueError of the other configs, not an IndexError from evaluate.
    with pytest.raises(ValueError, match="nothing to score"):
        loaded[config].compute(predictions=[], references=[])
    metric = loaded[config]
    preds, refs, want = _COPY_CASES[config]
    got = metric.compute(predictions=preds, references=refs)
    assert {k: got[k] for k in want} == pytest.approx(want)


def test_metric_card_and_space_files() -> None:
    import yaml

    text = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    for key in ("title", "emoji", "colorFrom", "colorTo", "sdk_version", "description"):
        assert meta[key]
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and meta["pinned"] is False
    assert meta["tags"] == ["evaluate", "metric"]
    app = (METRIC_DIR / "app.py").read_text(encoding="utf-8")
    assert "launch_gradio_widget" in app  # loading from a flat copy: tests/test_space.py
    reqs = (METRIC_DIR / "requirements.txt").read_text(encoding="utf-8").split()
    for name in ("evaluate", "scikit-learn", "scipy", "rouge_score", "numpy"):
        assert any(r.startswith(name + ">=") for r in reqs), name


def test_metric_card_example(loaded: dict) -> None:
    # The README example: Gimlet and Margarita swapped, groups reordered.
    # Runs 3333 and 0000 removed; left 2122 (gibson gimlet manhattan sidecar) vs 1111 ->
    # W1 = 3/4, and 1211 (hammer margarita screwdriver wrench) vs 2222 -> 3/4; WD = 1.5/4.
    wall = [
        ["Blanc", "Brooks", "B", "Smith"],
        ["Screwdriver", "Hammer", "Gimlet", "Wrench"],
        ["Sidecar", "Manhattan", "Gibson", "Margarita"],
        ["Puzzle", "Business", "Nuts", "Suit"],
    ]
    pred = [wall[3], ["Sidecar", "Manhattan", "Gibson", "Gimlet"]]
    pred += [["Screwdriver", "Hammer", "Margarita", "Wrench"], wall[0]]
    got = loaded["grouping"].compute(predictions=[pred], references=[wall])
    assert got["wd"] == pytest.approx(0.375)
    assert got["ari"] == pytest.approx(0.6875) and got["correct_groups"] == 2


def test_many_repeated_clues_use_the_greedy_assignment() -> None:
    # Every clue in every gold group: 16 ambiguous occurrences with 4 candidates each
    # (4**16 > 4096 assignments) -> greedy, occurrence by occurrence: first avoid using a
    # gold occurrence twice, then maximise agreement, ties -> lowest index. Each gold group
    # holds "x" once, so the four "x" go to 0, 1, 2, 3; likewise "y", "z", "w":
    # every predicted group gets labels 0 1 2 3 (the transposed wall).
    gold = [["x", "y", "z", "w"]] * 4
    pred = [["x"] * 4, ["y"] * 4, ["z"] * 4, ["w"] * 4]
    labels = grouping.predicted_labels(grouping._sorted_lower(pred), grouping._sorted_lower(gold))
    assert labels == [0, 1, 2, 3] * 4
    got = grouping.score_wall(pred, gold)
    # As test_transposed_wall_is_worst: WD 1, ARI -0.25, FMS 0.
    assert got["wd"] == 1.0 and got["ari"] == pytest.approx(-0.25) and got["fms"] == 0.0
    assert got["correct_groups"] == 0


# ----------------------------------------------------------------------------------------
# lone surrogates: not Unicode text, rejected before Arrow with the position
# ----------------------------------------------------------------------------------------

SURROGATE_WALL = [A, ["b1", "b2", "b3", "\ud800"], C, D]


@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        (
            [WALL, WALL, SURROGATE_WALL],
            [WALL] * 3,
            r"predictions\[2\]\[1\]\[3\]: clue is not valid Unicode text \(lone surrogate at 0\)",
        ),
        (
            [WALL],
            [[A, B, ["c1", "c2x\udc80", "c3", "c4"], D]],
            r"references\[0\]\[2\]\[1\]: clue is not valid Unicode text \(lone surrogate at 3\)",
        ),
    ],
)
def test_grouping_lone_surrogate(preds: list, refs: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        grouping.grouping_scores(preds, refs)


@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        (
            [GOLD_CONN, ["a", "b", "c", "d\ud800"]],
            [GOLD_CONN] * 2,
            r"predictions\[1\]\[3\]: connection is not valid Unicode text "
            r"\(lone surrogate at 1\)",
        ),
        (
            [GOLD_CONN],
            [["\udc80", "b", "c", "d"]],
            r"references\[0\]\[0\]: connection is not valid Unicode text",
        ),
    ],
)
def test_connections_lone_surrogate(preds: list, refs: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        connections.connection_scores(preds, refs)


@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        (
            ["x", "ab\ud800"],
            ["x", "y"],
            r"predictions\[1\]: prediction is not valid Unicode text \(lone surrogate at 2\)",
        ),
        (["x"], [["ok", "\udc80"]], r"references\[0\]\[1\]: gold answer is not valid Unicode"),
        (["x"], ["\udc80"], r"references\[0\]: gold answer is not valid Unicode text"),
    ],
)
def test_spans_lone_surrogate(preds: list, refs: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        spans.span_scores(preds, refs)


def test_evaluate_rejects_lone_surrogates_before_arrow(loaded: dict) -> None:
    # Without the check, pyarrow raises a bare UnicodeEncodeError naming no position.
    with pytest.raises(ValueError, match=r"predictions\[2\]\[1\]\[3\]: clue is not valid"):
        loaded["grouping"].compute(predictions=[WALL, WALL, SURROGATE_WALL], references=[WALL] * 3)
    with pytest.raises(ValueError, match=r"references\[0\]\[1\]\[3\]: clue is not valid"):
        loaded["grouping"].add_batch(predictions=[WALL], references=[SURROGATE_WALL])
    with pytest.raises(ValueError, match=r"predictions\[2\]: connection is not valid"):
        loaded["connections"].add(prediction=["a", "b", "\udc80", "d"], reference=GOLD_CONN)
    with pytest.raises(ValueError, match=r"predictions\[0\]: prediction is not valid"):
        loaded["spans"].compute(predictions=["\ud800"], references=[["x"]])
    # Valid non-ASCII text (a proper surrogate pair written as one code point) is fine.
    got = loaded["spans"].compute(predictions=["caf\u00e9 \U0001f600"], references=["café 😀"])
    assert got["exact_match"] == 100.0


# ----------------------------------------------------------------------------------------
# gold walls with repeated clues; predictions with repeated clues
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("refs", "match"),
    [
        ([[["a"] * 4] * 4], r"references\[0\]: clue 'a' occurs 16 times in the gold wall"),
        (
            [WALL, [A, ["b1", "A1", "b3", "b4"], ["c1", "c2", "a1", "c4"], D]],
            r"references\[1\]: clue 'a1' occurs 3 times .*no clue more than 2 times",
        ),
        ([[["x", "y", "z", "w"]] * 4], r"references\[0\]: clue '.' occurs 4 times"),
    ],
)
def test_gold_wall_with_a_clue_more_than_twice_is_rejected(refs: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        grouping.grouping_scores([WALL] * len(refs), refs)


def test_gold_wall_with_a_clue_twice_is_scored(loaded: dict) -> None:
    # The two walls of the release with a repeated clue (654041: Bask twice in one group;
    # b308e4: Glamour in two groups) are accepted and perfect predictions score perfectly.
    w654041 = [
        ["Vain", "Blue Sky", "Writer", "Brightside"],
        ["Bask", "Mask", "Rok", "Bask"],
        ["Bane", "Zoom", "Kingpin", "Sandman"],
        ["Road", "Hay", "Deck", "Bullseye"],
    ]
    refs = [w654041, B308E4]
    preds = [w654041[::-1], [g[::-1] for g in B308E4[::-1]]]
    got = loaded["grouping"].compute(predictions=preds, references=refs)
    assert (got["wd"], got["ami"], got["ari"], got["fms"]) == (0.0, 1.0, 1.0, 1.0)
    assert got["full_wall"] == 2 and got["correct_groups"] == 8


def test_evaluate_rejects_invalid_gold_wall(loaded: dict) -> None:
    with pytest.raises(ValueError, match=r"references\[1\]: clue 'a' occurs 16 times"):
        loaded["grouping"].compute(predictions=[WALL, WALL], references=[WALL, [["a"] * 4] * 4])
    with pytest.raises(ValueError, match=r"references: clue 'a' occurs 16 times"):
        loaded["grouping"].add(prediction=WALL, reference=[["a"] * 4] * 4)


def test_prediction_repeating_one_clue_is_scored(loaded: dict) -> None:
    # A bad prediction, not malformed input: "a1" 16 times -> labels all 0 (one cluster).
    # correct groups 0. WD: the first run 0000 equals gold run 0000 and both are removed;
    # 0000 vs 1111, 2222, 3333: W1 = 1, 2 -> 1, 3 -> 1; WD = 3 / 4 = 0.75.
    # Pairs: same gold group 24, same predicted label C(16,2) = 120, both 24.
    # ARI = (24 - 24*120/120) / ((24+120)/2 - 24) = 0; FMS = 24 / sqrt(24*120) = sqrt(0.2).
    # MI = 0 and the EMI of a one-cluster labelling is 0 -> AMI = 0.
    got = loaded["grouping"].compute(predictions=[[["a1"] * 4] * 4], references=[WALL])
    assert got["wd"] == pytest.approx(0.75)
    assert got["ari"] == pytest.approx(0.0, abs=1e-12)
    assert got["fms"] == pytest.approx(math.sqrt(0.2))
    assert got["ami"] == pytest.approx(0.0, abs=1e-12)
    assert got["correct_groups"] == 0 and got["full_wall"] == 0
    # "Glamour" 16 times on b308e4 (in two gold groups: 2**16 assignments -> greedy): scored.
    got = grouping.grouping_scores([[["Glamour"] * 4] * 4], [B308E4])
    assert got["correct_groups"] == 0 and 0.0 <= got["wd"] <= 1.0 and got["fms"] <= 1.0


# ----------------------------------------------------------------------------------------
# bertscore_kwargs needs bertscore=True
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"model_type": "roberta-base"}, {}])
def test_bertscore_kwargs_without_bertscore(kwargs: dict) -> None:
    with pytest.raises(ValueError, match=r"bertscore_kwargs needs bertscore=True"):
        connections.connection_scores([GOLD_CONN], [GOLD_CONN], bertscore_kwargs=kwargs)


def test_bertscore_kwargs_must_be_a_dict() -> None:
    with pytest.raises(ValueError, match=r"bertscore_kwargs must be a dict.*got list"):
        connections.connection_scores(
            [GOLD_CONN], [GOLD_CONN], bertscore=True, bertscore_kwargs=[1]
        )


def test_evaluate_bertscore_kwargs_without_bertscore(loaded: dict) -> None:
    metric = loaded["connections"]
    metric.add_batch(predictions=[GOLD_CONN], references=[GOLD_CONN])
    with pytest.raises(ValueError, match=r"bertscore_kwargs needs bertscore=True"):
        metric.compute(bertscore_kwargs={"model_type": "roberta-base"})
    # Checked before evaluate finalises the stored batch: a corrected call still works.
    assert metric.compute() == {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 1}
    with pytest.raises(ValueError, match=r"bertscore_kwargs is only available with config 'conn"):
        loaded["grouping"].compute(predictions=[WALL], references=[WALL], bertscore_kwargs={})


# ----------------------------------------------------------------------------------------
# metric card: citation, no local paths, connections order
# ----------------------------------------------------------------------------------------


def _ocw_citation() -> str:
    import ast

    tree = ast.parse((REPO_ROOT / "OCW.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "_CITATION":
            return node.value.value  # type: ignore[attr-defined]
    raise AssertionError("no _CITATION in OCW.py")


def test_citation_identical_to_dataset_script(loaded: dict) -> None:
    ocw = _ocw_citation()
    assert "alavi-naeini2023large" in ocw and "Alavi Naeini, Saeid" in ocw
    card = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    assert ocw in card
    assert card.count("alavi-naeini2023large") == 1
    citation = loaded["grouping"].citation
    assert citation.startswith(ocw) and citation.count("alavi-naeini2023large") == 1


def test_card_has_no_local_paths() -> None:
    # The card becomes a public Hugging Face Space: no paths of the development machine.
    card = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    for fragment in ("../", "shared/data", "/work/", "/home/", "/tmp/", "file://"):
        assert fragment not in card, fragment


def test_connections_are_scored_in_gold_group_order(loaded: dict) -> None:
    # Prediction i is compared with gold connection i, whatever order the predicted groups
    # came in: the right connections in another order score as wrong ones.
    # GOLD_CONN reversed: Monkey ___ / Cocktails / Household tools / Famous Mels -> no
    # position equal (EM 0) and no token shared at any position (ROUGE-1 0).
    got = loaded["connections"].compute(predictions=[GOLD_CONN[::-1]], references=[GOLD_CONN])
    assert got == {"exact_match": 0.0, "rouge1": 0.0, "n_walls": 1}
    card = " ".join((METRIC_DIR / "README.md").read_text(encoding="utf-8").split())
    assert "prediction `i` names the connection of **gold group `i`**" in card
    assert "must have them reordered to the gold groups they match" in card


def test_str_subclasses_are_checked_clue_by_clue() -> None:
    # numpy.str_ clues (e.g. from an array) take the clue-by-clue path and come back as str.
    import numpy as np

    wall = [[np.str_(c) for c in g] for g in WALL]
    checked = inputs.validate_wall(wall, "predictions[0]")
    assert checked == WALL and {type(c) for g in checked for c in g} == {str}
    assert grouping.grouping_scores([wall], [WALL])["full_wall"] == 1


# ----------------------------------------------------------------------------------------
# spans: the squad metric's input shapes
# ----------------------------------------------------------------------------------------


def _squad_pred(qid: str, text: str) -> dict:
    return {"id": qid, "prediction_text": text}


def _squad_ref(qid: str, *answers: str) -> dict:
    return {"id": qid, "answers": {"text": list(answers), "answer_start": [0] * len(answers)}}


SQUAD_REFS = [_squad_ref("q1", "oven"), _squad_ref("q2", "pan", "wok"), _squad_ref("q3", "x")]
# Predictions in another order than the references.
# q1 "the oven" -> "oven": EM 100, F1 100; q2 "a frying pan" vs "pan": P 1/2, R 1 -> F1 2/3,
# vs "wok" 0 -> max 2/3, EM 0; q3 "y" vs "x": 0, 0.
# EM = 100/3; F1 = (100 + 200/3 + 0) / 3 = 500/9.
SQUAD_PREDS = [
    _squad_pred("q3", "y"),
    _squad_pred("q1", "the oven"),
    _squad_pred("q2", "a frying pan"),
]


def test_spans_squad_shape_hand_values() -> None:
    got = spans.span_scores(SQUAD_PREDS, SQUAD_REFS, return_per_item=True)
    assert got["exact_match"] == pytest.approx(100 / 3)
    assert got["f1"] == pytest.approx(500 / 9)
    assert got["n_questions"] == 3
    # per question, in reference order, with the id
    assert [item["id"] for item in got["per_item"]] == ["q1", "q2", "q3"]
    assert got["per_item"][1] == pytest.approx({"id": "q2", "exact_match": 0.0, "f1": 200 / 3})
    # the same figures as the plain shape in reference order
    plain = spans.span_scores(["the oven", "a frying pan", "y"], [["oven"], ["pan", "wok"], ["x"]])
    assert {k: got[k] for k in plain} == plain


def test_spans_squad_shape_through_evaluate(loaded: dict) -> None:
    metric = loaded["spans"]
    got = metric.compute(predictions=SQUAD_PREDS, references=SQUAD_REFS)
    assert got == spans.span_scores(SQUAD_PREDS, SQUAD_REFS)
    # add_batch and add in the squad shape; ids matched over the whole computation, as the
    # squad metric does (q1's prediction and reference in different batches).
    metric.add_batch(predictions=SQUAD_PREDS[:2], references=SQUAD_REFS[1:])
    metric.add(prediction=SQUAD_PREDS[2], reference=SQUAD_REFS[0])
    assert metric.compute() == got
    # a WoTe row's answers field as it is (answer_start -1: not located), extra keys ignored
    row = {"id": "w1", "answers": {"text": ["Preheat"], "answer_start": [-1]}, "domain": "x"}
    got = metric.compute(
        predictions=[{"id": "w1", "prediction_text": "preheat!", "score": 0.9}], references=[row]
    )
    assert got == {"exact_match": 100.0, "f1": 100.0, "n_questions": 1}


@pytest.mark.parametrize(
    ("preds", "refs", "match"),
    [
        (
            SQUAD_PREDS[:2],
            SQUAD_REFS,
            r"differ in question ids: no prediction for question id 'q2' \(references\[1\]\)",
        ),
        (
            [*SQUAD_PREDS, _squad_pred("q9", "z")],
            SQUAD_REFS,
            r"question id 'q9' \(predictions\[3\]\) not among the references",
        ),
        (
            [*SQUAD_PREDS, _squad_pred("q1", "again")],
            SQUAD_REFS,
            r"predictions\[3\]: question id 'q1' occurs twice \(also predictions\[1\]\)",
        ),
        (
            SQUAD_PREDS,
            [*SQUAD_REFS, _squad_ref("q2", "pot")],
            r"references\[3\]: question id 'q2' occurs twice",
        ),
        (
            [SQUAD_PREDS[0], "the oven", SQUAD_PREDS[2]],
            SQUAD_REFS,
            r"predictions\[1\]: expected a SQuAD-style prediction .* got str 'the oven'",
        ),
        (
            [{"id": "q1", "text": "oven"}],
            SQUAD_REFS[:1],
            r"predictions\[0\]: expected a SQuAD-style prediction",
        ),
        (
            SQUAD_PREDS[1:2],
            [{"id": "q1", "answers": {"text": [], "answer_start": []}}],
            r"references\[0\]\['answers'\]\['text'\]: reference has no gold answers",
        ),
        (
            SQUAD_PREDS[1:2],
            [{"id": "q1", "answers": {"text": ["oven"], "answer_start": [0, 4]}}],
            r"references\[0\]\['answers'\]\['answer_start'\]: expected one offset per answer",
        ),
        (
            SQUAD_PREDS[1:2],
            [{"id": "q1", "answers": ["oven"]}],
            r"references\[0\]\['answers'\]: expected \{'text'",
        ),
        (
            [{"id": 1, "prediction_text": "oven"}],
            SQUAD_REFS[:1],
            r"predictions\[0\]\['id'\]: question id must be a string, got int",
        ),
    ],
)
def test_spans_squad_shape_errors(preds: list, refs: list, match: str, loaded: dict) -> None:
    with pytest.raises(ValueError, match=match):
        spans.span_scores(preds, refs)
    with pytest.raises(ValueError, match=match):
        loaded["spans"].compute(predictions=preds, references=refs)


def test_spans_squad_many_missing_ids_are_summarised() -> None:
    refs = [_squad_ref(f"q{i}", "x") for i in range(8)]
    with pytest.raises(ValueError, match=r"'q5' \(references\[5\]\) and 2 more$"):
        spans.span_scores([_squad_pred("q0", "x")], refs)


def test_spans_answer_start_may_be_left_out() -> None:
    ref = {"id": "q1", "answers": {"text": ["oven"]}}
    checked = inputs.validate_squad_reference(ref, "references[0]")
    assert checked["answers"] == {"text": ["oven"], "answer_start": [-1]}
    assert spans.span_scores([_squad_pred("q1", "Oven.")], [ref])["exact_match"] == 100.0


def test_spans_one_shape_per_computation(loaded: dict) -> None:
    metric = loaded["spans"]
    metric.add_batch(predictions=["oven"], references=[["oven"]])
    with pytest.raises(ValueError, match=r"uses the squad metric's .* already added use plain"):
        metric.add_batch(predictions=SQUAD_PREDS[1:2], references=SQUAD_REFS[:1])
    assert metric.compute() == {"exact_match": 100.0, "f1": 100.0, "n_questions": 1}
    metric.add(prediction=SQUAD_PREDS[1], reference=SQUAD_REFS[0])
    with pytest.raises(ValueError, match=r"uses plain strings but .* use the squad metric's"):
        metric.add(prediction="oven", reference=["oven"])
    assert metric.compute()["n_questions"] == 1


# ----------------------------------------------------------------------------------------
# connections: ROUGE-1 for text in any script (rouge_tokenizer="unicode")
# ----------------------------------------------------------------------------------------

GREEK = ["Ζώα", "Χρώματα", "Πόλεις", "Θεοί"]
DEVANAGARI = ["नमस्ते दुनिया", "भारत", "पानी", "किताब"]


def test_unicode_tokenizer_scores_non_latin_text() -> None:
    # Identical connections: exact match 1 either way; ROUGE-1 0 with the paper's tokenizer
    # (no ASCII letters -> no tokens), 1 with the Unicode one.
    for wall in (GREEK, DEVANAGARI):
        assert connections.connection_scores([wall], [wall]) == {
            "exact_match": 1.0,
            "rouge1": 0.0,
            "n_walls": 1,
        }
        assert connections.connection_scores([wall], [wall], rouge_tokenizer="unicode") == {
            "exact_match": 1.0,
            "rouge1": 1.0,
            "n_walls": 1,
        }
    # "красная площадь" vs "площадь": P 1/2, R 1 -> F 2/3 (default: 0);
    # "café" vs "café au lait": unicode [café] vs [café, au, lait] -> P 1, R 1/3 -> F 1/2;
    # default [caf] vs [caf, au, lait] -> also 1/2. Wall: (2/3 + 1/2 + 1 + 1) / 4 = 19/24.
    pred, gold = ["Красная площадь", "café", "x", "y"], ["площадь", "café au lait", "x", "y"]
    uni = connections.connection_scores([pred], [gold], rouge_tokenizer="unicode")
    assert uni["rouge1"] == pytest.approx(19 / 24)
    assert connections.connection_scores([pred], [gold])["rouge1"] == pytest.approx(
        (0 + 0.5 + 2) / 4
    )


def test_unicode_tokenizer_tokens() -> None:
    tok = connections.UnicodeTokenizer()
    # NFC: "e" + combining acute equals "é"; marks stay inside words (Devanagari vowel
    # signs, virama); punctuation, symbols, underscores and spaces separate tokens.
    assert tok.tokenize("Cafe\u0301 AU-lait!") == ["café", "au", "lait"]
    assert tok.tokenize("नमस्ते, दुनिया") == ["नमस्ते", "दुनिया"]
    assert tok.tokenize("Monkey ___ 2½") == ["monkey", "2½"]
    assert tok.tokenize("東京タワー") == ["東京タワー"]  # no spaces: one token per run
    assert tok.tokenize("") == []


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_unicode_tokenizer_equals_the_default_on_ascii(text: str) -> None:
    from rouge_score import tokenize

    assert connections.UnicodeTokenizer().tokenize(text) == tokenize.tokenize(text, None)


def test_rouge_tokenizer_option_checks(loaded: dict) -> None:
    with pytest.raises(
        ValueError, match=r"rouge_tokenizer must be one of \['default', 'unicode'\]"
    ):
        connections.connection_scores([GREEK], [GREEK], rouge_tokenizer="icu")
    with pytest.raises(ValueError, match=r"rouge_tokenizer must be one of"):
        loaded["connections"].compute(predictions=[GREEK], references=[GREEK], rouge_tokenizer=1)
    with pytest.raises(ValueError, match=r"rouge_tokenizer is only available with config"):
        loaded["grouping"].compute(predictions=[WALL], references=[WALL], rouge_tokenizer="unicode")
    got = loaded["connections"].compute(
        predictions=[GREEK], references=[GREEK], rouge_tokenizer="unicode"
    )
    assert got == {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 1}
    assert loaded["connections"].compute(
        predictions=[GOLD_CONN], references=[GOLD_CONN], rouge_tokenizer="default"
    ) == {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 1}


# ----------------------------------------------------------------------------------------
# the card's examples (doctests) and its installed forms
# ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_card_examples_run() -> None:
    import doctest

    card = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(card, {}, "README.md", str(METRIC_DIR), 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0 and results.attempted >= 12
    for form in (
        'ocw_hub.load_metric("grouping")',
        'evaluate.load(str(ocw_hub.resources.metric_dir()), "grouping")',
        'evaluate.load("path/to/ocw_metric", "grouping")',
        'evaluate.load(str(Path(__file__).parent / "ocw_metric.py"), "connections")',
        'rouge_tokenizer="unicode"',
    ):
        assert form in card, form


def test_installed_forms_load_the_same_metric() -> None:
    import ocw_hub
    import ocw_hub.resources

    by_package = ocw_hub.load_metric("grouping")
    by_path = evaluate.load(str(ocw_hub.resources.metric_dir()), "grouping")
    swap = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
    args = {"predictions": [WALL, swap], "references": [WALL, WALL]}
    assert (
        by_package.compute(**args)
        == by_path.compute(**args)
        == grouping.grouping_scores([WALL, swap], [WALL, WALL])
    )


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["the oven", "oven", "a pan", "pan", "wok", ""]),
            st.lists(st.sampled_from(["oven", "the pan", "wok", "x y"]), min_size=1, max_size=3),
        ),
        min_size=1,
        max_size=12,
    ),
    st.randoms(use_true_random=False),
)
@pytest.mark.slow
def test_squad_shape_in_any_order_equals_the_plain_shape(items: list, rnd: object) -> None:
    preds = [_squad_pred(f"q{i}", p) for i, (p, _) in enumerate(items)]
    refs = [_squad_ref(f"q{i}", *golds) for i, (_, golds) in enumerate(items)]
    rnd.shuffle(preds)  # type: ignore[attr-defined]
    got = spans.span_scores(preds, refs, return_per_item=True)
    plain = spans.span_scores([p for p, _ in items], [g for _, g in items], return_per_item=True)
    assert [{k: v for k, v in item.items() if k != "id"} for item in got["per_item"]] == plain[
        "per_item"
    ]
    assert (got["exact_match"], got["f1"]) == (plain["exact_match"], plain["f1"])
