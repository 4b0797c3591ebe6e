"""Turning LLM answers into OCW predictions (``ocw-hub parse``).

Input: JSON Lines, each line either a line of the batch *output* shape written by
``ocw-hub run-llm`` (and by OpenAI's Batch API, vLLM's ``run_batch``)::

    {"custom_id": wall_id, "response": {"status_code": 200, "body": <chat completion>},
     "error": null}

or a plain ``{"wall_id": str, "text": str}``. The answer is the ``content`` of the first
choice's message (``text`` of a legacy completion).

Two ways to read an answer:

* ``paper``: the upstream notebook's lenient parsing, reproduced exactly so that the paper's
  figures can be reproduced. Task 1: remove every ``Group N:`` (any case), keep the first 4
  non-empty lines (stripped), split each on commas, strip each piece, cut or pad with empty
  strings to 4 clues and 4 groups, then drop a trailing ``. Connection: ...`` (any case) from
  each clue. Task 2: for every line of the answer (empty lines included), the text after the
  first ``Connection:`` (case as written), stripped, else ``""``; the first 4 lines, padded
  with ``""``, in gold group order.
* ``robust`` (the default): a valid partition of the wall's own clues, 4 groups of 4,
  whenever the answer allows, with every repair recorded. It reads numbering, bullets,
  ``Group N`` labels, markdown (bold, code fences, tables), JSON lists, quotes and trailing
  connections or explanations; matches each answer item to a clue of the wall ignoring case,
  spacing and punctuation, then by spelling (``rapidfuzz`` ratio >= :data:`FUZZY_THRESHOLD`,
  0-100); uses each clue once (a maximum-weight assignment, ``scipy``'s
  ``linear_sum_assignment``, ties to the earliest mention), so duplicates are dropped; and,
  when at least :data:`MIN_GROUPS` groups of at least :data:`MIN_GROUP_CLUES` clues were
  read, completes short or missing groups with the clues left over (a fifth clue of a group
  counts as left over). With fewer groups the answer is *unrecoverable*: the groups read are
  kept and padded with empty strings, which score as wrong clues. For task 2 each
  ``Connection:`` line is matched to the gold group whose clues it repeats (in order when it
  repeats none).

Repairs are dicts with a ``kind`` (see :data:`REPAIR_KINDS`) and details.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import jsonio
from ..errors import PredictionsError
from ..resources import load_sibling
from .prompts import TASKS, gold_groups

MODES = ("paper", "robust")
#: Least ``rapidfuzz.fuzz.ratio`` (0-100) of a near-miss spelling to a clue.
FUZZY_THRESHOLD = 80.0
#: A line of the answer counts as a group read when it names this many clues of the wall.
MIN_GROUP_CLUES = 2
#: Groups that must be read for robust mode to complete the partition.
MIN_GROUPS = 3
#: The repairs robust mode records (paper mode records ``padded`` and ``truncated``).
REPAIR_KINDS = (
    "code_fence", "json", "markdown", "numbering", "label", "connection_dropped", "quotes",
    "case_spacing", "spelling", "explanation_dropped", "duplicate", "unknown_item",
    "ignored_line", "echo_ignored", "split_line", "one_clue_per_line", "extra_clue",
    "extra_group", "completed", "unrecoverable", "reordered", "missing_connection",
    "no_markers", "padded", "truncated", "no_response",
)  # fmt: skip
#: Wall statuses in the report.
STATUSES = ("clean", "repaired", "unrecoverable", "no_response")

#: Clues per group, groups per wall (the OCW builder's, ``ocw_walls.py``).
GROUP_SIZE, N_GROUPS = load_sibling("ocw_walls").GROUP_SIZE, load_sibling("ocw_walls").N_GROUPS


@dataclass
class Response:
    """One wall's answer read from a responses file.

    Attributes:
        wall_id: the wall (``custom_id`` of a batch line).
        text: the answer, or None when the request failed (``problem`` says why).
        line: 1-based line number in the file.
        problem: why there is no answer, else None.
    """

    wall_id: str
    text: str | None
    line: int
    problem: str | None = None


@dataclass
class ParsedWall:
    """One wall's parsed answer.

    Attributes:
        wall_id: the wall.
        groups: 4 groups of 4 clues (task 1), else None.
        connections: 4 connections in gold group order (task 2), else None.
        repairs: what was repaired, dicts with a ``kind``.
        status: ``clean``, ``repaired``, ``unrecoverable`` or ``no_response``.
        text: the raw answer (None without one).
    """

    wall_id: str
    groups: list[list[str]] | None
    connections: list[str] | None
    repairs: list[dict[str, Any]] = field(default_factory=list)
    status: str = "clean"
    text: str | None = None


# --------------------------------------------------------------------------------------
# Reading the responses file
# --------------------------------------------------------------------------------------


def _field_error(path: Path, number: int, wall_id: Any, name: str, problem: str) -> Exception:
    who = f" (wall {wall_id})" if wall_id is not None else ""
    return PredictionsError(f"{path}, line {number}{who}: field {name}: {problem}")


def _batch_text(
    path: Path, number: int, record: Mapping[str, Any]
) -> tuple[str | None, str | None]:
    """(answer, problem) of a batch output line."""
    wall_id = record["custom_id"]
    response = record.get("response")
    error = record.get("error")
    if error is not None or not isinstance(response, dict) or response.get("status_code") != 200:
        status = response.get("status_code") if isinstance(response, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        return None, f"request failed (status {status}): {message}"
    body = response.get("body")
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _field_error(path, number, wall_id, "response.body.choices", "expected a list")
    choice = choices[0]
    message = choice.get("message")
    text = message.get("content") if isinstance(message, dict) else choice.get("text")
    if text is None:
        return "", None
    if not isinstance(text, str):
        raise _field_error(path, number, wall_id, "choices[0].message.content", "not a string")
    return text, None


def _read_line(path: Path, number: int, line: str) -> tuple[Response, bool]:
    """A line as a Response, and whether it is a batch output line."""
    record = jsonio.load_line(path, number, line, PredictionsError)
    if "custom_id" in record:
        if not isinstance(record["custom_id"], str):
            raise _field_error(path, number, None, "custom_id", "expected a string")
        text, problem = _batch_text(path, number, record)
        return Response(record["custom_id"], text, number, problem), True
    if "wall_id" in record:
        wall_id, text = record["wall_id"], record.get("text")
        if not isinstance(wall_id, str):
            raise _field_error(path, number, None, "wall_id", "expected a string")
        if not isinstance(text, str):
            raise _field_error(path, number, wall_id, "text", "expected a string")
        return Response(wall_id, text, number), False
    raise PredictionsError(
        f"{path}, line {number}: expected a batch output line (custom_id, response) or "
        "{wall_id, text}"
    )


def read_responses(path: str | Path) -> dict[str, Response]:
    """The answers of a responses file, ``{wall_id: Response}`` in file order.

    A wall may have several batch lines (failed attempts, then an answer): its answer wins.

    Raises:
        PredictionsError: no such file, not UTF-8; a line that is not JSON or has neither
            shape; a field of the wrong type (named with the line and the wall); a wall
            answered twice, or given twice as ``{wall_id, text}`` (both lines named); a file
            with no response at all.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise PredictionsError(f"{path}: no such file") from None
    except (UnicodeDecodeError, IsADirectoryError) as err:
        raise PredictionsError(f"{path}: not a UTF-8 JSON Lines file ({err})") from None
    found: dict[str, Response] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        response, batch = _read_line(path, number, line)
        before = found.get(response.wall_id)
        answered_twice = (
            before is not None and before.text is not None and response.text is not None
        )
        if before is not None and (not batch or answered_twice):
            raise PredictionsError(
                f"{path}, line {number}: wall {response.wall_id} already answered on line "
                f"{before.line}"
            )
        if before is None or before.text is None:
            found[response.wall_id] = response
    if not found:
        raise PredictionsError(
            f"{path}: holds no responses (is it the log of a run-llm that could not reach "
            "its server?)"
        )
    return found


