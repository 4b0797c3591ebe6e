"""The valid range of each figure of a results file, stated once, and the check that every
reader of results (``ocw-hub report``, ``compare``) applies to each figure it reads.

A figure outside its range (``full_wall_rate: 7.5``), not finite (``ami: NaN``, ``Infinity``:
Python's ``json`` reads both) or a count that is negative or not whole is refused with one
line naming the file and the field. Figures not named here are checked only for being finite.

Ranges (the metric's and the scoring's own, :mod:`ocw_hub.scoring.runs`):

* ``ami``, ``ari``: -1 to 1 (chance-adjusted: below 0 is worse than chance);
* ``wd``, ``fms``, the rates (``full_wall_rate``, ``correct_groups_rate``,
  ``connections_correct_rate``), the connections' ``exact_match``, ``rouge1``,
  ``bertscore_f1`` (as ``evaluate``'s BERTScore gives it, unrescaled): 0 to 1;
* in a WoTe file (``spans``), ``exact_match`` and ``f1`` (SQuAD v1.1's): 0 to 100;
* counts (``full_wall``, ``correct_groups``, ``n_walls``, ``n_questions``, ``n_missing``,
  ``n_runs``, ``season``, ``episode``): whole numbers, 0 or more; of one wall
  (``per_wall[i]``), ``correct_groups`` is at most 4 and ``full_wall`` at most 1;
* totals (:data:`TOTALS`), at most their most per wall or question times the ``n_walls`` or
  ``n_questions`` of the nearest object that gives one (itself or one it lies in):
  ``full_wall`` and ``n_missing`` 1, ``correct_groups`` 4; of play (``play``),
  ``walls_solved`` 1, ``groups_found`` and ``connections_right`` 4, ``points`` 10;
* which groups (``groups``, :mod:`ocw_hub.scoring.groups`): the rates
  (``found_by_*_rate``, ``misplaced_clue_rate``, ``near_miss_rate``, ``decoy_share``) 0 to 1;
  the counts (``found_by_*``, ``near_misses``, ``wrong_groups``, ``decoys``) at most 4 per
  wall, ``misplaced_clues`` 16, ``n_groups`` 4;
* intervals (``ci95[task][figure]``, beside the figures: top level, a season): ``[low, high]``
  with low <= high, each end in the figure's range, and the figure (``task.figure``, or
  ``mean.task.figure`` over runs) inside it.

:func:`figure_problem` is also the check of a leaderboard entry's ``value``
(:mod:`ocw_hub.data.eval_results`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "COUNTS",
    "RANGES",
    "SPAN_RANGES",
    "check_figures",
    "figure_problem",
    "interval_problem",
]

#: Figures on a closed interval, by name.
RANGES: dict[str, tuple[float, float]] = {
    "ami": (-1.0, 1.0),
    "ari": (-1.0, 1.0),
    "wd": (0.0, 1.0),
    "fms": (0.0, 1.0),
    "full_wall_rate": (0.0, 1.0),
    "correct_groups_rate": (0.0, 1.0),
    "connections_correct_rate": (0.0, 1.0),
    "exact_match": (0.0, 1.0),
    "rouge1": (0.0, 1.0),
    "bertscore_f1": (0.0, 1.0),
    # which groups, and red herrings (:mod:`ocw_hub.scoring.groups`): shares
    "found_by_both_rate": (0.0, 1.0),
    "found_by_model_only_rate": (0.0, 1.0),
    "found_by_contestants_only_rate": (0.0, 1.0),
    "found_by_neither_rate": (0.0, 1.0),
    "misplaced_clue_rate": (0.0, 1.0),
    "near_miss_rate": (0.0, 1.0),
    "decoy_share": (0.0, 1.0),
}
#: WoTe's span figures (SQuAD v1.1 on 0-100), anywhere in a WoTe results file.
SPAN_RANGES: dict[str, tuple[float, float]] = {"exact_match": (0.0, 100.0), "f1": (0.0, 100.0)}
#: The group counts of one wall (:mod:`ocw_hub.scoring.groups`): the most each may be.
GROUP_COUNTS = {
    "found_by_both": 4,
    "found_by_model_only": 4,
    "found_by_contestants_only": 4,
    "found_by_neither": 4,
    "misplaced_clues": 16,
    "near_misses": 4,
    "wrong_groups": 4,
    "decoys": 4,
}
#: Counts: whole numbers, 0 or more.
COUNTS = frozenset(
    {"full_wall", "correct_groups", "n_walls", "n_questions", "n_missing", "n_runs", "season"}
    | {"episode", "n_groups", *GROUP_COUNTS}
)
#: The most a count may be for one wall (``per_wall[i].grouping``, ``per_wall[i].groups``).
WALL_COUNTS = {"correct_groups": 4, "full_wall": 1, **GROUP_COUNTS}
#: Totals over walls or questions: the most each may add per wall (or question).
TOTALS = {
    "full_wall": 1,
    "correct_groups": 4,
    "n_missing": 1,
    "walls_solved": 1,
    "groups_found": 4,
    "connections_right": 4,
    "points": 10,
    "n_groups": 4,
    **GROUP_COUNTS,
}
#: How far a figure may lie outside its own interval: rounding of the bootstrap's means.
CI_SLACK = 1e-9
#: The fields that give how many walls or questions a figure's object counts over.
_SIZES = ("n_walls", "n_questions")

_INDEX = re.compile(r"\[\d+\]")
#: Objects whose counts are summaries over runs or resamples (whole numbers not required).
_SUMMARIES = frozenset({"mean", "std", "ci95"})


def _parts(field: str) -> list[str]:
    return [p for p in _INDEX.sub("", field).split(".") if p]


def _count_problem(name: str, parts: list[str], value: float) -> str | None:
    if value < 0:
        return f"{value} is not a count (0 or more)"
    if _SUMMARIES.isdisjoint(parts) and float(value) != int(value):
        return f"{value} is not a count (a whole number)"
    most = WALL_COUNTS.get(name) if "per_wall" in parts else None
    if most is not None and value > most:
        return f"{value} is more than a wall can have ({most})"
    return None


def figure_problem(field: str, value: Any, *, spans: bool = False) -> str | None:
    """Why the figure at ``field`` (a results file's dotted path,
    ``runs[0].per_wall[3].grouping.ami``) cannot hold ``value``, else None. Booleans (one
    wall's ``full_wall``) and non-numbers are left to the shape check. ``spans``: the file is
    WoTe's (extractive QA), whose ``exact_match`` and ``f1`` are on 0-100 everywhere."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value):
        return f"{value} is not a number a figure can be"
    parts = _parts(field)
    name = parts[-1] if parts else field
    if name in COUNTS:
        return _count_problem(name, parts, value)
    bounds = (spans and SPAN_RANGES.get(name)) or RANGES.get(name)
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        return f"{value} is outside the range of {name} ({bounds[0]:g} to {bounds[1]:g})"
    return None


def check_figures(
    data: Any, error: Callable[[str, str], Exception], *, spans: bool = False
) -> None:
    """Check every number in a results file's ``data`` (iteratively, any depth) with
    :func:`figure_problem`, then each interval (``ci95``) with :func:`interval_problem`; raise
    ``error(field, problem)`` for the first that fails."""
    stack: list[tuple[str, Any, tuple[str, float] | None]] = [("", data, None)]
    holders: list[tuple[str, dict[Any, Any]]] = []
    while stack:
        field, value, size = stack.pop()
        if isinstance(value, dict):
            size = _size(value, size)
            if "ci95" in value:
                holders.append((field, value))
            for key, item in value.items():
                problem = _total_problem(str(key), item, size)
                if problem is not None:
                    raise error(f"{field}.{key}" if field else str(key), problem)
            stack.extend((f"{field}.{k}" if field else str(k), v, size) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{field}[{i}]", v, size) for i, v in enumerate(value))
        elif (problem := figure_problem(field, value, spans=spans)) is not None:
            raise error(field, problem)
    for field, holder in holders:  # intervals once every figure is known to be in range
        found = _intervals_problem(holder)
        if found is not None:
            raise error(f"{field}.{found[0]}" if field else found[0], found[1])


def _size(obj: dict[Any, Any], outer: tuple[str, float] | None) -> tuple[str, float] | None:
    """``(name, value)`` of the ``n_walls`` or ``n_questions`` an object gives (a finite
    number), else ``outer``."""
    for name in _SIZES:
        value = obj.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (name, value) if math.isfinite(value) else outer
    return outer


def _total_problem(name: str, value: Any, size: tuple[str, float] | None) -> str | None:
    """Why a total (:data:`TOTALS`) is more than ``size`` walls or questions can give."""
    per = TOTALS.get(name)
    if per is None or size is None or isinstance(value, bool):
        return None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if value > per * size[1]:
        return f"{value} is more than {size[0]} {size[1]:g} allows (at most {per * size[1]:g})"
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _figure_of(obj: dict[Any, Any], task: str, name: str) -> Any:
    """The figure an interval ``ci95[task][name]`` of ``obj`` is about: ``obj[task][name]``
    (one run), else ``obj["mean"][task][name]`` (several runs), else None (a season's
    interval over runs, which holds no figure)."""
    for source in (obj, obj.get("mean")):
        figures = source.get(task) if isinstance(source, dict) else None
        if isinstance(figures, dict) and name in figures:
            return figures[name]
    return None


def interval_problem(interval: Any, figure: Any = None) -> str | None:
    """Why ``interval`` cannot be the 95 % interval of ``figure``, else None: not ``[low,
    high]`` (None, an interval not computed, passes), low above high, or the figure outside
    it (by more than :data:`CI_SLACK`, relative). Ends not finite are left to
    :func:`figure_problem`."""
    if interval is None:
        return None
    if not (isinstance(interval, list) and len(interval) == 2 and all(map(_number, interval))):
        return f"{interval!r} is not an interval [low, high]"
    low, high = interval
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    if low > high:
        return f"[{low:g}, {high:g}] is not an interval (low above high)"
    if _number(figure) and math.isfinite(figure):
        slack = CI_SLACK * max(1.0, abs(figure))
        if not low - slack <= figure <= high + slack:
            return f"the figure {figure:g} lies outside its interval [{low:g}, {high:g}]"
    return None


def _intervals_problem(obj: dict[Any, Any]) -> tuple[str, str] | None:
    """``(field, problem)`` of the first interval of ``obj["ci95"]`` that
    :func:`interval_problem` refuses, else None."""
    intervals = obj.get("ci95")
    if not isinstance(intervals, dict):
        return None
    for task, figures in intervals.items():
        if not isinstance(figures, dict):
            continue
        for name, interval in figures.items():
            problem = interval_problem(interval, _figure_of(obj, str(task), str(name)))
            if problem is not None:
                return f"ci95.{task}.{name}", problem
    return None
