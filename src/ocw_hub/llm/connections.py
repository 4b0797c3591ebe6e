"""An LLM's task-2 answer (text) as 4 connections in gold group order (robust mode).

Each line with a ``Connection:`` mark (any case, markdown allowed) goes to the gold group
whose clues it repeats most (a maximum-weight assignment, ``scipy``'s
``linear_sum_assignment``), lines repeating no clue in their order; an answer without marks
gives its lines (or JSON list of strings) in order. Repairs are ``{kind, ...}`` with kinds
``json``, ``no_markers``, ``reordered``, ``missing_connection``, ``truncated``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .answer_text import json_string_lists
from .answer_text import split_lines as _split_lines
from .paper_parse import pad
from .parsing import BULLET, FUZZY_THRESHOLD, GROUP_LABEL, N_GROUPS, normalise

_MARK = re.compile(r"\bconnections?\b\s?(?:\d+\s?)?[:\-–—=]", re.IGNORECASE)
_EDGE = " \t\"'“”‘’`«»[](){}.,;:!?*_"


def _clean_connection(text: str) -> str:
    text = text.replace("**", "").replace("`", "").strip().strip(" \t\"'“”‘’*")
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def _overlaps(pre: str, groups: Sequence[Sequence[str]]) -> list[int]:
    """How many clues of each gold group the text before a ``Connection:`` names."""
    items = [normalise(i.strip(_EDGE)) for i in re.split(r"[,;|]", pre) if i.strip(_EDGE)]
    if not items:
        return [0] * len(groups)
    from rapidfuzz import fuzz, process

    counts = []
    for group in groups:
        scores = process.cdist(items, [normalise(c) for c in group], scorer=fuzz.ratio)
        counts.append(int((scores.max(axis=0) >= FUZZY_THRESHOLD).sum()))
    return counts


def _marked_lines(lines: Sequence[str]) -> list[tuple[str, str]]:
    """(text before, connection) of each line holding a ``Connection:`` mark."""
    found = []
    for line in lines:
        line = line.replace("**", "")
        match = _MARK.search(line)
        if match:
            found.append((line[: match.start()], line[match.end() :]))
    return found


def _unmarked(lines: Sequence[str], repairs: list[dict[str, Any]]) -> list[str]:
    """Connections of an answer without marks: its JSON list of strings, else its non-empty
    lines without labels or bullets, in order."""
    lists = json_string_lists("\n".join(lines))
    if lists:
        repairs.append({"kind": "json"})
        return [_clean_connection(c) for c in lists[0]]
    found = []
    for line in lines:
        line = line.strip()
        for pattern in (GROUP_LABEL, BULLET):
            match = pattern.match(line)
            line = line[match.end() :] if match else line
        if line.strip():
            found.append(_clean_connection(line))
    return found


def _assigned(
    marked: Sequence[tuple[str, str]],
    groups: Sequence[Sequence[str]],
    repairs: list[dict[str, Any]],
) -> list[str]:
    """The marked lines' connections in gold group order (a maximum-weight assignment)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    weight = np.array([[10.0 * n for n in _overlaps(pre, groups)] for pre, _ in marked])
    for rank in range(min(len(marked), N_GROUPS)):
        weight[rank, rank] += 1.0
    rows, cols = linear_sum_assignment(weight, maximize=True)
    result = [""] * N_GROUPS
    for row, col in zip(rows, cols, strict=True):
        result[col] = _clean_connection(marked[row][1])
        if row != col:
            repairs.append({"kind": "reordered", "line": int(row) + 1, "group": int(col) + 1})
    return result


def robust_connections(
    text: str, groups: Sequence[Sequence[str]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """Task 2: 4 connections in gold group order, and the repairs (module docstring)."""
    repairs: list[dict[str, Any]] = []
    lines = [line for line in _split_lines(text) if not line.lstrip().startswith("```")]
    marked = _marked_lines(lines)
    if not marked:
        repairs.append({"kind": "no_markers"})
        found = _unmarked(lines, repairs)
        result = pad(found, N_GROUPS, "")
    else:
        result = _assigned(marked, groups, repairs)
        found = [c for _, c in marked]
    for index, connection in enumerate(result):
        if not connection:
            repairs.append({"kind": "missing_connection", "group": index + 1})
    if len(found) > N_GROUPS:
        repairs.append({"kind": "truncated", "what": "connections", "found": len(found)})
    return result, repairs
