"""The HTML report of results files (``ocw-hub report``): one self-contained page.

Several results files are several models (or configs) side by side. The page needs nothing at
view time (no script, no network, no web font; plots are inline SVG, text drawn as paths). It
holds the headline table, then per config and split the plots (:mod:`.plots`), the hardest
walls (:mod:`.hardest`) and the embedding plot (:mod:`.embedding_plot`); the ablation last.
Every text from the inputs is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from ..configs import PathLike
from ..provenance import STAND_IN, protocol_text, results_protocol, results_source
from ..results import ResultsFile, by_key, grouped_files, read_results
from .embedding_plot import plot_embeddings, vectors_of
from .hardest import hardest_section, hardest_walls
from .herring_plots import plot_confusion, plot_found_by
from .plots import plot_ablation, plot_by_season, plot_distributions, plot_runs, plot_wote_breakdown
from .plotting import Plot
from .report_data import PredictionsCache
from .report_play import play_section


def _summary_rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    """The terminal table's rows of ``ocw-hub evaluate`` for one results file."""
    from ..views.summary import summary_rows

    return summary_rows(data)


def _column(f: ResultsFile) -> str:
    """A file's column in the headline table: its label, marked when on the stand-in."""
    return f"{f.label} ({STAND_IN})" if f.stand_in else f.label


def headline_rows(files: Sequence[ResultsFile]) -> tuple[list[str], list[list[str]]]:
    """The headline table of files of one config and split: the header and the rows.

    Columns: task, figure, one per file (its ``ocw-hub evaluate`` table's model column: one
    run's figure, or mean ± std over runs), and human (OCW; the same walls for every file).
    Rows are the union of the files' rows in first-seen order; a figure a file lacks is ``-``.
    OCW tables end with a ``chance`` column: what a uniformly random grouping scores
    (:func:`ocw_hub.scoring.chance.chance_level`; per file when the files' walls differ).
    """
    header = ["task", "figure", *(_column(f) for f in files)]
    wote = files[0].is_wote
    if not wote:
        header.append("human")
    table: dict[tuple[str, str], list[str]] = {}
    order: list[tuple[str, str]] = []
    for index, f in enumerate(files):
        previous = -1
        for row in _summary_rows(f.data):
            key = (row[0], row[1])
            if key not in table:
                order.insert(previous + 1, key)
                table[key] = ["-"] * (len(files) + (not wote))
            previous = order.index(key)
            table[key][index] = row[2]
            if not wote and len(row) > 3 and row[3] != "-":
                table[key][-1] = row[3]
    rows = [[task, figure, *table[(task, figure)]] for task, figure in order]
    if wote:
        return header, rows
    return [*header, "chance"], [[*row, _chance_cell(files, row[0], row[1])] for row in rows]


def _chance_cell(files: Sequence[ResultsFile], task: str, figure: str) -> str:
    """The chance level of a headline row, ``-`` when it has none (docs/statistics.md,
    "Chance levels")."""
    from ..scoring.chance import chance_level

    shown = []
    for f in files:
        run = f.data["runs"][0] if "runs" in f.data else f.data
        scored = run.get(task)
        n = scored.get("n_walls") if isinstance(scored, dict) else None
        human = (f.data.get("human") or {}).get("correct_groups_rate")
        level = chance_level(task, figure, n, human) if isinstance(n, int) else None
        text = (
            "-"
            if level is None
            else f"{level:.4f}"
            if level >= 1e-4 or not level
            else f"{level:.2g}"
        )
        if text not in shown:
            shown.append(text)
    return " / ".join(shown)


