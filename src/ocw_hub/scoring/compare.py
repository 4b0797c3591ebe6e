"""Systems side by side (``ocw-hub compare``): one figure per system with its bootstrap
interval, ranked, and the p-value of each system's difference from the best: a paired
sign-flip permutation test on the walls both predicted (:mod:`.paired`), Holm-adjusted over
every pair of systems when there are more than two.

A system is a results JSON of ``ocw-hub evaluate --out`` (one run or several), a predictions
file, a play log or a folder of runs (scored here as ``evaluate`` does); a play log's own
figures (points, groups found, walls solved, ...) rank it too. The contestants are a row of
their own for the figures the dataset records for them (correct groups, full walls). The
definitions (what is resampled, the seed, the p-value) are in ``docs/statistics.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import jsonio
from ..configs import ConfigSpec, PathLike, config_spec
from ..errors import OCWHubError
from . import bootstrap, paired
from .intervals import (
    FIGURES,
    interval_method,
    mean_scale,
    play_interval,
    run_intervals,
    runs_intervals,
    task_values,
)
from .slices import span_text

#: Resamples of ``compare`` by default (intervals, and the sign-flip test's random sign vectors
#: on more than ``paired.EXACT_MAX_WALLS`` walls): enough for a p-value below 0.001 (the least
#: is ``1 / (N + 1)``).
COMPARE_RESAMPLES = 10_000
#: The play figures of a play log's results (``play``; ``human.play`` for the contestants on
#: the walls played), as :data:`~ocw_hub.scoring.intervals.FIGURES`: the totals and the means
#: over the walls played (``play.scoring.TOTALS``).
PLAY_FIGURES: dict[str, tuple[str, float, bool]] = {
    **{k: (k, 1.0, True) for k in ("points", "groups_found", "walls_solved", "connections_right")},
    **{
        f"{k}_mean": (k, 1.0, False)
        for k in ("points", "groups_found", "walls_solved", "connections_right")
    },
}
#: Every figure ``compare`` ranks by, per task.
RANKED = {**FIGURES, "play": PLAY_FIGURES}
#: The test of ``compare``, as its JSON names it.
TEST = (
    "sign-flip permutation test, two-sided, of the mean per-wall difference on the walls both "
    "systems predicted"
)
#: The figure systems are ranked by unless told: AMI of the grouping (chance-adjusted, so a
#: random partition scores 0, and a mean of per-wall values that moves with every clue, unlike
#: the counts of solved walls), F1 for WoTe (SQuAD's headline).
DEFAULT_FIGURE = {"ocw": "ami", "wote": "f1"}
#: Figures where lower is better.
LOWER_IS_BETTER = frozenset({"wd"})
#: The label of the contestants' row.
CONTESTANTS = "contestants"


class CompareError(OCWHubError, ValueError):
    """Systems that cannot be compared: different datasets, splits or sources (unless
    allowed), a figure a system lacks, an unknown figure (names the systems)."""


@dataclass
class System:
    """One row of the comparison.

    Attributes:
        label: the entry as given (a path), or ``contestants``.
        results: the results dict (one run or several) it was read or scored as.
        value: the figure (the mean over runs for several runs), std over runs or None.
        ci95: ``[low, high]`` (two-level over walls and runs for several runs).
        per_wall: ``{wall id: per-wall value}`` (mean over runs), the walls scored.
        predicted: the walls of ``per_wall`` with a prediction in every run (not a missing
            wall scored as wrong): the walls a paired test may use.
    """

    label: str
    results: dict[str, Any]
    value: float
    std: float | None
    ci95: list[float]
    per_wall: dict[str, float]
    n_missing: int
    n_unscored: int
    predicted: frozenset[str] = frozenset()
    rank: int = 0
    p_value: float | None = None
    p_holm: float | None = None
    difference: float | None = None
    walls_in_common: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def is_results_file(path: Path) -> bool:
    """A results JSON of ``ocw-hub evaluate --out`` (an object with ``config``, ``split`` and
    per-wall figures or runs), not a predictions file."""
    if not path.is_file():
        return False
    with path.open("rb") as file:  # a JSON object; an inspect log (a zip) or a list is not
        if not file.read(64).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            return False
    raw = jsonio.read_json(path, CompareError, "results or predictions file")
    keys = ("per_wall", "per_question", "runs")
    return isinstance(raw, dict) and {"config", "split"} <= set(raw) and any(k in raw for k in keys)


def task_of(script: str, figure: str, tasks: Sequence[str]) -> str:
    """The task of ``tasks`` (``ConfigSpec.tasks``) a figure belongs to.

    Raises:
        CompareError: not a figure of the dataset.
    """
    for task in tasks:
        if figure in RANKED[task]:
            return task
    known = [f for t in tasks for f in RANKED[t]]
    raise CompareError(f"--by {figure}: not a figure of {script}; expected one of {known}")


def _runs_of(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(results["runs"]) if "runs" in results else [dict(results)]


def play_values(result: Mapping[str, Any], human: bool = False) -> dict[str, dict[str, float]]:
    """``{wall id: {play figure: value}}`` of the walls a play log's result played (the
    model's ``per_wall[*].play``, or the contestants' ``per_wall[*].human.play`` on them)."""
    out: dict[str, dict[str, float]] = {}
    for item in result.get("per_wall", []):
        play = item.get("play")
        if not isinstance(play, Mapping) or not play.get("played"):
            continue
        if human:
            play = (item.get("human") or {}).get("play") or {}
        keys = {key for key, _, _ in PLAY_FIGURES.values()}
        out[str(item["wall_id"])] = {k: float(play[k]) for k in keys if play.get(k) is not None}
    return out


def _values(run: Mapping[str, Any], task: str) -> dict[str, dict[str, float]]:
    return play_values(run) if task == "play" else task_values(run, task)


def _per_wall(results: Mapping[str, Any], task: str, key: str) -> dict[str, float]:
    """Per wall scored in every run, the mean over runs of the per-wall ``key``."""
    per_run = [_values(run, task) for run in _runs_of(results)]
    common = [i for i in per_run[0] if all(i in v and key in v[i] for v in per_run)]
    return {i: float(np.mean([v[i][key] for v in per_run])) for i in common}


def _predicted(
    results: Mapping[str, Any], spec: ConfigSpec, walls: Sequence[str]
) -> frozenset[str]:
    """The ``walls`` no run lacks a prediction for (``missing`` on its per-wall record: a
    missing wall scored as wrong with ``--allow-missing``, a wall a play log did not play)."""
    lacking = {
        str(item.get(spec.id_key))
        for run in _runs_of(results)
        for item in run.get(spec.items_key) or []
        if isinstance(item, Mapping) and item.get("missing")
    }
    return frozenset(i for i in walls if i not in lacking)


def _system(
    label: str,
    results: dict[str, Any],
    spec: ConfigSpec,
    task: str,
    figure: str,
    n_resamples: int,
    seed: int,
) -> System:
    runs = _runs_of(results)
    if not all(task in run for run in runs):
        raise CompareError(f"{label}: has no {task} figures to rank by {figure}")
    key = RANKED[task][figure][0]
    several = "runs" in results
    if task == "play":
        return _play_system(label, results, spec, figure, n_resamples, seed)
    if several:
        value = float(np.mean([run[task][figure] for run in runs]))
        std: float | None = float(np.std([run[task][figure] for run in runs]))
        ci = runs_intervals(runs, n_resamples, seed)
    else:
        value, std = float(results[task][figure]), None
        ci = run_intervals(results, n_resamples, seed)
    size = spec.size_key
    scored = min(int(run[task].get(size, run[task].get("n_walls", 0))) for run in runs)
    per_wall = _per_wall(results, task, key)
    _check_per_wall(label, runs, spec, (task, figure), value, per_wall)
    return System(
        label=label,
        results=results,
        value=value,
        std=std,
        ci95=ci[task][figure],
        per_wall=per_wall,
        n_missing=max(int(run.get("n_missing", 0)) for run in runs),
        n_unscored=int(runs[0].get(size, 0)) - scored,
        predicted=_predicted(results, spec, list(per_wall)),
    )


def _interval(figure: str, values: Sequence[float], n: int, seed: int) -> list[float]:
    """The interval of a play figure of per-wall ``values`` (:data:`PLAY_FIGURES`), as
    ``evaluate`` gives its mean (:func:`~ocw_hub.scoring.intervals.play_interval`: binomial
    for a count, else the percentile bootstrap), n times it for a total."""
    if not values:
        return [math.nan, math.nan]
    key, factor, total = PLAY_FIGURES[figure]
    times = mean_scale(factor, total, len(values))
    return [times * x for x in play_interval(key, values, n, seed)]


def _play_system(
    label: str, results: dict[str, Any], spec: ConfigSpec, figure: str, n: int, seed: int
) -> System:
    """The row of a play log's results for a play figure: over the walls it played (the
    rest are missing: not played)."""
    value = results["play"].get(figure)
    if value is None:
        rules = (results.get("play_log") or {}).get("rules", "?")
        raise CompareError(f"{label}: has no play figure {figure} (rules {rules})")
    key = PLAY_FIGURES[figure][0]
    per_wall = _per_wall(results, "play", key)
    _check_per_wall(label, [results], spec, ("play", figure), float(value), per_wall)
    return System(
        label=label,
        results=results,
        value=float(value),
        std=None,
        ci95=_interval(figure, list(per_wall.values()), n, seed),
        per_wall=per_wall,
        n_missing=int(results.get("n_missing", 0)),
        n_unscored=0,
        predicted=frozenset(per_wall),
    )


def _check_per_wall(
    label: str,
    runs: Sequence[Mapping[str, Any]],
    spec: ConfigSpec,
    figure: tuple[str, str],
    value: float,
    per_wall: Mapping[str, float],
) -> None:
    """The per-wall values the p-value pairs are the figure's own: no wall twice in a run, and
    the figure their mean (times its factor) or total, as ``evaluate`` wrote it.

    Raises:
        CompareError: names the file, the wall or the figure (a results file edited by hand).
    """
    from collections import Counter

    task, name = figure
    for run in runs:
        items = run.get(spec.items_key)
        if not isinstance(items, list):
            continue
        ids = Counter(str(i.get(spec.id_key)) for i in items if isinstance(i, Mapping))
        twice = [i for i, n in ids.items() if n > 1]
        if twice:
            raise CompareError(f"{label}: {spec.unit} {twice[0]} is scored twice in one run")
    if not per_wall:
        return
    values = np.fromiter(per_wall.values(), dtype=np.float64)
    expected = float(values.mean() * mean_scale(*RANKED[task][name][1:], len(values)))
    whole = all(int(run[task].get(spec.size_key, -1)) == len(per_wall) for run in runs)
    if whole and not math.isclose(expected, value, rel_tol=1e-9, abs_tol=1e-9):
        raise CompareError(
            f"{label}: {task}.{name} is {value:g}, its per-wall values give {expected:g}: "
            "score the predictions again (ocw-hub evaluate)"
        )


def _contestants(first: System, figure: str, n_resamples: int, seed: int) -> System | None:
    """The contestants' row (from the first system's results) when they have ``figure``:
    over every wall, or for a play figure over the walls the first system played."""
    if figure in PLAY_FIGURES and "play" in first.results:
        value = ((first.results.get("human") or {}).get("play") or {}).get(figure)
        key = PLAY_FIGURES[figure][0]
        values = play_values(first.results, human=True)
        per_wall = {i: v[key] for i, v in values.items() if key in v}
        if value is None or len(per_wall) != len(values):
            return None
        interval = _interval(figure, list(per_wall.values()), n_resamples, seed)
        return System(
            CONTESTANTS,
            first.results,
            float(value),
            None,
            interval,
            per_wall,
            0,
            0,
            frozenset(per_wall),
        )
    if figure not in FIGURES["human"] or "human" not in first.results:
        return None
    value = first.results["human"].get(figure)
    run = _runs_of(first.results)[0]
    ci = run_intervals(run, n_resamples, seed).get("human", {}).get(figure)
    if value is None or ci is None:
        return None
    key = FIGURES["human"][figure][0]
    per_wall = {i: v[key] for i, v in task_values(run, "human").items() if key in v}
    return System(
        CONTESTANTS, first.results, float(value), None, ci, per_wall, 0, 0, frozenset(per_wall)
    )


def _source_key(results: Mapping[str, Any]) -> tuple[str, str, str]:
    """(config, split, source): the source is the digest of the rows scored
    (:func:`~ocw_hub.provenance.rows_digest`: raw files and their export are one source), else
    (results written before it) of the files read."""
    from ..provenance import source_content

    source = results.get("source")
    shown = "not recorded"
    if isinstance(source, Mapping):
        shown = str(source_content(source) or source.get("label") or "not recorded")
    cut = results.get("slice")  # systems on different slices differ as splits do
    seasons = f" (seasons {span_text(cut['seasons'])})" if isinstance(cut, Mapping) else ""
    split = str(results.get("split")) + seasons
    return str(results.get("config")), split, shown


def check_sources(systems: Sequence[System], allow_different: bool) -> None:
    """Refuse systems of different datasets (OCW and WoTe) always, and of different configs,
    splits or source contents (SHA-256) unless ``allow_different``.

    Raises:
        CompareError: names the systems of each (config, split, source).
    """
    scripts = {config_spec(str(s.results["config"])).script for s in systems}
    if len(scripts) > 1:
        raise CompareError("systems of OCW and of WoTe cannot be compared")
    groups: dict[tuple[str, str, str], list[str]] = {}
    for s in systems:
        groups.setdefault(_source_key(s.results), []).append(s.label)
    if len(groups) > 1 and not allow_different:
        parts = [
            f"{', '.join(labels)} ({config}/{split}, source {sha[:12]})"
            for (config, split, sha), labels in groups.items()
        ]
        raise CompareError(
            "systems scored on different configs, splits or sources: "
            + " vs ".join(parts)
            + "; pass --allow-different-sources to compare them on the walls they share"
        )


def _where(system: System) -> tuple[Any, Any]:
    return system.results.get("config"), system.results.get("split")


def shared_walls(one: System, other: System) -> list[str]:
    """The walls both systems predicted (not missing, not null for the task), sorted; none
    across configs or splits. Walls are paired by id within one config and split:
    ``ocw_randomized`` keeps the ids of the test walls it rebuilds from other walls' groups."""
    if _where(one) != _where(other):
        return []
    return sorted(one.predicted & other.predicted & one.per_wall.keys() & other.per_wall.keys())