# --------------------------------------------------------------------------------------
# Paper mode: the notebook's lenient parsing
# --------------------------------------------------------------------------------------

_PAPER_GROUP_LABEL = re.compile(r"Group\s*\d+\s*:?", re.IGNORECASE)
_PAPER_TRAILING_CONNECTION = re.compile(r"\. Connection:.*", re.IGNORECASE)
_PAPER_CONNECTION = re.compile(r"Connection:\s*(.*)")


def _pad(items: list[Any], size: int, filler: Any) -> list[Any]:
    return items[:size] + [filler] * (size - len(items))


def paper_groups(text: str) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """Task 1 as the notebook parsed it (see the module docstring): 4 groups of 4 strings,
    and what was padded or truncated."""
    lines = [line.strip() for line in _PAPER_GROUP_LABEL.sub("", text).splitlines()]
    lines = [line for line in lines if line]
    notes = _size_notes("lines", len(lines), N_GROUPS)
    groups = []
    for line in _pad(lines, N_GROUPS, ""):
        clues = [piece.strip() for piece in line.split(",")]
        if line:
            notes += _size_notes(f"clues in {line!r}", len(clues), GROUP_SIZE)
        groups.append([_PAPER_TRAILING_CONNECTION.sub("", c) for c in _pad(clues, GROUP_SIZE, "")])
    return groups, notes


