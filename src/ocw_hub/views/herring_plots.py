"""The report's plots of which gold groups were found and of red herrings (the results'
``groups``, :mod:`ocw_hub.scoring.groups`): who found the gold groups (the model, the
contestants, both, neither) beside the red-herring figures, and where the clues of each gold
group went (a confusion of gold groups, per config: one per wall type)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..results import ResultsFile, mean_std
from ..scoring.groups import FOUND_BY, N_GROUPS
from .plotting import (
    HUMAN_COLOUR,
    HUMAN_HATCH,
    Plot,
    colour,
    figure_legend,
    mpl_text,
    new_figure,
    zero_marks,
)

#: The segments of the found-by-whom bar: (key, label, colour, hatch).
SEGMENTS = (
    ("found_by_both", "both", "#117733", ""),
    ("found_by_model_only", "model only", "#88CCEE", ""),
    ("found_by_contestants_only", "contestants only", HUMAN_COLOUR, HUMAN_HATCH),
    ("found_by_neither", "neither", "#E0E0E0", ""),
)
#: The red-herring figures drawn beside it (0-1).
HERRING_FIGURES = (
    ("misplaced_clue_rate", "misplaced clues"),
    ("near_miss_rate", "near misses"),
    ("decoy_share", "decoys among wrong groups"),
)


def _with_groups(files: Sequence[ResultsFile]) -> list[ResultsFile]:
    return [f for f in files if all(isinstance(run.get("groups"), dict) for run in f.runs)]


def _mean_of(f: ResultsFile, key: str) -> float | None:
    values = [run["groups"].get(key) for run in f.runs]
    if any(v is None for v in values):
        return None
    return mean_std([float(v) for v in values])[0]


def _interval(f: ResultsFile, key: str) -> list[float] | None:
    found = f.data.get("ci95", {}).get("groups", {}).get(key)
    return found if isinstance(found, list) and len(found) == 2 else None


def _found_by_axis(ax: Any, files: Sequence[ResultsFile]) -> list[Any]:
    handles = []
    for key, label, fill, hatch in SEGMENTS:
        left = [
            sum(_mean_of(f, k + "_rate") or 0.0 for k in FOUND_BY[: FOUND_BY.index(key)])
            for f in files
        ]
        widths = [_mean_of(f, key + "_rate") or 0.0 for f in files]
        bars = ax.barh(
            range(len(files)),
            widths,
            left=left,
            color=fill,
            hatch=hatch,
            edgecolor="white",
            label=label,
        )
        handles.append(bars)
        for y, (x, w) in enumerate(zip(left, widths, strict=True)):
            if w >= 0.06:
                ax.text(x + w / 2, y, f"{w:.2f}", ha="center", va="center", fontsize=7)
    ax.set_yticks(range(len(files)), [mpl_text(f.label) for f in files], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the gold groups")
    ax.set_title("gold groups found by")
    return handles


def _error_bars(f: ResultsFile, values: Sequence[float | None]) -> tuple[list[float], list[float]]:
    """The interval of each red-herring figure as the bar's errors below and above (none for a
    figure that is n/a: no wrong group in some run)."""
    low, high = [], []
    for (key, _), value in zip(HERRING_FIGURES, values, strict=True):
        ci = _interval(f, key) if value is not None else None
        low.append(value - ci[0] if ci and value is not None else 0.0)
        high.append(ci[1] - value if ci and value is not None else 0.0)
    return low, high


def _herring_axis(ax: Any, files: Sequence[ResultsFile]) -> list[Any]:
    width = 0.8 / len(files)
    handles = []
    for i, f in enumerate(files):
        xs = [p + (i - (len(files) - 1) / 2) * width for p in range(len(HERRING_FIGURES))]
        values = [_mean_of(f, key) for key, _ in HERRING_FIGURES]
        heights = [v if v is not None else 0.0 for v in values]
        low, high = _error_bars(f, values)
        handles.append(
            ax.bar(
                xs,
                heights,
                width,
                yerr=[low, high],
                capsize=3,
                color=colour(i),
                label=mpl_text(f.label),
            )
        )
        zeros = [x for x, value in zip(xs, values, strict=True) if value == 0]
        zero_marks(ax, zeros, [0.0] * len(zeros), colour(i))
        for x in (x for x, value in zip(xs, values, strict=True) if value is None):
            ax.text(x, 0.02, "n/a", ha="center", fontsize=7, rotation=90)  # no wrong group
    ax.set_xticks(range(len(HERRING_FIGURES)), [name for _, name in HERRING_FIGURES], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share (0-1)")
    ax.set_title("red herrings (bars: 95 % interval)")
    return handles


def plot_found_by(files: Sequence[ResultsFile]) -> Plot | None:
    """Who found the gold groups (a stacked bar per results file: both, the model only, the
    contestants only, neither; shares of the gold groups, mean over runs) and the red-herring
    figures with their 95 % intervals. None when no file has ``groups``."""
    files = _with_groups(files)
    if not files:
        return None
    fig, axes = new_figure(ncols=2, width=5.0, height=max(2.4, 0.5 * len(files) + 1.4))
    handles = _found_by_axis(axes[0], files)
    handles += _herring_axis(axes[1], files)
    figure_legend(fig, handles=handles)
    config, split = files[0].key
    return Plot(
        f"found-by-{config}-{split}",
        f"Which gold groups were found, and red herrings ({config} / {split})",
        "Left: the share of the gold groups found by the model and the contestants on the show "
        "(both, the model only, the contestants only, neither). Right: misplaced clues (share "
        "of the placed clues), near misses (predicted groups with 3 clues of one gold group) and "
        "decoys (wrong groups of 3 clues of one gold group and 1 of another, share of the wrong "
        "groups; n/a: no wrong group), one bar per results file. Definitions: "
        "docs/statistics.md.",
        fig,
    )


def confusion(f: ResultsFile) -> list[list[float]]:
    """Where the clues of each gold group went, summed over walls and averaged over runs:
    ``[g][h]`` = the share of gold group ``g``'s clues placed in a predicted group matched to
    gold group ``h`` (gold groups by position, ``group_1`` .. ``group_4``; clues of no gold
    group, e.g. a missing wall's, not counted). Rows sum to 1 (0 without clues)."""
    total = [[0.0] * N_GROUPS for _ in range(N_GROUPS)]
    for run in f.runs:
        for wall in run["per_wall"]:
            record = wall.get("groups")
            if not isinstance(record, dict):
                continue
            ids = record["gold_groups"]
            for row, matched in zip(record["spread"], record["matched"], strict=True):
                for g, count in enumerate(row):
                    total[g][ids.index(matched)] += count
    return [[c / sum(row) if sum(row) else 0.0 for c in row] for row in total]


def plot_confusion(files: Sequence[ResultsFile]) -> Plot | None:
    """A confusion of gold groups per results file (:func:`confusion`): rows the gold group a
    clue belongs to, columns the gold group matched to the predicted group it was placed in."""
    files = _with_groups(files)
    if not files:
        return None
    fig, axes = new_figure(ncols=len(files), width=3.2, height=3.0)
    names = [f"{g + 1}" for g in range(N_GROUPS)]
    for ax, f in zip(axes, files, strict=True):
        matrix = confusion(f)
        ax.imshow(matrix, vmin=0, vmax=1, cmap="Blues")
        for g, row in enumerate(matrix):
            for h, value in enumerate(row):
                ax.text(
                    h,
                    g,
                    f"{value:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if value > 0.6 else "black",
                )
        ax.set_xticks(range(N_GROUPS), names)
        ax.set_yticks(range(N_GROUPS), names)
        ax.set_xlabel("placed with gold group")
        ax.set_ylabel("clue of gold group")
        ax.set_title(mpl_text(f.label), fontsize=9)
    config, split = files[0].key
    return Plot(
        f"confusion-{config}-{split}",
        f"Where each gold group's clues went ({config} / {split})",
        "Per results file: the share of the clues of gold group g (row; group_1 .. group_4 as "
        "in the data) placed in a predicted group matched to gold group h (column; the "
        "one-to-one matching that keeps most clues in place, as `show` marks misplaced clues). "
        "The diagonal is clues in place. One matrix per file; each config (wall type) has its "
        "own section.",
        fig,
    )


def season_intervals(
    ax: Any, f: ResultsFile, seasons: Sequence[str], figure: tuple[str, str], xs: Sequence[float]
) -> None:
    """Thin black bars of the 95 % interval of ``figure`` (task, key) in each season, at
    ``xs``, from the file's own ``by_season[s]["ci95"]`` (:func:`ocw_hub.scoring.slices
    .add_intervals`): one run, over the season's walls; several runs, the two-level interval
    of the mean over runs (the contestants': over walls). Nothing without intervals."""
    task, key = figure
    by_season = f.data.get("by_season")
    if not isinstance(by_season, dict):
        return
    for x, season in zip(xs, seasons, strict=True):
        ci = by_season.get(season, {}).get("ci95", {}).get(task, {}).get(key)
        if isinstance(ci, list) and len(ci) == 2:
            ax.plot([x, x], ci, color="black", lw=0.8, zorder=5, gid="season-ci")
