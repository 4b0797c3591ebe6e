"""AMI, ARI and FMS of one OCW wall (task 1) from its 4 x k contingency table.

The operations are those of scikit-learn's ``adjusted_mutual_info_score``
(``average_method="arithmetic"``), ``adjusted_rand_score`` and ``fowlkes_mallows_score``, in
the same order, so the floats are the same bit for bit; without their per-call input
validation, which costs ~2.4 ms a wall against ~0.07 ms for the table. Row r of the table is
the r-th run of 4 gold labels (:data:`GOLD_LABELS`, sklearn's ``labels_true``); column j the
j-th smallest predicted label (``labels_pred``), as sklearn's ``contingency_matrix``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from .inputs import GROUP_SIZE, N_GROUPS

# scikit-learn is imported where it is first used: its import is most of a short scoring run.

# Gold labels in gold group order, as ``clue2group(gt_lst, gt_lst)`` yields them upstream
# for a wall without repeated clues.
GOLD_LABELS: tuple[int, ...] = tuple(g for g in range(N_GROUPS) for _ in range(GROUP_SIZE))

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
    """Empty the memoised per-table figures and margin terms."""
    _partition_scores.cache_clear()
    _MARGIN_TERMS.clear()
