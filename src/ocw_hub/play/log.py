"""The play log (docs/experiment.md, "Playing the wall"): read, checked and replayed.

One JSON Lines file per run: a header (``record: play``), then per wall any number of
``guess`` records, at most one ``connections`` record and one ``end`` record. Records of
different walls may interleave (logs of the retired ``ocw-hub play``, which played in rounds);
a wall's own records are in order. A guess record of ``ocw_play`` and of the play page
also holds the
``state`` after it (:func:`state_record`; optional: pages before version 2 wrote none).
Verdicts, states, lives and points are never taken from the file: they are recomputed by
replaying the guesses through :mod:`ocw_hub.play.rules`, and a recorded verdict, state or end
reason that disagrees with the replay is an error.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlayLogError
from . import rules

VERSION = 2
#: Versions read: 1 was written before NYT's "already guessed" (replayed without it).
VERSIONS = (1, 2)
HEADER_INTS = ("max_guesses", "max_invalid")
HEADER_STRINGS = ("config", "split", "player")
PLAYER_KINDS = ("model", "human")


def describe_player(header: Mapping[str, Any]) -> str:
    """Who played, as the header records it: ``model NAME``, or ``human player NAME``
    for a person's log (a person is no model)."""
    name = header.get("player", "?")
    if header.get("player_kind") == "human":
        return f"human player {name}"
    return f"{header.get('player_kind', 'player')} {name}"


def player_column(header: Mapping[str, Any] | None) -> str:
    """The name of the column of a play log's figures: ``player`` for a person's log, else
    ``model``."""
    return "player" if header and header.get("player_kind") == "human" else "model"


