"""OCW task 1: grouping 16 clues into 4 groups of 4 (scale 0-1).

Definitions follow the paper's evaluation script ``evaluate_only_connect.py`` (class
``Evaluate.task1_grouping_evaluation``) and its helpers in ``utils.py`` (``lower_case``,
``check_equal``, ``clue2group``, ``slice_list``, ``remove_same``) of the public repository
TaatiTeam/OCW ("Large Language Models are Fixated by Red Herrings", NeurIPS 2023 Datasets and
Benchmarks). AMI, ARI and FMS come from :mod:`.partition`.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from . import partition
from .inputs import (
    GROUP_SIZE,
    N_CLUES,
    N_GROUPS,
    checked_items,
    validate_reference_wall,
    validate_wall,
)
from .partition import partition_scores

# SciPy is imported where it is first used (only for a gold run that is not one label).

_GOLD_RUNS: tuple[tuple[int, ...], ...] = tuple((g,) * GROUP_SIZE for g in range(N_GROUPS))

# Above this many candidate assignments of repeated clues, use a greedy assignment instead
# of the exhaustive search (never reached on real walls: they hold at most one repeated clue).
_MAX_ASSIGNMENTS = 4096

GROUPING_KEYS = ("wd", "ami", "ari", "fms", "full_wall", "correct_groups")


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


def clear_caches() -> None:
    """Empty the memoised per-wall figures (for benchmarks measuring a cold start)."""
    partition.clear_caches()
    _wd_pair.cache_clear()
