"""Input checks shared by the three tasks of the OCW metric.

Every check takes the item and its position (``where``, e.g. ``"predictions[3]"``) and raises
:class:`ValueError` naming that position (``predictions[3][1][2]``) and the problem: wrong
shape or type, text with a lone surrogate (not encodable as UTF-8, so Arrow cannot store it),
a gold wall in which a clue occurs more than :data:`MAX_CLUE_REPEATS` times, an empty input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

N_GROUPS = 4
GROUP_SIZE = 4
N_CLUES = N_GROUPS * GROUP_SIZE

# A gold wall may hold a clue (lowercased) at most this many times. The OCW release holds
# walls with a clue twice (``654041``: ``Bask`` twice in one group; ``b308e4``: ``Glamour``
# in two groups) and none with a clue three times or more.
MAX_CLUE_REPEATS = 2


def is_list_like(value: Any) -> bool:
    """True for a list, tuple or numpy array."""
    return isinstance(value, (list, tuple, np.ndarray))


def type_name(value: Any) -> str:
    """The type name of ``value``, for messages."""
    return type(value).__name__


def check_text(value: Any, where: str, what: str) -> str:
    """Raise ``ValueError`` unless ``value`` is a string of valid Unicode text.

    ``what`` names the item in the message (clue, connection, prediction, gold answer). A
    lone surrogate such as ``"\\ud800"`` is a valid Python ``str`` but not Unicode text:
    Arrow (and so ``evaluate``) cannot store it and would fail with a bare
    ``UnicodeEncodeError`` naming no position.
    """
    if not isinstance(value, str):
        raise ValueError(f"{where}: {what} must be a string, got {type_name(value)} {value!r}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(
            f"{where}: {what} is not valid Unicode text (lone surrogate at {err.start})"
        ) from None
    return str(value)


def check_same_length(predictions: Any, references: Any) -> None:
    """Raise ``ValueError`` unless both inputs are lists of the same length."""
    for name, value in (("predictions", predictions), ("references", references)):
        if not is_list_like(value):
            raise ValueError(f"{name} must be a list, got {type_name(value)}")
    if len(predictions) != len(references):
        raise ValueError(
            "predictions and references differ in length: "
            f"{len(predictions)} predictions vs {len(references)} references"
        )


def checked_items(
    predictions: Any,
    references: Any,
    check_prediction: Callable[[Any, str], Any],
    check_reference: Callable[[Any, str], Any],
    validate: bool = True,
) -> tuple[list[Any], list[Any]]:
    """Check the lengths, then (if ``validate``) every item with the given checks, which get
    the position (``predictions[3]``) for their messages; return both as lists.

    Raises:
        ValueError: not lists, lengths differ, nothing to score, or an item check fails.
    """
    check_same_length(predictions, references)
    if len(predictions) == 0:
        raise ValueError("nothing to score: predictions and references are empty")
    if not validate:
        return list(predictions), list(references)
    preds = [check_prediction(x, f"predictions[{i}]") for i, x in enumerate(predictions)]
    refs = [check_reference(x, f"references[{i}]") for i, x in enumerate(references)]
    return preds, refs


def check_pairs(
    predictions: Any,
    references: Any,
    check_prediction: Callable[[Any, str], Any],
    check_reference: Callable[[Any, str], Any],
) -> tuple[list[Any], list[Any]]:
    """Check the lengths, then every (prediction, reference) pair in order, each with its
    position (``predictions[3]``, ``references[3]``); return both as lists. Unlike
    :func:`checked_items`, an empty batch passes (``evaluate`` stores batches of any size).

    Raises:
        ValueError: not lists, lengths differ, or an item check fails.
    """
    check_same_length(predictions, references)
    preds: list[Any] = []
    refs: list[Any] = []
    for i, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        preds.append(check_prediction(prediction, f"predictions[{i}]"))
        refs.append(check_reference(reference, f"references[{i}]"))
    return preds, refs


def _is_text(value: str) -> bool:
    """True when ``value`` encodes as UTF-8 (no lone surrogate)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plainly_valid(wall: Any) -> bool:
    """Fast path of :func:`validate_wall`: 4 lists of 4 ``str`` (not subclasses) that are
    valid Unicode text, checked in one pass. ``False`` means "check clue by clue"."""
    if not is_list_like(wall) or len(wall) != N_GROUPS:
        return False
    clues: list[Any] = []
    for group in wall:
        if not is_list_like(group) or len(group) != GROUP_SIZE:
            return False
        clues.extend(group)
    return all(type(clue) is str for clue in clues) and _is_text("".join(clues))


def validate_wall(wall: Any, where: str) -> list[list[str]]:
    """Check that ``wall`` is 4 groups of 4 clue strings; return it as lists of ``str``.

    ``where`` names the position for error messages, e.g. ``"predictions[3]"``.

    Raises:
        ValueError: the wall is not a list of 4 lists of 4 strings; the message names the
            index of the offending group/clue, e.g. ``predictions[3][1][2]``.
    """
    if _plainly_valid(wall):
        return [list(group) for group in wall]
    if not is_list_like(wall):
        raise ValueError(f"{where}: expected 4 groups of 4 clues, got {type_name(wall)}")
    if len(wall) != N_GROUPS:
        raise ValueError(f"{where}: expected 4 groups of 4 clues, got {len(wall)} groups")
    out: list[list[str]] = []
    for g, group in enumerate(wall):
        if not is_list_like(group):
            raise ValueError(
                f"{where}[{g}]: expected a group of 4 clues (a list), got {type_name(group)}"
            )
        if len(group) != GROUP_SIZE:
            raise ValueError(f"{where}[{g}]: expected a group of 4 clues, got {len(group)} clues")
        out.append([check_text(clue, f"{where}[{g}][{c}]", "clue") for c, clue in enumerate(group)])
    return out


