"""WoTe extractive QA: exact match and token F1 as in the official SQuAD v1.1 evaluation
script (``evaluate-v1.1.py``), on the 0-100 scale like ``evaluate``'s ``squad`` metric."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .inputs import (
    check_same_length,
    checked_items,
    is_list_like,
    is_squad_shaped,
    type_name,
    validate_span_prediction,
    validate_span_reference,
    validate_squad_prediction,
    validate_squad_reference,
)

SPAN_KEYS = ("exact_match", "f1")

_PUNCTUATION = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(s: str) -> str:
    """SQuAD v1.1 normalisation: lowercase, remove punctuation, articles, extra whitespace."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCTUATION)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def span_f1(prediction: str, ground_truth: str) -> float:
    """SQuAD v1.1 token F1 (0-1) of one prediction against one gold answer."""
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def span_exact_match(prediction: str, ground_truth: str) -> bool:
    """SQuAD v1.1 exact match of normalised strings."""
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def _positions_by_id(items: Sequence[dict[str, Any]], side: str) -> dict[str, int]:
    positions: dict[str, int] = {}
    for i, item in enumerate(items):
        first = positions.setdefault(item["id"], i)
        if first != i:
            raise ValueError(
                f"{side}[{i}]: question id {item['id']!r} occurs twice (also {side}[{first}])"
            )
    return positions


def _listed(ids: list[str], side: str, positions: dict[str, int]) -> str:
    shown = ", ".join(f"{i!r} ({side}[{positions[i]}])" for i in ids[:5])
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _id_mismatch(
    missing: list[str], unknown: list[str], pred_at: dict[str, int], ref_at: dict[str, int]
) -> str:
    problems = []
    if missing:
        problems.append(f"no prediction for question id {_listed(missing, 'references', ref_at)}")
    if unknown:
        problems.append(
            f"question id {_listed(unknown, 'predictions', pred_at)} not among the references"
        )
    return "predictions and references differ in question ids: " + "; ".join(problems)


def align_squad(
    predictions: Sequence[dict[str, Any]], references: Sequence[dict[str, Any]]
) -> tuple[list[str], list[list[str]], list[str]]:
    """Match ``squad``-shaped predictions to references by question id, as the ``squad``
    metric does; unlike it, every reference needs exactly one prediction and every
    prediction a reference.

    Returns:
        (prediction texts, gold answer texts, ids), in reference order.

    Raises:
        ValueError: an id twice on one side, or ids that differ; the message names them
            with their positions, e.g. ``no prediction for question id 'q7' (references[6])``.
    """
    pred_at = _positions_by_id(predictions, "predictions")
    ref_at = _positions_by_id(references, "references")
    missing = [i for i in ref_at if i not in pred_at]
    unknown = [i for i in pred_at if i not in ref_at]
    if missing or unknown:
        raise ValueError(_id_mismatch(missing, unknown, pred_at, ref_at))
    ids = list(ref_at)
    texts = [predictions[pred_at[i]]["prediction_text"] for i in ids]
    golds = [list(references[ref_at[i]]["answers"]["text"]) for i in ids]
    return texts, golds, ids


def check_squad_lengths(predictions: Any, references: Any) -> None:
    """Raise ``ValueError`` unless both are lists of the same length; for ``squad``-shaped
    lists of different lengths the message names the question ids, as :func:`span_scores`'s.
    """
    if is_list_like(predictions) and is_list_like(references):
        if len(predictions) != len(references):
            span_scores(predictions, references)  # raises ValueError naming the ids
    check_same_length(predictions, references)


def _span_inputs(
    predictions: Any, references: Any, validate: bool
) -> tuple[list[str], list[list[str]], list[str] | None]:
    """(prediction texts, gold answer lists, question ids or ``None``) of either shape."""
    if not is_squad_shaped(predictions, references):
        preds, refs = checked_items(
            predictions, references, validate_span_prediction, validate_span_reference, validate
        )
        return preds, [[r] if isinstance(r, str) else r for r in refs], None
    for name, side in (("predictions", predictions), ("references", references)):
        if not is_list_like(side):
            raise ValueError(f"{name} must be a list, got {type_name(side)}")
    if validate:
        predictions = [
            validate_squad_prediction(x, f"predictions[{i}]") for i, x in enumerate(predictions)
        ]
        references = [
            validate_squad_reference(x, f"references[{i}]") for i, x in enumerate(references)
        ]
    return align_squad(predictions, references)


def span_scores(
    predictions: Sequence[Any],
    references: Sequence[Any],
    return_per_item: bool = False,
    *,
    validate: bool = True,
) -> dict[str, Any]:
    """WoTe scores: SQuAD v1.1 exact match and token F1, max over gold answers.

    Two input shapes are accepted:

    * plain: ``predictions`` one answer string per question; ``references`` per question a
      list of gold answer strings (or one string), in the same order;
    * the ``squad`` metric's (so code written for ``evaluate.load("squad")`` works
      unchanged): ``predictions`` ``[{"id", "prediction_text"}]`` and ``references``
      ``[{"id", "answers": {"text": [...], "answer_start": [...]}}]``, matched by id
      (:func:`align_squad`); figures are then in reference order.

    Args:
        predictions: see above.
        references: see above.
        return_per_item: also return ``per_item``, one dict per question (0 or 100 for EM;
            with the ``squad`` shape also its ``id``).
        validate: check every item first (:func:`validate_span_prediction`,
            :func:`validate_span_reference`, or their SQuAD-shaped versions); ``False``
            skips this for a caller that has already done it.

    Returns:
        ``exact_match`` and ``f1``: means over questions on the 0-100 scale (as
        ``evaluate``'s ``squad``); ``n_questions``.

    Raises:
        ValueError: empty input, lengths differ, a prediction is not a string, a reference is
            not a string or a non-empty list of strings; with the ``squad`` shape, an item
            not in that shape, or question ids that occur twice or differ between the two
            sides (the message names the ids).
    """
    preds, refs, ids = _span_inputs(predictions, references, validate)
    per_item: list[dict[str, Any]] = []
    for pred, golds in zip(preds, refs, strict=True):
        em = max(span_exact_match(pred, g) for g in golds)
        f1 = max(span_f1(pred, g) for g in golds)
        per_item.append({"exact_match": 100.0 * em, "f1": 100.0 * f1})
    if ids is not None:
        for item, question_id in zip(per_item, ids, strict=True):
            item["id"] = question_id
    result = aggregate_spans(per_item)
    if return_per_item:
        result["per_item"] = per_item
    return result


def aggregate_spans(per_item: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The global WoTe figures of :func:`span_scores` from per-question figures:
    ``exact_match`` and ``f1`` (means, 0-100) and ``n_questions``.

    Raises:
        ValueError: ``per_item`` is empty.
    """
    if not per_item:
        raise ValueError("nothing to aggregate: no questions")
    total = len(per_item)
    return {
        "exact_match": sum(item["exact_match"] for item in per_item) / total,
        "f1": sum(item["f1"] for item in per_item) / total,
        "n_questions": total,
    }
