"""The report's plots of results files: OCW by season, per-wall distributions, runs side by
side, the red-herring ablation, and WoTe by question type and domain."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ..results import ResultsFile, grouped_files
from ..scoring.runs import REBUILT_WALLS
from .herring_plots import season_intervals
from .plotting import (
    CONNECTION_FIGURES,
    GROUPING_FIGURES,
    HUMAN_COLOUR,
    SPAN_FIGURES,
    Plot,
    colour,
    figure_legend,
    file_bars,
    human_bars,
    mpl_text,
    new_figure,
)

#: Said where a whole-wall human figure would be for walls the contestants never played.
NO_HUMAN_NOTE = "contestants: no full walls (walls rebuilt from groups of different walls)"


def human_values(humans: Sequence[dict[str, Any]], figure: str, config: str) -> list[float] | None:
    """The contestants' ``figure`` in each of ``humans`` (the results' ``human`` records),
    or None where it does not exist: a whole-wall figure of a config in
    :data:`~ocw_hub.scoring.runs.REBUILT_WALLS`, or a value that is null or absent."""
    if config in REBUILT_WALLS and figure.startswith("full_wall"):
        return None
    values = [h.get(figure) for h in humans]
    if any(v is None for v in values):
        return None
    return [float(v) for v in values if v is not None]  # none is, by now


def _season_samples(f: ResultsFile, seasons: Sequence[str], figure: str) -> list[list[float]]:
    return [
        [
            float(run["by_season"][season]["grouping"][figure])
            for run in f.runs
            if "grouping" in run["by_season"].get(season, {})
        ]
        for season in seasons
    ]


def plot_by_season(files: Sequence[ResultsFile]) -> Plot | None:
    """Model against human by season: full walls and correct groups (rates, 0-1), one bar per
    results file (mean ± std over runs) and the contestants' bar, side by side."""
    files = grouped_files(files)
    if not files:
        return None
    first = files[0].runs[0]["by_season"]
    seasons = sorted(first, key=lambda s: (len(s), s))
    n_bars = len(seasons) * (len(files) + 1)
    fig, axes = new_figure(nrows=2, width=min(12.0, max(6.0, 0.2 * n_bars + 2)), height=3.2)
    width = 0.8 / (len(files) + 1)
    x = list(range(len(seasons)))
    panels = (("full_wall_rate", "full walls"), ("correct_groups_rate", "correct groups"))
    for ax, (figure, name) in zip(axes, panels, strict=True):
        samples_of = partial(_season_samples, seasons=seasons, figure=figure)
        file_bars(ax, files, samples_of, width, shift=len(files) / 2)
        human = human_values([first[s]["human"] for s in seasons], figure, files[0].config)
        for i, f in enumerate(files):  # the season's 95 % interval (slices.py)
            season_intervals(
                ax, f, seasons, ("grouping", figure), [p + (i - len(files) / 2) * width for p in x]
            )
        if human is not None:
            human_bars(ax, [p + (len(files) / 2) * width for p in x], human, width)
            season_intervals(
                ax, files[0], seasons, ("human", figure), [p + (len(files) / 2) * width for p in x]
            )
        else:
            ax.text(
                0.5,
                0.95,
                NO_HUMAN_NOTE,
                transform=ax.transAxes,
                ha="center",
                va="top",
                fontsize=8,
                color=HUMAN_COLOUR,
            )
        ax.set_xticks(x, [f"{s}\n({first[s]['n_walls']})" for s in seasons], fontsize=8)
        ax.set_xlabel("season (walls in the split)")
        ax.set_ylabel(f"{name} (rate, 0-1)")
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{name} per season")
    figure_legend(fig, axes[0])
    config, split = files[0].key
    return Plot(
        f"season-{config}-{split}",
        f"Model against human by season ({config} / {split})",
        "Share of walls solved in full (top) and of groups found (bottom) per season, each "
        "model (one run: its 95 % bootstrap interval over the season's walls, thin bars; "
        "several runs: mean ± std over runs, dots = runs, and the thin bar the 95 % two-level "
        "interval of the mean, walls then runs resampled; a dash on the axis: 0) beside the "
        "contestants on the show (thin bars: their 95 % interval over the season's walls)"
        + (f" ({NO_HUMAN_NOTE})." if config in REBUILT_WALLS else "."),
        fig,
    )


def _per_wall_values(f: ResultsFile, key: str) -> list[float]:
    return [
        float(wall["grouping"][key])
        for run in f.runs
        for wall in run["per_wall"]
        if "grouping" in wall
    ]


def _histogram(ax: Any, files: Sequence[ResultsFile], key: str, bins: Any) -> None:
    for i, f in enumerate(files):
        values = _per_wall_values(f, key)
        weights = [1.0 / len(values)] * len(values)
        ax.hist(
            values,
            bins=bins,
            weights=weights,
            histtype="step",
            linewidth=2,
            color=colour(i),
            label=mpl_text(f.label),
        )


