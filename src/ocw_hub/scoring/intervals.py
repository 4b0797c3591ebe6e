"""Confidence intervals of a results dict's headline figures (``ci95`` beside the figures).

Each headline figure is what the metric's ``aggregate_*`` makes of per-wall values (see
:data:`FIGURES`): a mean over the walls scored (WD, AMI, ARI, FMS, the rates, EM, ROUGE-1,
BERTScore; WoTe's EM and F1 over questions), or a total (``full_wall``, ``correct_groups``:
the number of walls scored times the mean). The interval of a figure is the percentile
bootstrap of that same statistic over resampled walls (:mod:`.bootstrap`); several runs of one
model take the two-level bootstrap (walls, then runs within each wall). Exact definitions:
``docs/statistics.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..configs import CONFIGS, ConfigSpec
from . import bootstrap
from .groups import FOUND_BY, decoy_share_interval

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


def _intervals(
    task: str, keys: list[str], resampled: np.ndarray, n_walls: int
) -> dict[str, list[float]]:
    """``{figure: [low, high]}`` from resampled means of ``keys`` (columns of ``resampled``)."""
    bounds = bootstrap.percentile_interval(resampled)
    out: dict[str, list[float]] = {}
    for figure, (key, factor, total) in _figures_of(task, set(keys)).items():
        column = keys.index(key)
        scale = factor * (n_walls if total else 1)
        out[figure] = [float(bounds[0, column] * scale), float(bounds[1, column] * scale)]
    return out


def run_intervals(
    result: Mapping[str, Any], n_resamples: int, seed: int = bootstrap.DEFAULT_SEED
) -> dict[str, dict[str, list[float]]]:
    """``{task: {figure: [low, high]}}`` of one run (a single-run dict of
    :func:`ocw_hub.scoring.runs.evaluate_files`): walls (questions) resampled, among those the
    task scored; ``human`` over every wall of the split."""
    out: dict[str, dict[str, list[float]]] = {}
    for task in FIGURES:
        values = task_values(result, task)
        keys = sorted({k for v in values.values() for k in v})
        keys = [k for k in keys if all(k in v for v in values.values())]
        if not values or not keys or task not in result:
            continue
        matrix = np.array([[v[k] for k in keys] for v in values.values()])
        resampled = bootstrap.bootstrap_means(matrix, n_resamples, seed)
        out[task] = _intervals(task, keys, resampled, len(matrix))
    _add_decoy_share(out, [result], n_resamples, seed)
    return out


def _add_decoy_share(
    out: dict[str, dict[str, list[float]]],
    runs: Sequence[Mapping[str, Any]],
    n_resamples: int,
    seed: int,
) -> None:
    """``decoy_share``'s interval (a ratio of totals: :func:`.groups.decoy_share_interval`)."""
    if "groups" in out:
        share = decoy_share_interval(runs, n_resamples, seed)
        if share is not None:
            out["groups"]["decoy_share"] = share


def _shared_keys(per_run: Sequence[dict[str, dict[str, float]]], common: list[str]) -> list[str]:
    """The per-wall keys every run has on every one of the ``common`` walls, sorted."""
    if not common:
        return []
    first = per_run[0][common[0]]
    return sorted(k for k in first if all(k in v[i] for v in per_run for i in common))


def _run_cube(
    runs: Sequence[Mapping[str, Any]], task: str
) -> tuple[list[str], list[str], np.ndarray] | None:
    """The walls every run scored for ``task``, the per-wall keys they all have and the values
    ``(n_walls, n_runs, n_keys)``; None when there are none."""
    if not all(task in run for run in runs):
        return None
    per_run = [task_values(run, task) for run in runs]
    common = [i for i in per_run[0] if all(i in values for values in per_run)]
    keys = _shared_keys(per_run, common)
    if not keys:
        return None
    cube = np.array([[[v[i][k] for k in keys] for v in per_run] for i in common])
    return common, keys, cube


def runs_intervals(
    runs: Sequence[Mapping[str, Any]], n_resamples: int, seed: int = bootstrap.DEFAULT_SEED
) -> dict[str, dict[str, list[float]]]:
    """``{task: {figure: [low, high]}}`` of several runs of one model, for the mean over runs
    of each figure: the two-level bootstrap (:func:`bootstrap.two_level_means`) over the
    walls every run scored for the task (tasks scored on the same walls share the draws);
    ``human`` (the same in every run) over walls only."""
    cubes: dict[tuple[str, ...], list[tuple[str, list[str], np.ndarray]]] = {}
    for task in FIGURES:
        found = None if task == "human" else _run_cube(runs, task)
        if found is not None:
            common, keys, cube = found
            cubes.setdefault(tuple(common), []).append((task, keys, cube))
    out: dict[str, dict[str, list[float]]] = {}
    for walls, tasks in cubes.items():
        blocks = bootstrap.run_index_blocks(len(walls), len(runs), n_resamples, seed)
        resampled = bootstrap.two_level_means(np.concatenate([c for *_, c in tasks], 2), blocks)
        first = 0
        for task, keys, _ in tasks:
            columns = resampled[:, first : first + len(keys)]
            out[task] = _intervals(task, keys, columns, len(walls))
            first += len(keys)
    _add_decoy_share(out, runs, n_resamples, seed)
    if "human" in runs[0]:  # the same walls in every run: over walls only
        human = run_intervals(runs[0], n_resamples, seed).get("human")
        if human is not None:
            out["human"] = human
    return out


#: What the two-level bootstrap resamples (the results' ``bootstrap.resampled``).
TWO_LEVEL = "walls, then runs within each wall"


def bootstrap_record(n_resamples: int, seed: int, levels: str) -> dict[str, Any]:
    """What the results JSON records beside ``ci95``: resamples, seed, confidence, method
    and what was resampled (``walls`` or ``walls, then runs within each wall``)."""
    return {
        "resamples": n_resamples,
        "seed": seed,
        "confidence": bootstrap.CONFIDENCE,
        "method": "percentile",
        "resampled": levels,
    }
