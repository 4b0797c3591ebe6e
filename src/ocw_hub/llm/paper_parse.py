"""The upstream notebook's lenient parsing (``ocw-hub parse --mode paper``), reproduced
exactly so that the paper's figures can be reproduced.

* Task 1: remove every ``Group N:`` (any case), keep the first 4 non-empty lines
  (stripped), split each on commas, strip each piece, cut or pad with empty strings to 4
  clues and 4 groups, then drop a trailing ``. Connection: ...`` (any case) from each clue.
* Task 2: for every line of the answer (empty lines included), the text after the first
  ``Connection:`` (case as written), stripped, else ``""``; the first 4 lines, padded with
  ``""``, in gold group order.

Notes are ``{kind: "padded" | "truncated", what, found}``.
"""

from __future__ import annotations

import re
from typing import Any

from .parsing import GROUP_SIZE, N_GROUPS

_GROUP_LABEL = re.compile(r"Group\s*\d+\s*:?", re.IGNORECASE)
_TRAILING_CONNECTION = re.compile(r"\. Connection:.*", re.IGNORECASE)
_CONNECTION = re.compile(r"Connection:\s*(.*)")


def pad(items: list[Any], size: int, filler: Any) -> list[Any]:
    """``items`` cut or padded with ``filler`` to ``size``."""
    return items[:size] + [filler] * (size - len(items))


def _size_notes(what: str, count: int, size: int) -> list[dict[str, Any]]:
    if count < size:
        return [{"kind": "padded", "what": what, "found": count}]
    if count > size:
        return [{"kind": "truncated", "what": what, "found": count}]
    return []


def paper_groups(text: str) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """Task 1 as the notebook parsed it: 4 groups of 4 strings, and what was padded or
    truncated."""
    lines = [line.strip() for line in _GROUP_LABEL.sub("", text).splitlines()]
    lines = [line for line in lines if line]
    notes = _size_notes("lines", len(lines), N_GROUPS)
    groups = []
    for line in pad(lines, N_GROUPS, ""):
        clues = [piece.strip() for piece in line.split(",")]
        if line:
            notes += _size_notes(f"clues in {line!r}", len(clues), GROUP_SIZE)
        groups.append([_TRAILING_CONNECTION.sub("", c) for c in pad(clues, GROUP_SIZE, "")])
    return groups, notes


def paper_connections(text: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Task 2 as the notebook parsed it: the text after ``Connection:`` on each of the first
    4 lines (``""`` without one), in gold group order."""
    found = []
    for line in text.splitlines():
        match = _CONNECTION.search(line)
        found.append(match.group(1).strip() if match else "")
    return pad(found, N_GROUPS, ""), _size_notes("lines", len(found), N_GROUPS)
