"""Plain steps on an answer's text shared by the task-1 and task-2 parsers: lines on
``\n`` only, reasoning blocks dropped, the string lists of a JSON value. Linear in the text,
no recursion on nesting."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["drop_reasoning", "json_string_lists", "split_lines"]

_THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)


def split_lines(text: str) -> list[str]:
    """Lines on ``\\n`` (``\\r\\n`` and ``\\r`` too), not on other Unicode line breaks."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def drop_reasoning(text: str) -> tuple[str, str | None, bool]:
    """The answer without its ``<think>…</think>`` blocks (any case), a problem, and
    whether a block was dropped. An unclosed ``<think>`` leaves no answer (problem
    ``unclosed_reasoning``); text before a lone ``</think>`` is reasoning too; a
    ``<think>`` inside a block is part of it. One pass over the tags, offsets in ``text``."""
    kept: list[str] = []
    start, inside, dropped = 0, False, False
    for tag in _THINK_TAG.finditer(text):
        if tag.group(1):  # </think>
            if not inside:
                kept = []  # all before a lone closing tag is thought
            start, inside, dropped = tag.end(), False, True
        elif not inside:
            kept.append(text[start : tag.start()])
            inside = True
    if inside:
        return "".join(kept), "unclosed_reasoning", True
    kept.append(text[start:])
    return "".join(kept), None, dropped


def _string_lists(value: Any) -> list[list[str]]:
    """The lists of strings inside a JSON value, in document order (iterative)."""
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list) and node and all(isinstance(v, str) for v in node):
            found.append(node)
        elif isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, dict):
            stack.extend(reversed(list(node.values())))
    return found


def json_string_lists(text: str) -> list[list[str]] | None:
    """The string lists of the JSON value the answer holds (first ``[``/``{`` to the last
    ``]``/``}``), else None."""
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return None
    start, end = min(starts), max(text.rfind("]"), text.rfind("}")) + 1
    try:
        value = json.loads(text[start:end])
    except (ValueError, RecursionError):
        return None
    lists = _string_lists(value)
    return lists or None
