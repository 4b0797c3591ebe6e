"""The ``spans`` config on the squad metric's input shapes (``{id, prediction_text}`` and
``{id, answers}``), hand-computed values and errors.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_support import inputs, spans

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
