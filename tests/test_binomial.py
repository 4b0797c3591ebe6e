"""Intervals of counted rates (``scoring/binomial.py``): known values, never a point at 0 or 1,
and coverage: exact for one trial a wall, by seeded simulation for groups clustered by wall
and for the mean over runs. The coverage table of ``docs/statistics.md`` is these numbers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ocw_hub.scoring import binomial

RATES = (0.005, 0.01, 0.05, 0.5)
WALLS = (40, 100, 494)


def test_one_trial_a_wall_is_clopper_pearson() -> None:
    successes = np.array([0, 1, 3, 40])
    low, high = binomial.rate_interval(_walls(successes), 1)
    for k, lo, hi in zip(successes, low, high, strict=True):
        ci = stats.binomtest(int(k), 40).proportion_ci(method="exact")
        assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-12)


def _walls(successes: np.ndarray, n: int = 40) -> np.ndarray:
    """Rows of ``n`` walls, 0/1, with ``successes[i]`` ones in row i."""
    return (np.arange(n)[None, :] < successes[:, None]).astype(float)


@pytest.mark.parametrize("n", WALLS)
def test_no_point_at_0_or_1(n: int) -> None:
    """The percentile bootstrap gave [0, 0] for 0 of 494 walls; now the upper end is
    Clopper-Pearson's 1 - 0.025 ** (1 / n), for walls of 1 trial and of 4 alike."""
    for trials in (1, 4):
        low, high = binomial.rate_interval(np.zeros(n), trials)
        assert low == 0 and high == pytest.approx(1 - 0.025 ** (1 / n))
        low, high = binomial.rate_interval(np.full(n, trials), trials)
        assert high == 1 and low == pytest.approx(0.025 ** (1 / n))


def test_the_rate_lies_in_its_interval() -> None:
    rng = np.random.default_rng(1)
    counts = rng.binomial(4, rng.uniform(0, 1, size=(500, 1)), size=(500, 40))
    low, high = binomial.rate_interval(counts, 4)
    rate = counts.sum(1) / 160
    assert np.all((low <= rate) & (rate <= high)) and np.all(low < high)


def test_exact_coverage_of_one_trial_a_wall() -> None:
    """Coverage summed over every count k of n walls (no simulation): at least 95 %
    everywhere, as Clopper-Pearson's always is."""
    for n in WALLS:
        k = np.arange(n + 1)
        low, high = binomial.rate_interval(_walls(k, n), 1)
        for p in RATES:
            coverage = stats.binom.pmf(k, n, p)[(low <= p) & (p <= high)].sum()
            assert coverage >= 0.95, (n, p, coverage)


def _clustered(model: str, p: float, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Correct groups (0-4) of ``size`` benchmarks of ``n`` walls, groups found at rate ``p``:
    independent, correlated within a wall (beta-binomial, intra-wall correlation 0.6), or
    all four or none."""
    if model == "independent":
        return rng.binomial(4, p, size=(size, n))
    if model == "all or none":
        return 4 * rng.binomial(1, p, size=(size, n))
    rho = 0.6
    return rng.binomial(4, rng.beta(p * (1 / rho - 1), (1 - p) * (1 / rho - 1), (size, n)))


def coverage_table(size: int = 2000, seed: int = 0) -> dict[tuple[str, float, int], float]:
    """The measured coverage of groups clustered by wall (and of 16 runs' mean), by (model,
    rate, walls)."""
    rng = np.random.default_rng(seed)
    out = {}
    for model in ("independent", "correlated", "all or none"):
        for p in RATES:
            for n in WALLS:
                low, high = binomial.rate_interval(_clustered(model, p, n, size, rng), 4)
                out[model, p, n] = float(np.mean((low <= p) & (p <= high)))
    for p in RATES:  # 16 runs; each wall's own rate drawn around p, every run all or none
        for n in WALLS:
            rho = 0.3
            own = rng.beta(p * (1 / rho - 1), (1 - p) * (1 / rho - 1), size=(size, n))
            successes = 4 * rng.binomial(16, own)
            low, high = binomial.rate_interval(successes, 4 * 16)
            out["16 runs", p, n] = float(np.mean((low <= p) & (p <= high)))
    return out


def test_coverage_of_groups_clustered_by_wall() -> None:
    """At least 94 % of 2,000 seeded benchmarks per cell (the binomial standard error of 95 %
    there is 0.5 %), for every rate and number of walls asked, however the groups of a wall
    go together, and for the mean over 16 runs whose walls differ."""
    found = coverage_table()
    low = {cell: c for cell, c in found.items() if c < 0.94}
    assert not low, low
