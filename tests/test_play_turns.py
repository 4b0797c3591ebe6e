"""The connection round of the play protocol reads an answer as ``parse`` does: reasoning blocks
dropped, an answer cut at the token limit or inside an unclosed block names no connection."""

from __future__ import annotations

from typing import Any

import pytest
from play_support import fixture_rows

from ocw_hub.play.turns import WallPlay, take_answer

HEADER = {"rules": "show", "max_guesses": 20, "max_invalid": 3}


def _at_connection_round() -> tuple[WallPlay, list[str]]:
    row = fixture_rows()[0]
    wall = WallPlay(row, HEADER)
    for group in list(row["groups"].values())[:3]:  # the fourth group is then found too
        take_answer(wall, ", ".join(group["gt_words"]), "stop", {})
    assert wall.state.ended is not None and wall.wants_connections
    asked = wall.messages[-1]["content"].splitlines()
    lines = [line for line in asked if line.endswith(". Connection:")]
    gold = {", ".join(g["gt_words"]): g["gt_connection"] for g in row["groups"].values()}
    return wall, [f"{line} {gold[line.removesuffix('. Connection:')]}" for line in lines]


def _answers(text: str, finish: str = "stop") -> list[Any]:
    wall, _ = _at_connection_round()
    records = take_answer(wall, text, finish, {})
    assert [r["record"] for r in records] == ["connections", "end"]
    return records[0]["answers"]


def test_the_final_answer_is_read_not_the_reasoning() -> None:
    wall, right = _at_connection_round()
    wrong = [line.rsplit(" ", 1)[0] + " no idea" for line in right]
    gold = _answers("\n".join(right))
    assert all(gold)
    thought = "<think>\n" + "\n".join(right) + "\n</think>\nI do not know any of them."
    assert not set(_answers(thought)) & set(gold)
    draft = "<think>\n" + "\n".join(wrong) + "\n</think>\n" + "\n".join(right)
    assert _answers(draft) == gold


@pytest.mark.parametrize(
    ("prefix", "finish"), [("<think>\n", "stop"), ("", "length")], ids=["unclosed", "cut"]
)
def test_no_answer_names_no_connection(prefix: str, finish: str) -> None:
    _, right = _at_connection_round()
    assert _answers(prefix + "\n".join(right), finish) == ["", "", "", ""]
