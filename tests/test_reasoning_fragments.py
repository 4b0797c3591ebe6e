"""Issue 22: a fragment of a reasoning tag (``/think>``, ``</think``, ``<think``,
``think>``) is a tag, and ``<thinking>`` and ``<reasoning>`` blocks are reasoning too: none is
ever kept in an answer reported clean (WoTe spans, OCW groups)."""

from __future__ import annotations

import pytest

from ocw_hub.llm.answer_text import drop_reasoning
from ocw_hub.llm.parsing import parse_groups
from ocw_hub.llm.wote import SpanParse, parse_wote_answer

#: (the model's content, the span it states once its reasoning is dropped, or "" for none)
FRAGMENTS = [
    ("Let me look at the recipe./think>Preheat the oven", "Preheat the oven"),
    ("reasoning here /THINK>\n\nPreheat the oven", "Preheat the oven"),
    ("the user wants the first step think> Preheat the oven", "Preheat the oven"),
    ("<think>the first step</think\nPreheat the oven", "Preheat the oven"),
    ("</think Preheat the oven", "Preheat the oven"),
    ("Preheat the oven <think the user may also want", ""),  # opened, never closed
    ("<Think the oven first", ""),
]


def _reasoning_dropped(parsed: SpanParse, span: str) -> None:
    """``span`` is the answer once its reasoning is dropped (a repair), or none for an
    unclosed block (unrecoverable)."""
    assert parsed.prediction_text == span
    if span:
        assert parsed.status == "repaired"
        assert {"kind": "reasoning_dropped"} in parsed.repairs
    else:
        assert (parsed.status, parsed.reason) == ("unrecoverable", "unclosed_reasoning")


@pytest.mark.parametrize(("text", "span"), FRAGMENTS)
def test_wote_answer_never_keeps_a_tag_fragment(text: str, span: str) -> None:
    parsed = parse_wote_answer(text, "stop")
    assert "think" not in parsed.prediction_text.casefold()
    assert parsed.status != "clean"
    _reasoning_dropped(parsed, span)


@pytest.mark.parametrize(
    "text",
    ["I think Paris", "thinking aloud: Paris", "rethink> no", "my reasoning: Paris"],
)
def test_the_word_think_is_not_a_tag(text: str) -> None:
    assert drop_reasoning(text) == (text, None, False)  # ``think>`` only at a word start


WORDS = [f"w{i:02d}" for i in range(16)]
LINES = "\n".join(", ".join(WORDS[g * 4 : g * 4 + 4]) for g in range(4))


@pytest.mark.parametrize("prefix", ["thinking about it /think>", "hm </think", "ok think>"])
def test_ocw_groups_after_a_fragment(prefix: str) -> None:
    parsed = parse_groups(f"{prefix}\n{LINES}", WORDS)
    assert parsed.groups == [WORDS[g * 4 : g * 4 + 4] for g in range(4)]
    assert parsed.status != "clean"


#: (the model's content, the span once its reasoning is dropped, or "" for none)
OTHER_TAGS = [
    ("<thinking>The first step is preheating.</thinking>\nPreheat the oven", "Preheat the oven"),
    ("<reasoning>step one</reasoning> Preheat the oven", "Preheat the oven"),
    ("<THINKING>a</THINKING><Reasoning>b</Reasoning>Preheat the oven", "Preheat the oven"),
    ("the user asks for step one</reasoning>\nPreheat the oven", "Preheat the oven"),
    ("<thinking>a </think> b</thinking>Preheat the oven", "Preheat the oven"),  # own close only
    ("<reasoning>the oven first, then", ""),  # opened, never closed
    ("Preheat the oven <thinking>or the grill?", ""),
]


@pytest.mark.parametrize(("text", "span"), OTHER_TAGS)
def test_wote_answer_drops_thinking_and_reasoning_blocks(text: str, span: str) -> None:
    parsed = parse_wote_answer(text, "stop")
    _reasoning_dropped(parsed, span)


@pytest.mark.parametrize(
    "prefix",
    [
        "<thinking>planets? metals?</thinking>",
        "<reasoning>\nw00 w01\n</reasoning>",
        "<Thinking>x</Thinking>\n<reasoning>y</reasoning>",
    ],
)
def test_ocw_groups_after_thinking_and_reasoning_blocks(prefix: str) -> None:
    parsed = parse_groups(f"{prefix}\n{LINES}", WORDS)
    assert parsed.groups == [WORDS[g * 4 : g * 4 + 4] for g in range(4)]
    assert parsed.status == "repaired"
    assert {"kind": "reasoning_dropped"} in parsed.repairs


@pytest.mark.parametrize("prefix", ["<thinking>planets, metals", "<reasoning>"])
def test_ocw_unclosed_thinking_or_reasoning_is_no_answer(prefix: str) -> None:
    parsed = parse_groups(f"{prefix}\n{LINES}", WORDS)
    assert (parsed.status, parsed.reason) == ("unrecoverable", "unclosed_reasoning")


def test_dropping_reasoning_is_linear() -> None:
    import time

    text = "<thinking>" + "<reasoning></think>x" * 50_000 + "</thinking>Paris"
    began = time.perf_counter()
    assert drop_reasoning(text) == ("Paris", None, True)
    assert time.perf_counter() - began < 2.0
