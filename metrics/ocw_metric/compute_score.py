"""Pure scoring code for the Only Connect Wall (OCW) and WoTe benchmarks.

Three tasks, each a pure function of plain Python lists (no ``evaluate`` needed):

* :func:`grouping_scores` - OCW task 1 (grouping 16 clues into 4 groups of 4).
  Definitions follow the paper's evaluation script ``evaluate_only_connect.py``
  (class ``Evaluate.task1_grouping_evaluation``) and its helpers in ``utils.py``
  (``lower_case``, ``check_equal``, ``clue2group``, ``slice_list``, ``remove_same``) of the
  public repository TaatiTeam/OCW ("Large Language Models are Fixated by Red Herrings",
  NeurIPS 2023 Datasets and Benchmarks). Scale 0-1.
* :func:`connection_scores` - OCW task 2 (naming the 4 connections): exact match and
  ROUGE-1 F-measure (and, on request, BERTScore F1), as in
  ``Evaluate.task2_connections_evaluation`` of the same file. Scale 0-1.
* :func:`span_scores` - WoTe extractive QA: exact match and token F1 as in the official
  SQuAD v1.1 evaluation script (``evaluate-v1.1.py``). Scale 0-100, like ``evaluate``'s
  ``squad`` metric.

The three functions validate their input first (unless called with ``validate=False`` by a
caller that has already run the same checks, once per item) and raise :class:`ValueError`
naming the position (``predictions[3][1]``) and the problem when the input is malformed:
wrong shape or type, text with a lone surrogate (not encodable as UTF-8, so Arrow cannot
store it), a gold wall in which a clue occurs more than twice (see
:func:`validate_reference_wall`), or, for spans in the ``squad`` metric's shapes, question
ids that differ between predictions and references.

AMI, ARI and FMS are computed from each wall's 4 x k contingency table with scikit-learn's own
operations (bit for bit its public scorers' floats) and memoised per table; see
:func:`partition_scores`.
"""

from __future__ import annotations

import importlib
import itertools
import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

# SciPy, scikit-learn and rouge_score (with NLTK) are imported where they are first used: at
# this size their import is most of a scoring run (about 0.7, 0.5 and 0.3 s).

N_GROUPS = 4
GROUP_SIZE = 4
N_CLUES = N_GROUPS * GROUP_SIZE

# Gold labels in gold group order, as ``clue2group(gt_lst, gt_lst)`` yields them upstream
# for a wall without repeated clues.
GOLD_LABELS: tuple[int, ...] = tuple(g for g in range(N_GROUPS) for _ in range(GROUP_SIZE))
_GOLD_RUNS: tuple[tuple[int, ...], ...] = tuple((g,) * GROUP_SIZE for g in range(N_GROUPS))

# A gold wall may hold a clue (lowercased) at most this many times. The OCW release holds
# walls with a clue twice (``654041``: ``Bask`` twice in one group; ``b308e4``: ``Glamour``
# in two groups) and none with a clue three times or more.
MAX_GOLD_CLUE_REPEATS = 2

# Above this many candidate assignments of repeated clues, use a greedy assignment instead
# of the exhaustive search (never reached on real walls: they hold at most one repeated clue).
_MAX_ASSIGNMENTS = 4096

GROUPING_KEYS = ("wd", "ami", "ari", "fms", "full_wall", "correct_groups")
CONNECTION_KEYS = ("exact_match", "rouge1")
SPAN_KEYS = ("exact_match", "f1")

BERTSCORE_MODEL = "roberta-large"  # bert_score's default model for lang="en"


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------


def _is_list_like(value: Any) -> bool:
    return isinstance(value, (list, tuple, np.ndarray))


def _type_name(value: Any) -> str:
    return type(value).__name__


