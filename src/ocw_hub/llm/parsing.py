"""An LLM's task-1 answer (text) as the partition it states, or no partition at all.

The law (``ocw-hub parse``, robust mode): a wall's parse is

* ``clean``: the answer states 4 groups of 4 clues, every clue written exactly as the wall
  spells it, in one of the layouts below;
* ``repaired``: the same, after repairs that cannot change the partition, each recorded:
  ``quotes``, ``case_spacing`` (case, spacing or punctuation differ), ``explanation_dropped``
  (``Nuts (as in crazy)``), ``spelling`` (the item's one nearest look-alike clue, that no
  other item names: see :func:`look_alikes`), ``echo_ignored`` (a line repeating 8 or more
  clues besides the 4 groups), ``reasoning_dropped``;
* ``unrecoverable``, with a ``reason`` and a ``detail``: anything else (fewer or more than
  4 groups, a group not of 4, a clue named twice, an item that is no clue of the wall, an
  item as near two clues (``ambiguous_item``), an unclosed reasoning block, a refusal). No
  group is guessed: the prediction is 4 groups of 4 empty strings, which score as wrong.

A line of items counts as a group when 2 or more of its items name a clue or are a clue's
look-alike (a line of four clues each with a typo, ``Suothpaw, Manciin, Gauhce, Lfet``, is a
group whose items are then spelled, not prose).

Layouts read: one group per line with clues separated by commas, semicolons, pipes, tabs
or slashes (``and`` before the last clue allowed), behind bullets, numbers, ``Group N:``
or ``Name:`` labels and markdown emphasis, followed or not by ``Connection: …``; several
groups on one line (``a, b, c, d; e, f, g, h``, ``[a, b, c, d], [e, …]``, ``Group 1: … Group
2: …``); one clue per line in blocks under group headers or between blank lines; markdown
tables, with or without a connection column, one clue per cell or the clues in one cell;
JSON (lists of clue lists, or objects holding them), in code fences or not. Clues of the
wall holding a separator (``1,000``, ``Salt and pepper``) are kept whole.

Every step is linear in the length of the answer (no backtracking regular expression,
no recursion on nesting).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..resources import load_sibling
from .answer_text import drop_reasoning, json_string_lists, split_lines

#: Clues per group, groups per wall (the OCW builder's, ``ocw_walls.py``).
GROUP_SIZE, N_GROUPS = load_sibling("ocw_walls").GROUP_SIZE, load_sibling("ocw_walls").N_GROUPS
#: Least ``rapidfuzz.fuzz.ratio`` (0-100, on normalised text) of a misspelt item to its clue.
FUZZY_THRESHOLD = 80.0
#: Characters of a clue per edit a look-alike may have (optimal string alignment distance:
#: a transposition ``Suothpaw`` is one edit), at least one edit.
CHARS_PER_EDIT = 4
#: The repairs a ``repaired`` parse may record.
REPAIR_KINDS = (
    "quotes",
    "case_spacing",
    "explanation_dropped",
    "spelling",
    "echo_ignored",
    "reasoning_dropped",
    "completed",
    "code_fence",
)
#: Reasons of an ``unrecoverable`` parse.
REASONS = (
    "no_answer",
    "refusal",
    "reasoning_only",
    "unclosed_reasoning",
    "truncated",
    "group_count",
    "group_size",
    "duplicate",
    "unknown_item",
    "ambiguous_item",
    "incomplete",
    "no_final_answer",
    "invalid_json",
    "schema_mismatch",
    "no_valid_sample",
)
EMPTY_GROUPS = [[""] * GROUP_SIZE for _ in range(N_GROUPS)]

_PUNCTUATION = re.compile(r"[^\w\s]")
BULLET = re.compile(r"(?:[-*•+]|\(?\d{1,3}[.):]|\d{1,3} ?-)\s")
GROUP_LABEL = re.compile(
    r"(?:group|set|category|row)\s?(?:\d+|[a-d])?\s?(?:\([^)\n]{0,200}\))?\s?(?:[:.)\-–—]|$)",
    re.IGNORECASE,
)
_MID_LABEL = re.compile(r"\b(?:group|set)\s?\d+\s?[:.)\-–—]", re.IGNORECASE)
_CONNECTION = re.compile(r"\bconnections?\b\s?(?:\d+\s?)?[:\-–—=]", re.IGNORECASE)
_AND = re.compile(r"\s(?:and|&)\s", re.IGNORECASE)
_EXPLANATIONS = (" (", " - ", " – ", " — ", ": ", " = ", " -> ", " → ", "(")
_REFUSALS = (
    "i'm sorry",
    "i am sorry",
    "i cannot",
    "i can't",
    "as an ai",
    "unable to",
    "not sure",
    "i don't know",
)
_EDGE = " \t*_`#>"
_QUOTES = "\"'“”‘’«»"


def normalise(text: str) -> str:
    """Text compared ignoring case, spacing, quotes and punctuation (NFKC, casefold); a text
    of punctuation only (``%``) keeps its punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold()
    words = _PUNCTUATION.sub("", text).split()
    return " ".join(words) if words else " ".join(text.split())