def _correct_groups_share(ax: Any, files: Sequence[ResultsFile]) -> None:
    width = 0.8 / (len(files) + 1)
    counts = range(5)
    for i, f in enumerate(files):
        values = _per_wall_values(f, "correct_groups")
        share = [sum(v == k for v in values) / len(values) for k in counts]
        pos = [k + (i - len(files) / 2) * width for k in counts]
        ax.bar(pos, share, width, color=colour(i), label=mpl_text(f.label))
    walls = files[0].runs[0]["per_wall"]
    human = [int(w["human"]["correct_groups"]) for w in walls]
    share = [sum(v == k for v in human) / len(human) for k in counts]
    human_bars(ax, [k + (len(files) / 2) * width for k in counts], share, width)
    ax.set_xticks(list(counts))


def plot_distributions(files: Sequence[ResultsFile]) -> Plot | None:
    """Distribution over walls of AMI, WD (histograms, share of walls) and correct groups per
    wall (0-4, beside the contestants'), all runs of a file pooled."""
    import numpy as np

    files = grouped_files(files)
    if not files:
        return None
    fig, axes = new_figure(ncols=3, width=4.2)
    low = min(0.0, min(min(_per_wall_values(f, "ami")) for f in files))
    ami_bins = np.linspace(math.floor(low * 20) / 20, 1.0, int(round((1 - low) * 20)) + 1)
    _histogram(axes[0], files, "ami", ami_bins)
    axes[0].set_xlabel("AMI of a wall (at most 1; 1 = solved)")
    axes[0].set_title("AMI per wall")
    _histogram(axes[1], files, "wd", np.linspace(0, 1, 21))
    axes[1].set_xlabel("WD of a wall (0-1; 0 = solved)")
    axes[1].set_title("WD per wall")
    _correct_groups_share(axes[2], files)
    axes[2].set_xlabel("correct groups in a wall (0-4)")
    axes[2].set_title("correct groups per wall")
    for ax in axes:
        ax.set_ylabel("share of walls (0-1)")
        ax.set_ylim(0, 1.05)
    figure_legend(fig, axes[2])
    config, split = files[0].key
    n_runs = max(len(f.runs) for f in files)
    return Plot(
        f"distribution-{config}-{split}",
        f"Per-wall figures ({config} / {split})",
        "How the figures spread over walls: AMI and WD per wall (histograms) and correct "
        f"groups per wall beside the contestants'; the walls of all runs pooled ({n_runs} "
        "run(s) per model at most).",
        fig,
    )


def _figure_samples(f: ResultsFile, task: str, key: str) -> list[float]:
    return [float(run[task][key]) for run in f.runs if task in run and key in run[task]]


def _figures_samples(f: ResultsFile, figures: Sequence[tuple[str, str, str]]) -> list[list[float]]:
    return [_figure_samples(f, task, key) for task, key, _ in figures]


def _side_by_side(
    ax: Any,
    files: Sequence[ResultsFile],
    figures: Sequence[tuple[str, str, str]],
    colours: Callable[[int, ResultsFile], dict[str, Any]],
) -> None:
    """Grouped bars: one group per (task, key, label) figure, one bar per file."""
    width = 0.8 / max(1, len(files))
    x = list(range(len(figures)))
    samples_of = partial(_figures_samples, figures=figures)
    file_bars(ax, files, samples_of, width, shift=(len(files) - 1) / 2, style=colours)
    ax.set_xticks(x, [label for _, _, label in figures], fontsize=8, rotation=20, ha="right")


def _human_marks(ax: Any, f: ResultsFile, figures: Sequence[tuple[str, str, str]]) -> None:
    human = f.runs[0].get("human", {})
    xs = [
        i
        for i, (task, key, _) in enumerate(figures)
        if task == "grouping" and human_values([human], key, f.config) is not None
    ]
    if xs:
        ys = [float(human[figures[i][1]]) for i in xs]
        ax.plot(xs, ys, "_", ms=28, mew=3, color="#555555", label="human (contestants)")


def _ocw_figures(files: Sequence[ResultsFile]) -> list[tuple[str, str, str]]:
    figures = [
        ("grouping", k, label)
        for k, label in GROUPING_FIGURES
        if any(_figure_samples(f, "grouping", k) for f in files)
    ]
    figures += [
        ("connections", k, label)
        for k, label in CONNECTION_FIGURES
        if any(_figure_samples(f, "connections", k) for f in files)
    ]
    return figures


