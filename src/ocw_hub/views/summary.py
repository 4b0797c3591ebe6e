"""The headline rows of a results file (what ``ocw-hub evaluate`` prints and the report
shows): one row per figure, the model's value (mean ± std over runs), followed by its 95 %
bootstrap interval ``[low, high]`` when the results have ``ci95``, beside the contestants'
(with theirs, ``ci95.human``, over the same walls)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..configs import config_spec
from ..play.scoring import AGREEMENT_LABELS
from ..scoring.runs import REBUILT_WALLS

#: Figures of the human performance shown beside the model's, by figure name.
_HUMAN_FIGURES = ("full_wall", "full_wall_rate", "correct_groups", "correct_groups_rate")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


#: Figures that are counts (totals over walls): shown with 2 decimals as mean ± std over runs.
_COUNTS = ("full_wall", "correct_groups")


def _fmt_spread(mean: float, std: float, scale: str) -> str:
    digits = 2 if scale in ("0-100", "count") else 4
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def with_ci(text: str, interval: Any, digits: int) -> str:
    """``text [low, high]`` with ``digits`` decimals; ``text`` alone without an interval."""
    if not isinstance(interval, list | tuple) or len(interval) != 2:
        return text
    low, high = interval
    return f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def _ci(results: dict[str, Any], task: str, key: str) -> Any:
    return results.get("ci95", {}).get(task, {}).get(key)


def _wote_rows(results: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [("questions", "in the split", str(results["n_questions"]), "-")]
    if "runs" in results:
        rows.append(("questions", "runs", str(results["n_runs"]), "-"))
        for key in ("exact_match", "f1"):
            mean, std = results["mean"]["spans"][key], results["std"]["spans"][key]
            value = with_ci(_fmt_spread(mean, std, "0-100"), _ci(results, "spans", key), 2)
            rows.append(("spans", f"{key} (0-100)", value, "-"))
        return rows
    rows.append(("questions", "missing, scored as wrong", str(results["n_missing"]), "-"))
    for key in ("exact_match", "f1"):
        value = with_ci(f"{results['spans'][key]:.2f}", _ci(results, "spans", key), 2)
        rows.append(("spans", f"{key} (0-100)", value, "-"))
    return rows


def _digits(key: str) -> int:
    return 2 if key in _COUNTS else 4


def _task_rows(
    task: str, figures: dict[str, Any], human: dict[str, Any], results: dict[str, Any]
) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for key, value in figures.items():
        if key == "n_walls":
            continue
        shown = value if isinstance(value, str) else _fmt(value)
        ours = with_ci(shown, _ci(results, task, key), _digits(key))
        theirs = human.get(key) if key in _HUMAN_FIGURES else None
        rows.append((task, key, ours, _theirs(theirs, results, key)))
    return rows


def _theirs(value: Any, results: dict[str, Any], key: str) -> str:
    """The contestants' figure with its interval (``ci95.human``; none for a figure they
    have not, e.g. whole walls of a rebuilt split)."""
    if value is None or isinstance(value, str):
        return "-" if value is None else value
    return with_ci(_fmt(value), _ci(results, "human", key), _digits(key))


def summary_rows(results: dict[str, Any]) -> list[tuple[str, ...]]:
    """The headline figures of a result of :func:`evaluate_files` as text rows (task, figure,
    model, human), as the terminal table and the HTML report show them: one run's figures
    (4 decimals on 0-1, 2 on 0-100), or mean ± std over runs (counts with 2 decimals)."""
    return _ROWS[config_spec(results["config"]).dataset](results)


def _ocw_rows(results: dict[str, Any]) -> list[tuple[str, ...]]:
    human = dict(results["human"])
    if results["config"] in REBUILT_WALLS:  # also for results written before the rule
        human.update(full_wall=None, full_wall_rate=None)
    rows: list[tuple[str, ...]] = [
        ("walls", "in the split", str(results["n_walls"]), str(human["n_walls"]))
    ]
    runs = results.get("runs", [results])
    if "runs" in results:
        rows.append(("walls", "runs", str(results["n_runs"]), "-"))
    else:
        rows.append(("walls", "missing, scored as wrong", str(results["n_missing"]), "-"))
    for task in config_spec(results["config"]).tasks:
        having = sum(task in run for run in runs)
        if having < len(runs):  # no mean over runs: say so rather than show one run's
            if having:
                rows.append((task, "runs with this task", f"{having} of {len(runs)}", "-"))
            continue
        rows.append((task, "walls scored", str(runs[0][task]["n_walls"]), "-"))
        if "runs" in results:
            mean, std = results["mean"][task], results["std"][task]
            spread = {
                k: _fmt_spread(mean[k], std[k], "count" if k in _COUNTS else "0-1") for k in mean
            }
            rows += _task_rows(task, spread, human, results)
        else:
            rows += _task_rows(task, results[task], human, results)
    if "connections" in runs[0]:
        found = _theirs(human["connections_correct_rate"], results, "connections_correct_rate")
        rows.append(("connections", "found by the contestants", "-", found))
    if "play" in results:  # a play log (ocw_play, the play page)
        rows += play_rows(results)
    return rows + _group_rows(results)


#: The split-level ``groups`` figures shown (:mod:`ocw_hub.scoring.groups`), as shares (0-1).
GROUP_FIGURES = (
    "found_by_both_rate",
    "found_by_model_only_rate",
    "found_by_contestants_only_rate",
    "found_by_neither_rate",
    "misplaced_clue_rate",
    "near_miss_rate",
    "decoy_share",
)


def _group_rows(results: dict[str, Any]) -> list[tuple[str, ...]]:
    """Which gold groups were found, by whom, and the red-herring figures (0-1)."""
    several = "runs" in results
    figures = results.get("mean", {}).get("groups") if several else results.get("groups")
    if not figures:
        return []
    rows: list[tuple[str, ...]] = []
    for key in GROUP_FIGURES:
        if figures.get(key) is None:
            rows.append(("groups", key, "-", "-"))
            continue
        shown = (
            _fmt_spread(figures[key], results["std"]["groups"][key], "0-1")
            if several
            else _fmt(figures[key])
        )
        rows.append(("groups", key, with_ci(shown, _ci(results, "groups", key), 4), "-"))
    return rows


#: The headline rows of each dataset (``ConfigSpec.dataset``).
_ROWS = {"ocw": _ocw_rows, "wote": _wote_rows}


#: The play rows of the evaluate table: (figure, per-wall name).
_PLAY_ROWS = (
    ("walls played", "n_played"),
    ("groups found", "groups_found"),
    ("walls solved", "walls_solved"),
    ("guesses", "guesses"),
    ("wrong guesses", "wrong_guesses"),
    ("lives lost", "lives_lost"),
    ("invalid answers", "invalid"),
    ("frozen walls", "frozen"),
    ("connections right", "connections_right"),
    ("points (0-10 a wall)", "points"),
)


def play_rows(results: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The play figures as rows (task ``play``, figure, model, human) of the evaluate table:
    totals, then the mean per wall with its interval when the results have one."""
    play, human = results["play"], results["human"].get("play", {})
    intervals = results.get("ci95", {}).get("play", {})
    rules_name = results.get("play_log", {}).get("rules", "show")
    rows: list[tuple[str, ...]] = [("play", "rules", str(rules_name), "show")]

    def shown(value: Any) -> str:
        return (
            "-" if value is None else (f"{value:.2f}" if isinstance(value, float) else str(value))
        )

    for label, name in _PLAY_ROWS:
        if name == "n_played":
            rows.append(("play", label, shown(play[name]), shown(human.get("n_walls"))))
            continue
        total = f"{shown(play[name])} ({with_ci(shown(play[f'{name}_mean']), intervals.get(f'{name}_mean'), 2)} a wall)"  # noqa: E501
        theirs = human.get(name)
        rows.append(("play", label, total if play[name] is not None else "-", shown(theirs)))
    agreement = play["agreement"]
    for key, label in AGREEMENT_LABELS:
        rows.append(("play", f"groups found: {label}", str(agreement[key]), "-"))
    lives = ", ".join(f"{k}: {v}" for k, v in play["lives_lost_distribution"].items())
    rows.append(("play", "walls by lives lost", lives or "-", "-"))
    return rows