def check_text(value: Any, where: str, what: str) -> str:
    """Raise ``ValueError`` unless ``value`` is a string of valid Unicode text.

    ``what`` names the item in the message (clue, connection, prediction, gold answer). A
    lone surrogate such as ``"\\ud800"`` is a valid Python ``str`` but not Unicode text:
    Arrow (and so ``evaluate``) cannot store it and would fail with a bare
    ``UnicodeEncodeError`` naming no position.
    """
    if not isinstance(value, str):
        raise ValueError(f"{where}: {what} must be a string, got {_type_name(value)} {value!r}")
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
        if not _is_list_like(value):
            raise ValueError(f"{name} must be a list, got {_type_name(value)}")
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
    if not _is_list_like(wall) or len(wall) != N_GROUPS:
        return False
    clues: list[Any] = []
    for group in wall:
        if not _is_list_like(group) or len(group) != GROUP_SIZE:
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
    if not _is_list_like(wall):
        raise ValueError(f"{where}: expected 4 groups of 4 clues, got {_type_name(wall)}")
    if len(wall) != N_GROUPS:
        raise ValueError(f"{where}: expected 4 groups of 4 clues, got {len(wall)} groups")
    out: list[list[str]] = []
    for g, group in enumerate(wall):
        if not _is_list_like(group):
            raise ValueError(
                f"{where}[{g}]: expected a group of 4 clues (a list), got {_type_name(group)}"
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
    if n > MAX_GOLD_CLUE_REPEATS:
        raise ValueError(
            f"{where}: clue {clue!r} occurs {n} times in the gold wall (compared lowercased); "
            f"a gold wall holds 16 clues in 4 groups of 4 and no clue more than "
            f"{MAX_GOLD_CLUE_REPEATS} times"
        )
    return out


def validate_connections(item: Any, where: str) -> list[str]:
    """Check that ``item`` is a list of 4 connection strings (gold group order).

    Raises:
        ValueError: not a list of exactly 4 strings; the message names the index.
    """
    if not _is_list_like(item):
        raise ValueError(f"{where}: expected 4 connection strings, got {_type_name(item)}")
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
    if not _is_list_like(item):
        raise ValueError(
            f"{where}: reference must be a string or a list of gold answer strings, "
            f"got {_type_name(item)}"
        )
    if len(item) == 0:
        raise ValueError(f"{where}: reference has no gold answers")
    return [check_text(answer, f"{where}[{i}]", "gold answer") for i, answer in enumerate(item)]


# --------------------------------------------------------------------------------------
# Task 1: grouping
# --------------------------------------------------------------------------------------


def _sorted_lower(wall: Sequence[Sequence[str]]) -> list[list[str]]:
    """Lowercase every clue (not stripped, as upstream ``lower_case``) and sort each group."""
    return [sorted(clue.lower() for clue in group) for group in wall]


def correct_groups(pred_sorted: list[list[str]], gold_sorted: list[list[str]]) -> int:
    """Number of gold groups equal to some predicted group (upstream ``check_equal``)."""
    return sum(1 for group in gold_sorted if group in pred_sorted)


def predicted_labels(pred_sorted: list[list[str]], gold_sorted: list[list[str]]) -> list[int]:
    """Gold group index (0-3) of every predicted clue, in prediction order (16 ints).

    Both walls must already be lowercased with each group sorted. Clues that are not in
    the wall get fresh indices 4, 5, ... in prediction order, as upstream ``clue2group``.

    Repeated clues (a clue in two or more gold groups, e.g. ``Bask`` in wall ``654041``)
    are assigned as follows (upstream maps such a clue to its *last* gold group, which
    breaks a perfect prediction):

    1. A predicted group equal to a gold group takes that gold group's index for all its
       clues (whole groups are matched first).
    2. Every other occurrence of a repeated clue is assigned to one of the gold groups
       holding it, choosing among all assignments the one that (a) uses each gold
       occurrence at most once as far as possible and then (b) maximises agreement, the sum
       over predicted groups of the squared number of clues sharing a gold index. Ties go
       to the first assignment in lexicographic order of gold indices, occurrences taken
       in prediction order. Above 4096 candidate assignments (never on real walls) the
       same criteria are applied greedily, one occurrence at a time.

    On walls without repeated clues the result equals upstream ``clue2group`` exactly.
    """
    where = _gold_groups_of_clues(gold_sorted)
    labels, ambiguous, used = _unambiguous_labels(pred_sorted, gold_sorted, where)
    if ambiguous:
        gold_count = Counter((clue, g) for g, group in enumerate(gold_sorted) for clue in group)
        _assign_repeated(pred_sorted, labels, ambiguous, where, gold_count, used)
    return _with_fresh_labels(labels)


def _gold_groups_of_clues(gold_sorted: list[list[str]]) -> dict[str, list[int]]:
    """Per clue, the gold groups holding it, in order."""
    where: dict[str, list[int]] = {}
    for g, group in enumerate(gold_sorted):
        for clue in group:
            groups = where.setdefault(clue, [])
            if g not in groups:
                groups.append(g)
    return where


def _unambiguous_labels(
    pred_sorted: list[list[str]], gold_sorted: list[list[str]], where: dict[str, list[int]]
) -> tuple[list[list[int | None]], list[tuple[int, int]], Counter[tuple[str, int]]]:
    """Step 1 of :func:`predicted_labels`: labels of whole gold groups and of clues held by
    one gold group; ``None`` for clues not in the wall. Also returns the (group, position) of
    every other occurrence of a repeated clue and the gold occurrences already used."""
    labels: list[list[int | None]] = [[None] * GROUP_SIZE for _ in range(N_GROUPS)]
    ambiguous: list[tuple[int, int]] = []
    used: Counter[tuple[str, int]] = Counter()
    for p, group in enumerate(pred_sorted):
        whole = gold_sorted.index(group) if group in gold_sorted else None
        for k, clue in enumerate(group):
            candidates = where.get(clue)
            if candidates is None:
                continue  # not in the wall: a fresh index later
            if whole is not None and whole in candidates:
                labels[p][k] = whole
                used[(clue, whole)] += 1
            elif len(candidates) == 1:
                labels[p][k] = candidates[0]
            else:
                ambiguous.append((p, k))
    return labels, ambiguous, used


def _with_fresh_labels(labels: list[list[int | None]]) -> list[int]:
    """Flatten the labels, giving clues not in the wall 4, 5, ... in prediction order."""
    fresh = itertools.count(N_GROUPS)
    return [next(fresh) if label is None else label for group in labels for label in group]


def _agreement(labels: list[list[int | None]]) -> int:
    total = 0
    for group in labels:
        counts = Counter(label for label in group if label is not None)
        total += sum(n * n for n in counts.values())
    return total


def _assign_repeated(
    pred_sorted: list[list[str]],
    labels: list[list[int | None]],
    ambiguous: list[tuple[int, int]],
    where: dict[str, list[int]],
    gold_count: Counter[tuple[str, int]],
    used: Counter[tuple[str, int]],
) -> None:
    """Fill ``labels`` for repeated-clue occurrences (step 2 of :func:`predicted_labels`)."""
    choices = [where[pred_sorted[p][k]] for p, k in ambiguous]
    n_assignments = math.prod(len(c) for c in choices)

    def cost(assignment: Sequence[int]) -> tuple[int, int]:
        trial = [list(group) for group in labels]
        taken = Counter(used)
        for (p, k), g in zip(ambiguous, assignment, strict=True):
            trial[p][k] = g
            taken[(pred_sorted[p][k], g)] += 1
        overuse = sum(max(0, n - gold_count[key]) for key, n in taken.items())
        return overuse, -_agreement(trial)

    if n_assignments <= _MAX_ASSIGNMENTS:
        best = min(itertools.product(*choices), key=cost)
    else:  # greedy fallback: one occurrence at a time, in prediction order, same criteria
        trial = [list(group) for group in labels]
        taken = Counter(used)
        chosen = []
        for (p, k), options in zip(ambiguous, choices, strict=True):
            clue = pred_sorted[p][k]
            scores = []
            for g in options:
                trial[p][k] = g
                overuse = max(0, taken[(clue, g)] + 1 - gold_count[(clue, g)])
                scores.append((overuse, -_agreement(trial), g))
            g = min(scores)[2]
            trial[p][k] = g
            taken[(clue, g)] += 1
            chosen.append(g)
        best = tuple(chosen)
    for (p, k), g in zip(ambiguous, best, strict=True):
        labels[p][k] = g


# AMI, ARI and FMS of one wall from its 4 x k contingency table, with the operations of
# scikit-learn's adjusted_mutual_info_score (average_method="arithmetic"), adjusted_rand_score
# and fowlkes_mallows_score in the same order, so the floats are the same bit for bit; without
# their per-call input validation, which costs ~2.4 ms a wall against ~0.07 ms for the table.
# Row r of the table is the r-th run of 4 gold labels (GOLD_LABELS, sklearn's labels_true);
# column j the j-th smallest predicted label (labels_pred), as sklearn's contingency_matrix.

Table = tuple[tuple[int, ...], ...]

_EPS = float(np.finfo("float64").eps)

# (EMI, mean of the two entropies) by table margins (row sums, column sums): they depend on
# the margins only, and walls share few margins (the 4 rows always hold 4 clues).
_MARGIN_TERMS: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[float, float]] = {}