def _headline_html(files: Sequence[ResultsFile]) -> str:
    header, rows = headline_rows(files)
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in header)
    body = []
    for row in rows:
        cells = [f"<td>{html.escape(row[0])}</td>", f'<th scope="row">{html.escape(row[1])}</th>']
        for column, value in zip(header[2:], row[2:], strict=True):
            cells.append(
                f'<td class="num" data-column="{html.escape(column)}">{html.escape(value)}</td>'
            )
        body.append(
            f'<tr data-task="{html.escape(row[0])}" data-figure="{html.escape(row[1])}">'
            f"{''.join(cells)}</tr>"
        )
    config, split = files[0].key
    return (
        f'<table class="headline" data-config="{html.escape(config)}" '
        f'data-split="{html.escape(split)}"><caption>{html.escape(config)} / '
        f"{html.escape(split)}{_slice_text(files)}: the figures of <code>ocw-hub evaluate</code> "
        "(0-1 unless marked 0-100; totals are counts; several runs: mean ± std, population"
        f"{'' if files[0].is_wote else '; chance: what a uniformly random grouping scores'})"
        "</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _slice_text(files: Sequence[ResultsFile]) -> str:
    """`` (slice: seasons 1-5 (120 of 494 walls))`` for files computed on a slice of walls
    (their ``slice``, :mod:`ocw_hub.scoring.slices`), each different one named; else empty."""
    labels = dict.fromkeys(
        str(f.data["slice"]["label"]) for f in files if isinstance(f.data.get("slice"), dict)
    )
    return f" (slice: {html.escape('; '.join(labels))})" if labels else ""


# --------------------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;
margin:1.5em auto;max-width:75em;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.1em}
table{border-collapse:collapse;margin:0.8em 0}
table.headline td,table.headline th,table.hardest td,table.hardest th,table.inputs td,
table.inputs th,section.play td,section.play th{border:1px solid #ccc;padding:0.25em 0.6em}
table.headline thead th,table.hardest thead th,table.inputs thead th,section.play thead th{
background:#f0f0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{text-align:left;font-weight:bold;margin-bottom:0.3em}
th[scope=row]{text-align:left;font-weight:normal}
figure.plot{margin:1.5em 0;overflow-x:auto}figure.plot svg{max-width:100%;height:auto}
figcaption{font-size:0.9em;color:#444}
ul.legend{list-style:none;margin:0.3em 0;padding:0;font-size:0.9em}
ul.legend li{display:inline-block;margin:0 1.2em 0.2em 0}
ul.legend .swatch{display:inline-block;width:0.9em;height:0.9em;margin-right:0.35em;
vertical-align:-0.1em;border:1px solid #fff}
ul.legend .hatched{background-image:repeating-linear-gradient(45deg,transparent 0 2px,
#fff 2px 3px)}
ul.legend .symbol{margin-right:0.35em}.note{color:#555;font-size:0.9em}
.wall-card{margin:1em 0;padding:0.5em;border:1px solid #ddd;border-radius:6px;overflow-x:auto}
.scroll{overflow-x:auto}
"""


def _provenance_cells(f: ResultsFile) -> str:
    from ..llm.usage import cost_line

    source, protocol = results_source(f.data), protocol_text(results_protocol(f.data))
    if (cost := cost_line(f.data)) is not None:  # parsed runs: tokens, latency, cost
        protocol += f"; usage: {cost}"
    mark = f' data-stand-in="true"><strong>{STAND_IN}</strong>: ' if f.stand_in else ">"
    return f'<td class="source"{mark}{html.escape(source)}</td><td>{html.escape(protocol)}</td>'


def _inputs_table(files: Sequence[ResultsFile]) -> str:
    """The header's table of inputs: each results file with its source (release, path,
    SHA-256; the stand-in marked) and protocol."""
    rows = "".join(
        f"<tr><td>{html.escape(f.label)}</td><td>{html.escape(f.path.name)}</td>"
        f"<td>{html.escape(f.config)}</td><td>{html.escape(f.split)}</td>"
        f'<td class="num">{len(f.runs)}</td>{_provenance_cells(f)}</tr>'
        for f in files
    )
    return (
        '<table class="inputs"><thead><tr><th>label</th><th>results file</th><th>config</th>'
        "<th>split</th><th>runs</th><th>source</th><th>protocol</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _plots_of(group: Sequence[ResultsFile]) -> list[Plot | None]:
    if group[0].is_wote:
        return [plot_runs(group), plot_wote_breakdown(group)]
    herrings = [plot_found_by(group), plot_confusion(group)]  # herring_plots.py
    return [plot_by_season(group), *herrings, plot_distributions(group), plot_runs(group)]


def _group_section(
    group: Sequence[ResultsFile],
    walls: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
    n_hardest: int,
    wall_id: str | None,
    predictions: PredictionsCache,
) -> str:
    config, split = group[0].key
    parts = [
        f'<h2 id="{html.escape(config)}-{html.escape(split)}">{html.escape(config)} / '
        f"{html.escape(split)}{_slice_text(group)}</h2>"
    ]
    parts += [plot.html() for plot in _plots_of(group) if plot is not None]
    if group[0].is_wote:
        return "".join(parts)
    parts.append(play_section(group))
    given = walls.get((config, split))
    rows = {str(r["wall_id"]): r for r in given} if given is not None else None
    parts.append(hardest_section(group, rows, n_hardest, predictions))
    for f in group:
        order = [h.wall_id for h in hardest_walls(f, n=10**9)] if f in grouped_files([f]) else []
        if rows is None:
            if any(vectors_of(run, f) for run in f.runs):
                parts.append(
                    f'<p class="note">{html.escape(f.label)} kept its clue vectors; give the '
                    "config's data (--data-dir) to plot them by gold group.</p>"
                )
            continue
        plot = plot_embeddings(f, rows, wall_id, order, predictions)
        if plot is not None:
            parts.append(plot.html())
    return "".join(parts)


def build_report(
    results: Sequence[PathLike | ResultsFile],
    *,
    walls: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]] | None = None,
    n_hardest: int = 5,
    wall_id: str | None = None,
    title: str = "ocw-hub report",
) -> str:
    """The report of results files as one self-contained HTML page (see the module docstring).

    Args:
        results: results files (paths, or :class:`ResultsFile` from :func:`read_results`).
        walls: gold walls (rows as the OCW builders yield them) by (config, split), to draw the
            hardest walls and the embedding plot; a (config, split) not given is listed only.
        n_hardest: how many of the hardest walls to show.
        wall_id: the wall of the embedding plot (default: the hardest one with vectors).
        title: the page's title.

    Raises:
        ReportError: see :func:`read_results`.
    """
    from .. import __version__

    paths = [r for r in results if not isinstance(r, ResultsFile)]
    files = [r for r in results if isinstance(r, ResultsFile)] + (
        read_results(paths) if paths else []
    )
    groups = by_key(files)
    predictions = PredictionsCache()
    body = [f"<h1>{html.escape(title)}</h1>", _inputs_table(files)]
    body.append('<h2 id="headline">Headline figures</h2>')
    body += [f'<div class="scroll">{_headline_html(g)}</div>' for g in groups.values()]
    ablation = plot_ablation(files)
    for group in groups.values():
        body.append(_group_section(group, walls or {}, n_hardest, wall_id, predictions))
    if ablation is not None:
        body += ['<h2 id="ablation-section">Ablation</h2>', ablation.html()]
    body.append(
        f'<p class="note">Written by ocw-hub {html.escape(__version__)}; the page holds '
        "everything it shows (no script, no network).</p>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )
