"""An LLM's task-2 answer (text) as 4 connections in gold group order (robust mode).

The answer lines are found first, other lines (headings, commentary) set aside:

* lines with a ``Connection:`` mark (any case, markdown allowed; ``Connection 2:``,
  ``Connection -``), less those that name neither a connection nor a clue (a heading such as
  ``Here are the connections:``); each goes to the gold group whose clues the text before
  its mark repeats most (a maximum-weight assignment, ``scipy``'s
  ``linear_sum_assignment``), a line repeating no clue to the group of its number
  (``2.``, ``Group 2:``, ``Connection 2:``; when every line has one, all different, 1-4)
  or else of its place among the answer lines;
* else the answer's JSON list of strings;
* else its lines marked as a list (numbers, bullets, ``Group N:`` labels; the least indented
  ones), each the connection of the group of its number (as above), else of its place;
* else its unmarked lines less headings (a line ending with ``:``, a markdown heading):
  the first paragraph of 4 lines, else every line, in order.

A connection is kept as written, less its surrounding spaces, markdown bold (``**``),
backticks, ``*`` at its ends and a final full stop (not ``..``): never a quote, a bracket
or other punctuation, which gold connections hold (``"New" US States``, ``"R"``,
``Blond(e)s``). The metric then compares it lowercased and stripped. Repairs are
``{kind, ...}`` with kinds ``json``, ``no_markers``, ``set_aside`` (lines that are not
answers, by count), ``reordered``, ``missing_connection``, ``truncated``.
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
_NUMBER = re.compile(r"\d{1,3}|\b[a-d]\b", re.IGNORECASE)
_DECORATION = " \t>#"


def _clean_connection(text: str) -> str:
    """A connection as written, less what the module docstring says and nothing else."""
    text = text.replace("**", "").replace("`", "").strip(" \t*")
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def _overlaps(pre: str, groups: Sequence[Sequence[str]]) -> list[int]:
    """How many clues of each gold group the text before a ``Connection:`` names."""
    items = [normalise(i.strip(_EDGE)) for i in re.split(r"[,;|]", pre) if i.strip(_EDGE)]
    if not items:
        return [0] * len(groups)
    from rapidfuzz import fuzz, process

    clues = [normalise(c) for group in groups for c in group]
    named = process.cdist(items, clues, scorer=fuzz.ratio).max(axis=0) >= FUZZY_THRESHOLD
    counts, start = [], 0
    for group in groups:
        counts.append(int(named[start : start + len(group)].sum()))
        start += len(group)
    return counts


def _list_mark(line: str) -> tuple[int | None, str] | None:
    """(the group number it names or None, the rest) of a line marked as a list item
    (a bullet, a number, a ``Group N:`` label, one after the other), else None."""
    rest, number, marked = line.replace("**", "").strip(_DECORATION), None, False
    for pattern in (BULLET, GROUP_LABEL):
        match = pattern.match(rest)
        if match is None:
            continue
        found = _NUMBER.search(match.group())
        if found is not None:
            text = found.group().lower()
            number = int(text) if text.isdigit() else "abcd".index(text) + 1
        rest, marked = rest[match.end() :], True
    return (number, rest) if marked else None


def _columns(numbers: Sequence[int | None]) -> list[int]:
    """The group (0-based) each answer line names: its number when every line has one, all
    different and within 1-4, else its place."""
    if all(n is not None and 1 <= n <= N_GROUPS for n in numbers) and len(set(numbers)) == len(
        numbers
    ):
        return [int(n) - 1 for n in numbers if n is not None]
    return list(range(len(numbers)))


def _marked_lines(
    lines: Sequence[str], groups: Sequence[Sequence[str]]
) -> tuple[list[tuple[int | None, str, list[int]]], int]:
    """(the group number it names, connection, clues of each group named) of each answer
    line holding a ``Connection:`` mark, and how many marked lines name neither a
    connection nor a clue (headings, set aside)."""
    found, aside = [], 0
    for line in lines:
        line = line.replace("**", "")
        match = _MARK.search(line)
        if match is None:
            continue
        pre, connection = line[: match.start()], _clean_connection(line[match.end() :])
        overlaps = _overlaps(pre, groups)
        if not (connection or any(overlaps)):
            aside += 1
            continue
        mark = _list_mark(pre)
        digits = re.search(r"\d+", match.group())
        number = mark[0] if mark is not None else None
        found.append((int(digits.group()) if digits else number, connection, overlaps))
    return found, aside


def _list_lines(lines: Sequence[str]) -> list[str] | None:
    """The lines marked as a list (the least indented ones), None when no line is."""
    marked = [line for line in lines if line.strip() and _list_mark(line) is not None]
    if not marked:
        return None
    indent = min(len(line) - len(line.lstrip()) for line in marked)
    return [line for line in marked if len(line) - len(line.lstrip()) == indent]


def _plain_lines(lines: Sequence[str]) -> list[str]:
    """Unmarked answer lines: headings dropped, the first paragraph of 4 lines, else all."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        text = line.replace("**", "").strip()
        if not text:
            paragraphs.append([])
        elif not (text.endswith(":") or text.startswith("#")):
            paragraphs[-1].append(line)
    for paragraph in paragraphs:
        if len(paragraph) == N_GROUPS:
            return paragraph
    return [line for paragraph in paragraphs for line in paragraph]