def contingency_table(pred_labels: Sequence[int]) -> Table:
    """The 4 x k contingency table of :data:`GOLD_LABELS` (rows) and 16 predicted labels
    (columns, in increasing label order), as ``sklearn.metrics.cluster.contingency_matrix``."""
    column = {label: j for j, label in enumerate(sorted(set(pred_labels)))}
    table = [[0] * len(column) for _ in range(N_GROUPS)]
    for i, label in enumerate(pred_labels):
        table[i // GROUP_SIZE][column[label]] += 1
    return tuple(tuple(row) for row in table)


def _entropy(counts: np.ndarray) -> float:
    """sklearn's ``_entropy`` of a labeling from its label counts (natural log)."""
    if counts.size == 1:
        return 0.0
    pi = counts.astype(np.float64)
    pi_sum = np.sum(pi)
    return float(-np.sum((pi / pi_sum) * (np.log(pi) - math.log(pi_sum))))


def _mutual_info(table: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> float:
    """sklearn's ``mutual_info_score`` from the contingency table (nats)."""
    nzx, nzy = np.nonzero(table)
    nz_val = table[nzx, nzy]
    total = table.sum()
    log_contingency_nm = np.log(nz_val)
    contingency_nm = nz_val / total
    outer = rows[nzx] * cols[nzy]
    log_outer = -np.log(outer) + math.log(rows.sum()) + math.log(cols.sum())
    mi = contingency_nm * (log_contingency_nm - math.log(total)) + contingency_nm * log_outer
    mi[np.abs(mi) < _EPS] = 0.0  # sklearn: np.where(np.abs(mi) < eps, 0.0, mi)
    return max(float(mi.sum()), 0.0)  # sklearn: np.clip(mi.sum(), 0.0, None)


@lru_cache(maxsize=1)
def _expected_mutual_information() -> Callable[[np.ndarray, int], float] | None:
    """scikit-learn's own EMI routine (the one ``adjusted_mutual_info_score`` calls), or None
    when a scikit-learn release moved it (then the public scorers are used)."""
    try:
        from sklearn.metrics.cluster._expected_mutual_info_fast import (
            expected_mutual_information,
        )
    except ImportError:  # pragma: no cover - depends on the scikit-learn release
        return None
    return expected_mutual_information


def _margin_terms(
    table: np.ndarray, rows: np.ndarray, cols: np.ndarray
) -> tuple[float, float] | None:
    """(EMI, arithmetic mean of the row and column entropies), memoised per margins; None
    when they are not memoised and scikit-learn's EMI routine cannot be imported."""
    key = (tuple(rows.tolist()), tuple(cols.tolist()))
    terms = _MARGIN_TERMS.get(key)
    if terms is None:
        routine = _expected_mutual_information()
        if routine is None:  # pragma: no cover - depends on the scikit-learn release
            return None
        emi = float(routine(table, int(table.sum())))
        terms = _MARGIN_TERMS[key] = (emi, float(np.mean([_entropy(rows), _entropy(cols)])))
    return terms


def margin_terms() -> dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[float, float]]:
    """The memo of AMI's margin terms: ``{(row sums, column sums): (EMI, mean entropy)}``.

    A caller that scores many runs may save it and put it back (``margin_terms().update``) in
    a later process, so that scikit-learn, whose import is most of a short run, is imported
    only for margins never seen. The values are scikit-learn's, computed here.
    """
    return _MARGIN_TERMS


def _signed_at_least_eps(x: float) -> float:
    return min(x, -_EPS) if x < 0 else max(x, _EPS)


def _ami_table(table: Table) -> float:
    """sklearn's ``adjusted_mutual_info_score(..., average_method="arithmetic")``."""
    if len(table) == 1 or len(table[0]) == 1:
        return 1.0 if len(table) == len(table[0]) else 0.0
    array = np.array(table, dtype=np.int64)
    rows, cols = array.sum(axis=1), array.sum(axis=0)
    terms = _margin_terms(array, rows, cols)
    if terms is None:  # pragma: no cover - depends on the scikit-learn release
        return partition_scores_public(table)[0]
    emi, normalizer = terms
    mi = _mutual_info(array, rows, cols)
    return float(_signed_at_least_eps(mi - emi) / _signed_at_least_eps(normalizer - emi))


def _pair_scores(table: Table) -> tuple[float, float]:
    """sklearn's ``adjusted_rand_score`` and ``fowlkes_mallows_score`` from the pair counts of
    the table (exact integers, then the same float expressions)."""
    rows = [sum(row) for row in table]
    cols = [sum(col) for col in zip(*table, strict=True)]
    n = sum(rows)
    sum_squares = sum(x * x for row in table for x in row)
    # sklearn's pair_confusion_matrix: ((tn, fp), (fn, tp))
    tp = sum_squares - n
    fp = sum(x * c for row in table for x, c in zip(row, cols, strict=True)) - sum_squares
    fn = sum(x * r for row, r in zip(table, rows, strict=True) for x in row) - sum_squares
    tn = n * n - fp - fn - sum_squares
    # fowlkes_mallows_score: tk = tp, pk from the columns, qk from the rows
    pk = _sum_of_squares(cols) - n
    qk = _sum_of_squares(rows) - n
    return _ari_from_pairs(tn, fp, fn, tp), _fms_from_pairs(tp, pk, qk)


def _sum_of_squares(values: Sequence[int]) -> int:
    return sum(v * v for v in values)


def _ari_from_pairs(tn: int, fp: int, fn: int, tp: int) -> float:
    """The final expression of sklearn's ``adjusted_rand_score``."""
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def _fms_from_pairs(tk: int, pk: int, qk: int) -> float:
    """The final expression of sklearn's ``fowlkes_mallows_score``."""
    return math.sqrt(tk / pk) * math.sqrt(tk / qk) if tk != 0 else 0.0


@lru_cache(maxsize=65536)
def _partition_scores(table: Table) -> tuple[float, float, float]:
    """(AMI, ARI, FMS) of one wall from its contingency table, memoised per table."""
    return (_ami_table(table), *_pair_scores(table))


def partition_scores_public(table: Table) -> tuple[float, float, float]:
    """(AMI, ARI, FMS) of a contingency table through scikit-learn's public scorers, one call
    each (the slow reference path: ~2.4 ms a wall, most of it input validation)."""
    from sklearn.metrics import (
        adjusted_mutual_info_score,
        adjusted_rand_score,
        fowlkes_mallows_score,
    )

    true, pred = [], []
    for r, row in enumerate(table):
        for j, count in enumerate(row):
            true += [r] * count
            pred += [j] * count
    return (
        float(adjusted_mutual_info_score(true, pred)),
        float(adjusted_rand_score(true, pred)),
        float(fowlkes_mallows_score(true, pred)),
    )


def partition_scores(pred_labels: Sequence[int]) -> tuple[float, float, float]:
    """AMI, ARI and FMS of one wall: scikit-learn's ``adjusted_mutual_info_score``,
    ``adjusted_rand_score`` and ``fowlkes_mallows_score`` of (:data:`GOLD_LABELS`,
    ``pred_labels``), the 16 predicted labels of :func:`predicted_labels`, as upstream.

    Computed from the 4 x k contingency table with the same floating-point operations (the
    same floats, bit for bit; AMI with scikit-learn's own expected-mutual-information
    routine), memoised per table. AMI and ARI are at most 1 and can be negative; FMS is 0-1.
    """
    return _partition_scores(contingency_table(pred_labels))


def clear_caches() -> None:
    """Empty the memoised per-wall figures (for benchmarks measuring a cold start)."""
    _partition_scores.cache_clear()
    _MARGIN_TERMS.clear()
    _wd_pair.cache_clear()
    _rouge_tokens.cache_clear()


@lru_cache(maxsize=4096)
def _wd_pair(pred_run: tuple[int, ...], gold_run: tuple[int, ...]) -> float:
    """``min(1, scipy.stats.wasserstein_distance(pred_run, gold_run))``.

    A gold run is always one label four times (a point mass), and the 1-Wasserstein distance
    of an empirical distribution from a point mass ``g`` is the mean of ``|x - g|``. On
    integer labels with weights 1/4 every term of SciPy's CDF integral and this mean are exact
    binary fractions, so both give the same float (checked by a test for every run); SciPy
    is then not imported, which is most of a short scoring run.
    """
    if len(set(gold_run)) == 1:
        g = gold_run[0]
        return min(sum(abs(x - g) for x in pred_run) / len(pred_run), 1.0)
    from scipy.stats import wasserstein_distance

    return min(float(wasserstein_distance(pred_run, gold_run)), 1.0)


def wasserstein_score(pred_labels: Sequence[int]) -> float:
    """Normalised Wasserstein distance of one wall (upstream ``WD``), in [0, 1].

    Cut the 16 predicted labels (prediction order) and the gold labels
    ``[0,0,0,0,1,...,3,3,3,3]`` into four runs of 4 (``slice_list``); drop each predicted
    run that also occurs among the gold runs, together with that gold run
    (``remove_same``); pair the remaining runs in order; sum
    ``min(1, scipy.stats.wasserstein_distance(pred_run, gold_run))`` and divide by 4.

    Difference from upstream: ``remove_same`` tests membership in the *original* gold
    list, so two identical predicted runs matching one gold run make it raise
    ``ValueError`` (``list.remove``); here the second one is kept and paired instead.
    """
    pred_runs = [tuple(pred_labels[i : i + GROUP_SIZE]) for i in range(0, N_CLUES, GROUP_SIZE)]
    gold_left = list(_GOLD_RUNS)
    pred_left = []
    for run in pred_runs:
        if run in gold_left:
            gold_left.remove(run)
        else:
            pred_left.append(run)
    total = 0.0
    for pred_run, gold_run in zip(pred_left, gold_left, strict=True):
        total += _wd_pair(pred_run, gold_run)
    return total / N_GROUPS


def score_wall(
    prediction: Sequence[Sequence[str]], reference: Sequence[Sequence[str]]
) -> dict[str, Any]:
    """Score one wall: both are 4 groups of 4 clue strings (reference in gold group order).

    Returns a dict with ``wd`` (0-1, lower is better), ``ami``, ``ari``, ``fms`` (at most
    1, higher is better; AMI and ARI can be negative), ``correct_groups`` (0-4) and
    ``full_wall`` (``True`` when all 4 groups are correct).

    The walls are not checked here: pass them through :func:`validate_wall` and
    :func:`validate_reference_wall` first (as :func:`grouping_scores` does).
    """
    pred_sorted = _sorted_lower(prediction)
    gold_sorted = _sorted_lower(reference)
    n_correct = correct_groups(pred_sorted, gold_sorted)
    labels = tuple(predicted_labels(pred_sorted, gold_sorted))
    ami, ari, fms = partition_scores(labels)
    return {
        "wd": wasserstein_score(labels),
        "ami": ami,
        "ari": ari,
        "fms": fms,
        "correct_groups": n_correct,
        "full_wall": n_correct == N_GROUPS,
    }


def grouping_scores(
    predictions: Sequence[Any],
    references: Sequence[Any],
    return_per_item: bool = False,
    *,
    validate: bool = True,
) -> dict[str, Any]:
    """OCW task 1 scores over walls.

    Args:
        predictions: one predicted wall per item: 4 groups of 4 clue strings, groups in any
            order. Clues are compared lowercased (not stripped); clues that are not in the
            wall are allowed (they count as wrong).
        references: the gold walls: 4 groups of 4 clue strings in gold group order; no clue
            (lowercased) more than twice (:func:`validate_reference_wall`).
        return_per_item: also return ``per_item``, one dict per wall with the keys of
            :func:`score_wall`.
        validate: check every wall first (:func:`validate_wall`,
            :func:`validate_reference_wall`). A caller that has already validated every wall
            with those functions passes ``False`` to skip the second pass; unchecked
            malformed input then gives wrong figures or an unhelpful error.

    Returns:
        ``wd``, ``ami``, ``ari``, ``fms``: means over walls (0-1 scale; WD lower is better);
        ``full_wall``, ``correct_groups``: totals (as in the paper's tables);
        ``full_wall_rate`` (= full_wall / n_walls) and ``correct_groups_rate``
        (= correct_groups / (4 n_walls)), both 0-1; ``n_walls``.

    Raises:
        ValueError: empty input, lengths differ, an item is not 4 groups of 4 strings, a
            clue is not valid Unicode text, or a gold wall holds a clue more than twice (the
            message names the index).
    """
    preds, refs = checked_items(
        predictions, references, validate_wall, validate_reference_wall, validate
    )
    per_item = [score_wall(p, r) for p, r in zip(preds, refs, strict=True)]
    result = aggregate_grouping(per_item)
    if return_per_item:
        result["per_item"] = per_item
    return result


def aggregate_grouping(per_item: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The global grouping figures of :func:`grouping_scores` from per-wall figures (dicts of
    :func:`score_wall`), e.g. for a subset of walls such as one season.

    Returns ``wd``, ``ami``, ``ari``, ``fms`` (means, 0-1), ``full_wall`` and
    ``correct_groups`` (totals), ``full_wall_rate`` and ``correct_groups_rate`` (0-1),
    ``n_walls``.

    Raises:
        ValueError: ``per_item`` is empty.
    """
    if not per_item:
        raise ValueError("nothing to aggregate: no walls")
    n = len(per_item)
    n_full = sum(int(item["full_wall"]) for item in per_item)
    n_correct = sum(item["correct_groups"] for item in per_item)
    result: dict[str, Any] = {
        key: float(np.mean([item[key] for item in per_item])) for key in ("wd", "ami", "ari", "fms")
    }
    result.update(
        {
            "full_wall": n_full,
            "correct_groups": n_correct,
            "full_wall_rate": n_full / n,
            "correct_groups_rate": n_correct / (N_GROUPS * n),
            "n_walls": n,
        }
    )
    return result


# --------------------------------------------------------------------------------------
# Task 2: connections
# --------------------------------------------------------------------------------------


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
            f"{_type_name(bertscore_kwargs)}"
        )


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
    check_bertscore_options(bertscore, bertscore_kwargs)
    check_rouge_tokenizer(rouge_tokenizer)
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


# --------------------------------------------------------------------------------------
# WoTe: extractive spans (SQuAD v1.1)
# --------------------------------------------------------------------------------------

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


def _type_of_answers(value: Any) -> str:
    return "a dict" if isinstance(value, dict) else _type_name(value)


def is_squad_shaped(predictions: Any, references: Any) -> bool:
    """True when the inputs use the ``squad`` metric's shapes (their first item is a dict)."""
    return any(
        _is_list_like(side) and len(side) > 0 and isinstance(side[0], dict)
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
    if not _is_list_like(starts) or len(starts) != len(texts):
        raise ValueError(
            f"{where}['answer_start']: expected one offset per answer text ({len(texts)}), "
            f"got {starts!r:.80}"
        )
    if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in starts):
        raise ValueError(f"{where}['answer_start']: offsets must be integers")
    return {"text": texts, "answer_start": [int(s) for s in starts]}


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
        if not _is_list_like(side):
            raise ValueError(f"{name} must be a list, got {_type_name(side)}")
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
