"""One wall's conversation turn by turn, as the inspect-ai task ``ocw_play`` plays it
(:mod:`ocw_hub.inspect_tasks.ocw_play`): :class:`WallPlay` holds the messages and the state,
:func:`take_answer` reads one answer by the rules and returns the play-log records it makes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..llm.answer_text import drop_reasoning
from ..llm.connections import robust_connections
from ..llm.parsing import parse_guess
from . import rules
from .conversation import clue_order, connection_groups, connection_round, feedback, opening
from .log import guess_record, start_state


class WallPlay:
    """One wall's conversation (``messages``, OpenAI chat messages) and state; ``done`` once
    its end record is made."""

    def __init__(self, row: Mapping[str, Any], header: Mapping[str, Any]) -> None:
        self.row, self.id = row, str(row["wall_id"])
        self.order = clue_order(row)
        self.state = start_state(header, row)
        self.messages: list[dict[str, str]] = opening(row, self.state)
        self.turn = 0
        self.connections_done = False
        self.done = False

    @property
    def wants_connections(self) -> bool:
        return self.state.rule_set.connection_round and not self.connections_done

    def after_answer(self, text: str, clues: Sequence[str] | None, verdict: rules.Verdict) -> None:
        """Advance past an answer: it goes back to the model without its reasoning blocks
        (an unclosed block: nothing of it), then the feedback or the connection round."""
        answer, problem, dropped = drop_reasoning(text)
        said = text if not dropped and problem is None else ("" if problem else answer.strip())
        self.messages.append({"role": "assistant", "content": said})
        self.state, self.turn = verdict.state, self.turn + 1
        if self.state.ended is None:
            self.messages.append({"role": "user", "content": feedback(verdict, clues, self.order)})
        elif self.wants_connections:
            self.messages.append(
                {"role": "user", "content": connection_round(self.state, self.row)}
            )

    def end_record(self) -> dict[str, Any]:
        """The wall's ``end`` record (the wall is then done)."""
        self.done = True
        return {"record": "end", "wall_id": self.id, "reason": self.state.ended}


#: Finish reasons of an answer that is no guess whatever its text, as the rules' reason: cut,
#: stopped by the content filter, a tool call (the model asked for a tool; none is given).
NO_GUESS = {"length": "truncated", "content_filter": "refusal", "tool_calls": "unparseable"}


def take_answer(
    wall: WallPlay, text: str, finish: str | None, extra: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The records of one answer (``finish``: its ``finish_reason``; ``extra``: optional
    fields of each record, e.g. ``usage``), the wall advanced past it: a ``guess`` record, or
    the ``connections`` record; then the ``end`` record when the wall is over."""
    extra = {"text": text, "finish_reason": finish, **extra}
    if wall.state.ended is not None:  # the connection round, read as ``parse`` reads one
        groups = connection_groups(wall.state)
        answer, problem, _dropped = drop_reasoning(text)
        if problem is not None or finish in NO_GUESS:  # unclosed reasoning, cut: no answer
            answers = [""] * len(groups)
        else:
            answers, _repairs = robust_connections(answer, groups)
        wall.connections_done = True
        made = {"record": "connections", "wall_id": wall.id, "groups": groups, "answers": answers}
        return [{**made, **extra}, wall.end_record()]
    clues: list[str] | None
    reason: str | None
    if finish in NO_GUESS:
        clues, reason = None, NO_GUESS[finish]
    else:
        clues, reason = parse_guess(text, wall.order)  # in play or not: the rules say
    verdict = rules.apply(wall.state, clues, reason)
    out = [guess_record(wall.id, wall.turn + 1, clues, verdict, **extra)]
    wall.after_answer(text, clues, verdict)
    if wall.state.ended is not None and not wall.wants_connections:
        out.append(wall.end_record())
    return out
