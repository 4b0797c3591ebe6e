"""Which gold groups a model found, and red herrings (``groups`` in the results JSON).

Per wall (``per_wall[i]["groups"]``): the gold group ids (``group_1`` .. ``group_4``, as in the
data), the ones the model found and the ones the contestants found (each group's
``human_performance.grouping``), and per predicted group how its clues spread over the gold
groups. Split-level (``groups``, and per season ``by_season[s]["groups"]``): groups found by
both, the model only, the contestants only, neither; the misplaced-clue rate; near misses; and
the decoy share (a red-herring figure). Exact definitions: ``docs/statistics.md``
("Which groups, and red herrings").

A clue's gold group is the metric's label for it (``predicted_labels`` of the metric's
``grouping`` module, which settles clues held by two gold groups); clues are compared
lowercased, as the metric does. Clues that are not clues of the wall belong to no gold group.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ..resources import load_metric_module

#: Gold groups and clues per group on a wall.
N_GROUPS = 4
GROUP_SIZE = 4
#: Who found a gold group: the per-wall counts (0-4) and split-level totals of these keys.
FOUND_BY = ("found_by_both", "found_by_model_only", "found_by_contestants_only", "found_by_neither")
#: Per-wall counts summed into the split-level totals.
COUNTS = (*FOUND_BY, "misplaced_clues", "near_misses", "wrong_groups", "decoys")


def sorted_lower(groups: Sequence[Sequence[str]]) -> list[list[str]]:
    """Each group's clues lowercased and sorted, as the metric compares groups."""
    return [sorted(c.lower() for c in g) for g in groups]


class GoldFacts(NamedTuple):
    """What a wall's ``groups`` record needs of its gold walls, the same for every run:
    the group ids (``group_1`` .. ``group_4``), the contestants' finds (1 or 0, by group) and
    the gold groups as :func:`sorted_lower` gives them."""

    ids: list[str]
    contestants: list[int]
    gold_sorted: list[list[str]]


def gold_facts(wall: Mapping[str, Any], gold: Sequence[Sequence[str]]) -> GoldFacts:
    """:class:`GoldFacts` of ``wall`` (a row), whose gold groups are ``gold`` (validated)."""
    ids = list(wall["groups"])
    contestants = [int(wall["groups"][i]["human_performance"]["grouping"]) for i in ids]
    return GoldFacts(ids, contestants, sorted_lower(gold))


def gold_labels(
    predicted: Sequence[Sequence[str]],
    gold: Sequence[Sequence[str]],
    gold_sorted: list[list[str]] | None = None,
) -> list[list[int | None]]:
    """Gold group (0-3, None if not a clue of the wall) of each predicted clue, in the
    prediction's own order, from the metric's ``predicted_labels`` (which works on lowercased
    sorted groups; ``gold_sorted``: ``gold`` so, when known)."""
    code = load_metric_module("grouping")
    pred_sorted = sorted_lower(predicted)
    if gold_sorted is None:
        gold_sorted = sorted_lower(gold)
    flat = code.predicted_labels(pred_sorted, gold_sorted)
    out: list[list[int | None]] = []
    for p, group in enumerate(predicted):
        order = sorted(range(len(group)), key=lambda k: group[k].lower())
        labels: list[int | None] = [None] * len(group)
        for rank, k in enumerate(order):
            label = flat[p * len(group) + rank]
            labels[k] = label if label < len(gold) else None
        out.append(labels)
    return out


def spread(labels: Sequence[Sequence[int | None]], n_gold: int = N_GROUPS) -> list[list[int]]:
    """Per predicted group, how many of its clues belong to each gold group: shape
    ``(n_predicted, n_gold)``; clues of no gold group are not counted (a row sums to 4 minus
    them)."""
    counts = [[0] * n_gold for _ in labels]
    for p, row in enumerate(labels):
        for label in row:
            if label is not None:
                counts[p][label] += 1
    return counts


def match_groups(labels: Sequence[Sequence[int | None]]) -> list[int]:
    """One gold group per predicted group, one to one, keeping the most clues in place (an
    assignment maximising the sum of :func:`spread` over matched pairs, as the Hungarian
    method finds; here all 24 one-to-one matchings of 4 groups are tried, so no SciPy import
    at start-up); ties go to the first matching in lexicographic order. A predicted group equal
    to a gold group is always matched to it (any other matching keeps 4 fewer clues in place)."""
    counts = spread(labels, len(labels))
    best = max(
        itertools.permutations(range(len(labels))),
        key=lambda match: sum(counts[p][g] for p, g in enumerate(match)),
    )
    return list(best)


