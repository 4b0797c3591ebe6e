"""OCW task 2: naming the 4 connections of a wall (scale 0-1).

Exact match and ROUGE-1 F-measure (and, on request, BERTScore F1), as in
``Evaluate.task2_connections_evaluation`` of the paper's script ``evaluate_only_connect.py``
(TaatiTeam/OCW).
"""

from __future__ import annotations

import importlib
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from .inputs import N_GROUPS, checked_items, type_name, validate_connections

# rouge_score is imported where it is first used, bert_score only on request.

CONNECTION_KEYS = ("exact_match", "rouge1")
BERTSCORE_MODEL = "roberta-large"  # bert_score's default model for lang="en"

#: ``rouge_tokenizer`` values: ``"default"`` is rouge_score's tokenizer (the paper's, and
#: ``evaluate``'s ``rouge``); ``"unicode"`` is :class:`UnicodeTokenizer`.
ROUGE_TOKENIZERS = ("default", "unicode")


class UnicodeTokenizer:
    """A ``rouge_score`` tokenizer for text in any script (``rouge_tokenizer="unicode"``).

    The text is NFC-normalised and lowercased; a token is a maximal run of Unicode letters,
    combining marks and digits (general categories L*, M*, N*); everything else separates
    tokens. On ASCII text this gives exactly the tokens of rouge_score's default tokenizer
    (lowercase, runs of ``[a-z0-9]``), which drops every other character, so that
    identical Greek, Cyrillic or Devanagari connections score ROUGE-1 0 there and 1 here.
    Scripts written without spaces (Chinese, Japanese, Thai) give one token per run.
    No stemming.
    """

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text`` (a string), in order."""
        tokens: list[str] = []
        current: list[str] = []
        for char in unicodedata.normalize("NFC", text).lower():
            if unicodedata.category(char)[0] in "LMN":
                current.append(char)
            elif current:
                tokens.append("".join(current))
                current = []
        if current:
            tokens.append("".join(current))
        return tokens


def check_rouge_tokenizer(rouge_tokenizer: Any) -> str:
    """Return ``rouge_tokenizer`` if it is one of :data:`ROUGE_TOKENIZERS`.

    Raises:
        ValueError: any other value.
    """
    if rouge_tokenizer not in ROUGE_TOKENIZERS:
        raise ValueError(
            f"rouge_tokenizer must be one of {list(ROUGE_TOKENIZERS)}, got {rouge_tokenizer!r}"
        )
    return str(rouge_tokenizer)


@lru_cache(maxsize=65536)
def _rouge_tokens(text: str, rouge_tokenizer: str) -> tuple[str, ...]:
    """The ROUGE tokens of ``text``: rouge_score's ``tokenize.tokenize(text, None)`` (what
    its default tokenizer does without a stemmer) or :class:`UnicodeTokenizer`'s."""
    if rouge_tokenizer == "unicode":
        return tuple(UnicodeTokenizer().tokenize(text))
    from rouge_score import tokenize

    return tuple(tokenize.tokenize(text, None))


def _rouge1_fmeasure(prediction: str, reference: str, rouge_tokenizer: str) -> float:
    """ROUGE-1 F-measure as ``RougeScorer.score(reference, prediction)`` computes it for
    ``"rouge1"`` (its ``_score_ngrams`` on unigram counts, rouge_score's ``fmeasure``), from
    rouge_score's own tokenizer and scoring modules. ``rouge_scorer`` itself imports all of
    NLTK for a stemmer ROUGE-1 without stemming never uses; a test checks the figures equal
    ``RougeScorer``'s."""
    from rouge_score import scoring

    target = Counter(_rouge_tokens(reference, rouge_tokenizer))
    predicted = Counter(_rouge_tokens(prediction, rouge_tokenizer))
    overlap = sum(min(count, predicted[token]) for token, count in target.items())
    precision = overlap / max(sum(predicted.values()), 1)
    recall = overlap / max(sum(target.values()), 1)
    return float(scoring.fmeasure(precision, recall))


