"""The bootstrap over walls (ocw_hub.scoring.bootstrap): hand-computed resamples, a slow
reference loop, coverage on simulated data with a known mean, the paired test's p-values and
seeded reproducibility. Pure NumPy: no data, no CLI."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ocw_hub.scoring import bootstrap


def test_resampled_means_by_hand() -> None:
    # 3 walls with values 0, 1, 5; the resamples {0,0,0}, {0,1,2}, {2,2,1}, {1,1,1}
    values = np.array([0.0, 1.0, 5.0])
    indices = np.array([[0, 0, 0], [0, 1, 2], [2, 2, 1], [1, 1, 1]])
    means = bootstrap.resampled_means(values, indices)
    assert means.tolist() == [0.0, 2.0, 11 / 3, 1.0]
    # numpy.percentile, linear: sorted 0, 1, 2, 11/3; rank 0.025 * 3 = 0.075 and 2.925
    low, high = bootstrap.percentile_interval(means)
    assert low == pytest.approx(0.075 * 1.0)
    assert high == pytest.approx(2 + 0.925 * (11 / 3 - 2))
    counts = bootstrap.resample_counts(indices, 3)
    assert counts.tolist() == [[3, 0, 0], [1, 1, 1], [0, 1, 2], [0, 3, 0]]


def test_the_index_matrix_is_numpys_generator_draw() -> None:
    indices = bootstrap.wall_indices(3, 5, seed=7)
    assert indices.shape == (5, 3)
    expected = np.random.default_rng(7).integers(0, 3, size=(5, 3))
    assert (indices == expected).all()


def test_bootstrap_ci_equals_a_slow_reference_loop() -> None:
    values = np.array([0.2, 0.9, 0.4])
    n, seed = 200, 3
    indices = np.random.default_rng(seed).integers(0, 3, size=(n, 3))
    slow = []
    for row in indices:  # one resample at a time, as a textbook would
        slow.append(sum(values[i] for i in row) / len(row))
    slow.sort()

    # numpy.percentile's linear rule by hand: rank q (n - 1)
    def quantile(q: float) -> float:
        rank = q * (n - 1)
        below = math.floor(rank)
        return slow[below] + (rank - below) * (slow[min(below + 1, n - 1)] - slow[below])

    low, high = bootstrap.bootstrap_ci(values, n_resamples=n, seed=seed)
    assert low == pytest.approx(quantile(0.025), abs=1e-12)
    assert high == pytest.approx(quantile(0.975), abs=1e-12)


def test_two_level_equals_a_slow_reference_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bootstrap, "BLOCK_DRAWS", 40)  # blocks of 2 resamples: 65 blocks
    rng = np.random.default_rng(0)
    values = rng.random((5, 3, 2))  # 5 walls, 3 runs, 2 figures
    walls, runs = bootstrap.run_indices(5, 3, 130, seed=11)
    assert walls.shape == (130, 5) and runs.shape == (130, 5, 3)
    fast = bootstrap.two_level_means(values, walls, runs)
    slow = np.empty((130, 2))
    for r in range(130):  # one resample, one drawn wall, one drawn run at a time
        cells = [values[walls[r, j], runs[r, j, k]] for j in range(5) for k in range(3)]
        slow[r] = sum(cells) / len(cells)
    assert fast.shape == (130, 2)
    assert np.allclose(fast, slow, rtol=0, atol=1e-14)
    blocks = bootstrap.run_index_blocks(5, 3, 130, seed=11)
    assert np.array_equal(bootstrap.two_level_means(values, blocks), fast)


def test_blocks_of_resamples_are_the_index_matrix_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bootstrap, "BLOCK_DRAWS", 12)  # 3 walls: blocks of 4 resamples
    blocks = list(bootstrap.wall_index_blocks(3, 10, seed=1))
    assert [len(b) for b in blocks] == [4, 4, 2]
    values = np.array([1.0, 2.0, 7.0])
    whole = np.concatenate(blocks)
    assert np.array_equal(
        bootstrap.resampled_means(values, iter(blocks)), values[whole].mean(axis=1)
    )


def test_two_level_of_one_run_is_the_wall_bootstrap_of_that_run() -> None:
    values = np.array([[0.0], [1.0], [4.0]])
    walls, runs = bootstrap.run_indices(3, 1, 50, seed=2)
    assert (runs == 0).all()
    assert np.allclose(
        bootstrap.two_level_means(values, walls, runs),
        bootstrap.resampled_means(values[:, 0], walls),
    )


def test_seeded_reproducibility() -> None:
    values = np.random.default_rng(5).random(40)
    assert bootstrap.bootstrap_ci(values, 300, seed=9) == bootstrap.bootstrap_ci(values, 300, 9)
    assert bootstrap.bootstrap_ci(values, 300, seed=9) != bootstrap.bootstrap_ci(values, 300, 10)


def test_coverage_of_a_known_mean() -> None:
    """Over 2000 simulated benchmarks of 100 walls (values N(0.3, 0.2^2), mean 0.3), the 95 %
    interval holds 0.3 in 95 % +- 3 % of them. The percentile bootstrap of a mean of 100
    normal values covers about 94.5 % (its spread is the plug-in sd, sqrt(99/100) of the
    true one); the standard error of a coverage estimated from 2000 benchmarks is
    sqrt(0.95 * 0.05 / 2000) = 0.5 %, so +- 3 % is 6 standard errors."""
    n_sets, n_walls, n_resamples, mean = 2000, 100, 500, 0.3
    rng = np.random.default_rng(2024)
    data = rng.normal(mean, 0.2, size=(n_sets, n_walls))
    covered = 0
    for start in range(0, n_sets, 200):  # 200 benchmarks at once, all their resamples
        block = data[start : start + 200]
        indices = rng.integers(0, n_walls, size=(len(block), n_resamples, n_walls))
        means = np.take_along_axis(block[:, None, :], indices, axis=2).mean(axis=2)
        low, high = bootstrap.percentile_interval(means.T)  # resamples on the first axis
        covered += int(np.count_nonzero((low <= mean) & (mean <= high)))
    # the module's own path on one benchmark equals the batched one used here
    one = rng.integers(0, n_walls, size=(n_resamples, n_walls))
    assert np.allclose(bootstrap.resampled_means(data[0], one), np.take(data[0], one).mean(axis=1))
    assert abs(covered / n_sets - 0.95) <= 0.03


def _two_level_coverage(wall_sd: float, run_sd: float) -> tuple[float, float, float, float]:
    """Coverage of 0.3 and mean width (over the ideal ``2 * 1.96 * sd`` of the mean over walls
    and runs) of the two-level interval on 500 simulated benchmarks of 40 walls x 16 runs
    (value = 0.3 + wall effect N(0, wall_sd^2) + run noise N(0, run_sd^2)), each drawn with
    its own seed through the module's path; and what theory says of both.

    Theory: with n walls, R runs, a = wall_sd^2, e = run_sd^2, the mean's variance is
    (a + e / R) / n, and the two-level bootstrap's, in expectation,
    ((n - 1) / n (a + e / R) + (R - 1) / R^2 e) / n: the run noise is counted twice (in the
    spread of the walls' means and again in the runs redrawn within each wall). The width
    ratio is the root of their ratio; the coverage of a normal interval that wide is
    2 Phi(1.96 ratio) - 1.
    """
    n_sets, n_walls, n_runs, n_resamples, mean = 500, 40, 16, 400, 0.3
    rng = np.random.default_rng(16)
    walls = rng.normal(0, wall_sd, (n_sets, n_walls, 1))
    data = mean + walls + rng.normal(0, run_sd, (n_sets, n_walls, n_runs))
    bounds = np.array(
        [
            bootstrap.percentile_interval(
                bootstrap.two_level_means(
                    data[s], bootstrap.run_index_blocks(n_walls, n_runs, n_resamples, seed=s)
                )
            )
            for s in range(n_sets)
        ]
    )
    true_var = (wall_sd**2 + run_sd**2 / n_runs) / n_walls
    boot_var = (
        (n_walls - 1) / n_walls * (wall_sd**2 + run_sd**2 / n_runs)
        + (n_runs - 1) / n_runs**2 * run_sd**2
    ) / n_walls
    ratio = math.sqrt(boot_var / true_var)
    covered = float(np.mean((bounds[:, 0] <= mean) & (mean <= bounds[:, 1])))
    width = float(np.mean(bounds[:, 1] - bounds[:, 0])) / (2 * 1.959964 * math.sqrt(true_var))
    return covered, width, math.erf(1.959964 * ratio / math.sqrt(2)), ratio


def test_coverage_of_the_two_level_bootstrap() -> None:
    """The two-level interval (walls, then runs within each wall) is conservative when the run
    noise dominates and nominal when the walls differ most (docs/statistics.md): on 500
    benchmarks each, run noise 10 times the wall effect: theory 99.1 % coverage, 34 % wider
    than ideal; wall effect as large as the run noise: 95.3 %, 1.5 % wider. Bands: the
    coverage within 3 standard errors of a rate from 500 benchmarks (1 % at 95 %, 0.4 % at
    99 %), the width within 5 % of theory (the percentile interval of 400 resamples comes
    out about 2 % narrower than the normal one)."""
    covered, width, expected, ratio = _two_level_coverage(wall_sd=0.02, run_sd=0.2)
    assert (round(expected, 3), round(ratio, 3)) == (0.991, 1.335)
    assert 0.979 <= covered <= 1.0 and abs(covered - expected) <= 0.013
    assert abs(width - ratio) <= 0.05 and width > 1.25
    covered, width, expected, ratio = _two_level_coverage(wall_sd=0.2, run_sd=0.2)
    assert (round(expected, 3), round(ratio, 3)) == (0.953, 1.015)
    assert abs(covered - 0.95) <= 0.03 and abs(covered - expected) <= 0.03
    assert abs(width - ratio) <= 0.05
