"""Intervals of rates counted over walls (solved walls, correct groups, ...): Clopper-Pearson on
the effective number of trials. NumPy and SciPy; definitions in ``docs/statistics.md``.

A wall contributes ``successes`` out of ``trials`` (1 of 1 for a solved wall, 0-4 of 4 for its
correct groups); the walls are independent, the trials within a wall need not be. The rate is
``r = sum(successes) / sum(trials)``; its variance is estimated over walls (the ratio estimator's
linearisation), and the effective number of trials ``n_eff = r (1 - r) / var`` (Kish), reduced
for the few walls the variance is estimated from (Korn and Graubard 1998:
``n_eff * (z / t_df)**2``, ``df`` the walls neither all-success nor all-failure, less one), and
kept between the walls' own effective number ``sum(trials)**2 / sum(trials**2)`` (every trial of a
wall alike) and ``sum(trials)`` (all independent). At a rate of 0 or 1 the variance says nothing
and the least is taken. The interval is Clopper-Pearson's (beta quantiles) at ``r * n_eff``
successes of ``n_eff``: never a point, and exact Clopper-Pearson when every wall is one trial.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

#: ``bootstrap.method`` of a figure given the interval of this module: one trial a wall...
EXACT = "clopper-pearson"
#: ... or several (correct groups, clues) clustered by wall.
CLUSTERED = "clopper-pearson, effective n over walls"


def clopper_pearson(
    successes: ArrayLike, trials: ArrayLike, confidence: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Clopper-Pearson's interval of ``successes`` of ``trials`` (both may be fractional: the
    beta quantiles), elementwise: 0 below no success, 1 above all."""
    x = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    tail = (1 - confidence) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        low = stats.beta.ppf(tail, np.maximum(x, 1e-300), n - x + 1)
        high = stats.beta.ppf(1 - tail, x + 1, np.maximum(n - x, 1e-300))
    return np.where(x > 0, low, 0.0), np.where(x < n, high, 1.0)


def effective_trials(
    successes: ArrayLike, trials: ArrayLike, confidence: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(rate, n_eff)`` over the last axis (the walls), as the module says."""
    d = np.asarray(successes, dtype=np.float64)
    w = np.asarray(trials, dtype=np.float64) * np.ones_like(d)
    total = w.sum(axis=-1)
    rate = d.sum(axis=-1) / total
    var = ((d - rate[..., None] * w) ** 2).sum(axis=-1) / total**2
    least = total**2 / (w**2).sum(axis=-1)
    inner = np.minimum(((d > 0) & (w > 0)).sum(axis=-1), (d < w).sum(axis=-1))
    z = stats.norm.ppf((1 + confidence) / 2)
    df_factor = (z / stats.t.ppf((1 + confidence) / 2, np.maximum(inner - 1, 1))) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        kish = np.where(var > 0, rate * (1 - rate) / var, np.inf) * df_factor
    boundary = (rate <= 0) | (rate >= 1)
    return rate, np.where(boundary, least, np.clip(kish, least, total))


def rate_interval(
    successes: ArrayLike, trials: ArrayLike, confidence: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The interval of ``sum(successes) / sum(trials)`` over the last axis (walls; walls of no
    trial count for nothing), as the module says: ``(low, high)``.

    Raises:
        ValueError: no trial at all.
    """
    d = np.asarray(successes, dtype=np.float64)
    if not (np.asarray(trials, dtype=np.float64) * np.ones_like(d)).sum(axis=-1).all():
        raise ValueError("a rate needs at least one trial")
    rate, n_eff = effective_trials(d, trials, confidence)
    return clopper_pearson(rate * n_eff, n_eff, confidence)