def pair_p_values(
    systems: Sequence[System], n_resamples: int, seed: int
) -> dict[tuple[int, int], float]:
    """The sign-flip p-value (:func:`paired.paired_p_values`) of every pair ``(i, j)``,
    ``i < j``, of ``systems`` that share walls (:func:`shared_walls`), on those walls; pairs
    on the same walls are drawn together."""
    batches: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for i, one in enumerate(systems):
        for j in range(i + 1, len(systems)):
            walls = tuple(shared_walls(one, systems[j]))
            if walls:
                batches.setdefault(walls, []).append((i, j))
    out: dict[tuple[int, int], float] = {}
    for walls, pairs in batches.items():
        diffs = np.array(
            [[systems[i].per_wall[w] - systems[j].per_wall[w] for i, j in pairs] for w in walls]
        )
        for pair, p in zip(pairs, paired.paired_p_values(diffs, n_resamples, seed), strict=True):
            out[pair] = float(p)
    return out


def rank(
    systems: list[System],
    figure: str,
    n_resamples: int,
    seed: int,
    scale: tuple[float, bool] = (1.0, False),
) -> list[System]:
    """Sort by ``figure`` (best first; ties keep the given order), then give each system its
    rank, its difference from the best, the walls it shares with the best
    (:func:`shared_walls`) and the p-value of the difference on them: unadjusted
    (``p_value``) and Holm-adjusted (``p_holm``) over the p-values of every pair of systems
    sharing walls (the best is picked from the data, so the family is all pairs, not the
    comparisons with the best). When either scored walls not shared, the difference shown is
    the one tested, on the shared walls (``scale``: the figure's factor on the per-wall mean,
    or whether it is a total, ``intervals.FIGURES``)."""
    sign = 1.0 if figure in LOWER_IS_BETTER else -1.0
    ordered = sorted(systems, key=lambda s: sign * s.value)
    best = ordered[0]
    p_values = pair_p_values(ordered, n_resamples, seed)
    pairs = list(p_values)
    adjusted = dict(zip(pairs, paired.holm([p_values[k] for k in pairs]), strict=True))
    best.walls_in_common = len(shared_walls(best, best))
    for position, system in enumerate(ordered, start=1):
        system.rank = position
        if system is best:
            continue
        shared = shared_walls(best, system)
        system.walls_in_common = len(shared)
        system.difference = system.value - best.value
        if not shared:
            continue
        system.p_value = p_values[(0, position - 1)]
        system.p_holm = adjusted[(0, position - 1)]
        if any(len(s.per_wall) != len(shared) for s in (best, system)):
            a = np.array([best.per_wall[i] for i in shared])
            b = np.array([system.per_wall[i] for i in shared])
            # the difference the p-value is of: on the shared walls only
            system.difference = float((b - a).mean() * mean_scale(*scale, len(shared)))
    return ordered