@dataclass
class GroupParse:
    """A task-1 answer read.

    Attributes:
        groups: 4 groups of 4 clues (as the wall spells them) when ``clean`` or
            ``repaired``; else 4 groups of 4 empty strings.
        status: ``clean``, ``repaired`` or ``unrecoverable``.
        repairs: ``[{kind, ...details}]``, kinds in :data:`REPAIR_KINDS`.
        layout: how the groups were written (``lines``, ``blocks``, ``table``, ``json``).
        reason: why unrecoverable (one of :data:`REASONS`), else None.
        detail: the reason's specifics (the clue, the count), else None.
    """

    groups: list[list[str]]
    status: str
    repairs: list[dict[str, Any]] = field(default_factory=list)
    layout: str | None = None
    reason: str | None = None
    detail: str | None = None


def unrecoverable(reason: str, detail: str, repairs: list | None = None) -> GroupParse:
    """The parse of an answer that states no partition."""
    groups = [list(g) for g in EMPTY_GROUPS]
    return GroupParse(groups, "unrecoverable", repairs or [], None, reason, detail)


# --------------------------------------------------------------------------------------
# Clue index and item matching
# --------------------------------------------------------------------------------------


class _Clues:
    """The wall's clues by normalised text; a clue that the wall holds twice has 2 slots."""

    def __init__(self, clues: Sequence[str]) -> None:
        self.clues = list(clues)
        self.by_norm: dict[str, str] = {}
        self.count: Counter[str] = Counter(clues)
        for clue in clues:
            self.by_norm.setdefault(normalise(clue), clue)
        self.holding = sorted(
            (c for c in set(clues) if any(s in c for s in ",;|/\t") or _AND.search(c)),
            key=len,
            reverse=True,
        )

    def match(self, item: str) -> tuple[str | None, str | None]:
        """(clue, repair kind or None) of an item, or (None, None)."""
        stripped = item.strip()
        if stripped in self.count:
            return stripped, None
        if stripped.strip(_QUOTES) in self.count:
            return stripped.strip(_QUOTES), "quotes"
        clue = self.by_norm.get(normalise(stripped))
        if clue is not None:
            return clue, "case_spacing"
        for mark in _EXPLANATIONS:
            cut = stripped.find(mark)
            if cut > 0:
                clue = self.by_norm.get(normalise(stripped[:cut]))
                if clue is not None:
                    return clue, "explanation_dropped"
        return None, None


# --------------------------------------------------------------------------------------
# Lines to items
# --------------------------------------------------------------------------------------


def _strip_decoration(line: str, clues: _Clues) -> str:
    """A line without markdown emphasis, a bullet or number, and a group label (unless the
    line is a clue, such as ``Set``)."""
    line = line.replace("**", "").replace("__", "").replace("`", "").strip(_EDGE)
    for pattern in (BULLET, GROUP_LABEL, BULLET, GROUP_LABEL):
        match = pattern.match(line)
        if match and line.strip(" .:") not in clues.count:
            line = line[match.end() :].strip(_EDGE)
    return line