def _unmarked(lines: Sequence[str], repairs: list[dict[str, Any]]) -> list[str]:
    """Connections of an answer without marks, in gold group order (module docstring)."""
    lists = json_string_lists("\n".join(lines))
    if lists:
        repairs.append({"kind": "json"})
        return [_clean_connection(c) for c in lists[0]]
    listed = _list_lines(lines)
    chosen = _plain_lines(lines) if listed is None else listed
    aside = sum(bool(line.strip()) for line in lines) - len(chosen)
    if aside:
        repairs.append({"kind": "set_aside", "lines": aside})
    if listed is None:
        return [_clean_connection(line) for line in chosen]
    marks = [_list_mark(line) for line in listed]
    texts = [_clean_connection(mark[1]) if mark else "" for mark in marks]
    return _in_columns(texts, _columns([mark[0] if mark else None for mark in marks]), repairs)


def _in_columns(texts: list[str], columns: list[int], repairs: list[dict[str, Any]]) -> list[str]:
    """``texts`` placed in gold group order by their ``columns`` (each move a repair)."""
    if columns == list(range(len(texts))):
        return texts
    result = [""] * N_GROUPS
    for line, (column, text) in enumerate(zip(columns, texts, strict=True)):
        result[column] = text
        if line != column:
            repairs.append({"kind": "reordered", "line": line + 1, "group": column + 1})
    return result


def _assigned(
    marked: Sequence[tuple[int | None, str, list[int]]],
    repairs: list[dict[str, Any]],
) -> list[str]:
    """The marked lines' connections in gold group order (a maximum-weight assignment)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    weight = np.array([[10.0 * n for n in overlaps] for _, _, overlaps in marked])
    columns = _columns([number for number, _, _ in marked])
    for row, column in enumerate(columns):
        if column < N_GROUPS:
            weight[row, column] += 1.0
    rows, cols = linear_sum_assignment(weight, maximize=True)
    result = [""] * N_GROUPS
    for row, col in zip(rows, cols, strict=True):
        result[col] = marked[row][1]
        if row != col:
            repairs.append({"kind": "reordered", "line": int(row) + 1, "group": int(col) + 1})
    return result


def robust_connections(
    text: str, groups: Sequence[Sequence[str]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """Task 2: 4 connections in gold group order, and the repairs (module docstring)."""
    repairs: list[dict[str, Any]] = []
    lines = [line for line in _split_lines(text) if not line.lstrip().startswith("```")]
    marked, aside = _marked_lines(lines, groups)
    if marked and aside:
        repairs.append({"kind": "set_aside", "lines": aside})
    found: list[str]
    if not marked:
        repairs.append({"kind": "no_markers"})
        found = _unmarked(lines, repairs)
        result = pad(found, N_GROUPS, "")
    else:
        result = _assigned(marked, repairs)
        found = [c for _, c, _ in marked]
    for index, connection in enumerate(result):
        if not connection:
            repairs.append({"kind": "missing_connection", "group": index + 1})
    if len(found) > N_GROUPS:
        repairs.append({"kind": "truncated", "what": "connections", "found": len(found)})
    return result, repairs