def wall_groups(
    predicted: Sequence[Sequence[str]],
    gold: Sequence[Sequence[str]],
    gold_ids: Sequence[str],
    contestants: Sequence[int],
    gold_sorted: list[list[str]] | None = None,
) -> dict[str, Any]:
    """The ``groups`` record of one wall.

    Args:
        predicted: 4 predicted groups of 4 clues (any order).
        gold: the 4 gold groups, in the order of ``gold_ids``.
        gold_ids: the gold group ids (``group_1`` .. ``group_4``).
        contestants: each gold group's ``human_performance.grouping`` (1 found, 0 not).
        gold_sorted: ``gold`` as :func:`sorted_lower` gives it, when known.

    Returns:
        ``gold_groups`` (the ids), ``found`` and ``found_by_contestants`` (ids, gold order),
        ``spread`` (per predicted group, in prediction order, its clues per gold group, as
        :func:`spread`), ``matched`` (the gold group id matched to each predicted group,
        :func:`match_groups`), and the counts of :data:`COUNTS`: ``found_by_*`` (gold groups,
        0-4), ``misplaced_clues`` (0-16: clues outside the gold group matched to their
        predicted group, clues of no gold group included), ``near_misses`` (predicted groups
        holding exactly 3 clues of one gold group), ``wrong_groups`` (predicted groups equal
        to no gold group) and ``decoys`` (wrong groups of 3 clues of one gold group and 1 of
        another).
    """
    lower_gold = sorted_lower(gold) if gold_sorted is None else gold_sorted
    lower_pred = sorted_lower(predicted)
    model = [g in lower_pred for g in lower_gold]  # the metric's correct_groups, per group
    human = [bool(h) for h in contestants]
    labels = gold_labels(predicted, gold, lower_gold)
    counts = spread(labels, len(gold))
    match = match_groups(labels)
    wrong = [g not in lower_gold for g in lower_pred]
    return {
        "gold_groups": list(gold_ids),
        "found": [i for i, hit in zip(gold_ids, model, strict=True) if hit],
        "found_by_contestants": [i for i, hit in zip(gold_ids, human, strict=True) if hit],
        "spread": counts,
        "matched": [gold_ids[m] for m in match],
        **_found_by(model, human),
        **_herrings(labels, counts, match, wrong),
    }


def _herrings(
    labels: Sequence[Sequence[int | None]],
    counts: Sequence[Sequence[int]],
    match: Sequence[int],
    wrong: Sequence[bool],
) -> dict[str, int]:
    """Misplaced clues, near misses, wrong groups and decoys of one wall (see
    :func:`wall_groups`)."""
    misplaced = sum(label != match[p] for p, row in enumerate(labels) for label in row)
    decoy = [GROUP_SIZE - 1, 1]
    return {
        "misplaced_clues": misplaced,
        "near_misses": sum(max(row) == GROUP_SIZE - 1 for row in counts),
        "wrong_groups": sum(wrong),
        "decoys": sum(
            w and sorted(row, reverse=True)[:2] == decoy
            for w, row in zip(wrong, counts, strict=True)
        ),
    }


def _found_by(model: Sequence[bool], human: Sequence[bool]) -> dict[str, int]:
    """Gold groups found by both, the model only, the contestants only, neither."""
    pairs = list(zip(model, human, strict=True))
    cells = ((True, True), (True, False), (False, True), (False, False))
    return {key: pairs.count(cell) for key, cell in zip(FOUND_BY, cells, strict=True)}


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def aggregate_groups(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The split-level ``groups`` figures of per-wall records (:func:`wall_groups`):
    ``n_walls``, ``n_groups`` (4 per wall), the totals of :data:`COUNTS`, and the rates:
    ``found_by_*_rate`` (share of gold groups), ``misplaced_clue_rate`` (share of the placed
    clues, 16 per wall), ``near_miss_rate`` (share of predicted groups), ``decoy_share``
    (decoys over wrong groups; None without wrong groups)."""
    n = len(items)
    totals = {key: int(sum(item[key] for item in items)) for key in COUNTS}
    out: dict[str, Any] = {"n_walls": n, "n_groups": N_GROUPS * n, **totals}
    for key in FOUND_BY:
        out[f"{key}_rate"] = _share(totals[key], N_GROUPS * n)
    out["misplaced_clue_rate"] = _share(totals["misplaced_clues"], N_GROUPS * GROUP_SIZE * n)
    out["near_miss_rate"] = _share(totals["near_misses"], N_GROUPS * n)
    out["decoy_share"] = _share(totals["decoys"], totals["wrong_groups"])
    return out


def add_group_figures(
    results: dict[str, Any],
    gold: Any,
    predictions: Mapping[str, Any],
    missing: Collection[str],
    placeholder: Sequence[Sequence[str]],
    scored: Iterable[int],
) -> None:
    """Add ``groups`` to ``results`` (one run of :func:`ocw_hub.scoring.runs.score_ocw`): to
    each ``per_wall`` entry of the walls ``scored`` for grouping (indices), to the split
    (``results["groups"]``) and to each season of ``by_season``.

    Args:
        gold: the split's :class:`ocw_hub.scoring.runs.GoldWalls` (rows, validated groups,
            each wall's :class:`GoldFacts` as ``group_facts``).
        predictions: ``{wall_id: WallPrediction}``.
        missing: the wall ids scored as missing, each with the ``placeholder`` groups.
    """
    by_season: dict[str, list[dict[str, Any]]] = {}
    for index in scored:
        wall, wall_id, facts = gold.walls[index], gold.ids[index], gold.group_facts[index]
        groups = placeholder if wall_id in missing else predictions[wall_id].groups
        record = wall_groups(
            groups, gold.groups[index], facts.ids, facts.contestants, facts.gold_sorted
        )
        results["per_wall"][index]["groups"] = record
        by_season.setdefault(str(wall["season"]), []).append(record)
    if not by_season:
        return
    results["groups"] = aggregate_groups([r for rs in by_season.values() for r in rs])
    for season, records in by_season.items():
        results["by_season"][season]["groups"] = aggregate_groups(records)