def test_record(systems: Sequence[System], n_resamples: int, seed: int) -> dict[str, Any]:
    """What the p-values are (the JSON's ``test``): the test, its draws, the adjustment and
    the number of pairs in its family."""
    family = sum(bool(shared_walls(a, b)) for i, a in enumerate(systems) for b in systems[i + 1 :])
    return {
        "name": TEST,
        "exact_up_to_walls": paired.EXACT_MAX_WALLS,
        "resamples": n_resamples,
        "seed": seed,
        "adjustment": "holm" if family > 1 else "none",
        "family": family,
        "p_value": "unadjusted, against the best",
        "p_holm": "Holm-adjusted over every pair of systems sharing walls",
    }


def compare_systems(
    entries: Sequence[PathLike],
    score: Callable[[Path], dict[str, Any]],
    *,
    figure: str | None = None,
    n_resamples: int = COMPARE_RESAMPLES,
    seed: int = bootstrap.DEFAULT_SEED,
    allow_different_sources: bool = False,
    contestants: bool = True,
    cut: Callable[..., dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Compare systems: each entry a results JSON, or predictions (a file or a folder of
    runs) that ``score`` turns into results (``evaluate_files``); ``cut`` (a slice of walls,
    :func:`ocw_hub.scoring.slices.slice_results`) is applied to the results files read.

    Returns:
        ``{"figure", "task", "lower_is_better", "bootstrap": {...}, "test"
        (:func:`test_record`), "slice" (its label or None), "source" (the label the systems
        share, None when they differ), "systems": [row, ...]}``,
        rows best first (:func:`rows`).

    Raises:
        CompareError: fewer than two systems; see :func:`check_sources`, :func:`task_of`.
    """
    if len(entries) < 2:
        raise CompareError("compare needs at least two systems (results or predictions)")
    loaded = []
    for entry in entries:
        path = Path(entry)
        if is_results_file(path):
            from ..results import read_results

            results = read_results([path])[0].data
            results = cut(results, name=str(path)) if cut is not None else results
        else:
            results = score(path)
        loaded.append((str(entry), results))
    spec = config_spec(str(loaded[0][1]["config"]))
    script = spec.script
    figure = figure or DEFAULT_FIGURE[spec.dataset]
    task = task_of(script, figure, [*spec.tasks, *(["play"] if spec.walls else [])])
    systems = [_system(label, r, spec, task, figure, n_resamples, seed) for label, r in loaded]
    check_sources(systems, allow_different_sources)
    if contestants and (human := _contestants(systems[0], figure, n_resamples, seed)):
        systems.append(human)
    ordered = rank(systems, figure, n_resamples, seed, RANKED[task][figure][1:])
    return {
        "figure": figure,
        "task": task,
        "lower_is_better": figure in LOWER_IS_BETTER,
        "bootstrap": {
            "resamples": n_resamples,
            "seed": seed,
            "confidence": bootstrap.CONFIDENCE,
            "method": interval_method(task, figure),
        },
        "test": test_record(ordered, n_resamples, seed),
        "slice": (systems[0].results.get("slice") or {}).get("label"),
        "source": shared_source(ordered),
        "systems": rows(ordered),
    }


def source_of(results: Mapping[str, Any]) -> str:
    """The one-line label of what a system's figures were computed on
    (:func:`ocw_hub.provenance.source_label`; ``not recorded`` for old results files)."""
    from ..provenance import results_source

    return results_source(results)


def shared_source(systems: Sequence[System]) -> str | None:
    """The source label all ``systems`` share; None when they differ (each row has its own)."""
    labels = {source_of(s.results) for s in systems}
    return labels.pop() if len(labels) == 1 else None


def rows(systems: Sequence[System]) -> list[dict[str, Any]]:
    """One JSON-ready row per system: rank, system, config, split, value, std (several runs),
    ci95, difference, p_value and p_holm (Holm-adjusted) against the best (None for the best),
    in_common (walls, or WoTe questions, both predicted, shared with the best), scored,
    missing (scored as wrong), unscored (no prediction for the task), usage (the runs'
    tokens, latency and cost per solved wall: :func:`ocw_hub.llm.usage.cost_line`; None
    without a usage record), source (its
    label, :func:`source_of`), protocol (:func:`ocw_hub.provenance.results_protocol`; None
    for the contestants and when not recorded)."""
    from ..llm.usage import cost_line
    from ..provenance import results_protocol

    return [
        {
            "rank": s.rank,
            "system": s.label,
            "config": s.results.get("config"),
            "split": s.results.get("split"),
            "runs": len(_runs_of(s.results)) if s.label != CONTESTANTS else None,
            "value": s.value,
            "std": s.std,
            "ci95": s.ci95,
            "difference": s.difference,
            "p_value": s.p_value,
            "p_holm": s.p_holm,
            "in_common": s.walls_in_common,
            "scored": len(s.per_wall),
            "missing": s.n_missing,
            "unscored": s.n_unscored,
            "usage": cost_line(s.results) if s.label != CONTESTANTS else None,
            "source": source_of(s.results),
            "protocol": results_protocol(s.results) if s.label != CONTESTANTS else None,
        }
        for s in systems
    ]
