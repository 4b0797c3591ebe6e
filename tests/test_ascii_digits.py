"""Numbers read from input text are ASCII digits only (issue 30, item 8): ``str.isdigit``
accepts superscripts and other scripts' digits, which ``int`` then refuses (a traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ocw_hub.baselines.vectors import _header
from ocw_hub.llm.log import parse_follow_up_id
from ocw_hub.llm.prompts import _group_number
from ocw_hub.llm.responses import Response
from ocw_hub.llm.vote import fold_sample_lines

NOT_ASCII = ["²", "٣", "１", "⑤"]  # all str.isdigit() or isdecimal(), none ASCII


@pytest.mark.parametrize("digit", NOT_ASCII)
def test_a_follow_up_id_with_other_digits_is_no_follow_up(digit: str) -> None:
    assert parse_follow_up_id("882c#reprompt-2") == ("882c", 2)
    assert parse_follow_up_id(f"882c#reprompt-{digit}") is None


@pytest.mark.parametrize("digit", NOT_ASCII)
def test_a_sample_id_with_other_digits_is_left_as_it_is(digit: str) -> None:
    lines = {key: Response("882c", "x", 1) for key in ("882c#1", f"882c#{digit}")}
    folded = fold_sample_lines(lines, {"882c"})
    assert sorted(folded) == ["882c", f"882c#{digit}"]


@pytest.mark.parametrize("digit", NOT_ASCII)
def test_a_group_key_with_other_digits_sorts_first(digit: str) -> None:
    assert _group_number("group_12") == (12, "group_12")
    assert _group_number(f"group_{digit}") == (0, f"group_{digit}")


@pytest.mark.parametrize("digit", NOT_ASCII)
def test_a_vectors_line_with_other_digits_is_no_header(digit: str) -> None:
    assert _header(Path("v.txt"), "400000 300") == 300
    assert _header(Path("v.txt"), f"400000 {digit}") is None
