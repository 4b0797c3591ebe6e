"""Chance levels of the headline figures: what a uniformly random partition of each wall's 16
clues into 4 groups of 4 scores (the ``random`` baseline's model). Exact where a formula exists,
else by a seeded vectorised simulation (:func:`simulated`). Definitions and the table:
``docs/statistics.md`` ("Chance levels").
"""

from __future__ import annotations

import itertools
import math
from typing import Any

#: Gold groups and clues per group on a wall.
N_GROUPS = 4
GROUP_SIZE = 4
N_CLUES = N_GROUPS * GROUP_SIZE

#: Partitions of 16 clues into 4 unordered groups of 4: 16! / (4!^4 · 4!) = 2,627,625.
N_PARTITIONS = math.factorial(N_CLUES) // (
    math.factorial(GROUP_SIZE) ** N_GROUPS * math.factorial(N_GROUPS)
)
#: Groups of 4 out of 16 clues: C(16, 4) = 1,820.
N_SUBSETS = math.comb(N_CLUES, GROUP_SIZE)
#: Groups of exactly 3 clues of one gold group and 1 of another: 4 · C(4, 3) · 12 = 192.
N_NEAR = N_GROUPS * math.comb(GROUP_SIZE, GROUP_SIZE - 1) * (N_CLUES - GROUP_SIZE)


def exact() -> dict[str, float]:
    """The chance levels known in closed form, per wall (rates) or as shares.

    * ``full_wall_rate``: 1 / 2,627,625 (one partition of all).
    * ``correct_groups_rate``: a given gold group is a predicted group with probability
      1 / C(15, 3) = 1 / 455 (the other 3 clues of the first clue's group); ``correct_groups``
      per wall: 4 / 455.
    * ``ami``, ``ari``: 0: both subtract their expectation under random labelings of the
      same group sizes (sklearn's hypergeometric model), and a partition into 4 groups of 4
      has the gold sizes, so the normaliser is constant and the mean is 0 exactly.
    * ``fms``: (Σ n_ij² − 16) / 48 with 4 groups of 4 on both sides; each cell n_ij is
      hypergeometric (4 draws, 4 of 16) with E[n²] = 1.6, so E = (25.6 − 16) / 48 = 0.2.
    * ``near_miss_rate``: each predicted group is a uniform group of 4: 192 / 1,820.
    * ``decoy_share``: decoys over wrong groups: 192 / (1,820 − 4), the limit of the ratio
      of totals (a decoy is a near miss, and every near miss is wrong).
    * ``connections exact_match``: 0 (see the docs: no finite set of answers to guess from).
    """
    return {
        "full_wall_rate": 1 / N_PARTITIONS,
        "correct_groups_rate": 1 / math.comb(N_CLUES - 1, GROUP_SIZE - 1),
        "correct_groups_per_wall": N_GROUPS / math.comb(N_CLUES - 1, GROUP_SIZE - 1),
        "ami": 0.0,
        "ari": 0.0,
        "fms": 0.2,
        "near_miss_rate": N_NEAR / N_SUBSETS,
        "decoy_share": N_NEAR / (N_SUBSETS - N_GROUPS),
        "exact_match": 0.0,
    }


def random_labels(n: int, seed: int) -> Any:
    """``n`` uniformly random partitions as gold labels in prediction order, shape (n, 16):
    permutations of ``[0,0,0,0,1,...,3]`` (clue i of the prediction is in gold group
    ``labels[i]``; consecutive runs of 4 are the predicted groups)."""
    import numpy as np

    gold = np.repeat(np.arange(N_GROUPS), GROUP_SIZE)
    keys = np.random.default_rng(seed).random((n, N_CLUES))
    return gold[np.argsort(keys, axis=1)]