def is_play_log(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file whose first line is a play log header."""
    path = Path(path)
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        first = handle.readline(1 << 20)
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):  # RecursionError: nested too deep for the parser
        return False
    return isinstance(head, dict) and head.get("record") == "play"


@dataclass
class WallRecords:
    """A wall's records: ``guesses`` and ``connections``, ``end`` as ``(line, record)``."""

    wall_id: str
    guesses: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    connections: tuple[int, dict[str, Any]] | None = None
    end: tuple[int, dict[str, Any]] | None = None


@dataclass
class PlayLog:
    """A play log read: its ``header`` and each wall's records (in the order first seen)."""

    path: Path
    header: dict[str, Any]
    walls: dict[str, WallRecords]


def _error(path: Path, number: int, wall_id: Any, message: str) -> PlayLogError:
    where = f"{path}, line {number}" + ("" if wall_id is None else f" (wall {wall_id})")
    return PlayLogError(f"{where}: {message}")


def check_header(path: Path, head: Mapping[str, Any]) -> None:
    """Raise :class:`PlayLogError` naming the field of a header that breaks the contract."""
    if head.get("record") != "play":
        raise _error(path, 1, None, 'field record: expected "play" (not a play log)')
    if head.get("version") not in VERSIONS:
        raise _error(path, 1, None, f"field version: expected one of {VERSIONS}")
    if head.get("rules") not in rules.RULES:
        raise _error(path, 1, None, f"field rules: expected one of {', '.join(rules.RULES)}")
    for name in HEADER_INTS:
        value = head.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise _error(path, 1, None, f"field {name}: expected an integer >= 1")
    for name in HEADER_STRINGS:
        if not isinstance(head.get(name), str):
            raise _error(path, 1, None, f"field {name}: expected a string")
    if head.get("player_kind") not in PLAYER_KINDS:
        raise _error(path, 1, None, f"field player_kind: expected one of {PLAYER_KINDS}")


def _clue_list(value: Any, size: int) -> bool:
    return isinstance(value, list) and len(value) == size and all(isinstance(c, str) for c in value)


def _check_guess(path: Path, number: int, wall: WallRecords, record: Mapping[str, Any]) -> None:
    turn, clues, invalid = record.get("turn"), record.get("clues"), record.get("invalid")
    if turn != len(wall.guesses) + 1:
        raise _error(path, number, wall.wall_id, f"field turn: expected {len(wall.guesses) + 1}")
    if clues is not None and not _clue_list(clues, rules.GROUP_SIZE):
        raise _error(path, number, wall.wall_id, "field clues: expected 4 strings or null")
    if invalid is not None and not isinstance(invalid, str):
        raise _error(path, number, wall.wall_id, "field invalid: expected a string or null")
    if clues is None and invalid is None:
        raise _error(path, number, wall.wall_id, "field invalid: a guess without clues says why")
    if record.get("verdict") not in rules.VERDICTS:
        raise _error(path, number, wall.wall_id, f"field verdict: expected one of {rules.VERDICTS}")


def _check_connections(path: Path, number: int, wall_id: str, record: Mapping[str, Any]) -> None:
    groups, answers = record.get("groups"), record.get("answers")
    if (
        not isinstance(groups, list)
        or len(groups) != 4
        or not all(_clue_list(g, 4) for g in groups)
    ):
        raise _error(path, number, wall_id, "field groups: expected 4 groups of 4 clues")
    if not _clue_list(answers, 4):
        raise _error(path, number, wall_id, "field answers: expected 4 strings")


def read_play_log(path: str | os.PathLike[str]) -> PlayLog:
    """The log at ``path`` with every record checked against the contract (not yet
    replayed: :func:`replay`). A last line cut short by a crash is skipped.

    Raises:
        PlayLogError: no such file; line 1 is no play log header (not a play log); a
            malformed header or record, a record of a wall after its end, a ``connections``
            record twice.
    """
    path = Path(path)
    if path.is_file() and path.stat().st_size and not is_play_log(path):
        raise PlayLogError(
            f"{path}: not a play log (its line 1 is no play log header, "
            '{"record": "play", ...}: give a log of ocw_play or of the play page)'
        )
    from ..llm.log import json_records  # not at import: is_play_log is asked of every file

    records = json_records(path, PlayLogError)
    first = next(records, None)
    if first is None:
        raise PlayLogError(f"{path}: empty: expected a play log header on line 1")
    check_header(path, first[1])
    walls: dict[str, WallRecords] = {}
    for number, record in records:
        kind, wall_id = record.get("record"), record.get("wall_id")
        if not isinstance(wall_id, str):
            raise _error(path, number, None, "field wall_id: expected a string")
        wall = walls.setdefault(wall_id, WallRecords(wall_id))
        if wall.end is not None:
            raise _error(path, number, wall_id, "a record after the wall's end record")
        if kind == "guess":
            if wall.connections is not None:
                raise _error(path, number, wall_id, "a guess after the connections record")
            _check_guess(path, number, wall, record)
            wall.guesses.append((number, record))
        elif kind == "connections":
            if wall.connections is not None:
                raise _error(path, number, wall_id, "a second connections record")
            _check_connections(path, number, wall_id, record)
            wall.connections = (number, record)
        elif kind == "end":
            if record.get("reason") not in rules.END_REASONS:
                raise _error(path, number, wall_id, f"field reason: one of {rules.END_REASONS}")
            wall.end = (number, record)
        else:
            raise _error(path, number, wall_id, "field record: expected guess, connections or end")
    return PlayLog(path, first[1], walls)


def replay(
    path: Path, records: WallRecords, state: rules.WallState, *, finished: bool = True
) -> tuple[rules.WallState, list[rules.Verdict]]:
    """Play a wall's recorded guesses through the rules from ``state``.

    With ``finished`` the wall must have its end record, and its reason must be the replay's
    (``gave_up`` and ``time``, a person's, end a wall still in play).

    Raises:
        PlayLogError: a recorded verdict that is not the replay's, a guess after the wall is
            over, an end reason that is not the replay's, a connection round under ``nyt``.
    """
    from ..llm.parsing import match_clues

    verdicts = []
    for number, record in records.guesses:
        if state.ended is not None:
            over = f"a guess after the wall is over ({state.ended})"
            raise _error(path, number, records.wall_id, over)
        clues = record["clues"]
        if clues is not None:  # matched as parse matches an answer's clues
            clues = match_clues(clues, [c for g in state.groups for c in g])
        verdict = rules.apply(state, clues, record["invalid"])
        _check_replayed(path, number, records.wall_id, record, verdict)
        verdicts.append(verdict)
        state = verdict.state
    if records.connections is not None and not state.rule_set.connection_round:
        where = records.connections[0]
        raise _error(path, where, records.wall_id, f"no connection round under {state.rules}")
    if records.end is None:
        if finished:
            raise PlayLogError(f"{path}: wall {records.wall_id} has no end record (unfinished)")
        return state, verdicts
    number, end = records.end
    reason = end["reason"]
    if state.ended is None and reason in ("gave_up", "time"):
        state = dataclasses.replace(state, ended=reason)
    if state.ended != reason:
        raise _error(
            path,
            number,
            records.wall_id,
            f"field reason: {reason!r} recorded, the rules give {state.ended!r}",
        )
    return state, verdicts


def _check_replayed(
    path: Path, number: int, wall_id: str, record: Mapping[str, Any], verdict: rules.Verdict
) -> None:
    """Raises PlayLogError: a recorded verdict, or state (when recorded), not the replay's."""
    if verdict.verdict != record["verdict"]:
        given = f"field verdict: {record['verdict']!r} recorded, the rules give"
        raise _error(path, number, wall_id, f"{given} {verdict.verdict!r}")
    if "state" in record and record["state"] != state_record(verdict.state):
        given = f"field state: {record['state']!r} recorded, the rules give"
        raise _error(path, number, wall_id, f"{given} {state_record(verdict.state)}")


def gold_groups(wall: Mapping[str, Any]) -> list[list[str]]:
    """A row's 4 gold groups in group order (``groups.group_1`` ... ``group_4``)."""
    from ..llm.prompts import gold_groups as ordered

    return [list(g["gt_words"]) for g in ordered(wall)]


def start_state(header: Mapping[str, Any], wall: Mapping[str, Any]) -> rules.WallState:
    """A wall of the split before its first guess, under the header's rules and caps."""
    return rules.new_wall(
        header["rules"],
        gold_groups(wall),
        max_guesses=header["max_guesses"],
        max_invalid=header["max_invalid"],
        already_guessed=header.get("version", VERSION) >= 2,
    )


def state_record(state: rules.WallState) -> dict[str, Any]:
    """The ``state`` field of a guess record: ``groups_found`` (gold group indices 0-3 in the
    order found), ``guesses``, ``wrong``, ``lives_lost``, ``invalid``, ``ended`` (None in play)."""
    return {
        "groups_found": list(state.found),
        "guesses": state.guesses,
        "wrong": state.wrong,
        "lives_lost": state.lives_lost,
        "invalid": state.invalid,
        "ended": state.ended,
    }


def guess_record(
    wall_id: str, turn: int, clues: Sequence[str] | None, verdict: rules.Verdict, **extra: Any
) -> dict[str, Any]:
    """A ``guess`` record with the ``state`` after it (``extra``: the optional fields, e.g.
    ``text``)."""
    return {
        "record": "guess",
        "wall_id": wall_id,
        "turn": turn,
        "clues": None if clues is None else list(clues),
        "invalid": verdict.reason,
        "verdict": verdict.verdict,
        "state": state_record(verdict.state),
        **extra,
    }


def with_implied_fields(header: Mapping[str, Any]) -> dict[str, Any]:
    """A log header with ``profile`` and ``generation``: those of a log written before play
    had profiles are implied (``paper``: its ``max_tokens``, temperature 0, its ``seed``)."""
    if "profile" in header or not isinstance(header.get("max_tokens"), int):
        return dict(header)
    fields: dict[str, Any] = {"max_tokens": header["max_tokens"], "temperature": 0}
    if header.get("seed") is not None:
        fields["seed"] = header["seed"]
    return {**header, "profile": "paper", "generation": fields}


def play_lines(results: Mapping[str, Any]) -> list[str]:
    """``[play: rules show, profile reasoning (max_completion_tokens 800), model M]`` for the
    results of a play log (a line of evaluate's table title); ``[]`` for other results. Only
    what the log recorded: a person's log has no generation (``human player NAME``), a
    model's log without a profile shows its generation fields as recorded (a log converted
    from inspect-ai), or says it has none; the models the server named in its answers when
    the log recorded them (``answered by``)."""
    from ..provenance import describe_generation

    header = results.get("play_log")
    if not isinstance(header, Mapping):
        return []
    header = with_implied_fields(header)
    parts = [f"rules {header.get('rules')}"]
    if header.get("player_kind") != "human":
        fields = header.get("generation")
        if "profile" in header:
            parts.append(f"profile {describe_generation(header['profile'], fields)}")
        elif isinstance(fields, Mapping):  # no profile: the fields as recorded (inspect-ai)
            sent = ", ".join(f"{k} {v}" for k, v in fields.items())
            parts.append(f"generation {sent or 'not set (the server defaults)'}")
        else:
            parts.append("generation not recorded")
    parts.append(describe_player(header))
    answered = header.get("answered_by")
    if isinstance(answered, list) and answered:
        parts.append(f"answered by {', '.join(map(str, answered))}")
    return [f"play: {', '.join(parts)}"]
