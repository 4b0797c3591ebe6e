"""Paired tests of systems on the walls they share (``ocw-hub compare``): pure NumPy.

* :func:`sign_flip_p_values`: the two-sided sign-flip permutation test of a mean per-wall
  difference: exact (every one of the ``2**n`` sign vectors) on at most
  :data:`EXACT_MAX_WALLS` walls that differ, else Monte Carlo from
  ``numpy.random.default_rng(seed)`` with ``p = (1 + #{|T*| >= |T|}) / (N + 1)``.
* :func:`holm`: Holm's step-down adjustment of a family of p-values.

The definitions and the simulated type-I error and power are in ``docs/statistics.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from threadpoolctl import threadpool_limits

#: Walls (with a nonzero difference) up to which every sign vector is enumerated: 2**16.
EXACT_MAX_WALLS = 16
#: Sign draws (walls x resamples) made at once in the Monte Carlo test: bounded memory.
BLOCK_DRAWS = 1 << 22


def _exact_signs(n_walls: int) -> NDArray[np.float64]:
    """Every sign vector of ``n_walls`` walls, shape ``(2**n_walls, n_walls)``."""
    codes = np.arange(1 << n_walls, dtype=np.int64)[:, None] >> np.arange(n_walls)
    return np.asarray(1.0 - 2.0 * (codes & 1), dtype=np.float64)


def sign_flip_p_values(diffs: ArrayLike, n_resamples: int, seed: int) -> NDArray[np.float64]:
    """Two-sided sign-flip p-values of the mean of each column of ``diffs``.

    Args:
        diffs: shape ``(n_walls, n_tests)``: per-wall differences of paired systems, one
            column per comparison (all on the same walls).
        n_resamples: sign vectors drawn when there are more than :data:`EXACT_MAX_WALLS`
            walls; the same draws serve every column.
        seed: of ``numpy.random.default_rng``.

    Returns:
        Shape ``(n_tests,)``: the share of sign vectors ``s`` with ``|sum(s * d)| >= |sum(d)|``
        (exact), or ``(1 + that count) / (n_resamples + 1)`` (Monte Carlo). Under the null
        (each wall's difference as likely to have either sign) ``P(p <= a) <= a``.

    Raises:
        ValueError: not 2-D, no wall, or ``n_resamples`` below 1.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2 or d.shape[0] == 0 or n_resamples < 1:
        raise ValueError(f"need diffs of shape (n_walls, n_tests) and resamples, got {d.shape}")
    observed = np.abs(d.sum(axis=0))
    # a tolerance of rounding: sums equal to the observed one count as extreme
    floor = observed - 1e-9 * np.maximum(1.0, np.abs(d).sum(axis=0))
    n_walls = d.shape[0]
    if n_walls <= EXACT_MAX_WALLS:
        extreme = np.abs(_exact_signs(n_walls) @ d) >= floor
        return np.asarray(extreme.mean(axis=0), dtype=np.float64)
    rng = np.random.default_rng(seed)
    rows = max(1, BLOCK_DRAWS // n_walls)
    count = np.zeros(d.shape[1], dtype=np.int64)
    total = d.sum(axis=0)
    for start in range(0, n_resamples, rows):
        flips = rng.integers(0, 2, size=(min(rows, n_resamples - start), n_walls), dtype=np.int8)
        # sum(s * d) with s = 1 - 2 * flip
        sums = total - 2.0 * (flips.astype(np.float64) @ d)
        count += np.count_nonzero(np.abs(sums) >= floor, axis=0)
    return np.asarray((1 + count) / (n_resamples + 1), dtype=np.float64)


def _column_p_values(d: NDArray[np.float64], n_resamples: int, seed: int) -> NDArray[np.float64]:
    """Per column: exact on its nonzero differences when at most :data:`EXACT_MAX_WALLS`
    (walls of equal values change no sum), else Monte Carlo on all its walls, the columns
    drawn together (so a column's p does not depend on the others)."""
    out = np.ones(d.shape[1])
    nonzero = d != 0
    counts = np.count_nonzero(nonzero, axis=0)
    for k in np.unique(counts[(counts > 0) & (counts <= EXACT_MAX_WALLS)]):
        columns = np.flatnonzero(counts == k)
        # each column's nonzero differences, in wall order: shape (k, columns)
        kept = d[:, columns].T[nonzero[:, columns].T].reshape(len(columns), k).T
        step = max(1, BLOCK_DRAWS >> int(k))  # columns per enumeration: bounded memory
        for i in range(0, len(columns), step):
            out[columns[i : i + step]] = sign_flip_p_values(kept[:, i : i + step], 1, seed)
    few = counts <= EXACT_MAX_WALLS
    many = np.flatnonzero(~few)
    if len(many):
        out[many] = sign_flip_p_values(d[:, many], n_resamples, seed)
    return out


def paired_p_values(diffs: ArrayLike, n_resamples: int, seed: int) -> NDArray[np.float64]:
    """Sign-flip p-values of paired comparisons on the same walls (``diffs`` of shape
    ``(n_walls, n_tests)``): a column with at most :data:`EXACT_MAX_WALLS` nonzero
    differences is tested exactly on them, the others by Monte Carlo on every wall (one set
    of draws from ``seed`` for all). A column of zeros gets 1.

    Raises:
        ValueError: not 2-D, no wall, or ``n_resamples`` below 1.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2 or d.shape[0] == 0 or n_resamples < 1:
        raise ValueError(f"need diffs of shape (n_walls, n_tests) and resamples, got {d.shape}")
    # products of a few hundred rows: one BLAS thread is faster than several on a busy machine
    with threadpool_limits(limits=1, user_api="blas"):
        return _column_p_values(d, n_resamples, seed)


def sign_flip_p_value(a: ArrayLike, b: ArrayLike, n_resamples: int, seed: int) -> float:
    """:func:`paired_p_values` of ``a - b`` (two systems' per-wall values on the same walls).
    Two systems equal on every wall get 1.

    Raises:
        ValueError: the arrays differ in shape or are empty.
    """
    left = np.asarray(a, dtype=np.float64)
    right = np.asarray(b, dtype=np.float64)
    if left.shape != right.shape or left.ndim != 1 or len(left) == 0:
        raise ValueError(f"paired values need shape (n_walls,), got {left.shape}, {right.shape}")
    return float(paired_p_values((left - right)[:, None], n_resamples, seed)[0])


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: with the m p-values sorted ascending, the i-th (from 1)
    becomes ``max over j <= i of min(1, (m - j + 1) * p_(j))``; returned in the given order.
    Rejecting where the adjusted p is at most a keeps the chance of any false rejection in the
    family at most a, whatever the dependence between the tests."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return [float(x) for x in adjusted]