def paper_connections(text: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Task 2 as the notebook parsed it: the text after ``Connection:`` on each of the first
    4 lines (``""`` without one), in gold group order."""
    found = []
    for line in text.splitlines():
        match = _PAPER_CONNECTION.search(line)
        found.append(match.group(1).strip() if match else "")
    return _pad(found, N_GROUPS, ""), _size_notes("lines", len(found), N_GROUPS)


def _size_notes(what: str, count: int, size: int) -> list[dict[str, Any]]:
    if count < size:
        return [{"kind": "padded", "what": what, "found": count}]
    if count > size:
        return [{"kind": "truncated", "what": what, "found": count}]
    return []


# --------------------------------------------------------------------------------------
# Robust mode: reading the answer's lines
# --------------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*```")
_MARKDOWN = re.compile(r"\*\*|__|`|^\s*#+\s*|^\s*>\s*")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\(?\d{1,2}[.):]|\d{1,2}\s*-)\s+")
_LABEL = re.compile(
    r"^\s*(?:group|set|category|row)\s*\d*\s*(?:\([^)]*\))?\s*(?:[:.)\-–—]\s*|$)", re.IGNORECASE
)
_CONNECTION_TAIL = re.compile(r"\s*[.\-–—:;,(\[]*\s*\bconnections?\b\s*\d*\s*[:\-–—=].*$", re.I)
_MID_LABEL = re.compile(r"(?<=\S)\s*(?=\b(?:group|set)\s*\d+\s*[:.)\-–—])", re.IGNORECASE)
_BRACKET_BREAK = re.compile(r"\]\s*[,;]?\s*\[")
_EXPLANATION = re.compile(r"\s+[-–—(:]\s*|\s*[(:]")
_EDGE = " \t\"'“”‘’`«»[](){}.,;:!?*_"
_QUOTES = "\"'“”‘’`«»"


@dataclass
class _Line:
    """A line of the answer: its items (candidate clues) or a heading (a group break)."""

    number: int
    items: list[str]
    raw: str
    heading: bool = False


class _Notes:
    """Repairs of one wall; kinds of line-level decoration are counted, not repeated."""

    def __init__(self) -> None:
        self.repairs: list[dict[str, Any]] = []
        self.decorations: Counter[str] = Counter()

    def add(self, kind: str, **details: Any) -> None:
        self.repairs.append({"kind": kind, **details})

    def decorate(self, kind: str) -> None:
        self.decorations[kind] += 1

    def all(self) -> list[dict[str, Any]]:
        found = [{"kind": k, "lines": n} for k, n in sorted(self.decorations.items())]
        return found + self.repairs


_PUNCTUATION = re.compile(r"[^\w\s]")


@lru_cache(maxsize=1 << 16)
def normalise(text: str) -> str:
    """A clue or answer item compared ignoring case, spacing, quotes and punctuation (NFKC,
    casefold); a text of punctuation only (``%``) keeps its punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold()
    words = _PUNCTUATION.sub("", text).split()
    return " ".join(words) if words else " ".join(text.split())


def _strip_fences(text: str, notes: _Notes) -> str:
    lines = text.splitlines()
    kept = [line for line in lines if not _FENCE.match(line)]
    if len(kept) != len(lines):
        notes.add("code_fence")
    return "\n".join(kept)


def _string_lists(value: Any) -> list[list[str]]:
    """The lists of strings inside a JSON value, depth first (dict values in order)."""
    if isinstance(value, list) and value and all(isinstance(v, (str, int, float)) for v in value):
        return [[str(v) for v in value]]
    children = value.values() if isinstance(value, dict) else value
    if not isinstance(value, (list, dict)):
        return []
    return [found for child in children for found in _string_lists(child)]


def _json_lines(text: str) -> list[_Line] | None:
    """The groups of an answer that is (or holds) a JSON list or object, else None."""
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = max(text.rfind("]"), text.rfind("}")) + 1
    try:
        value = json.loads(text[start:end])
    except ValueError:
        return None
    lists = _string_lists(value)
    if not lists:
        return None
    return [_Line(i, items, json.dumps(items, ensure_ascii=False)) for i, items in enumerate(lists)]


def _split_groups_in_line(line: str) -> list[str]:
    """A line holding several groups (``Group 1: … Group 2: …``, ``[…], […]``, ``a, b; c, d``)
    as one line per group."""
    line = _BRACKET_BREAK.sub("\n", _MID_LABEL.sub("\n", line))
    parts: list[str] = []
    for piece in line.split("\n"):
        if "," in piece and (";" in piece or "|" in piece):
            parts += re.split(r"[;|]", piece)
        else:
            parts.append(piece)
    return parts


_AND = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _holding_separators(clues: tuple[str, ...]) -> list[str]:
    """The clues that hold a separator, longest first."""
    holding = {c for c in clues if any(s in c for s in ",;|/") or _AND.search(c)}
    return sorted(holding, key=len, reverse=True)


def _protect(line: str, clues: Sequence[str]) -> tuple[str, dict[str, str]]:
    """Replace the wall's clues that hold a separator (``1,000``, ``Fish and chips``) by
    placeholders before splitting."""
    saved: dict[str, str] = {}
    for clue in _holding_separators(tuple(clues)):
        token = f"\x00{len(saved)}\x00"
        line, count = re.subn(re.escape(clue), token, line, flags=re.IGNORECASE)
        if count:
            saved[token] = clue
    return line, saved


def _split_items(line: str, clues: Sequence[str]) -> list[str]:
    """The items of a group line: split on commas (or ``;``, ``|``, tabs, `` / ``) and on
    ``and``/``&`` between items, the wall's own clues holding a separator kept whole."""
    line, saved = _protect(line, clues)
    for separator in (",", ";", "|", "\t", " / "):
        if separator in line:
            pieces = line.split(separator)
            break
    else:
        pieces = [line]
    pieces = [part for piece in pieces for part in _AND.split(piece)]
    for token, clue in saved.items():
        pieces = [p.replace(token, clue) for p in pieces]
    return pieces


def _clean_item(item: str, clues: Sequence[str], notes: _Notes) -> str:
    """An item without surrounding quotes, brackets, punctuation or a leading ``and``,
    unless it is a clue as written (``(Olympia)``, ``L.A.``)."""
    stripped = item.strip()
    if stripped in clues:
        return stripped
    if stripped and (stripped[0] in _QUOTES or stripped[-1] in _QUOTES):
        notes.decorate("quotes")
    stripped = stripped.strip(_EDGE)
    stripped = re.sub(r"^(?:and|&)\s+", "", stripped, flags=re.IGNORECASE)
    return stripped.strip(_EDGE)


def _drop_label(line: str, clues: Sequence[str], notes: _Notes) -> str:
    """``Cocktails: a, b, c, d`` -> ``a, b, c, d`` when ``Cocktails`` is not a clue."""
    head, colon, tail = line.partition(":")
    if not colon or not any(s in tail for s in ",;|"):
        return line
    if normalise(head) in {normalise(c) for c in clues}:
        return line
    notes.decorate("label")
    return tail


def _strip_decoration(line: str, notes: _Notes) -> str:
    """A line without markdown, leading bullets or numbering, and a leading group label."""
    for pattern, kind in ((_MARKDOWN, "markdown"), (_BULLET, "numbering"), (_LABEL, "numbering")):
        line, count = pattern.subn("", line)
        if count:
            notes.decorate(kind)
    return line


def _clean_line(number: int, raw: str, piece: str, clues: Sequence[str], notes: _Notes) -> _Line:
    """One group's piece of a line as a line of items (a heading when nothing is left)."""
    line = _strip_decoration(piece, notes)
    line, count = _CONNECTION_TAIL.subn("", line)
    if count:
        notes.decorate("connection_dropped")
        if not line.strip():
            return _Line(number, [], raw)
    line = _drop_label(line, clues, notes)
    heading = not line.strip() and piece.strip() != ""
    items = [_clean_item(item, clues, notes) for item in _split_items(line, clues)]
    return _Line(number, [item for item in items if item], raw, heading)


def answer_lines(text: str, clues: Sequence[str], notes: _Notes) -> list[_Line]:
    """The answer as lines of candidate clues (JSON lists count as lines)."""
    text = _strip_fences(text, notes)
    from_json = _json_lines(text)
    if from_json is not None:
        notes.add("json")
        return from_json
    lines: list[_Line] = []
    for number, raw in enumerate(text.splitlines(), 1):
        pieces = _split_groups_in_line(_strip_decoration(raw, notes))
        if len(pieces) > 1:
            notes.decorate("split_line")
        lines += [_clean_line(number, raw, piece, clues, notes) for piece in pieces]
    return lines


# --------------------------------------------------------------------------------------
# Robust mode: matching items to clues
# --------------------------------------------------------------------------------------


def _candidates(item: str) -> list[str]:
    """The item, and its part before an explanation (``Nuts - as in crazy`` -> ``Nuts``)."""
    head = _EXPLANATION.split(item, maxsplit=1)[0].strip(_EDGE)
    return [item, head] if head and head != item else [item]


def similarity(items: Sequence[str], clues: Sequence[str]) -> tuple[Any, Any]:
    """Scores (0-100) of each item against each clue, ``len(items) x len(clues)``, and which
    candidate of the item scored (0 the item itself, 1 the part before an explanation)."""
    import numpy as np
    from rapidfuzz import fuzz, process

    targets = [normalise(c) for c in clues]
    full = process.cdist([normalise(i) for i in items], targets, scorer=fuzz.ratio)
    heads = [_candidates(i)[-1] for i in items]
    head = process.cdist([normalise(h) for h in heads], targets, scorer=fuzz.ratio)
    scores = np.maximum(full, head)
    return scores, (head > full).astype(int)


def _assign(scores: Any) -> dict[int, int]:
    """Item index -> clue slot: most matches above the threshold, then most similar, ties to
    the earliest item."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    n_items = scores.shape[0]
    order = np.arange(n_items, dtype=float)[:, None] * 1e-3
    weight = np.where(scores >= FUZZY_THRESHOLD, 1000.0 + scores - order, 0.0)
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return {
        int(r): int(c) for r, c in zip(rows, cols, strict=True) if scores[r, c] >= FUZZY_THRESHOLD
    }


def _note_match(item: str, clue: str, score: float, used_head: bool, notes: _Notes) -> None:
    if used_head:
        notes.add("explanation_dropped", item=item, clue=clue)
    elif score < 100:
        notes.add("spelling", item=item, clue=clue, score=round(float(score), 1))
    elif item != clue:
        notes.add("case_spacing", item=item, clue=clue)


def _note_unmatched(item: str, line: _Line, best: float, notes: _Notes) -> None:
    kind = "duplicate" if best >= FUZZY_THRESHOLD else "unknown_item"
    notes.add(kind, item=item, line=line.number)


def match_lines(
    lines: Sequence[_Line], clues: Sequence[str], notes: _Notes
) -> list[tuple[_Line, list[int]]]:
    """Each line with the clue slots (indices into ``clues``) its items were matched to, in
    the order written; each slot is used once over the whole answer."""
    flat = [(line, item) for line in lines for item in line.items]
    if not flat:
        return [(line, []) for line in lines]
    scores, heads = similarity([item for _, item in flat], clues)
    assigned = _assign(scores)
    matched: dict[int, list[int]] = {id(line): [] for line in lines}
    for index, (line, item) in enumerate(flat):
        slot = assigned.get(index)
        if slot is None:
            _note_unmatched(item, line, float(scores[index].max()), notes)
            continue
        _note_match(item, clues[slot], float(scores[index, slot]), bool(heads[index, slot]), notes)
        matched[id(line)].append(slot)
    return [(line, matched[id(line)]) for line in lines]


def _clue_like(lines: Sequence[_Line], clues: Sequence[str]) -> list[int]:
    """How many items of each line look like a clue of the wall (before the assignment)."""
    flat = [item for line in lines for item in line.items]
    if not flat:
        return [0 for _ in lines]
    best = similarity(flat, clues)[0].max(axis=1) >= FUZZY_THRESHOLD
    counts, start = [], 0
    for line in lines:
        counts.append(int(best[start : start + len(line.items)].sum()))
        start += len(line.items)
    return counts


def _drop_echoes(lines: list[_Line], clues: Sequence[str], notes: _Notes) -> list[_Line]:
    """Lines listing 8 or more clues (the clue list repeated) are dropped when other lines
    hold the groups; a single line of 16 clues is split in fours."""
    counts = _clue_like(lines, clues)
    echoes = [i for i, n in enumerate(counts) if n >= 2 * GROUP_SIZE]
    if not echoes:
        return lines
    if sum(counts) - sum(counts[i] for i in echoes) >= 2 * GROUP_SIZE:
        for i in echoes:
            notes.add("echo_ignored", line=lines[i].number)
        return [line for i, line in enumerate(lines) if i not in echoes]
    first = lines[echoes[0]]
    notes.add("split_line", line=first.number, into=len(first.items) // GROUP_SIZE)
    chunks = [first.items[i : i + GROUP_SIZE] for i in range(0, len(first.items), GROUP_SIZE)]
    return [_Line(first.number, chunk, first.raw) for chunk in chunks]


def _merge_single_lines(lines: list[_Line], clues: Sequence[str], notes: _Notes) -> list[_Line]:
    """One clue per line (``Group 1:`` then 4 bullet lines): consecutive lines of one clue
    become one group; any other line (a heading, a blank line) ends the group. A single run
    of such lines is cut in fours."""
    multi = sum(1 for line in lines if len(line.items) >= MIN_GROUP_CLUES)
    counts = _clue_like(lines, clues)
    singles = [len(line.items) == 1 and n == 1 for line, n in zip(lines, counts, strict=True)]
    if multi >= MIN_GROUPS or sum(singles) < 2 * GROUP_SIZE:
        return lines
    notes.add("one_clue_per_line")
    blocks: list[list[str]] = [[]]
    for line, single in zip(lines, singles, strict=True):
        if single:
            blocks[-1].append(line.items[0])
        elif blocks[-1]:
            blocks.append([])
    blocks = [block for block in blocks if block]
    if len(blocks) == 1:
        blocks = [blocks[0][i : i + GROUP_SIZE] for i in range(0, len(blocks[0]), GROUP_SIZE)]
    return [_Line(0, block, ", ".join(block)) for block in blocks]


# --------------------------------------------------------------------------------------
# Robust mode: completing the partition
# --------------------------------------------------------------------------------------


def _complete(groups: list[list[int]], n_slots: int, notes: _Notes) -> list[list[int]]:
    """4 groups of 4 slots: the first 4 groups cut to 4 clues, then filled in order with the
    clues left over (those cut, those of further groups, those never named, in wall order)."""
    kept = [group[:GROUP_SIZE] for group in groups[:N_GROUPS]]
    extras = [slot for group in groups[:N_GROUPS] for slot in group[GROUP_SIZE:]]
    for index, group in enumerate(groups[:N_GROUPS]):
        for slot in group[GROUP_SIZE:]:
            notes.add("extra_clue", group=index + 1, slot=slot)
    for group in groups[N_GROUPS:]:
        notes.add("extra_group", slots=group)
        extras += group
    placed = {slot for group in kept for slot in group} | set(extras)
    leftovers = extras + [slot for slot in range(n_slots) if slot not in placed]
    while len(kept) < N_GROUPS:
        kept.append([])
    for index, group in enumerate(kept):
        need = GROUP_SIZE - len(group)
        if need:
            group += leftovers[:need]
            notes.add("completed", group=index + 1, slots=leftovers[:need])
            leftovers = leftovers[need:]
    return kept


def _slot_names(repairs: list[dict[str, Any]], clues: Sequence[str]) -> None:
    """Clue slots in repair details as the clues themselves."""
    for repair in repairs:
        if "slot" in repair:
            repair["clue"] = clues[repair.pop("slot")]
        if "slots" in repair:
            repair["clues"] = [clues[s] for s in repair.pop("slots")]


def robust_groups(text: str, clues: Sequence[str]) -> tuple[list[list[str]], list[dict], bool]:
    """Task 1, robust mode (see the module docstring).

    Args:
        text: the model's answer.
        clues: the wall's 16 clues (``words``).

    Returns:
        (4 groups of 4 strings, the repairs, whether the answer was recoverable). When
        recoverable the groups are a partition of ``clues`` (each clue once, as the wall
        spells it); else the groups read, padded with empty strings.
    """
    notes = _Notes()
    lines = answer_lines(text, clues, notes)
    lines = _merge_single_lines(_drop_echoes(lines, clues, notes), clues, notes)
    groups: list[list[int]] = []
    for line, slots in match_lines(lines, clues, notes):
        if slots:
            groups.append(slots)
        elif line.items:
            notes.add("ignored_line", line=line.number, text=line.raw.strip()[:80])
    read = sum(1 for g in groups if len(g) >= MIN_GROUP_CLUES)
    if read >= MIN_GROUPS:
        slots = _complete(groups, len(clues), notes)
        result = [[clues[s] for s in group] for group in slots]
    else:
        notes.add("unrecoverable", groups_read=read)
        result = [_pad([clues[s] for s in g], GROUP_SIZE, "") for g in groups[:N_GROUPS]]
        result = _pad(result, N_GROUPS, [""] * GROUP_SIZE)
    repairs = notes.all()
    _slot_names(repairs, clues)
    return result, repairs, read >= MIN_GROUPS


# --------------------------------------------------------------------------------------
# Robust mode: connections
# --------------------------------------------------------------------------------------

_CONNECTION_MARK = re.compile(r"\bconnections?\s*\d*\s*[:\-–—=]\s*(.*)$", re.IGNORECASE)


def _clean_connection(text: str) -> str:
    text = text.replace("**", "").replace("`", "").strip()
    text = text.strip(" \t\"'“”‘’*")
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def _overlaps(pre: str, groups: Sequence[Sequence[str]]) -> list[int]:
    """How many clues of each gold group the text before a ``Connection:`` names."""
    items = [i.strip(_EDGE) for i in re.split(r"[,;|]", _MARKDOWN.sub("", pre))]
    items = [normalise(i) for i in items if i.strip(_EDGE)]
    if not items:
        return [0] * len(groups)
    from rapidfuzz import fuzz, process

    counts = []
    for group in groups:
        scores = process.cdist(items, [normalise(c) for c in group], scorer=fuzz.ratio)
        counts.append(int((scores.max(axis=0) >= FUZZY_THRESHOLD).sum()))
    return counts


def _marked_lines(text: str) -> list[tuple[str, str]]:
    """(text before, connection) of each line holding a ``Connection:`` mark (any case)."""
    found = []
    for line in text.splitlines():
        match = _CONNECTION_MARK.search(line.replace("**", ""))
        if match:
            found.append((line.replace("**", "")[: match.start()], match.group(1)))
    return found


def _unmarked(text: str, notes: _Notes) -> list[str]:
    """Connections of an answer without ``Connection:`` marks: a JSON list of strings, else
    the non-empty lines, in order."""
    lists = _json_lines(text)
    if lists:
        notes.add("json")
        return [_clean_connection(c) for c in lists[0].items]
    lines = [_BULLET.sub("", _LABEL.sub("", line)) for line in text.splitlines()]
    return [_clean_connection(line) for line in lines if line.strip()]


def robust_connections(
    text: str, groups: Sequence[Sequence[str]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """Task 2, robust mode: 4 connections in gold group order, and the repairs.

    Each line with a ``Connection:`` mark (any case, markdown allowed) goes to the gold group
    whose clues it repeats most (a maximum-weight assignment), lines repeating no clue in
    their order; an answer without marks gives its lines (or JSON list) in order.
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    notes = _Notes()
    text = _strip_fences(text, notes)
    marked = _marked_lines(text)
    if not marked:
        notes.add("no_markers")
        found = _unmarked(text, notes)
        result = _pad(found, N_GROUPS, "")
    else:
        weight = np.array([[10.0 * n for n in _overlaps(pre, groups)] for pre, _ in marked])
        for rank in range(min(len(marked), N_GROUPS)):
            weight[rank, rank] += 1.0
        rows, cols = linear_sum_assignment(weight, maximize=True)
        result = [""] * N_GROUPS
        for row, col in zip(rows, cols, strict=True):
            result[col] = _clean_connection(marked[row][1])
            if row != col:
                notes.add("reordered", line=int(row) + 1, group=int(col) + 1)
        found = [c for _, c in marked]
    for index, connection in enumerate(result):
        if not connection:
            notes.add("missing_connection", group=index + 1)
    if len(found) > N_GROUPS:
        notes.add("truncated", what="connections", found=len(found))
    return result, notes.all()


# --------------------------------------------------------------------------------------
# Whole files
# --------------------------------------------------------------------------------------


def _status(repairs: Sequence[Mapping[str, Any]], recoverable: bool) -> str:
    if not recoverable:
        return "unrecoverable"
    return "repaired" if repairs else "clean"


def parse_wall(
    wall: Mapping[str, Any], response: Response | None, *, task: str, mode: str
) -> ParsedWall:
    """One wall's answer as a prediction (``groups`` for grouping, ``connections`` for
    connections); an absent or failed answer reads as the empty text.

    Raises:
        ValueError: unknown ``task`` or ``mode``.
    """
    if task not in TASKS or mode not in MODES:
        raise ValueError(f"task must be one of {TASKS} and mode one of {MODES}")
    text = response.text if response is not None else None
    wall_id = str(wall["wall_id"])
    parsed = ParsedWall(wall_id, None, None, text=text)
    answer = text or ""
    recoverable = True
    if task == "grouping" and mode == "paper":
        parsed.groups, parsed.repairs = paper_groups(answer)
    elif task == "grouping":
        parsed.groups, parsed.repairs, recoverable = robust_groups(answer, list(wall["words"]))
    elif mode == "paper":
        parsed.connections, parsed.repairs = paper_connections(answer)
    else:
        gold = [g["gt_words"] for g in gold_groups(wall)]
        parsed.connections, parsed.repairs = robust_connections(answer, gold)
    parsed.status = _status(parsed.repairs, recoverable)
    if text is None:
        problem = response.problem if response is not None else "no response"
        parsed.repairs.insert(0, {"kind": "no_response", "problem": problem})
        parsed.status = "no_response"
    return parsed


def parse_responses(
    responses: Mapping[str, Response],
    walls: Sequence[Mapping[str, Any]],
    *,
    task: str = "grouping",
    mode: str = "robust",
    source: str = "responses",
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Predictions in the official format for the walls that have a response line, in split
    order, and the parse report (the ``.parse.json`` sidecar).

    Returns:
        (predictions: ``[{wall_id, predicted_groups, predicted_connections}]``, report:
        ``{task, mode, counts: {status: n, "missing": n}, repairs: {kind: n}, missing:
        [wall ids of the split without a response line], walls: [{wall_id, status, repairs,
        text}]}``).

    Raises:
        PredictionsError: a response for a wall that is not in ``walls`` (names ``source``
            and up to 5 ids).
    """
    known = {str(w["wall_id"]) for w in walls}
    unknown = [wall_id for wall_id in responses if wall_id not in known]
    if unknown:
        raise PredictionsError(
            f"{source}: {len(unknown)} responses are for walls not in this split "
            f"({', '.join(unknown[:5])}{', …' if len(unknown) > 5 else ''}); check the config "
            "and the split"
        )
    parsed = [
        parse_wall(w, responses[str(w["wall_id"])], task=task, mode=mode)
        for w in walls
        if str(w["wall_id"]) in responses
    ]
    predictions = [
        {"wall_id": p.wall_id, "predicted_groups": p.groups, "predicted_connections": p.connections}
        for p in parsed
    ]
    missing = [str(w["wall_id"]) for w in walls if str(w["wall_id"]) not in responses]
    return predictions, _report(parsed, missing, task=task, mode=mode)


def _report(
    parsed: Sequence[ParsedWall], missing: list[str], *, task: str, mode: str
) -> dict[str, Any]:
    """The parse report: counts by status, repairs by kind, walls without a response, and
    per wall its status, repairs and raw answer."""
    counts = Counter(p.status for p in parsed)
    return {
        "task": task,
        "mode": mode,
        "counts": {**{s: counts.get(s, 0) for s in STATUSES}, "missing": len(missing)},
        "repairs": dict(sorted(Counter(r["kind"] for p in parsed for r in p.repairs).items())),
        "missing": missing,
        "walls": [
            {"wall_id": p.wall_id, "status": p.status, "repairs": p.repairs, "text": p.text}
            for p in parsed
        ],
    }