def _drop_connection(line: str) -> str:
    """A group line without its ``Connection: …`` tail (``. Connection:``, ``(Connection:``)."""
    match = _CONNECTION.search(line)
    if match is None:
        return line
    return line[: match.start()].rstrip(" .-–—:;,([\t")


def _protect(line: str, clues: _Clues) -> tuple[str, dict[str, str]]:
    """The wall's clues holding a separator replaced by placeholders."""
    saved: dict[str, str] = {}
    lower = line.lower()
    for clue in clues.holding:
        if clue.lower() not in lower:
            continue
        token = f"\x00{len(saved)}\x00"
        line, count = re.subn(re.escape(clue), token, line, flags=re.IGNORECASE)
        lower = line.lower()
        if count:
            saved[token] = clue
    return line, saved


def _restore(piece: str, saved: dict[str, str]) -> str:
    for token, clue in saved.items():
        piece = piece.replace(token, clue)
    return piece


def _split_items(line: str, clues: _Clues) -> list[str]:
    """The items of one group's text: split on the first separator found among tab, pipe,
    semicolon, comma, slash, then on ``and``/``&``."""
    line, saved = _protect(line, clues)
    pieces = [line]
    for separator in ("\t", "|", ";", ",", "/"):
        if separator in line:
            pieces = line.split(separator)
            break
    pieces = [part for piece in pieces for part in _AND.split(piece)]
    items = [_restore(p, saved).strip(" \t") for p in pieces]
    items = [item if item in clues.count else item.strip(" \t.!?") for item in items]
    return [item for item in items if item]


