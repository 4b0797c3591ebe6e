"""Issue 22: heavy typos. Four clear lines of four comma-separated clues, most of them with a
transposition typo (``Suothpaw``, ``Manciin``, ``Gauhce``), are the 4 groups when each
typo'd item has one unique nearest clue (recorded as ``spelling`` repairs), not "group
count"; what is not recoverable gets its true reason (``ambiguous_item``, ``duplicate``,
``unknown_item``). Real walls of the OCW fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ocw_fixtures import OCW_FIXTURE

from ocw_hub.llm.parsing import normalise, parse_groups

pytest.importorskip("rapidfuzz")

WALLS = json.loads((Path(OCW_FIXTURE) / "test.json").read_text(encoding="utf-8"))["dataset"]


def osa(a: str, b: str) -> int:
    """Optimal string alignment distance (an adjacent transposition is one edit), by hand."""
    d = [[max(i, j) if min(i, j) == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def transposed(clue: str) -> str | None:
    """The clue with two adjacent letters in its middle swapped, if that changes it."""
    middle = len(clue) // 2
    if len(clue) < 5 or not clue[middle - 1 : middle + 1].isalpha():
        return None
    swapped = clue[: middle - 1] + clue[middle] + clue[middle - 1] + clue[middle + 1 :]
    return None if swapped.casefold() == clue.casefold() else swapped


def typo_answer(wall: dict) -> tuple[str, list[list[str]], int]:
    """(answer, gold groups, typos): each clue transposed when the typo has one unique nearest
    clue of the wall (checked here with :func:`osa`)."""
    norms = {normalise(c) for c in wall["words"]}
    groups = [g["gt_words"] for g in wall["groups"].values()]
    lines, typos = [], 0
    for group in groups:
        items = []
        for clue in group:
            typo = transposed(clue)
            if typo is not None:
                distances = sorted(osa(normalise(typo), n) for n in norms)
                if distances[0] == 1 and distances[1] > 1:
                    items.append(typo)
                    typos += 1
                    continue
            items.append(clue)
        lines.append(", ".join(items))
    return "\n".join(lines), groups, typos


@pytest.mark.parametrize("wall", WALLS, ids=lambda w: w["wall_id"])
def test_transposition_typos_in_real_walls_are_recovered(wall: dict) -> None:
    answer, gold, typos = typo_answer(wall)
    assert typos >= 4, answer  # heavy: a line of typos would not have counted as a group
    parsed = parse_groups(answer, wall["words"])
    assert (parsed.status, parsed.reason) == ("repaired", None), (parsed.detail, answer)
    assert parsed.groups == gold
    spelled = [r for r in parsed.repairs if r["kind"] == "spelling"]
    assert len(spelled) == typos
    assert all(r["item"] != r["clue"] and r["clue"] in wall["words"] for r in spelled)


WORDS = [
    "Southpaw",
    "Mancini",
    "Gauche",
    "Sinister",
    "Bean",
    "Beam",
    "Bottom",
    "Riviera",
    "Screw",
    "Grass",
    "Snout",
    "Lag",
    "Up",
    "Down",
    "Charm",
    "Strange",
]
GOLD = [WORDS[0:4], WORDS[4:8], WORDS[8:12], WORDS[12:16]]


def _answer(*first: str) -> str:
    return "\n".join([", ".join(first), *(", ".join(g) for g in GOLD[1:])])


@pytest.mark.parametrize(
    ("answer", "groups"),
    [
        (_answer("Suothpaw", "Manciin", "Gauhce", "Sinister"), GOLD),
        (_answer("1. Suothpaw", "Manciin", "Gauhce", "Sinitser"), GOLD),
        (
            "\n".join(
                [
                    "Suothpaw, Manciin, Gauhce, Sinitser",
                    "Bean, Beam, Bottmo, Riviear",
                    "Sceww, Grsas, Snuot, Lag",
                    "Up, Donw, Chram, Strnage",
                ]
            ),
            GOLD,
        ),
    ],
)
def test_the_issue_answers_are_recovered(answer: str, groups: list[list[str]]) -> None:
    parsed = parse_groups(answer, WORDS)
    assert (parsed.status, parsed.groups) == ("repaired", groups), parsed.detail


@pytest.mark.parametrize(
    ("item", "reason", "named"),
    [
        ("Beax", "ambiguous_item", ["'Beam'", "'Bean'"]),  # one edit from both
        ("Baem", "duplicate", ["'Beam'"]),  # Beam transposed, and Beam named on its line
        ("Zzzzzz", "unknown_item", ["'Zzzzzz'"]),
    ],
)
def test_what_is_not_recoverable_says_why(item: str, reason: str, named: list[str]) -> None:
    replaced = f"Bean, {item}" if item != "Baem" else "Baem, Beam"
    answer = _answer("Southpaw", "Mancini", "Gauche", "Sinister").replace("Bean, Beam", replaced)
    parsed = parse_groups(answer, WORDS)
    assert (parsed.status, parsed.reason) == ("unrecoverable", reason), parsed.detail
    assert all(name in parsed.detail for name in named)
