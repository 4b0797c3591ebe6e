"""Bootstrap confidence intervals and paired tests over walls (questions for WoTe): pure NumPy.

Every headline figure of ``ocw-hub evaluate`` is a mean (or a total) of per-wall values, so a
resample is a multiset of walls drawn with replacement and the figure on it is the mean of
the walls' values, counted as often as drawn. The definitions (what is resampled, the seed,
the percentile method) are in ``docs/statistics.md``.

* :func:`wall_indices`: the one index matrix, shape ``(n_resamples, n_walls)``, drawn as
  ``numpy.random.default_rng(seed).integers(0, n_walls, size=(n_resamples, n_walls))``.
* :func:`resampled_means`: the mean of per-wall values on every resample (no Python loop over
  resamples: a count matrix times the values).
* :func:`two_level_means`: several runs of one model: resample walls, then runs within each
  resampled wall (the inspect-ai / "samples x epochs" two-level bootstrap).
* :func:`percentile_interval`: the percentile interval of resampled figures
  (``numpy.percentile``, its default linear interpolation).
* :func:`paired_p_value`: two-sided paired bootstrap test of a difference of means on the same
  walls (one index matrix for both systems).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Resamples of ``ocw-hub evaluate --bootstrap`` by default (as OpenAI simple-evals).
DEFAULT_RESAMPLES = 1000
#: The seed of the index matrix unless one is given.
DEFAULT_SEED = 0
#: Coverage of the intervals.
CONFIDENCE = 0.95
#: Resamples gathered at once by :func:`two_level_means` (bounds memory to about
#: ``_BLOCK * n_walls * n_runs`` floats).
_BLOCK = 64


def wall_indices(n_walls: int, n_resamples: int, seed: int = DEFAULT_SEED) -> NDArray[np.int64]:
    """Walls drawn with replacement: row ``r`` is resample ``r`` (``n_walls`` indices).

    Shape ``(n_resamples, n_walls)``; equal to ``numpy.random.default_rng(seed).integers(0,
    n_walls, size=(n_resamples, n_walls))``.

    Raises:
        ValueError: ``n_walls`` or ``n_resamples`` below 1.
    """
    if n_walls < 1 or n_resamples < 1:
        raise ValueError(f"need at least one wall and one resample, got {n_walls}, {n_resamples}")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_walls, size=(n_resamples, n_walls))


def resample_counts(indices: NDArray[np.integer], n_walls: int) -> NDArray[np.float64]:
    """How often each wall is drawn in each resample: shape ``(n_resamples, n_walls)``; each
    row sums to the number of draws (``indices.shape[1]``)."""
    n_resamples, draws = indices.shape
    flat = (indices + np.arange(n_resamples)[:, None] * n_walls).ravel()
    counts = np.bincount(flat, minlength=n_resamples * n_walls)
    return counts.reshape(n_resamples, n_walls).astype(np.float64)


def resampled_means(values: ArrayLike, indices: NDArray[np.integer]) -> NDArray[np.float64]:
    """The mean of per-wall values on each resample.

    Args:
        values: shape ``(n_walls,)`` or ``(n_walls, n_figures)``: one value per wall (and
            figure).
        indices: :func:`wall_indices`, shape ``(n_resamples, n_draws)``.

    Returns:
        Shape ``(n_resamples,)`` or ``(n_resamples, n_figures)``: ``values[indices].mean(1)``.
    """
    array = np.asarray(values, dtype=np.float64)
    counts = resample_counts(indices, array.shape[0])
    return counts @ array / indices.shape[1]


def run_indices(
    n_walls: int, n_runs: int, n_resamples: int, seed: int = DEFAULT_SEED
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The draws of the two-level bootstrap: walls ``(n_resamples, n_walls)`` as
    :func:`wall_indices`, then runs ``(n_resamples, n_walls, n_runs)``, from one Generator
    (``rng.integers(0, n_walls, size=...)`` then ``rng.integers(0, n_runs, size=...,
    dtype=numpy.int32)``): in resample ``r`` the ``j``-th drawn wall ``walls[r, j]`` is scored
    by its runs ``runs[r, j, :]``."""
    if n_walls < 1 or n_runs < 1 or n_resamples < 1:
        raise ValueError(
            f"need at least one wall, run and resample, got {n_walls}, {n_runs}, {n_resamples}"
        )
    rng = np.random.default_rng(seed)
    walls = rng.integers(0, n_walls, size=(n_resamples, n_walls))
    runs = rng.integers(0, n_runs, size=(n_resamples, n_walls, n_runs), dtype=np.int32)
    return walls, runs