def wall_figures(labels: Any) -> dict[str, Any]:
    """Per-wall figures of partitions given as gold labels (:func:`random_labels`), each an
    array of shape (n,): ``wd`` (the metric's ``wasserstein_score``), ``fms``,
    ``correct_groups``, ``misplaced_clues``, ``near_misses``, ``wrong_groups``, ``decoys``
    (as ``scoring/groups.py``, for clues that are all clues of the wall)."""
    import numpy as np

    runs = labels.reshape(len(labels), N_GROUPS, GROUP_SIZE)
    counts = (runs[..., None] == np.arange(N_GROUPS)).sum(axis=2)  # (n, predicted, gold)
    top = counts.max(axis=2)
    pure = top == GROUP_SIZE
    # WD: a predicted run equal to a gold run is dropped with it; the others are paired in
    # order with the gold runs left, each pair costing min(1, mean |x - g|).
    gold_pure = (counts == GROUP_SIZE).any(axis=1)  # (n, gold): gold runs dropped
    order = np.argsort(gold_pure, axis=1, kind="stable")  # gold runs left first, in order
    rank = np.cumsum(~pure, axis=1) - 1
    paired = np.take_along_axis(order, np.clip(rank, 0, N_GROUPS - 1), axis=1)
    cost = np.minimum(np.abs(runs - paired[..., None]).mean(axis=2), 1.0)
    wd = np.where(pure, 0.0, cost).sum(axis=1) / N_GROUPS
    matchings = np.array(list(itertools.permutations(range(N_GROUPS))))
    kept = counts[:, np.arange(N_GROUPS), matchings].sum(axis=2).max(axis=1)
    second = np.sort(counts, axis=2)[..., -2]
    return {
        "wd": wd,
        "fms": ((counts**2).sum(axis=(1, 2)) - N_CLUES) / (2 * N_GROUPS * math.comb(4, 2)),
        "correct_groups": pure.sum(axis=1),
        "misplaced_clues": N_CLUES - kept,
        "near_misses": (top == GROUP_SIZE - 1).sum(axis=1),
        "wrong_groups": (~pure).sum(axis=1),
        "decoys": (~pure & (top == GROUP_SIZE - 1) & (second == 1)).sum(axis=1),
    }


def simulated(n: int = 200_000, seed: int = 0) -> dict[str, tuple[float, float]]:
    """(mean, standard error) of each figure over ``n`` seeded random partitions:
    ``wd``, ``fms``, ``correct_groups_rate``, ``misplaced_clue_rate``, ``near_miss_rate``,
    ``decoy_share`` (ratio of totals; its standard error by the delta method)."""
    import numpy as np

    f = wall_figures(random_labels(n, seed))

    def mean_se(values: Any, scale: float = 1.0) -> tuple[float, float]:
        v = np.asarray(values, dtype=float) / scale
        return float(v.mean()), float(v.std(ddof=1) / math.sqrt(len(v)))

    decoys, wrong = f["decoys"].astype(float), f["wrong_groups"].astype(float)
    share = decoys.sum() / wrong.sum()
    share_se = float(np.std(decoys - share * wrong, ddof=1) / wrong.mean() / math.sqrt(n))
    return {
        "wd": mean_se(f["wd"]),
        "fms": mean_se(f["fms"]),
        "correct_groups_rate": mean_se(f["correct_groups"], N_GROUPS),
        "misplaced_clue_rate": mean_se(f["misplaced_clues"], N_CLUES),
        "near_miss_rate": mean_se(f["near_misses"], N_GROUPS),
        "decoy_share": (float(share), share_se),
    }


#: The simulated chance levels, as stated (``tests/test_chance.py`` checks them against
#: :func:`simulated`): the metric's ``wd`` and the share of misplaced clues.
SIMULATED = {"wd": 0.918, "misplaced_clue_rate": 0.524}


def chance_level(task: str, figure: str, n_walls: int, human_rate: float | None) -> float | None:
    """The chance level of a headline figure (``evaluate``'s task and figure names) over
    ``n_walls`` walls scored, ``human_rate`` the contestants' share of groups found (for the
    ``found_by_*`` rates: a random partition finds a group with probability 1/455 whoever
    else found it); None for a figure that has none (``rouge1``, ``bertscore_f1``: chance
    depends on what is guessed)."""
    levels = exact()
    p = levels["correct_groups_rate"]
    if task == "grouping":
        per_wall = {"full_wall": levels["full_wall_rate"], "correct_groups": 4 * p}
        if figure in per_wall:
            return n_walls * per_wall[figure]
        return levels.get(figure, SIMULATED.get(figure))
    if task == "connections":
        return 0.0 if figure == "exact_match" else None
    if task == "groups":
        if figure in ("near_miss_rate", "decoy_share", "misplaced_clue_rate"):
            return levels.get(figure, SIMULATED.get(figure))
        if human_rate is None:
            return None
        model = {"both": p, "model_only": p, "contestants_only": 1 - p, "neither": 1 - p}
        human = {"both": human_rate, "contestants_only": human_rate}
        who = figure.removeprefix("found_by_").removesuffix("_rate")
        if who in model:
            return model[who] * human.get(who, 1 - human_rate)
    return None