def _label_cuts(line: str) -> list[str] | None:
    """A line cut before each ``Group N:`` label, None when it holds no second label."""
    starts = [m.start() for m in _MID_LABEL.finditer(line)]
    if not (len(starts) > 1 or (starts and starts[0] > 0)):
        return None
    cuts = [0, *[s for s in starts if s > 0], len(line)]
    return [line[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def _cut_groups(line: str) -> list[str] | None:
    """The texts of the groups a line holds, None when it holds one."""
    labelled = _label_cuts(line)
    if labelled is not None:
        return labelled
    if line.count("[") >= 2 and line.count("]") >= 2:
        return [p.replace("[", "") for p in line.split("]")]
    if "," in line and ";" in line:
        return line.split(";")
    if "," in line and "|" in line and not line.lstrip().startswith("|"):
        return line.split("|")
    return None


def _group_pieces(line: str, clues: _Clues) -> list[str]:
    """A line holding several groups as one text per group (else the line itself)."""
    protected, saved = _protect(line, clues)
    parts = _cut_groups(protected)
    if parts is None:
        return [line]
    parts = [_restore(p, saved).strip(" \t,;.") for p in parts]
    return [p for p in parts if p]


def _drop_name(text: str, clues: _Clues) -> str:
    """``Cocktails: a, b, c, d`` (or ``Cocktails - a, …``) -> ``a, b, c, d`` when
    ``Cocktails`` is not a clue and holds no separator."""
    for mark in (":", " - ", " – ", " — "):
        head, found, tail = text.partition(mark)
        if (
            found
            and not any(s in head for s in ",;|\t")
            and any(s in tail for s in ",;|\t")
            and clues.match(head)[0] is None
        ):
            return tail
    return text


def _table_items(line: str, clues: _Clues) -> list[str] | None:
    """The clue items of a markdown table row (None for a separator row): cells that are
    clues, or one cell holding the clues separated."""
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    if all(set(cell) <= set("-: ") for cell in cells):
        return None
    items = []
    for cell in cells:
        cell = _strip_decoration(cell, clues)
        if clues.match(cell)[0] is not None:
            items.append(cell)
            continue
        pieces = _split_items(cell, clues)
        if len(pieces) > 1 and sum(clues.match(p)[0] is not None for p in pieces) >= 2:
            items += pieces
    return items


# --------------------------------------------------------------------------------------
# The answer as candidate groups
# --------------------------------------------------------------------------------------


def _named(items: Sequence[str], clues: _Clues) -> int:
    return sum(clues.match(i)[0] is not None for i in items)


def _named_or_alike(items: Sequence[str], clues: _Clues) -> int:
    """Items that name a clue or are a clue's look-alike (:func:`look_alikes`)."""
    return sum(clues.match(i)[0] is not None or bool(look_alikes(i, clues)) for i in items)


def _line_items(raw: str, clues: _Clues) -> list[list[str]]:
    """The item lists of a line, one per group it writes."""
    found = []
    for piece in _group_pieces(_strip_decoration(raw, clues), clues):
        piece = _drop_connection(_strip_decoration(piece, clues))
        found.append(_split_items(_drop_name(piece, clues), clues))
    return found


def _rows(raw: str, clues: _Clues) -> tuple[bool, list[list[str] | None]]:
    """Whether a line is a markdown table row, and its item lists (None: a separator row)."""
    stripped = raw.strip().replace("**", "")
    if stripped.startswith("|") and stripped.count("|") >= 2:
        return True, [_table_items(stripped, clues)]
    return False, list(_line_items(raw, clues))


def candidate_groups(text: str, clues: _Clues) -> tuple[list[list[str]], str]:
    """The groups the answer writes, as lists of items (not yet matched), and the layout.

    A line with 2 or more items naming clues is a group; consecutive lines of one clue each
    form a group, ended by any other line (a header, a blank line); other lines are prose.
    """
    lines = [line for line in split_lines(text) if not line.lstrip().startswith("```")]
    from_json = json_string_lists("\n".join(lines))
    if from_json is not None:
        return from_json, "json"
    groups: list[list[str]] = []
    block: list[str] = []
    layouts: set[str] = set()

    def close_block() -> None:
        if block:
            groups.append(list(block))
            layouts.add("blocks")
            block.clear()

    for raw in lines:
        is_table, rows = _rows(raw, clues)
        for items in rows:
            if items is None:
                continue
            named = _named(items, clues)
            if not is_table and len(items) == 1 and named == 1:
                block.append(items[0])
                continue
            close_block()
            if len(items) >= 2 and (named >= 2 or _named_or_alike(items, clues) >= 2):
                groups.append(items)
                layouts.add("table" if is_table else "lines")
    close_block()
    return groups, "+".join(sorted(layouts)) or "none"


# --------------------------------------------------------------------------------------
# Matching and the law
# --------------------------------------------------------------------------------------


def look_alikes(item: str, clues: _Clues) -> list[tuple[int, float, str]]:
    """The clues a misspelt item may be, nearest first: ``(edits, ratio, clue)`` of each clue
    within :data:`FUZZY_THRESHOLD` (``fuzz.ratio``) of it or within one edit per
    :data:`CHARS_PER_EDIT` characters (``rapidfuzz.distance.OSA``: a transposition is one
    edit), on normalised text, sorted by edits then by ratio (highest first)."""
    from rapidfuzz import fuzz
    from rapidfuzz.distance import OSA

    target = normalise(item)
    found = []
    for norm, clue in clues.by_norm.items():
        edits, ratio = OSA.distance(target, norm), fuzz.ratio(target, norm)
        if ratio >= FUZZY_THRESHOLD or edits <= max(1, len(norm) // CHARS_PER_EDIT):
            found.append((edits, -ratio, clue))
    return [(edits, -negative, clue) for edits, negative, clue in sorted(found)]


def _fuzzy(item: str, clues: _Clues, named: Counter[str]) -> tuple[str | None, float, str]:
    """(the clue, its ratio, "") of a misspelt item: its one nearest look-alike
    (:func:`look_alikes`: fewest edits, then highest ratio), which other items do not name
    as often as the wall holds it; else (None, 0, the reason: ``unknown_item``,
    ``ambiguous_item``, ``duplicate``)."""
    found = look_alikes(item, clues)
    if not found:
        return None, 0.0, "unknown_item"
    if len(found) > 1 and found[0][:2] == found[1][:2]:
        return None, 0.0, "ambiguous_item"
    _edits, score, clue = found[0]
    if named[clue] >= clues.count[clue]:
        return None, 0.0, "duplicate"
    return clue, round(float(score), 1), ""


def _echo_free(groups: list[list[str]], clues: _Clues) -> tuple[list[list[str]], bool]:
    """Groups without lines that repeat 8 or more clues, when 4 groups remain."""
    echoes = [g for g in groups if sum(clues.match(i)[0] is not None for i in g) >= 8]
    rest = [g for g in groups if g not in echoes]
    if echoes and len(rest) == N_GROUPS:
        return rest, True
    return groups, False


def _shape_problem(groups: list[list[str]], complete: bool) -> tuple[str, str] | None:
    expected = N_GROUPS - 1 if complete and len(groups) == N_GROUPS - 1 else N_GROUPS
    if len(groups) != expected:
        return "group_count", f"{len(groups)} groups read"
    for index, group in enumerate(groups, 1):
        if len(group) != GROUP_SIZE:
            return "group_size", f"group {index} has {len(group)} items"
    return None


def _spelling_detail(item: str, reason: str, clues: _Clues) -> str:
    """Why ``item`` could not be spelled as a clue, in words."""
    if reason == "unknown_item":
        return f"{item!r} is not a clue of the wall"
    nearest = look_alikes(item, clues)
    if reason == "ambiguous_item":
        tied = [c for e, r, c in nearest if (e, r) == nearest[0][:2]]
        return f"{item!r} is as near {' as '.join(repr(c) for c in tied)}"
    return f"{item!r} reads as {nearest[0][2]!r}, which another item names"


def _spell(
    matched: list[list[str | None]],
    groups: list[list[str]],
    clues: _Clues,
    repairs: list[dict[str, Any]],
) -> tuple[str, str] | None:
    """Unmatched items set to their one look-alike clue that no item names (``spelling``
    repairs); (reason, detail) of the first item without one, else None."""
    named = Counter(c for row in matched for c in row if c is not None)
    for row, group in zip(matched, groups, strict=True):
        for position, item in enumerate(group):
            if row[position] is not None:
                continue
            clue, score, reason = _fuzzy(item, clues, named)
            if clue is None:
                return reason, _spelling_detail(item, reason, clues)
            named[clue] += 1
            row[position] = clue
            repairs.append({"kind": "spelling", "item": item, "clue": clue, "score": score})
    return None


def _match_groups(
    groups: list[list[str]], clues: _Clues, repairs: list[dict[str, Any]]
) -> list[list[str]] | tuple[str, str]:
    """Each item as its clue (recording repairs), or (reason, detail) of the first item
    that is no clue of the wall or of a clue named too often."""
    matched: list[list[str | None]] = []
    for group in groups:
        row = []
        for item in group:
            clue, kind = clues.match(item)
            if kind is not None:
                repairs.append({"kind": kind, "item": item, "clue": clue})
            row.append(clue)
        matched.append(row)
    unknown = _spell(matched, groups, clues, repairs)
    if unknown is not None:
        return unknown
    used = Counter(str(c) for row in matched for c in row)  # every item matched by now
    for clue, count in used.items():
        if count > clues.count[clue]:
            return "duplicate", f"clue {clue!r} named {count} times"
    return [[str(c) for c in row] for row in matched]


def parse_groups(text: str, words: Sequence[str], *, complete: bool = False) -> GroupParse:
    """Task 1: the partition the answer states (see the module docstring).

    Args:
        text: the model's answer (reasoning blocks already dropped or not).
        words: the wall's 16 clues.
        complete: with exactly 3 valid groups of 4 and nothing else wrong, make the 4
            clues left the fourth group (recorded as ``completed``; for truncated answers
            under ``--allow-truncated`` only).
    """
    clues = _Clues(words)
    repairs: list[dict[str, Any]] = []
    text, problem, dropped = drop_reasoning(text)
    if problem is not None:
        return unrecoverable(problem, "the answer ends inside a reasoning block")
    if dropped:
        repairs.append({"kind": "reasoning_dropped"})
    groups, layout = candidate_groups(text, clues)
    groups, echoed = _echo_free(groups, clues)
    if echoed:
        repairs.append({"kind": "echo_ignored"})
    if not groups:
        if any(marker in text.lower() for marker in _REFUSALS):
            return unrecoverable("refusal", text.strip()[:80], repairs)
        return unrecoverable("no_answer", "no group of clues found", repairs)
    shape = _shape_problem(groups, complete)
    if shape is not None:
        return unrecoverable(*shape, repairs)
    result = _match_groups(groups, clues, repairs)
    if isinstance(result, tuple):
        return unrecoverable(*result, repairs)
    if len(result) == N_GROUPS - 1:
        left = list((clues.count - Counter(c for g in result for c in g)).elements())
        left.sort(key=clues.clues.index)
        result.append(left)
        repairs.append({"kind": "completed", "group": N_GROUPS, "clues": left})
    return GroupParse(result, "repaired" if repairs else "clean", repairs, layout)


def parse_stated_groups(groups: Sequence[Sequence[str]], words: Sequence[str]) -> GroupParse:
    """Task 1 from groups already read as lists of items (a ``json`` style's validated
    ``groups``): the same law as :func:`parse_groups` on them (4 groups of 4, each item one
    clue of the wall, repairs recorded), layout ``json``."""
    clues = _Clues(words)
    repairs: list[dict[str, Any]] = []
    stated = [list(group) for group in groups]
    shape = _shape_problem(stated, complete=False)
    if shape is not None:
        return unrecoverable(*shape)
    result = _match_groups(stated, clues, repairs)
    if isinstance(result, tuple):
        return unrecoverable(*result, repairs)
    return GroupParse(result, "repaired" if repairs else "clean", repairs, "json")


#: How :func:`parse_guess` names what is wrong with an answer (the play log's ``invalid``).
GUESS_PROBLEMS = {
    "unclosed_reasoning": "unparseable",
    "no_answer": "unparseable",
    "refusal": "refusal",
    "group_count": "not one group",
    "group_size": "not four clues",
    "duplicate": "clue twice",
    "unknown_item": "clue not in play",
}


def parse_guess(text: str, words: Sequence[str]) -> tuple[list[str] | None, str | None]:
    """One turn of ``ocw_play``: the one group of four that the answer states, read by
    the same rules as :func:`parse_groups` (reasoning dropped, the same layouts, clue matching
    and repairs), among ``words`` (the wall's clues; whether they are still in play is for the
    rules to say, :func:`ocw_hub.play.rules.invalid_reason`). A line repeating more than 4
    clues (the clues in play echoed) is ignored when one group remains.

    Returns:
        (the 4 clues as the wall spells them, None), or (None, the reason: a value of
        :data:`GUESS_PROBLEMS`).
    """
    clues = _Clues(words)
    text, problem, _dropped = drop_reasoning(text)
    if problem is not None:
        return None, GUESS_PROBLEMS[problem]
    groups, _layout = candidate_groups(text, clues)
    short = [g for g in groups if _named(g, clues) <= GROUP_SIZE]
    if len(short) == 1:
        groups = short
    if not groups:
        refused = any(marker in text.lower() for marker in _REFUSALS)
        return None, GUESS_PROBLEMS["refusal" if refused else "no_answer"]
    if len(groups) != 1:
        return None, GUESS_PROBLEMS["group_count"]
    if len(groups[0]) != GROUP_SIZE:
        return None, GUESS_PROBLEMS["group_size"]
    result = _match_groups(groups, clues, [])
    if isinstance(result, tuple):
        return None, GUESS_PROBLEMS[result[0]]
    return result[0], None


def match_clues(items: Sequence[str], words: Sequence[str]) -> list[str]:
    """Each item as the clue of ``words`` it names by :func:`parse_groups`' matching (exact,
    quotes, case, spacing and punctuation; no spelling repair), else as it is: a play log's
    clues read as ``parse`` reads an answer's."""
    clues = _Clues(words)
    return [clues.match(item)[0] or item for item in items]
