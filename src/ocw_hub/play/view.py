"""One played wall replayed turn by turn in the terminal (``ocw-hub show WALL --play LOG``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import PlayLogError
from ..shown import inert
from .log import PlayLog, read_play_log, replay, start_state

_SHOWN_CHARS = 120


def _cell(value: object) -> Any:
    """Log or data text as an inert cell (no markup, escapes shown, cut)."""
    from rich.text import Text

    return Text(inert(value, limit=_SHOWN_CHARS))


def play_table(path: Path | PlayLog, wall: Mapping[str, Any]) -> Any:
    """A ``rich`` table of the wall's turns in the play log at ``path``: each answer (the
    guess, or why it was invalid), its verdict as the rules give it, groups found and lives
    left after it; then how the wall ended and the connection round. ``path`` may be the log
    read already (:func:`~ocw_hub.play.log.read_play_log`).

    Raises:
        PlayLogError: the log has no record of the wall, or its replay disagrees.
    """
    from rich.table import Table

    log = path if isinstance(path, PlayLog) else read_play_log(path)
    path = log.path
    wall_id = str(wall["wall_id"])
    records = log.walls.get(wall_id)
    if records is None:
        raise PlayLogError(f"{path}: has no record of wall {wall_id}")
    state, verdicts = replay(path, records, start_state(log.header, wall), finished=False)
    title = f"wall {wall_id} played by {log.header['player']} (rules {log.header['rules']})"
    table = Table(title=_cell(title))
    for column in ("turn", "guess", "verdict", "groups found", "lives left"):
        table.add_column(column, justify="left" if column in ("guess", "verdict") else "right")
    for (_, record), verdict in zip(records.guesses, verdicts, strict=True):
        guess = ", ".join(record["clues"]) if record["clues"] else f"({verdict.reason})"
        lives = verdict.state.lives
        table.add_row(
            str(record["turn"]),
            _cell(guess),
            verdict.verdict,
            str(len(verdict.state.found)),
            "-" if lives is None else str(lives),
        )
    caption = (
        f"end: {state.ended or 'unfinished'}; {state.guesses} guesses, {state.invalid} invalid"
    )
    if records.connections is not None:
        answers = records.connections[1]["answers"]
        caption += "; connections: " + " | ".join(inert(a, limit=_SHOWN_CHARS) for a in answers)
    table.caption = _cell(caption)
    return table
