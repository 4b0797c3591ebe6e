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

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_support import (
    EMI_4X4,
    GOLD_CONN,
    LN3,
    LN4,
    WALL,
    A,
    B,
    C,
    D,
    connections,
    grouping,
    score,
    spans,
)

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
