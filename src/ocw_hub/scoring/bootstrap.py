"""Bootstrap confidence intervals over walls (questions for WoTe): pure NumPy (paired tests:
:mod:`.paired`).

Every headline figure of ``ocw-hub evaluate`` is a mean (or a total) of per-wall values, so a
resample is a multiset of walls drawn with replacement and the figure on it is the mean of
the walls' values, counted as often as drawn. The definitions (what is resampled, the seed,
the percentile method) are in ``docs/statistics.md``.

* :func:`wall_indices`: the one index matrix, shape ``(n_resamples, n_walls)``, drawn as
  ``numpy.random.default_rng(seed).integers(0, n_walls, size=(n_resamples, n_walls))`` (in
  blocks of rows on a split too large for one draw: :func:`wall_index_blocks`).
* :func:`resampled_means`: the mean of per-wall values on every resample (no Python loop over
  resamples: a count matrix times the values).
* :func:`two_level_means`: several runs of one model: resample walls, then runs within each
  resampled wall (the inspect-ai / "samples x epochs" two-level bootstrap).
* :func:`percentile_interval`: the percentile interval of resampled figures
  (``numpy.percentile``, its default linear interpolation).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Resamples of ``ocw-hub evaluate --bootstrap`` by default (as OpenAI simple-evals).
DEFAULT_RESAMPLES = 1000
#: The seed of the index matrix unless one is given.
DEFAULT_SEED = 0
#: Coverage of the intervals.
CONFIDENCE = 0.95
#: Indices drawn at once: resamples are drawn in blocks of ``BLOCK_DRAWS // n_walls`` rows
#: (``// (n_walls * n_runs)`` for the two-level bootstrap), so memory stays bounded on a
#: large split; below that size (every real split) the block is the whole index matrix.
BLOCK_DRAWS = 1 << 22
#: Cells of the two-level count matrix computed at once (a few resamples' worth): small
#: enough for the CPU's cache: about twice as fast as a whole block on 494 walls x 16 runs.
CHUNK_CELLS = 1 << 17

Indices = NDArray[np.int64]


def _block_rows(n_resamples: int, per_row: int) -> int:
    return max(1, min(n_resamples, BLOCK_DRAWS // max(per_row, 1)))


def _check(**counts: int) -> None:
    if any(n < 1 for n in counts.values()):
        raise ValueError(f"need at least one of each, got {counts}")


def wall_index_blocks(
    n_walls: int, n_resamples: int, seed: int = DEFAULT_SEED
) -> Iterator[Indices]:
    """The index matrix in blocks of rows, from one ``numpy.random.default_rng(seed)``: each
    block ``rng.integers(0, n_walls, size=(rows, n_walls))`` (rows: see :data:`BLOCK_DRAWS`);
    row ``r`` is resample ``r``, the walls it draws with replacement.

    Raises:
        ValueError: ``n_walls`` or ``n_resamples`` below 1.
    """
    _check(n_walls=n_walls, n_resamples=n_resamples)
    rng = np.random.default_rng(seed)
    rows = _block_rows(n_resamples, n_walls)
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, n_walls, size=(min(rows, n_resamples - start), n_walls))


def wall_indices(n_walls: int, n_resamples: int, seed: int = DEFAULT_SEED) -> Indices:
    """The whole index matrix of :func:`wall_index_blocks`, shape ``(n_resamples, n_walls)``;
    on a split of up to ``BLOCK_DRAWS / n_resamples`` walls (4,194 for 1,000 resamples) one
    draw, ``numpy.random.default_rng(seed).integers(0, n_walls, size=(n_resamples,
    n_walls))``."""
    return np.concatenate(list(wall_index_blocks(n_walls, n_resamples, seed)))


def resample_counts(indices: NDArray[np.integer], n_walls: int) -> NDArray[np.float64]:
    """How often each wall is drawn in each resample: shape ``(n_resamples, n_walls)``; each
    row sums to the number of draws (``indices.shape[1]``)."""
    n_resamples = indices.shape[0]
    flat = (indices + np.arange(n_resamples)[:, None] * n_walls).ravel()
    counts = np.bincount(flat, minlength=n_resamples * n_walls)
    return counts.reshape(n_resamples, n_walls).astype(np.float64)


def resampled_means(
    values: ArrayLike, indices: NDArray[np.integer] | Iterable[NDArray[np.integer]]
) -> NDArray[np.float64]:
    """The mean of per-wall values on each resample.

    Args:
        values: shape ``(n_walls,)`` or ``(n_walls, n_figures)``: one value per wall (and
            figure).
        indices: :func:`wall_indices` (shape ``(n_resamples, n_draws)``) or its blocks
            (:func:`wall_index_blocks`).

    Returns:
        Shape ``(n_resamples,)`` or ``(n_resamples, n_figures)``: ``values[indices].mean(1)``,
        computed as a count matrix times the values (no loop over resamples).
    """
    array = np.asarray(values, dtype=np.float64)
    blocks = [indices] if isinstance(indices, np.ndarray) else indices
    out = [resample_counts(b, array.shape[0]) @ array / b.shape[1] for b in blocks]
    return np.concatenate(out)


@lru_cache(maxsize=4)
def _one_block_counts(n_walls: int, n_resamples: int, seed: int) -> NDArray[np.float64]:
    counts = resample_counts(wall_indices(n_walls, n_resamples, seed), n_walls)
    counts.flags.writeable = False
    return counts


def bootstrap_means(
    values: ArrayLike, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> NDArray[np.float64]:
    """:func:`resampled_means` on :func:`wall_index_blocks` ``(n_walls, n_resamples, seed)``:
    the resampled means of every figure (column) of ``values``. When the index matrix is one
    block its count matrix is kept (the last 4), so the runs and tasks of one ``evaluate``,
    all on one split, draw it once."""
    array = np.asarray(values, dtype=np.float64)
    n_walls = array.shape[0]
    if n_walls * n_resamples <= BLOCK_DRAWS:
        return _one_block_counts(n_walls, n_resamples, seed) @ array / n_walls
    return resampled_means(array, wall_index_blocks(n_walls, n_resamples, seed))


RunBlocks = Iterable[tuple[NDArray[np.integer], NDArray[np.integer]]]


def run_index_blocks(
    n_walls: int, n_runs: int, n_resamples: int, seed: int = DEFAULT_SEED
) -> Iterator[tuple[Indices, NDArray[np.integer]]]:
    """The draws of the two-level bootstrap in blocks of resamples, from one
    ``numpy.random.default_rng(seed)``: per block, walls ``rng.integers(0, n_walls,
    size=(rows, n_walls))`` then runs ``rng.integers(0, n_runs, size=(rows, n_walls, n_runs),
    dtype=numpy.int32)``: in resample ``r`` the ``j``-th drawn wall ``walls[r, j]`` is scored
    by the runs ``runs[r, j, :]``, drawn with replacement among its runs (``dtype=numpy.uint8``
    instead when there are at most 256 runs: a quarter of the memory).

    Raises:
        ValueError: a count below 1.
    """
    _check(n_walls=n_walls, n_runs=n_runs, n_resamples=n_resamples)
    rng = np.random.default_rng(seed)
    rows = _block_rows(n_resamples, n_walls * n_runs)
    fast = n_runs in _BYTE_RUNS and _bytes_are_numpys()
    for start in range(0, n_resamples, rows):
        size = min(rows, n_resamples - start)
        walls = rng.integers(0, n_walls, size=(size, n_walls))
        shape = (size, n_walls, n_runs)
        if fast:
            yield walls, _byte_draws(rng, n_runs, shape)
        else:
            dtype = np.uint8 if n_runs <= 256 else np.int32
            yield walls, rng.integers(0, n_runs, size=shape, dtype=dtype)


#: Run counts whose draws are whole bits of the generator's bytes (powers of 2 up to 256).
_BYTE_RUNS = frozenset(2**b for b in range(1, 9))


def _byte_draws(rng: np.random.Generator, n_runs: int, shape: tuple[int, ...]) -> NDArray[np.uint8]:
    """``rng.integers(0, n_runs, size=shape, dtype=numpy.uint8)`` for ``n_runs`` in
    :data:`_BYTE_RUNS`, the same values and the generator left in the same state, about twice
    as fast: NumPy draws each from one byte of its 32-bit outputs (low byte first, a call's
    unused bytes dropped; PCG64 gives a 64-bit output's low half, then its high half), never
    rejecting one when ``n_runs`` divides 256 (Lemire's method), as its top bits."""
    count = int(np.prod(shape))
    generator = rng.bit_generator
    state = generator.state
    words = -(-count // 4)  # 32-bit outputs taken
    head = np.array([state["uinteger"]] if state["has_uint32"] else [], dtype="<u4")
    words -= len(head)
    raw = generator.random_raw(-(-max(words, 0) // 2)).astype("<u8", copy=False)
    halves = raw.view("<u4")
    stream = np.concatenate([head, halves[: max(words, 0)]]).view(np.uint8)[:count]
    after = dict(generator.state)
    if words > 0:  # a high half not taken stays for the next 32-bit draw
        after["has_uint32"], after["uinteger"] = words % 2, int(halves[-1]) if words % 2 else 0
    else:  # no new output: the buffered half, if any, was taken
        after["has_uint32"] = 0
    generator.state = after
    draws: NDArray[np.uint8] = (stream >> np.uint8(9 - n_runs.bit_length())).reshape(shape)
    return draws


@lru_cache(maxsize=1)
def _bytes_are_numpys() -> bool:
    """Whether :func:`_byte_draws` gives this NumPy's draws (checked once, on a few shapes)."""
    for n_runs in sorted(_BYTE_RUNS):
        ours, theirs = np.random.default_rng(n_runs), np.random.default_rng(n_runs)
        for size in ((1, 3, n_runs), (2, 5, n_runs), (3, 1, n_runs)):
            ours.integers(0, 7, size=size[:2]), theirs.integers(0, 7, size=size[:2])
            mine = _byte_draws(ours, n_runs, size)
            if not np.array_equal(mine, theirs.integers(0, n_runs, size=size, dtype=np.uint8)):
                return False
        if (
            ours.integers(0, 1 << 40, size=3).tolist()
            != theirs.integers(0, 1 << 40, size=3).tolist()
        ):
            return False
    return True


def run_indices(
    n_walls: int, n_runs: int, n_resamples: int, seed: int = DEFAULT_SEED
) -> tuple[Indices, NDArray[np.integer]]:
    """All the draws of :func:`run_index_blocks`: walls ``(n_resamples, n_walls)`` and runs
    ``(n_resamples, n_walls, n_runs)``."""
    blocks = list(run_index_blocks(n_walls, n_runs, n_resamples, seed))
    return np.concatenate([w for w, _ in blocks]), np.concatenate([r for _, r in blocks])


def two_level_means(
    values: ArrayLike,
    walls: NDArray[np.integer] | RunBlocks,
    runs: NDArray[np.integer] | None = None,
) -> NDArray[np.float64]:
    """The mean over resampled walls and, within each, resampled runs.

    Args:
        values: shape ``(n_walls, n_runs)`` or ``(n_walls, n_runs, n_figures)``: run ``k``'s
            value on wall ``w``.
        walls, runs: :func:`run_indices`; or ``walls`` the blocks of :func:`run_index_blocks`
            and ``runs`` None.

    Returns:
        Shape ``(n_resamples,)`` or ``(n_resamples, n_figures)``: resample ``r`` is
        ``mean_j mean_k values[walls[r, j], runs[r, j, k]]``, computed as counts of each
        (wall, run) cell times the values.
    """
    array = np.asarray(values, dtype=np.float64)
    n_walls, n_runs = array.shape[:2]
    flat = array.reshape(n_walls * n_runs, *array.shape[2:])
    if isinstance(walls, np.ndarray):
        assert runs is not None
        rows = _block_rows(walls.shape[0], n_walls * n_runs)
        blocks: RunBlocks = (
            (walls[i : i + rows], runs[i : i + rows]) for i in range(0, walls.shape[0], rows)
        )
    else:
        blocks = walls
    out = []
    for wall_block, run_block in blocks:
        # rows a few at a time: the count matrix of a chunk stays in the CPU's cache
        step = max(1, CHUNK_CELLS // (n_walls * n_runs))
        for i in range(0, wall_block.shape[0], step):
            out.append(_cell_means(wall_block[i : i + step], run_block[i : i + step], flat))
    return np.concatenate(out)


def _cell_means(
    walls: NDArray[np.integer], runs: NDArray[np.integer], flat: NDArray[np.float64]
) -> NDArray[np.float64]:
    """:func:`two_level_means` of a few resamples: counts of each (wall, run) cell, one
    bincount, times the values ``flat`` (shape ``(n_walls * n_runs, ...)``)."""
    rows, n_runs, n_cells = walls.shape[0], runs.shape[2], flat.shape[0]
    # cell (resample r, wall w, run k) at r * n_cells + w * n_runs + k
    base = (walls.astype(np.int64) + np.arange(rows)[:, None] * (n_cells // n_runs)) * n_runs
    cells = (base[:, :, None] + runs).ravel()
    counts = np.bincount(cells, minlength=rows * n_cells).reshape(rows, n_cells)
    return counts @ flat / (runs.shape[1] * n_runs)


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
    means = bootstrap_means(array, n_resamples, seed)
    low, high = percentile_interval(means, confidence)
    return float(low), float(high)
