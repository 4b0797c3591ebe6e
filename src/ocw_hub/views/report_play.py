"""The report's play section: results of ``ocw-hub evaluate PLAY_LOG`` (a model's or a
person's play log, :mod:`ocw_hub.play.scoring`) against the contestants.

Per (config, split), for the play results among the files: the play figures beside the
contestants' (the rows of :func:`ocw_hub.views.summary.play_rows`, as ``evaluate`` prints
them), groups found and points a wall by season (player against contestants), the walls by lives
lost and by end reason, and the groups found by both, the player only, the contestants only,
neither. Every title says what the figures were computed on: the rules (``show``, ``nyt``)
and the player (its kind and name, from the results' ``play_log``). The contestants' lives
and guesses are not in the data: they are never drawn.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import partial
from typing import Any

from ..play.scoring import AGREEMENT_LABELS
from ..provenance import STAND_IN
from ..results import ResultsFile
from .plotting import HUMAN_COLOUR, Plot, figure_legend, file_bars, human_bars, new_figure

#: Said where the contestants' points would be for walls they never played as such.
NO_HUMAN_POINTS = "contestants: no points (walls rebuilt from groups of different walls)"


def play_files(files: Sequence[ResultsFile]) -> list[ResultsFile]:
    """The files that are play results (one run with ``play`` figures)."""
    return [f for f in files if "play" in f.data and "runs" not in f.data]


def computed_on(f: ResultsFile) -> str:
    """What a play result was computed on: ``rules show, model NAME`` or ``rules show,
    human player NAME`` (from ``play_log``)."""
    from ..play.log import describe_player

    log = f.data.get("play_log", {})
    return f"rules {log.get('rules', '?')}, {describe_player(log)}"


def _column(f: ResultsFile) -> str:
    """A file's column and legend name: its label, what it was computed on, the stand-in
    marked (as the headline table marks it)."""
    return f"{f.label} ({computed_on(f)}{'; ' + STAND_IN if f.stand_in else ''})"


def _labelled(files: Sequence[ResultsFile]) -> list[ResultsFile]:
    """The files labelled with what they were computed on (the plots' legends)."""
    return [ResultsFile(f.path, _column(f), f.data, f.runs) for f in files]


def play_table(files: Sequence[ResultsFile]) -> tuple[list[str], list[list[str]]]:
    """The play figures of ``files`` side by side: header (figure, one column per file,
    contestants) and rows, each row one of :func:`~ocw_hub.views.summary.play_rows`'s (the
    union in first-seen order; ``-`` where a file lacks it)."""
    from .summary import play_rows

    header = ["figure", *(_column(f) for f in files), "contestants"]
    table: dict[str, list[str]] = {}
    for index, f in enumerate(files):
        for _, figure, ours, theirs in play_rows(f.data):
            cells = table.setdefault(figure, ["-"] * (len(files) + 1))
            cells[index] = ours
            if theirs != "-":
                cells[-1] = theirs
    return header, [[figure, *cells] for figure, cells in table.items()]


def _mean(values: Sequence[Any]) -> float | None:
    if not values or any(v is None for v in values):
        return None
    return float(sum(values)) / len(values)


def season_figures(f: ResultsFile) -> dict[str, dict[str, Any]]:
    """By season (``per_wall[*].season``, in season order): ``n_walls`` and the means a wall
    of ``groups_found`` and ``points`` (the player's, ``per_wall[*].play``) and of
    ``human_groups_found`` and ``human_points`` (``per_wall[*].human.play``), over the walls
    played (as the split's means); a mean that does not exist is None (no points under
    ``nyt``; no contestants' points for walls they never played as such)."""
    walls: dict[str, list[dict[str, Any]]] = {}
    for wall in f.data["per_wall"]:
        if wall["play"].get("played", True):
            walls.setdefault(str(wall["season"]), []).append(wall)
    no_points = f.data["play"].get("points") is None
    no_human_points = f.data["human"].get("play", {}).get("points") is None
    out = {}
    for season in sorted(walls, key=lambda s: (len(s), s)):
        plays = [w["play"] for w in walls[season]]
        human = [w["human"]["play"] for w in walls[season]]
        out[season] = {
            "n_walls": len(plays),
            "groups_found": _mean([p["groups_found"] for p in plays]),
            "points": None if no_points else _mean([p["points"] or 0 for p in plays]),
            "human_groups_found": _mean([h["groups_found"] for h in human]),
            "human_points": None if no_human_points else _mean([h["points"] for h in human]),
        }
    return out


def _shares(counts: dict[str, Any], keys: Sequence[str]) -> list[float]:
    total = sum(counts.values())
    return [counts.get(k, 0) / total if total else 0.0 for k in keys]


def lives_keys(files: Sequence[ResultsFile]) -> list[str]:
    """The lives lost seen in the files' ``lives_lost_distribution``, 0 to the most."""
    seen = [int(k) for f in files for k in f.data["play"]["lives_lost_distribution"]]
    return [str(k) for k in range(max([3, *seen]) + 1)]


def plot_play_seasons(files: Sequence[ResultsFile]) -> Plot:
    """Groups found (0-4) and points (0-10) a wall by season, each play result beside the
    contestants (their figures from the data, the same walls)."""
    figures = [season_figures(f) for f in files]
    shown = _labelled(files)
    seasons = list(figures[0])
    fig, axes = new_figure(nrows=2, width=min(12.0, max(6.0, 0.25 * len(seasons) * 3 + 2)))
    width = 0.8 / (len(files) + 1)
    x = list(range(len(seasons)))
    panels = (
        ("groups_found", "groups found a wall (0-4)", 4),
        ("points", "points a wall (0-10)", 10),
    )
    for ax, (name, label, top) in zip(axes, panels, strict=True):

        def samples(f: ResultsFile, name: str = name) -> list[list[float]]:
            by_season = figures[shown.index(f)]
            value = [by_season.get(s, {}).get(name) for s in seasons]
            return [[v] if v is not None else [] for v in value]

        file_bars(ax, shown, samples, width, shift=len(files) / 2)
        human = [figures[0][s][f"human_{name}"] for s in seasons]
        if None not in human:
            human_bars(ax, [p + (len(files) / 2) * width for p in x], human, width)
        else:  # walls rebuilt from groups of different walls: never played as such
            ax.text(
                0.5,
                0.95,
                NO_HUMAN_POINTS,
                transform=ax.transAxes,
                ha="center",
                va="top",
                fontsize=8,
                color=HUMAN_COLOUR,
            )
        ax.set_xticks(x, [f"{s}\n({figures[0][s]['n_walls']})" for s in seasons], fontsize=8)
        ax.set_xlabel("season (walls in the split)")
        ax.set_ylabel(label)
        ax.set_ylim(0, top * 1.05)
        ax.set_title(f"{label.split(' a wall')[0]} per season")
    figure_legend(fig, axes[0])
    config, split = files[0].key
    return Plot(
        f"play-season-{config}-{split}",
        f"Played: groups found and points by season ({config} / {split}; "
        f"{'; '.join(_column(f) for f in files)})",
        "Mean a wall per season of the groups found (top) and the show's points (bottom: 1 a "
        "group, 1 a connection, 2 for all eight) of each play result, beside the contestants' "
        "on the show (grey, hatched); a wall not played counts 0; no points under the nyt rules.",
        fig,
    )


def _share_samples(f: ResultsFile, part: str, keys: Sequence[str]) -> list[list[float]]:
    return [[v] for v in _shares(f.data["play"][part], keys)]


def plot_play_lives(files: Sequence[ResultsFile]) -> Plot:
    """The walls played by lives lost and by how the wall ended (shares of walls played)."""
    lives = lives_keys(files)
    reasons = sorted({r for f in files for r in f.data["play"]["end_reasons"]})
    fig, axes = new_figure(ncols=2, width=5.0)
    width = 0.8 / len(files)
    for ax, part, keys in (
        (axes[0], "lives_lost_distribution", lives),
        (axes[1], "end_reasons", reasons),
    ):
        samples = partial(_share_samples, part=part, keys=keys)
        file_bars(ax, _labelled(files), samples, width, shift=(len(files) - 1) / 2)
        ax.set_xticks(list(range(len(keys))), [k.replace("_", " ") for k in keys], fontsize=8)
        ax.set_ylabel("share of walls played (0-1)")
        ax.set_ylim(0, 1.05)
    axes[0].set_xlabel("lives lost in a wall")
    axes[0].set_title("walls by lives lost")
    axes[1].set_xlabel("how the wall ended")
    axes[1].set_title("walls by end")
    figure_legend(fig, axes[0])
    config, split = files[0].key
    return Plot(
        f"play-lives-{config}-{split}",
        f"Played: lives lost and ends ({config} / {split}; {'; '.join(_column(f) for f in files)})",
        "Share of the walls played that lost 0, 1, 2, ... lives (show: lives count once two "
        "groups are found, the third freezes the wall; nyt: every mistake) and that ended "
        "solved or frozen (lives, guess cap, invalid answers); the data holds no contestants' "
        "lives or guesses.",
        fig,
    )


def _agreement_samples(f: ResultsFile) -> list[list[float]]:
    counts = f.data["play"]["agreement"]
    return [[v] for v in _shares(counts, [k for k, _ in AGREEMENT_LABELS])]


def plot_play_agreement(files: Sequence[ResultsFile]) -> Plot:
    """Group by group against the contestants: the share of the split's groups found by both,
    the player only, the contestants only, neither."""
    fig, axes = new_figure(width=6.0, height=3.0)
    ax = axes[0]
    width = 0.8 / len(files)
    file_bars(ax, _labelled(files), _agreement_samples, width, shift=(len(files) - 1) / 2)
    ax.set_xticks(list(range(len(AGREEMENT_LABELS))), [label for _, label in AGREEMENT_LABELS])
    ax.set_xlabel("groups found by")
    ax.set_ylabel("share of the groups (0-1)")
    ax.set_ylim(0, 1.05)
    ax.set_title("group by group: player against contestants")
    figure_legend(fig, ax)
    config, split = files[0].key
    return Plot(
        f"play-agreement-{config}-{split}",
        f"Played: group by group against the contestants ({config} / {split}; "
        f"{'; '.join(_column(f) for f in files)})",
        "Share of the split's groups (4 a wall) found by both the player and the contestants, "
        "by the player only, by the contestants only, by neither (counts in the table).",
        fig,
    )


def season_table(files: Sequence[ResultsFile]) -> tuple[list[str], list[list[str]]]:
    """:func:`season_figures` of ``files`` as text: header (season, one column per file,
    contestants) and a row per season, each cell ``groups G, points P`` (means a wall, 2
    decimals; ``-`` where a mean does not exist)."""

    def cell(groups: float | None, points: float | None) -> str:
        shown = ["-" if v is None else f"{v:.2f}" for v in (groups, points)]
        return f"groups {shown[0]}, points {shown[1]}"

    figures = [season_figures(f) for f in files]
    header = ["season (walls)", *(_column(f) for f in files), "contestants"]
    rows = []
    for season, first in figures[0].items():
        cells = [cell(by[season]["groups_found"], by[season]["points"]) for by in figures]
        cells.append(cell(first["human_groups_found"], first["human_points"]))
        rows.append([f"{season} ({first['n_walls']})", *cells])
    return header, rows


def _table_html(
    kind: str, caption: str, key: tuple[str, str], header: list[str], rows: list[list[str]]
) -> str:
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in header)
    body = []
    for row in rows:
        cells = [f'<th scope="row">{html.escape(row[0])}</th>']
        cells += [
            f'<td class="num" data-column="{html.escape(column)}">{html.escape(value)}</td>'
            for column, value in zip(header[1:], row[1:], strict=True)
        ]
        body.append(f'<tr data-figure="{html.escape(row[0])}">{"".join(cells)}</tr>')
    return (
        f'<div class="scroll"><table class="{kind}" data-config="{html.escape(key[0])}" '
        f'data-split="{html.escape(key[1])}"><caption>{caption}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


_PLAY_CAPTION = (
    "The play figures of <code>ocw-hub evaluate</code> beside the contestants' (totals over "
    "the split, the mean a wall in parentheses with its 95 % interval when computed)"
)
_SEASON_CAPTION = (
    "By season: the mean a wall of the groups found (0-4) and the show's points (0-10), a "
    "wall not played counting 0"
)


def play_section(group: Sequence[ResultsFile]) -> str:
    """The play section of one (config, split)'s files (empty without a play result)."""
    files = play_files(group)
    if not files:
        return ""
    config, split = files[0].key
    header, rows = play_table(files)
    title = f"Played as the contestants did ({config} / {split}): " + "; ".join(header[1:-1])
    parts = [
        f'<section class="play" id="play-{html.escape(config)}-{html.escape(split)}">'
        f"<h3>{html.escape(title)}</h3>",
        _table_html("play", _PLAY_CAPTION, (config, split), header, rows),
        plot_play_seasons(files).html(),
        _table_html("play-seasons", _SEASON_CAPTION, (config, split), *season_table(files)),
        plot_play_lives(files).html(),
        plot_play_agreement(files).html(),
    ]
    return "".join(parts) + "</section>"