def exact_match(prediction: str, reference: str) -> float:
    """1.0 if equal else 0.0: the semantics of ``evaluate``'s ``exact_match`` with defaults.

    That metric compares ``numpy`` unicode arrays, which ignore trailing NUL characters;
    so does this function.
    """
    return float(prediction.rstrip("\x00") == reference.rstrip("\x00"))


def rouge1(prediction: str, reference: str, rouge_tokenizer: str = "default") -> float:
    """ROUGE-1 F-measure (0-1) of ``rouge_score`` (``use_stemmer=False``).

    With ``rouge_tokenizer="default"`` as ``evaluate``'s ``rouge`` metric and the paper
    (rouge_score's tokenizer: lowercase, tokens are runs of ``[a-z0-9]``, so text without
    ASCII letters or digits has no tokens and scores 0); with ``"unicode"``, tokens of
    :class:`UnicodeTokenizer`.
    """
    return _rouge1_fmeasure(prediction, reference, check_rouge_tokenizer(rouge_tokenizer))


def _bertscore_f1(
    predictions: list[str], references: list[str], **kwargs: Any
) -> list[float]:  # pragma: no cover - needs bert_score and its model
    try:
        bert_score = importlib.import_module("bert_score")
    except ImportError as err:
        raise RuntimeError(
            "BERTScore was requested (bertscore=True) but the package `bert_score` is not "
            "installed: pip install 'bert-score>=0.3.13' (or ocw-hub[bertscore])"
        ) from err
    options = {"lang": "en", "rescale_with_baseline": True, "use_fast_tokenizer": True}
    options.update(kwargs)
    try:
        _, _, f1 = bert_score.score(predictions, references, **options)
    except (OSError, ValueError) as err:
        model = options.get("model_type") or BERTSCORE_MODEL
        raise RuntimeError(
            f"BERTScore was requested but its model ({model!r}) or baseline file could not be "
            "loaded; download it once with network access (it is cached by transformers), "
            f"then run offline. Original error: {err}"
        ) from err
    return [float(x) for x in f1.tolist()]


def check_bertscore_options(bertscore: Any, bertscore_kwargs: Any) -> None:
    """Raise ``ValueError`` when ``bertscore_kwargs`` is given (even ``{}``) without
    ``bertscore=True``, or is not a dict; it would otherwise be silently ignored."""
    if bertscore_kwargs is None:
        return
    if not bertscore:
        raise ValueError(
            "bertscore_kwargs needs bertscore=True: BERTScore is not computed otherwise, so "
            f"bertscore_kwargs={bertscore_kwargs!r} would be ignored"
        )
    if not isinstance(bertscore_kwargs, dict):
        raise ValueError(
            "bertscore_kwargs must be a dict of keyword arguments for bert_score.score, got "
            f"{type_name(bertscore_kwargs)}"
        )


def check_connection_options(
    bertscore: Any = False, bertscore_kwargs: Any = None, rouge_tokenizer: Any = "default"
) -> None:
    """Check the options of :func:`connection_scores` (the ``connections`` config's), before
    any scoring: :func:`check_bertscore_options`, :func:`check_rouge_tokenizer`.

    Raises:
        ValueError: as those two checks.
    """
    check_bertscore_options(bertscore, bertscore_kwargs)
    check_rouge_tokenizer(rouge_tokenizer)


