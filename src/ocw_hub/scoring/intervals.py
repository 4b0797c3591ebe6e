"""Confidence intervals of a results dict's headline figures (``ci95`` beside the figures).

Each headline figure is what the metric's ``aggregate_*`` makes of per-wall values (see
:data:`FIGURES`): a mean over the walls scored (WD, AMI, ARI, FMS, the rates, EM, ROUGE-1,
BERTScore; WoTe's EM and F1 over questions), or a total (``full_wall``, ``correct_groups``:
the number of walls scored times the mean). A rate of walls or of groups counted over walls
(:data:`COUNTED`: solved walls, correct groups, ...; of one run or the mean over several) gets
Clopper-Pearson's interval on the effective number of trials (:mod:`.binomial`), which covers
at a rate near or at 0 or 1; any other figure the percentile bootstrap of that same statistic
over resampled walls (:mod:`.bootstrap`), several runs of one model the two-level bootstrap
(walls, then runs within each wall). Exact definitions: ``docs/statistics.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ..configs import CONFIGS, ConfigSpec
from ..errors import PredictionsError
from . import binomial, bootstrap
from .groups import FOUND_BY

#: Per task, each headline figure as ``figure -> (per-wall key, factor, total)``: the figure
#: is ``factor * mean`` of the per-wall key over the walls scored, times their number when
#: ``total`` (the metric's ``aggregate_grouping``, ``aggregate_connections``,
#: ``aggregate_spans``).
FIGURES: dict[str, dict[str, tuple[str, float, bool]]] = {
    "grouping": {
        "wd": ("wd", 1.0, False),
        "ami": ("ami", 1.0, False),
        "ari": ("ari", 1.0, False),
        "fms": ("fms", 1.0, False),
        "full_wall": ("full_wall", 1.0, True),
        "correct_groups": ("correct_groups", 1.0, True),
        "full_wall_rate": ("full_wall", 1.0, False),
        "correct_groups_rate": ("correct_groups", 0.25, False),
    },
    "connections": {
        "exact_match": ("exact_match", 1.0, False),
        "rouge1": ("rouge1", 1.0, False),
        "bertscore_f1": ("bertscore_f1", 1.0, False),
    },
    "spans": {"exact_match": ("exact_match", 1.0, False), "f1": ("f1", 1.0, False)},
    # which groups, and red herrings (:mod:`.groups`); decoy_share, a ratio, is added apart
    "groups": {
        **{k: (k, 1.0, True) for k in ("misplaced_clues", "near_misses", "wrong_groups", "decoys")},
        **{k: (k, 1.0, True) for k in FOUND_BY},
        **{f"{k}_rate": (k, 0.25, False) for k in FOUND_BY},
        "misplaced_clue_rate": ("misplaced_clues", 1 / 16, False),
        "near_miss_rate": ("near_misses", 0.25, False),
    },
    "human": {
        "correct_groups": ("correct_groups", 1.0, True),
        "correct_groups_rate": ("correct_groups", 0.25, False),
        "full_wall": ("full_wall", 1.0, True),
        "full_wall_rate": ("full_wall", 1.0, False),
        "connections_correct_rate": ("connections_correct_rate", 1.0, False),
    },
}


#: Per task, the per-wall keys that count successes over trials, as ``key -> (value of a
#: wall all of whose trials succeed, trials per wall)``: their figures get
#: :func:`.binomial.rate_interval` (``decoy_share`` too: decoys of wrong groups).
COUNTED: dict[str, dict[str, tuple[float, int]]] = {
    "grouping": {"full_wall": (1.0, 1), "correct_groups": (4.0, 4)},
    "connections": {"exact_match": (1.0, 4)},
    "spans": {"exact_match": (100.0, 1)},
    "groups": {
        **{k: (4.0, 4) for k in ("near_misses", "wrong_groups", "decoys", *FOUND_BY)},
        "misplaced_clues": (16.0, 16),
    },
    "human": {
        "correct_groups": (4.0, 4),
        "full_wall": (1.0, 1),
        "connections_correct_rate": (1.0, 4),
    },
}


#: A play log's per-wall figures (``play`` and ``human.play``, :mod:`ocw_hub.play.scoring`)
#: that count successes over trials, as :data:`COUNTED`; the others (points 0-10, guesses,
#: lives lost, ...) are not counts of trials and get the percentile bootstrap.
PLAY_COUNTED: dict[str, tuple[float, int]] = {
    "walls_solved": (1.0, 1),
    "frozen": (1.0, 1),
    "groups_found": (4.0, 4),
    "connections_right": (4.0, 4),
}


def interval_method(task: str, figure: str) -> str:
    """How the interval of ``task``'s ``figure`` is computed (``bootstrap.method`` of the
    results): Clopper-Pearson (one trial a wall), on an effective n (several), or the
    percentile bootstrap. Task ``play``: a play figure, its total or ``<name>_mean``."""
    if task == "play":
        counted = PLAY_COUNTED.get(figure.removesuffix("_mean"))
    else:
        key = "decoys" if (task, figure) == ("groups", "decoy_share") else FIGURES[task][figure][0]
        counted = COUNTED.get(task, {}).get(key)
    if counted is None:
        return "percentile"
    return binomial.EXACT if counted[1] == 1 else binomial.CLUSTERED


def play_interval(
    key: str, values: Sequence[float], n_resamples: int, seed: int = bootstrap.DEFAULT_SEED
) -> list[float]:
    """``[low, high]`` of the mean over walls of the per-wall play figure ``key`` (one value a
    wall played): :func:`.binomial.rate_interval` for a count (:data:`PLAY_COUNTED`), else the
    percentile bootstrap (:func:`.bootstrap.bootstrap_ci`)."""
    counted = PLAY_COUNTED.get(key)
    if counted is None:
        return [float(x) for x in bootstrap.bootstrap_ci(values, n_resamples, seed)]
    most, trials = counted
    successes = np.asarray(values, dtype=np.float64) * (trials / most)
    low, high = binomial.rate_interval(successes, trials)
    return [float(low * most), float(high * most)]


def _layout(result: Mapping[str, Any]) -> ConfigSpec:
    """The spec of the configs whose per-item list ``result`` holds (``ConfigSpec.items_key``:
    ``per_wall``, ``per_question``)."""
    return next((s for s in CONFIGS.values() if s.items_key in result), CONFIGS["default"])


def task_values(result: Mapping[str, Any], task: str) -> dict[str, dict[str, float]]:
    """``{item id: {per-wall key: value}}`` of the items of one run scored for ``task`` (a
    figure the item lacks, e.g. BERTScore, is left out; a ``None`` human figure, e.g.
    ``full_wall`` of a rebuilt wall, too). Where the figures sit on the item is the config's
    (``ConfigSpec.nested_figures``)."""
    spec = _layout(result)
    keys = {key for key, _, _ in FIGURES[task].values()}
    out: dict[str, dict[str, float]] = {}
    for item in result.get(spec.items_key, []):
        own = item if task in spec.tasks else None
        source = item.get(task) if spec.nested_figures else own
        if not isinstance(source, Mapping):
            continue
        out[str(item[spec.id_key])] = {
            k: float(source[k]) for k in keys if k in source and source[k] is not None
        }
    return out


def _figures_of(task: str, keys: set[str]) -> dict[str, tuple[str, float, bool]]:
    return {f: spec for f, spec in FIGURES[task].items() if spec[0] in keys}


def mean_scale(factor: float, total: bool, n_walls: int) -> float:
    """What turns the mean of a figure's per-wall values over ``n_walls`` walls into the figure
    (its :data:`FIGURES` ``factor`` and ``total``): the factor, times ``n_walls`` for a total."""
    return factor * (n_walls if total else 1)


def _intervals(
    task: str, keys: Sequence[str], bounds: np.ndarray, n_walls: int
) -> dict[str, list[float]]:
    """``{figure: [low, high]}`` from the percentile ``bounds`` (shape ``(2, len(keys))``) of
    the resampled means of ``keys``."""
    out: dict[str, list[float]] = {}
    for figure, (key, factor, total) in _figures_of(task, set(keys)).items():
        column = list(keys).index(key)
        scale = mean_scale(factor, total, n_walls)
        out[figure] = [float(bounds[0, column] * scale), float(bounds[1, column] * scale)]
    return out


def _aligned(runs: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any] | None]]:
    """Each run's per-wall items in the first run's order (None where a run lacks the wall)."""
    spec = _layout(runs[0])
    first: list[Mapping[str, Any] | None] = list(runs[0].get(spec.items_key, []))
    ids = [str(i[spec.id_key]) for i in runs[0].get(spec.items_key, [])]
    out = [first]
    for run in runs[1:]:
        items = list(run.get(spec.items_key, []))
        if [str(i[spec.id_key]) for i in items] != ids:
            by_id = {str(i[spec.id_key]): i for i in items}
            out.append([by_id.get(i) for i in ids])
        else:
            out.append(items)
    return out


def _is_map(value: Any) -> bool:
    return isinstance(value, dict) or isinstance(value, Mapping)


def _rows(sources: Sequence[Any], keys: list[str]) -> list[Sequence[Any]]:
    """The values of ``keys`` of each source (None: a missing key, or not a mapping)."""
    empty = [None] * len(keys)
    every = itemgetter(*keys) if len(keys) > 1 else lambda s: (s[keys[0]],)
    try:  # the usual case: every key on every wall scored
        return [every(s) if _is_map(s) else empty for s in sources]
    except KeyError:
        return [[s.get(k) for k in keys] if _is_map(s) else empty for s in sources]


def check_same_walls(runs: Sequence[dict[str, Any]], spec: ConfigSpec) -> None:
    """Refuse runs that scored different walls (questions) for a task: the mean over runs of
    figures on different walls has no one interval (the two-level bootstrap draws walls
    every run scored).

    Raises:
        PredictionsError: names the two runs, the task and a wall scored by one only.
    """
    for task in spec.tasks:
        if not all(task in run for run in runs):
            continue  # a task some run did not score at all has no mean over runs
        first = set(task_values(runs[0], task))
        for run in runs[1:]:
            other = set(task_values(run, task))
            if other != first:
                odd = sorted(first ^ other)[0]
                raise PredictionsError(
                    f"{run['predictions']}: task {task}: scored on {len(other)} {spec.units}, "
                    f"{runs[0]['predictions']} on {len(first)} ({spec.id_key} {odd} in one "
                    "only); runs of one system are averaged on the same walls: give the task "
                    "null for a wall in every run or in none, or evaluate the runs one by one"
                )


def _table(
    aligned: Sequence[Sequence[Mapping[str, Any] | None]], task: str, spec: ConfigSpec
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """A task's per-wall keys, which walls each run scored (shape ``(n_walls, n_runs)``) and
    the values ``(n_walls, n_runs, n_keys)``, NaN where missing (as :func:`task_values`)."""
    keys = sorted({key for key, _, _ in FIGURES[task].values()})

    def source(item: Mapping[str, Any] | None) -> Any:
        if spec.nested_figures:
            return (item or {}).get(task)
        return item if task in spec.tasks else None

    sources = [[source(item) for item in items] for items in aligned]
    scored = np.array([[_is_map(s) for s in run] for run in sources], dtype=bool)
    rows = [_rows(run, keys) for run in sources]
    values = np.array(rows, dtype=np.float64).reshape(len(aligned), -1, len(keys))
    return keys, scored.T, values.transpose(1, 0, 2)


#: One computation: (two-level, the walls drawn) -> its parts (segment, task, keys, cube).
_Jobs = dict[tuple[bool, tuple[int, ...]], list[tuple[str, str, list[str], np.ndarray]]]


def _jobs(runs: Sequence[Mapping[str, Any]], segments: Mapping[str, Sequence[int] | None]) -> _Jobs:
    """What to resample: for every segment and task, the walls scored in every run (in the
    first run's order) and the keys they all have; parts drawn on the same walls at the same
    levels share one computation, so they share the draws."""
    aligned = _aligned(runs)
    spec = _layout(runs[0])
    everywhere = np.arange(len(aligned[0]))
    jobs: _Jobs = {}
    for task in FIGURES:
        if not all(task in run for run in runs):
            continue
        keys, scored, values = _table(aligned, task, spec)
        two = len(runs) > 1 and task != "human"  # the contestants: the same in every run
        used = slice(None) if two else slice(0, 1)
        for name, positions in segments.items():
            where = everywhere if positions is None else np.asarray(positions, dtype=np.int64)
            walls = where[scored[where, used].all(axis=1)]
            cube = values[walls, used]
            shared = ~np.isnan(cube).any(axis=(0, 1))
            if len(walls) and shared.any():
                kept = [k for k, ok in zip(keys, shared, strict=True) if ok]
                part = (name, task, kept, cube[:, :, shared])
                jobs.setdefault((two, tuple(walls.tolist())), []).append(part)
    return jobs


def _counted(
    job: Sequence[tuple[str, str, list[str], np.ndarray]],
) -> list[dict[str, list[float]]]:
    """The intervals of the counted figures (:data:`COUNTED`, ``decoy_share`` among them) of
    each part ``(segment, task, keys, cube)`` of one job (the same walls), from the per-wall
    values ``cube`` (shape ``(n_walls, n_runs, len(keys))``; several runs: their successes and
    trials added per wall): every rate of the job in one :func:`.binomial.rate_interval`
    (walls along the last axis), each per-wall key once."""
    successes: list[np.ndarray] = []
    trials: list[np.ndarray | float] = []
    rows: list[list[tuple[str, int, float]]] = []
    for _, task, keys, cube in job:
        counted = COUNTED.get(task, {})
        n_walls, n_runs = cube.shape[:2]
        mine: list[tuple[str, int, float]] = []
        first = {}
        for figure, (key, factor, total) in _figures_of(task, set(keys)).items():
            if key in counted:
                most, each = counted[key]
                if key not in first:
                    first[key] = len(successes)
                    successes.append(cube[:, :, keys.index(key)].sum(axis=1) * (each / most))
                    trials.append(float(each * n_runs))
                mine.append((figure, first[key], mean_scale(factor, total, n_walls) * most))
        if task == "groups" and {"decoys", "wrong_groups"} <= set(keys):
            wrong = cube[:, :, keys.index("wrong_groups")].sum(axis=1)
            if wrong.sum() > 0:
                mine.append(("decoy_share", len(successes), 1.0))
                successes.append(cube[:, :, keys.index("decoys")].sum(axis=1))
                trials.append(wrong)
        rows.append(mine)
    if not successes:
        return [{} for _ in job]
    every = np.ones_like(successes[0])
    low, high = binomial.rate_interval(np.stack(successes), np.stack([t * every for t in trials]))
    return [
        {figure: [float(low[at] * scale), float(high[at] * scale)] for figure, at, scale in mine}
        for mine in rows
    ]


def segment_intervals(
    runs: Sequence[Mapping[str, Any]],
    segments: Mapping[str, Sequence[int] | None],
    n_resamples: int,
    seed: int = bootstrap.DEFAULT_SEED,
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """``{segment: {task: {figure: [low, high]}}}`` of one run (walls resampled) or several
    runs of one model (the two-level bootstrap of the mean over runs; ``human``, the same in
    every run, over walls of the first run only), for each segment of walls (positions in
    the first run's ``per_wall``; None: all of them), each resampled as a split of its own;
    counted figures (:data:`COUNTED`) :func:`.binomial.rate_interval` of the segment's walls.

    A task's walls are those every run scored for it; tasks on the same walls share one set
    of draws and one count matrix (none when all their figures are counted), and one
    Clopper-Pearson call; every percentile is taken in one call.
    BLAS runs on one thread: its products here are small, and threads cost more than they
    save on a busy machine.
    """
    # the runs in one order whatever order they were named in: the draws pick runs by index
    runs = sorted(runs, key=lambda run: str(run.get("predictions", "")))
    resampled, parts = [], []
    out: dict[str, dict[str, dict[str, list[float]]]] = {name: {} for name in segments}
    with threadpool_limits(limits=1, user_api="blas"):
        for (two, walls), job in _jobs(runs, segments).items():
            for (name, task, *_), counted in zip(job, _counted(job), strict=True):
                out[name][task] = counted
            if all(set(keys) <= set(COUNTED.get(task, {})) for _, task, keys, _ in job):
                continue  # every interval Clopper-Pearson's: no draws
            cube = np.concatenate([c for *_, c in job], axis=2)
            if two:
                draws = bootstrap.run_index_blocks(len(walls), len(runs), n_resamples, seed)
                means = bootstrap.two_level_means(cube, draws)
            else:
                means = bootstrap.bootstrap_means(cube[:, 0], n_resamples, seed)
            resampled.append(means)
            parts += [(name, task, keys, len(walls)) for name, task, keys, _ in job]
    if not parts:
        return out
    bounds = bootstrap.percentile_interval(np.concatenate(resampled, axis=1))
    first = 0
    for name, task, keys, n_walls in parts:
        found = _intervals(task, keys, bounds[:, first : first + len(keys)], n_walls)
        out[name][task] = {**found, **out[name].get(task, {})}
        first += len(keys)
    return {name: {t: out[name][t] for t in FIGURES if t in out[name]} for name in out}


def run_intervals(
    result: Mapping[str, Any], n_resamples: int, seed: int = bootstrap.DEFAULT_SEED
) -> dict[str, dict[str, list[float]]]:
    """``{task: {figure: [low, high]}}`` of one run (a single-run dict of
    :func:`ocw_hub.evaluation.evaluate_files`): walls (questions) resampled, among those the
    task scored; ``human`` over every wall of the split."""
    return segment_intervals([result], {"": None}, n_resamples, seed)[""]


def runs_intervals(
    runs: Sequence[Mapping[str, Any]], n_resamples: int, seed: int = bootstrap.DEFAULT_SEED
) -> dict[str, dict[str, list[float]]]:
    """``{task: {figure: [low, high]}}`` of several runs of one model, for the mean over runs
    of each figure: the two-level bootstrap (:func:`bootstrap.two_level_means`) over the
    walls every run scored for the task (tasks scored on the same walls share the draws);
    ``human`` (the same in every run) over walls only."""
    return segment_intervals(runs, {"": None}, n_resamples, seed)[""]


#: What the two-level bootstrap resamples (the results' ``bootstrap.resampled``).
TWO_LEVEL = "walls, then runs within each wall"


def bootstrap_record(
    n_resamples: int, seed: int, levels: str, ci95: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """What the results JSON records beside ``ci95``: resamples, seed, confidence, the method
    of each interval of ``ci95`` (``{task: {figure: method}}``, :func:`interval_method`) and
    what was resampled (``walls`` or ``walls, then runs within each wall``)."""
    return {
        "resamples": n_resamples,
        "seed": seed,
        "confidence": bootstrap.CONFIDENCE,
        "method": {
            task: {figure: interval_method(task, figure) for figure in figures}
            for task, figures in ci95.items()
            if task in FIGURES or task == "play"
        },
        "resampled": levels,
    }
