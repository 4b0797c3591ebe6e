"""The messages of one wall's conversation (``ocw_play``): the rules and the clues, the
feedback after each answer, the connection round. Everything here is the package's own text
and the wall's clues (each checked to be one line, :func:`ocw_hub.llm.prompts.one_line`); a
server's answer is only ever its own ``assistant`` message, so it cannot change this
structure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..llm.prompts import format_group, one_line
from . import rules

SYSTEM = "You are a contestant on the quiz show Only Connect, solving the connecting wall."
_ASK = (
    "Answer with one group of four clues on one line, separated by commas, exactly as the clues "
    "are written, and nothing else."
)
_RULES = {
    "show": (
        "The 16 clues below form four groups of four; each group has a connection. Propose one "
        "group of four per turn; you are told whether it is right, and a right group leaves the "
        "wall. Wrong guesses are free until {free} groups are found; from then on you have {lives} "
        "lives, and the {last} wrong guess freezes the wall. When three groups are found the last "
        "four clues are the fourth group. You have at most {max_guesses} guesses. After the wall "
        "you will be asked for the connection of each group."
    ),
    "nyt": (
        "The 16 clues below form four groups of four; each group has a connection. Propose one "
        "group of four per turn; you are told whether it is right, and a right group leaves the "
        "clues. You may make {lives} mistakes in all; you are told when a wrong guess is one clue "
        "away from a group. When three groups are found the last four clues are the fourth "
        "group."
    ),
}


def clue_order(wall: Mapping[str, Any]) -> list[str]:
    """The wall's 16 clues in its shuffled order (``words``), each one line."""
    item = f"wall {wall.get('wall_id')!r}"
    return [one_line(w, item, f"words[{i}]") for i, w in enumerate(wall["words"])]


def _in_play(state: rules.WallState, order: Sequence[str]) -> str:
    left = state.in_play
    shown = []
    for clue in order:
        if left[clue] > 0:
            shown.append(clue)
            left[clue] -= 1
    return ", ".join(shown)


def opening(wall: Mapping[str, Any], state: rules.WallState) -> list[dict[str, str]]:
    """The system and first user messages of a wall."""
    r = state.rule_set
    text = _RULES[state.rules].format(
        max_guesses=state.max_guesses,
        free=rules.number_word(r.free_until),
        lives=rules.number_word(r.lives),
        last=rules.ORDINALS[r.lives],
    )
    clues = ", ".join(clue_order(wall))
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{text}\n\nClues: {clues}\n\n{_ASK}"},
    ]


def feedback(verdict: rules.Verdict, clues: Sequence[str] | None, order: Sequence[str]) -> str:
    """The user message after an answer (the wall still in play)."""
    state = verdict.state
    if verdict.verdict == "invalid":
        head = f"That is not a valid guess ({verdict.reason}); it costs nothing."
    elif verdict.verdict == "correct":
        head = f"Correct: {', '.join(clues or ())} is a group."
    elif verdict.verdict == "one_away":
        head = "Incorrect, but one away: three of those clues are in one group."
    else:
        head = "Incorrect."
    found = f"Groups found: {len(state.found)} of 4."
    lives = "" if state.lives is None else f" Lives left: {state.lives}."
    return f"{head} {found}{lives}\n\nClues still in play: {_in_play(state, order)}\n\n{_ASK}"


def connection_groups(state: rules.WallState) -> list[list[str]]:
    """The four groups of the connection round: the found ones in the order found, then the
    others (the wall resolved), in gold order."""
    rest = [i for i in range(len(state.groups)) if i not in state.found]
    return [list(state.groups[i]) for i in (*state.found, *rest)]


def connection_round(state: rules.WallState, wall: Mapping[str, Any]) -> str:
    """The user message asking for the four connections after the wall."""
    item = f"wall {wall.get('wall_id')!r}"
    groups = connection_groups(state)
    lines = "\n".join(format_group([one_line(c, item, "groups") for c in g]) for g in groups)
    ended = "The wall is solved." if state.solved else "The wall is frozen; here it is resolved."
    return (
        f"{ended} Name the connection of each of the four groups: copy each line and complete "
        f"it after 'Connection:'.\n\n{lines}"
    )