def connection_scores(
    predictions: Sequence[Any],
    references: Sequence[Any],
    return_per_item: bool = False,
    bertscore: bool = False,
    bertscore_kwargs: dict[str, Any] | None = None,
    *,
    rouge_tokenizer: str = "default",
    validate: bool = True,
) -> dict[str, Any]:
    """OCW task 2 scores over walls.

    Args:
        predictions: per wall, 4 predicted connection strings in *gold group order*:
            prediction ``i`` names the connection of gold group ``i`` (``gt_connections[i]``,
            ``group_{i+1}``), whatever order the predicted groups came in, as the paper's
            script compares them position by position. Connections a model gave for its own
            groups must be reordered to the gold groups they match before scoring.
        references: per wall, the 4 gold connections (``gt_connections``).
        return_per_item: also return ``per_item``, one dict per wall.
        bertscore: also compute BERTScore F1 (``lang="en"``, ``rescale_with_baseline=True``
            as the paper); needs the optional ``bert_score`` package and its model.
        bertscore_kwargs: extra keyword arguments for ``bert_score.score`` (a dict); only
            with ``bertscore=True``.
        rouge_tokenizer: ``"default"`` (rouge_score's tokenizer, as the paper: text without
            ASCII letters or digits scores 0) or ``"unicode"`` (:class:`UnicodeTokenizer`,
            for connections in any script).
        validate: check every item first (:func:`validate_connections`); ``False`` skips
            this for a caller that has already done it.

    Both sides are lowercased and stripped (as upstream); each connection is scored,
    scores are averaged per wall, then over walls.

    Returns:
        ``exact_match`` and ``rouge1`` (F-measure), 0-1; ``n_walls``; with
        ``bertscore=True`` also ``bertscore_f1`` (rescaled, usually 0-1, can be negative).

    Raises:
        ValueError: empty input, lengths differ, an item is not 4 strings, a connection is
            not valid Unicode text, ``bertscore_kwargs`` given without ``bertscore=True`` or
            not a dict, an unknown ``rouge_tokenizer``.
        RuntimeError: BERTScore requested but ``bert_score`` or its model is unavailable.
    """
    check_connection_options(bertscore, bertscore_kwargs, rouge_tokenizer)
    preds, refs = checked_items(
        predictions, references, validate_connections, validate_connections, validate
    )
    flat_preds = [c.lower().strip() for wall in preds for c in wall]
    flat_refs = [c.lower().strip() for wall in refs for c in wall]
    per_item = [
        _connection_wall(flat_preds[i : i + N_GROUPS], flat_refs[i : i + N_GROUPS], rouge_tokenizer)
        for i in range(0, len(flat_preds), N_GROUPS)
    ]
    if bertscore:
        f1 = _bertscore_f1(flat_preds, flat_refs, **(bertscore_kwargs or {}))
        for item, i in zip(per_item, range(0, len(f1), N_GROUPS), strict=True):
            item["bertscore_f1"] = float(np.mean(f1[i : i + N_GROUPS]))
    result = aggregate_connections(per_item)
    if return_per_item:
        result["per_item"] = per_item
    return result


def _connection_wall(preds: list[str], refs: list[str], rouge_tokenizer: str) -> dict[str, float]:
    """Exact match and ROUGE-1 of one wall: means over its 4 connections (already lowercased
    and stripped)."""
    pairs = list(zip(preds, refs, strict=True))
    return {
        "exact_match": float(np.mean([exact_match(p, r) for p, r in pairs])),
        "rouge1": float(np.mean([rouge1(p, r, rouge_tokenizer) for p, r in pairs])),
    }


def aggregate_connections(per_item: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The global connection figures of :func:`connection_scores` from per-wall figures:
    ``exact_match``, ``rouge1`` (and ``bertscore_f1`` when the items have it), means over
    walls of per-wall means (0-1), and ``n_walls``.

    Raises:
        ValueError: ``per_item`` is empty.
    """
    if not per_item:
        raise ValueError("nothing to aggregate: no walls")
    keys = [*CONNECTION_KEYS, *(["bertscore_f1"] if "bertscore_f1" in per_item[0] else [])]
    result: dict[str, Any] = {k: float(np.mean([item[k] for item in per_item])) for k in keys}
    result["n_walls"] = len(per_item)
    return result


def clear_caches() -> None:
    """Empty the memoised ROUGE tokens (for benchmarks measuring a cold start)."""
    _rouge_tokens.cache_clear()