def two_level_means(
    values: ArrayLike, walls: NDArray[np.integer], runs: NDArray[np.integer]
) -> NDArray[np.float64]:
    """The mean over resampled walls and, within each, resampled runs.

    Args:
        values: shape ``(n_walls, n_runs)`` or ``(n_walls, n_runs, n_figures)``: run ``k``'s
            value on wall ``w``.
        walls, runs: :func:`run_indices`.

    Returns:
        Shape ``(n_resamples,)`` or ``(n_resamples, n_figures)``: resample ``r`` is
        ``mean_j mean_k values[walls[r, j], runs[r, j, k]]``. Computed as counts of each
        (wall, run) cell times the values, :data:`_BLOCK` resamples at a time.
    """
    array = np.asarray(values, dtype=np.float64)
    n_walls, n_runs = array.shape[:2]
    flat = array.reshape(n_walls * n_runs, *array.shape[2:])
    draws = runs.shape[1] * runs.shape[2]
    out = []
    for start in range(0, walls.shape[0], _BLOCK):  # blocks of resamples, not one at a time
        stop = start + _BLOCK
        cells = walls[start:stop, :, None].astype(np.int64) * n_runs + runs[start:stop]
        out.append(resample_counts(cells.reshape(-1, draws), n_walls * n_runs) @ flat / draws)
    return np.concatenate(out)


def percentile_interval(
    resampled: ArrayLike, confidence: float = CONFIDENCE
) -> NDArray[np.float64]:
    """The percentile bootstrap interval: the ``(1 - confidence) / 2`` and ``(1 + confidence)
    / 2`` quantiles of the resampled figures along the first axis (``numpy.percentile``,
    linear interpolation). Shape ``(2,)`` or ``(2, n_figures)``: low, high."""
    tail = 50 * (1 - confidence)
    return np.percentile(np.asarray(resampled, dtype=np.float64), [tail, 100 - tail], axis=0)


def bootstrap_ci(
    values: ArrayLike,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean of per-wall ``values`` (shape
    ``(n_walls,)``): :func:`percentile_interval` of :func:`resampled_means` on
    :func:`wall_indices`."""
    array = np.asarray(values, dtype=np.float64)
    means = resampled_means(array, wall_indices(len(array), n_resamples, seed))
    low, high = percentile_interval(means, confidence)
    return float(low), float(high)


def paired_p_value(
    a: ArrayLike,
    b: ArrayLike,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> float:
    """Two-sided paired bootstrap p-value of ``mean(a) - mean(b)`` (per-wall values of two
    systems on the same walls, shape ``(n_walls,)`` each).

    The walls are resampled once (:func:`wall_indices`) for both systems; with ``d = a - b``,
    ``delta = mean(d)`` and ``delta*`` its value on each resample, the bootstrap distribution
    shifted to the null (``delta* - delta``) is compared with the observed difference:
    ``p = (1 + #{|delta* - delta| >= |delta|}) / (n_resamples + 1)``, never below
    ``1 / (n_resamples + 1)``. Two systems equal on every wall give 1.

    Raises:
        ValueError: the arrays differ in length or are empty.
    """
    left = np.asarray(a, dtype=np.float64)
    right = np.asarray(b, dtype=np.float64)
    if left.shape != right.shape or left.ndim != 1 or len(left) == 0:
        raise ValueError(f"paired values need shape (n_walls,), got {left.shape}, {right.shape}")
    diff = left - right
    observed = float(diff.mean())
    resampled = resampled_means(diff, wall_indices(len(diff), n_resamples, seed))
    # a tolerance of rounding: resamples equal to the observed difference count as extreme
    extreme = np.abs(resampled - observed) >= abs(observed) - 1e-12
    return float((1 + np.count_nonzero(extreme)) / (n_resamples + 1))