def validate_reference_wall(wall: Any, where: str) -> list[list[str]]:
    """Check a gold wall: :func:`validate_wall`, and no clue (lowercased) more than twice.

    A gold wall is 16 clues in 4 groups of 4. The OCW release holds two walls with a clue
    twice (``654041``, ``b308e4``), which must and do score; a gold wall with a clue three
    or more times (e.g. the same clue 16 times) is not a wall of the benchmark, and scoring
    it would report figures for nothing, so it is rejected. Predictions are not checked for
    repeats: a prediction that repeats a clue is a bad prediction, not malformed input, and
    is scored (repeated clues count as wrong where they cannot all be right).

    Raises:
        ValueError: as :func:`validate_wall`, or a clue occurs more than twice; the message
            names the wall and the clue.
    """
    out = validate_wall(wall, where)
    counts = Counter(clue.lower() for group in out for clue in group)
    clue, n = counts.most_common(1)[0]
    if n > MAX_CLUE_REPEATS:
        raise ValueError(
            f"{where}: clue {clue!r} occurs {n} times in the gold wall (compared lowercased); "
            f"a gold wall holds 16 clues in 4 groups of 4 and no clue more than "
            f"{MAX_CLUE_REPEATS} times"
        )
    return out


def validate_connections(item: Any, where: str) -> list[str]:
    """Check that ``item`` is a list of 4 connection strings (gold group order).

    Raises:
        ValueError: not a list of exactly 4 strings; the message names the index.
    """
    if not is_list_like(item):
        raise ValueError(f"{where}: expected 4 connection strings, got {type_name(item)}")
    if len(item) != N_GROUPS:
        raise ValueError(f"{where}: expected 4 connection strings, got {len(item)}")
    return [check_text(c, f"{where}[{i}]", "connection") for i, c in enumerate(item)]


def validate_span_prediction(item: Any, where: str) -> str:
    """Check that a WoTe prediction is a string.

    Raises:
        ValueError: not a string.
    """
    return check_text(item, where, "prediction")


def validate_span_reference(item: Any, where: str) -> list[str]:
    """Check that a WoTe reference is a string or a non-empty list of strings; return a list.

    Raises:
        ValueError: neither a string nor a non-empty list of strings.
    """
    if isinstance(item, str):
        return [check_text(item, where, "gold answer")]
    if not is_list_like(item):
        raise ValueError(
            f"{where}: reference must be a string or a list of gold answer strings, "
            f"got {type_name(item)}"
        )
    if len(item) == 0:
        raise ValueError(f"{where}: reference has no gold answers")
    return [check_text(answer, f"{where}[{i}]", "gold answer") for i, answer in enumerate(item)]


def _type_of_answers(value: Any) -> str:
    return "a dict" if isinstance(value, dict) else type_name(value)


def is_squad_shaped(predictions: Any, references: Any) -> bool:
    """True when the inputs use the ``squad`` metric's shapes (their first item is a dict)."""
    return any(
        is_list_like(side) and len(side) > 0 and isinstance(side[0], dict)
        for side in (predictions, references)
    )


def validate_squad_prediction(item: Any, where: str) -> dict[str, str]:
    """Check a prediction in the ``squad`` metric's shape: ``{"id": str, "prediction_text":
    str}`` (other keys are ignored); return those two keys.

    Raises:
        ValueError: not a dict with both keys, or a value is not a string of valid text.
    """
    if not isinstance(item, dict) or not {"id", "prediction_text"} <= item.keys():
        raise ValueError(
            f"{where}: expected a SQuAD-style prediction {{'id': str, 'prediction_text': str}} "
            f"like the other predictions, got {_type_of_answers(item)} {item!r:.80}"
        )
    return {
        "id": check_text(item["id"], f"{where}['id']", "question id"),
        "prediction_text": check_text(
            item["prediction_text"], f"{where}['prediction_text']", "prediction"
        ),
    }


def validate_squad_reference(item: Any, where: str) -> dict[str, Any]:
    """Check a reference in the ``squad`` metric's shape: ``{"id": str, "answers": {"text":
    [str, ...], "answer_start": [int, ...]}}`` (SQuAD's answers; ``answer_start`` may be left
    out, it is then -1 for every answer, the WoTe convention for "not located").

    Raises:
        ValueError: not that shape, no gold answer, a text that is not a string of valid
            text, or ``answer_start`` not a list of integers as long as ``text``.
    """
    if not isinstance(item, dict) or not {"id", "answers"} <= item.keys():
        raise ValueError(
            f"{where}: expected a SQuAD-style reference {{'id': str, 'answers': {{'text': "
            f"[...], 'answer_start': [...]}}}} like the other references, got "
            f"{_type_of_answers(item)} {item!r:.80}"
        )
    return {
        "id": check_text(item["id"], f"{where}['id']", "question id"),
        "answers": _squad_answers(item["answers"], f"{where}['answers']"),
    }


def _squad_answers(answers: Any, where: str) -> dict[str, list[Any]]:
    if not isinstance(answers, dict) or "text" not in answers:
        raise ValueError(
            f"{where}: expected {{'text': [...], 'answer_start': [...]}}, got "
            f"{_type_of_answers(answers)}"
        )
    texts = validate_span_reference(answers["text"], f"{where}['text']")
    starts = answers.get("answer_start", [-1] * len(texts))
    if not is_list_like(starts) or len(starts) != len(texts):
        raise ValueError(
            f"{where}['answer_start']: expected one offset per answer text ({len(texts)}), "
            f"got {starts!r:.80}"
        )
    if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in starts):
        raise ValueError(f"{where}['answer_start']: offsets must be integers")
    return {"text": texts, "answer_start": [int(s) for s in starts]}