def plot_runs(files: Sequence[ResultsFile]) -> Plot | None:
    """Runs and models side by side: every figure of each results file as mean ± std over its
    runs (each run a dot); OCW figures on 0-1 with the contestants' rates marked, WoTe exact
    match and F1 on 0-100. None unless there are several runs or files."""
    if sum(len(f.runs) for f in files) < 2:
        return None
    wote = files[0].is_wote
    figures = [("spans", k, label) for k, label in SPAN_FIGURES] if wote else _ocw_figures(files)
    fig, axes = new_figure(width=max(6.0, 0.5 * len(figures) * len(files) + 2))
    ax = axes[0]
    _side_by_side(ax, files, figures, lambda i, f: {"color": colour(i)})
    if not wote:
        _human_marks(ax, files[0], figures)
    ax.set_ylim(0, 105 if wote else 1.05)
    ax.set_ylabel("score (0-100)" if wote else "score (0-1)")
    ax.set_xlabel("figure")
    ax.set_title("mean ± std over runs (dots: runs)")
    figure_legend(fig, ax)
    config, split = files[0].key
    return Plot(
        f"runs-{config}-{split}",
        f"Runs and models side by side ({config} / {split})",
        "Each results file's figures, mean ± standard deviation over its runs (population, as "
        "the evaluation reports them), each run a dot"
        + ("." if wote else "; grey dashes: the contestants' rates."),
        fig,
    )


#: The configs of the red-herring ablation plot: the released walls, then the rebuilt ones.
ABLATION_PAIR = ("default", "ocw_randomized")


def plot_ablation(files: Sequence[ResultsFile]) -> Plot | None:
    """``default`` against ``ocw_randomized`` (the red-herring ablation): the grouping
    figures of every file of either config side by side, hatched for the randomized walls.
    None unless files of both configs (one split) are given."""
    rebuilt = ABLATION_PAIR[1]
    configs = {f.config for f in files}
    if not set(ABLATION_PAIR) <= configs:
        return None
    chosen = [f for f in grouped_files(files) if f.config in ABLATION_PAIR]
    chosen.sort(key=lambda f: (ABLATION_PAIR.index(f.config), f.label))
    if {f.config for f in chosen} != set(ABLATION_PAIR):
        return None
    figures = [("grouping", k, label) for k, label in GROUPING_FIGURES]
    fig, axes = new_figure(width=max(7.0, 0.45 * len(figures) * len(chosen) + 2))
    ax = axes[0]

    def style(i: int, f: ResultsFile) -> dict[str, Any]:
        hatch = "xx" if f.config == rebuilt else None
        return {"color": colour(i), "hatch": hatch, "edgecolor": "white"}

    labelled = [ResultsFile(f.path, f"{f.label} ({f.config})", f.data, f.runs) for f in chosen]
    _side_by_side(ax, labelled, figures, style)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score (0-1)")
    ax.set_xlabel("grouping figure")
    ax.set_title("default walls against randomized walls (hatched)")
    figure_legend(fig, ax)
    splits = sorted({f.split for f in chosen})
    return Plot(
        "ablation",
        "Ablation: red herrings removed (default against ocw_randomized)",
        "The same figures on the released walls and on walls rebuilt from groups of different "
        f"walls (split {', '.join(splits)}); mean ± std over runs, dots = runs.",
        fig,
    )


def _breakdown_samples(
    f: ResultsFile, part: str, names: Sequence[str], key: str
) -> list[list[float]]:
    return [
        [
            float(run[part][name]["spans"][key])
            for run in f.runs
            if name in run.get(part, {}) and "spans" in run[part][name]
        ]
        for name in names
    ]


def _breakdown_axis(ax: Any, files: Sequence[ResultsFile], part: str, key: str) -> None:
    names = sorted({name for f in files for run in f.runs for name in run.get(part, {})})
    width = 0.8 / len(files)
    samples_of = partial(_breakdown_samples, part=part, names=names, key=key)
    file_bars(ax, files, samples_of, width, shift=(len(files) - 1) / 2)
    sizes = files[0].runs[0].get(part, {})
    labels = [f"{mpl_text(n)}\n({sizes.get(n, {}).get('n_questions', '?')})" for n in names]
    ax.set_xticks(list(range(len(names))), labels, fontsize=8, rotation=30, ha="right")
    ax.set_ylim(0, 105)


def plot_wote_breakdown(files: Sequence[ResultsFile]) -> Plot | None:
    """WoTe exact match and F1 (0-100) by question type and by domain, one bar per results
    file (mean ± std over runs)."""
    files = [f for f in files if f.is_wote]
    if not files:
        return None
    fig, axes = new_figure(ncols=2, nrows=2, width=5.5, height=3.4)
    panels = (
        ("by_question_type", "question type"),
        ("by_domain", "domain"),
    )
    for row, (part, name) in enumerate(panels):
        for col, (key, label) in enumerate(SPAN_FIGURES):
            ax = axes[2 * row + col]
            _breakdown_axis(ax, files, part, key)
            ax.set_xlabel(f"{name} (questions)")
            ax.set_ylabel(f"{label} (0-100)")
            ax.set_title(f"{label} by {name}")
    figure_legend(fig, axes[1])
    config, split = files[0].key
    return Plot(
        f"wote-{config}-{split}",
        f"WoTe: exact match and F1 by question type and by domain ({split})",
        "SQuAD v1.1 exact match and F1 (0-100) of each results file per question type (a "
        "question of several types counts in each) and per domain; mean ± std over runs.",
        fig,
    )
