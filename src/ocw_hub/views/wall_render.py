"""Drawing a :class:`~ocw_hub.views.wall.Wall` as the show draws a solved wall: a 4x4 grid, one
row and one colour per gold group, the connection beside it; with a prediction, the predicted
rows follow, each clue in its gold group's colour and marked ``✗`` when misplaced (a red herring
taken). A ``rich`` renderable for the terminal and an HTML snippet (Jupyter, the report); data
text is never parsed as ``rich`` markup and goes through :func:`html.escape` in HTML.

Colours are the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies);
every colour also has a text mark (the gold group number, ``✗``), so plain terminals and screen
readers lose nothing.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..shown import preview

if TYPE_CHECKING:  # wall.py draws itself through this module
    from .wall import PlacedClue, Wall

#: Background colour of gold groups 1-4 (Okabe-Ito blue, orange, bluish green, reddish purple).
GROUP_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")
#: Text colour on each group colour (contrast ratio at least 4.5:1).
GROUP_TEXT = ("#FFFFFF", "#000000", "#000000", "#000000")
#: Colour of a predicted clue that is not in the wall at all.
UNKNOWN_COLOUR = "#BBBBBB"
#: Mark of a clue placed outside the gold group matched to its predicted row.
MISPLACED = "✗"
#: Mark of a predicted row equal to a gold group.
CORRECT = "✓"
#: Figures shown under a predicted wall, in order, with their labels.
WALL_FIGURES = (
    ("ami", "AMI"),
    ("ari", "ARI"),
    ("fms", "FMS"),
    ("wd", "WD"),
    ("correct_groups", "correct groups"),
)


def _mark(value: int | None) -> str:
    return {1: CORRECT, 0: MISPLACED}.get(value, "?") if value is not None else "-"


def format_figure(key: str, value: Any) -> str:
    """A wall figure as the views print it: ``correct_groups`` as ``n/4``, the others with 3
    decimals."""
    if key == "correct_groups":
        return f"{value}/4"
    return f"{value:.3f}"


def _figures_line(wall: Wall) -> str:
    scores = wall.scores or {}
    return "   ".join(f"{label} {format_figure(k, scores[k])}" for k, label in WALL_FIGURES)


def _connection_note(wall: Wall, row: int) -> str:
    """The predicted connection of a predicted row (connections are in gold group order, so
    the one of the gold group matched to the row)."""
    if wall.predicted_connections is None:
        return ""
    match = wall.row_matches()[row]
    return wall.predicted_connections[match]


def _row_note(wall: Wall, row: int, placed: Sequence[PlacedClue]) -> str:
    match = wall.row_matches()[row]
    in_place = sum(not c.misplaced for c in placed)
    if in_place == len(placed):
        return f"{CORRECT} group {match + 1}"
    return f"{in_place}/4 of group {match + 1}"


# --------------------------------------------------------------------------------------
# Terminal (rich)
# --------------------------------------------------------------------------------------


def _clue_text(clue: PlacedClue) -> Any:
    from rich.text import Text

    if clue.gold is None:
        return Text(f"? {preview(clue.clue)}", style=f"black on {UNKNOWN_COLOUR}")
    mark = f"{MISPLACED} " if clue.misplaced else ""
    style = f"{GROUP_TEXT[clue.gold]} on {GROUP_COLOURS[clue.gold]}"
    text = f"{mark}{preview(clue.clue)} ({clue.gold + 1})"
    return Text(text, style=style + (" bold" if mark else ""))


def _gold_table(wall: Wall) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="gold groups", show_header=True, header_style="bold", expand=False)
    table.add_column("#", justify="right")
    for _ in range(4):
        table.add_column("")
    table.add_column("connection")
    table.add_column("contestants\ngroup/conn.", justify="center", no_wrap=True)
    for g, group in enumerate(wall.groups):
        style = f"{GROUP_TEXT[g]} on {GROUP_COLOURS[g]}"
        human = f"{_mark(group.human_grouping)} / {_mark(group.human_connection)}"
        table.add_row(
            str(g + 1),
            *(Text(preview(c), style=style) for c in group.clues),
            Text(preview(group.connection), style="bold"),
            human,
        )
    return table


def _prediction_table(wall: Wall) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="predicted groups (each clue in its gold group's colour and number)")
    table.add_column("row", justify="right")
    for _ in range(4):
        table.add_column("")
    table.add_column("in place")
    if wall.predicted_connections is not None:
        table.add_column("connection named")
    for p, row in enumerate(wall.placed()):
        cells = [str(p + 1), *(_clue_text(c) for c in row), Text(_row_note(wall, p, row))]
        if wall.predicted_connections is not None:
            cells.append(Text(preview(_connection_note(wall, p))))
        table.add_row(*cells)
    return table


def wall_renderable(wall: Wall) -> Any:
    """The ``rich`` renderable of a wall: heading, gold grid, predicted rows and figures."""
    from rich.console import Group as RichGroup
    from rich.text import Text

    parts: list[Any] = [Text(preview(wall.title), style="bold")]
    parts.append(_gold_table(wall))
    if wall.predicted_groups is not None:
        parts.append(_prediction_table(wall))
        misplaced = sum(c.misplaced for row in wall.placed() for c in row)
        parts.append(
            Text(
                f"{MISPLACED} misplaced clue (outside the gold group matched to its row): "
                f"{misplaced} of 16;  (n) = the clue's gold group;  ? = not a clue of the wall"
            )
        )
        parts.append(Text(_figures_line(wall), style="bold"))
    elif wall.predicted_connections is not None:
        names = "; ".join(map(preview, wall.predicted_connections))
        parts.append(Text(f"predicted connections (gold group order): {names}"))
    return RichGroup(*parts)


# --------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------

_TABLE_STYLE = "border-collapse:collapse;margin:0.4em 0;font-family:inherit;font-size:0.95em"
_CELL = "padding:0.35em 0.6em;border:2px solid #fff;border-radius:4px;text-align:center"
_PLAIN_CELL = "padding:0.35em 0.6em;text-align:left;color:inherit"


def _td(text: str, style: str, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    return f'<td style="{style}"{extra}>{html.escape(text)}</td>'


def _html_gold_rows(wall: Wall) -> list[str]:
    rows = []
    for g, group in enumerate(wall.groups):
        style = f"{_CELL};background:{GROUP_COLOURS[g]};color:{GROUP_TEXT[g]}"
        cells = [_td(str(g + 1), _PLAIN_CELL)]
        cells += [_td(c, style, data_group=str(g + 1)) for c in group.clues]
        cells.append(_td(group.connection, _PLAIN_CELL + ";font-weight:bold"))
        human = (
            f"contestants: group {_mark(group.human_grouping)} "
            f"connection {_mark(group.human_connection)}"
        )
        cells.append(_td(human, _PLAIN_CELL))
        rows.append(f'<tr class="ocw-gold">{"".join(cells)}</tr>')
    return rows


def _html_clue(clue: PlacedClue) -> str:
    if clue.gold is None:
        style = f"{_CELL};background:{UNKNOWN_COLOUR};color:#000"
        return _td(f"? {clue.clue}", style, data_group="none", title="not a clue of this wall")
    style = f"{_CELL};background:{GROUP_COLOURS[clue.gold]};color:{GROUP_TEXT[clue.gold]}"
    if clue.misplaced:
        style += ";font-weight:bold;outline:3px dashed #D55E00;outline-offset:-4px"
        text = f"{MISPLACED} {clue.clue} ({clue.gold + 1})"
        return _td(text, style, data_group=str(clue.gold + 1), data_misplaced="true")
    return _td(f"{clue.clue} ({clue.gold + 1})", style, data_group=str(clue.gold + 1))


def _html_prediction_rows(wall: Wall) -> list[str]:
    rows = []
    for p, row in enumerate(wall.placed()):
        cells = [_td(str(p + 1), _PLAIN_CELL)] + [_html_clue(c) for c in row]
        cells.append(_td(_row_note(wall, p, row), _PLAIN_CELL))
        if wall.predicted_connections is not None:
            cells.append(_td(f"named: {_connection_note(wall, p)}", _PLAIN_CELL))
        rows.append(f'<tr class="ocw-predicted">{"".join(cells)}</tr>')
    return rows


def _html_figures(wall: Wall) -> str:
    scores = wall.scores or {}
    items = "".join(
        f'<span style="margin-right:1.2em" data-figure="{k}"><b>{html.escape(label)}</b> '
        f"{html.escape(format_figure(k, scores[k]))}</span>"
        for k, label in WALL_FIGURES
    )
    misplaced = sum(c.misplaced for row in wall.placed() for c in row)
    legend = (
        f"{MISPLACED} = misplaced clue (outside the gold group matched to its row): "
        f"{misplaced} of 16; (n) = the clue's gold group; ? = not a clue of the wall"
    )
    return (
        f'<p class="ocw-figures" style="margin:0.3em 0">{items}</p>'
        f'<p style="margin:0.2em 0;font-size:0.85em">{html.escape(legend)}</p>'
    )


def wall_html(wall: Wall) -> str:
    """A wall as a self-contained HTML snippet: ``<div class="ocw-wall">`` with inline styles,
    the gold grid and, with a prediction, the predicted rows and the figures."""
    head = f'<div style="font-weight:bold;margin:0.3em 0">{html.escape(wall.title)}</div>'
    gold = (
        f'<table style="{_TABLE_STYLE}" aria-label="gold groups">'
        '<caption style="text-align:left;font-size:0.85em">gold groups</caption>'
        f"{''.join(_html_gold_rows(wall))}</table>"
    )
    parts = [head, gold]
    if wall.predicted_groups is not None:
        parts.append(
            f'<table style="{_TABLE_STYLE}" aria-label="predicted groups">'
            '<caption style="text-align:left;font-size:0.85em">predicted groups (each clue in '
            "its gold group's colour and number)</caption>"
            f"{''.join(_html_prediction_rows(wall))}</table>"
        )
        parts.append(_html_figures(wall))
    elif wall.predicted_connections is not None:
        names = "; ".join(wall.predicted_connections)
        parts.append(f"<p>predicted connections (gold group order): {html.escape(names)}</p>")
    wall_id = html.escape(wall.wall_id)
    return f'<div class="ocw-wall" data-wall-id="{wall_id}">{"".join(parts)}</div>'
