"""Task-1 answers as groups: the robust parser states the answer's own partition or none
(every layout, each repair, reasoning blocks, refusals, duplicates, never a look-alike clue),
in linear time and without a traceback on any text; the notebook's lenient parsing (paper
mode) on the same answers."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ocw_hub.llm.paper_parse import paper_groups
from ocw_hub.llm.parsing import EMPTY_GROUPS, drop_reasoning, parse_groups, split_lines

TOOLS, COCKTAILS = (
    ["Hammer", "Wrench", "Chisel", "Pliers"],
    ["Mojito", "Negroni", "Daiquiri", "Sidecar"],
)
MONKEY, ISLANDS = ["Puzzle", "Business", "Nuts", "Suit"], ["Crete", "Rhodes", "Corfu", "Kos"]
GOLD = [TOOLS, COCKTAILS, MONKEY, ISLANDS]
CONNECTIONS = ["Hand tools", "Cocktails", "Monkey ___", "Greek islands"]
WORDS = (
    "Nuts Crete Hammer Mojito Kos Suit Wrench Negroni Rhodes Puzzle Chisel Daiquiri Business "
    "Corfu Pliers Sidecar"
).split()
EMPTY = ["", "", "", ""]


def lines(*groups: list[str], prefix: str = "", suffix: str = "") -> str:
    return "\n".join(f"{prefix.format(i)}{', '.join(g)}{suffix}" for i, g in enumerate(groups, 1))


# text, expected paper groups, robust (status, reason or repair kinds)
GROUPING_CASES = {
    "plain": (lines(*GOLD), GOLD, ("clean", set())),
    "group labels": (lines(*GOLD, prefix="Group {}: "), GOLD, ("clean", set())),
    "bold labels": (
        lines(*GOLD, prefix="**Group {}:** "),
        [["**** " + g[0], *g[1:]] for g in GOLD],
        ("clean", set()),
    ),
    "numbered, with connections": (
        lines(*GOLD, prefix="{}. ", suffix=". Connection: something"),
        [[f"{i}. {g[0]}", *g[1:]] for i, g in enumerate(GOLD, 1)],
        ("clean", set()),
    ),
    "json in a code fence": (
        "```json\n[\n  " + ",\n  ".join(json.dumps(g) for g in GOLD) + "\n]\n```",
        [
            ["```json", "", "", ""],
            ["[", "", "", ""],
            ['["Hammer"', '"Wrench"', '"Chisel"', '"Pliers"]'],
            ['["Mojito"', '"Negroni"', '"Daiquiri"', '"Sidecar"]'],
        ],
        ("clean", set()),
    ),
    "case, spacing and spelling": (
        "hammer,wrench ,  CHISEL, Plyers\nMojito, Negroni, Daquiri, Side car\n"
        + lines(MONKEY, ISLANDS),
        [
            ["hammer", "wrench", "CHISEL", "Plyers"],
            ["Mojito", "Negroni", "Daquiri", "Side car"],
            MONKEY,
            ISLANDS,
        ],
        ("repaired", {"case_spacing", "spelling"}),
    ),
    "a clue missing, one too many": (
        "Hammer, Wrench, Chisel\nMojito, Negroni, Daiquiri, Sidecar, Pliers\n"
        + lines(MONKEY, ISLANDS),
        [["Hammer", "Wrench", "Chisel", ""], COCKTAILS, MONKEY, ISLANDS],
        ("unrecoverable", "group_size"),
    ),
    "three groups only": (
        lines(TOOLS, COCKTAILS, MONKEY),
        [TOOLS, COCKTAILS, MONKEY, EMPTY],
        ("unrecoverable", "group_count"),
    ),
    "a duplicate": (
        "Hammer, Wrench, Chisel, Pliers\nMojito, Negroni, Hammer, Sidecar\n"
        + lines(MONKEY, ISLANDS),
        [TOOLS, ["Mojito", "Negroni", "Hammer", "Sidecar"], MONKEY, ISLANDS],
        ("unrecoverable", "duplicate"),
    ),
    "an unknown clue": (
        "Hammer, Wrench, Chisel, Banana\n" + lines(COCKTAILS, MONKEY, ISLANDS),
        [["Hammer", "Wrench", "Chisel", "Banana"], COCKTAILS, MONKEY, ISLANDS],
        ("unrecoverable", "unknown_item"),
    ),
    "one clue per line under headings": (
        "\n\n".join(
            f"Group {i}:\n" + "\n".join(f"- {c}" for c in g) for i, g in enumerate(GOLD, 1)
        ),
        [
            ["- Hammer", "", "", ""],
            ["- Wrench", "", "", ""],
            ["- Chisel", "", "", ""],
            ["- Pliers", "", "", ""],
        ],
        ("clean", set()),
    ),
    "chatty, with the clues echoed": (
        "Sure! The clues were: "
        + ", ".join(WORDS)
        + ".\n\nMy answer:\n"
        + lines(*GOLD, prefix="{}) ")
        + "\n\nThe red herring is Nuts, which looks like a tool.",
        [
            ["Sure! The clues were: Nuts", "Crete", "Hammer", "Mojito"],
            ["My answer:", "", "", ""],
            ["1) Hammer", "Wrench", "Chisel", "Pliers"],
            ["2) Mojito", "Negroni", "Daiquiri", "Sidecar"],
        ],
        ("repaired", {"echo_ignored"}),
    ),
    "explanations after the clues": (
        "Hammer, Wrench, Chisel, Pliers - all tools\nMojito, Negroni (with gin), Daiquiri, "
        "Sidecar\n" + lines(MONKEY, ISLANDS),
        [
            ["Hammer", "Wrench", "Chisel", "Pliers - all tools"],
            ["Mojito", "Negroni (with gin)", "Daiquiri", "Sidecar"],
            MONKEY,
            ISLANDS,
        ],
        ("repaired", {"explanation_dropped"}),
    ),
    "groups on one line": (
        "; ".join(", ".join(g) for g in GOLD),
        [["Hammer", "Wrench", "Chisel", "Pliers; Mojito"], EMPTY, EMPTY, EMPTY],
        ("clean", set()),
    ),
    "quoted, with and": (
        "\n".join(", ".join(f'"{c}"' for c in g[:3]) + f' and "{g[3]}"' for g in GOLD),
        [
            ['"Hammer"', '"Wrench"', '"Chisel" and "Pliers"', ""],
            ['"Mojito"', '"Negroni"', '"Daiquiri" and "Sidecar"', ""],
            ['"Puzzle"', '"Business"', '"Nuts" and "Suit"', ""],
            ['"Crete"', '"Rhodes"', '"Corfu" and "Kos"', ""],
        ],
        ("repaired", {"quotes"}),
    ),
    "a refusal": (
        "I'm not sure about this one.",
        [["I'm not sure about this one.", "", "", ""], EMPTY, EMPTY, EMPTY],
        ("unrecoverable", "refusal"),
    ),
}


@pytest.mark.parametrize("case", list(GROUPING_CASES))
def test_grouping_answers(case: str) -> None:
    text, paper, (status, expected) = GROUPING_CASES[case]
    assert paper_groups(text)[0] == paper
    result = parse_groups(text, WORDS)
    assert result.status == status
    if status == "unrecoverable":
        assert (result.groups, result.reason) == (EMPTY_GROUPS, expected)
    else:
        assert result.groups == GOLD and result.reason is None
        assert {r["kind"] for r in result.repairs} == expected


def test_repairs_and_reasons_in_detail() -> None:
    repairs = parse_groups(GROUPING_CASES["case, spacing and spelling"][0], WORDS).repairs
    assert {"kind": "case_spacing", "item": "CHISEL", "clue": "Chisel"} in repairs
    assert {"kind": "spelling", "item": "Side car", "clue": "Sidecar", "score": 93.3} in repairs
    assert {"kind": "spelling", "item": "Plyers", "clue": "Pliers", "score": 83.3} in repairs
    assert {"kind": "spelling", "item": "Daquiri", "clue": "Daiquiri", "score": 93.3} in repairs
    duplicate = parse_groups(GROUPING_CASES["a duplicate"][0], WORDS)
    assert duplicate.detail == "clue 'Hammer' named 2 times"
    unknown = parse_groups(GROUPING_CASES["an unknown clue"][0], WORDS)
    assert unknown.detail == "'Banana' is not a clue of the wall"


NAMED = list(zip(GOLD, CONNECTIONS, strict=True))
LAYOUTS = {
    "semicolons": "\n".join("; ".join(g) for g in GOLD),
    "pipes": "\n".join(" | ".join(g) for g in GOLD),
    "slashes": "\n".join(" / ".join(g) for g in GOLD),
    "tabs": "\n".join("\t".join(g) for g in GOLD),
    "bullets": "\n".join("* " + ", ".join(g) for g in GOLD),
    "numbered": "\n".join(f"{i}) " + ", ".join(g) for i, g in enumerate(GOLD, 1)),
    "named groups": "\n".join(f"{c}: " + ", ".join(g) for g, c in NAMED),
    "table with connections": "| Group | Clues | Connection |\n|---|---|---|\n"
    + "\n".join(f"| {i} | {', '.join(g)} | {c} |" for i, (g, c) in enumerate(NAMED, 1)),
    "table, one clue a cell": "| 1 | 2 | 3 | 4 |\n|:-|:-|:-|:-|\n"
    + "\n".join(f"| {' | '.join(g)} |" for g in GOLD),
    "headers and numbered clues": "\n".join(
        f"**{c}**\n" + "\n".join(f"{k}. {w}" for k, w in enumerate(g, 1)) + "\n" for g, c in NAMED
    ),
    "json object": json.dumps({c: g for g, c in NAMED}),
    "json records": "```\n"
    + json.dumps([{"clues": g, "connection": c} for g, c in NAMED])
    + "\n```",
    "brackets on one line": ", ".join("[" + ", ".join(g) + "]" for g in GOLD),
    "labels on one line": " ".join(f"Group {i}: " + ", ".join(g) for i, g in enumerate(GOLD, 1)),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_layouts_give_the_stated_partition(layout: str) -> None:
    result = parse_groups(LAYOUTS[layout], WORDS)
    assert (result.status, result.groups) == ("clean", GOLD)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (", ".join(WORDS), "group_count"),  # 16 clues on one line state no groups
        ("\n".join(WORDS), "group_count"),  # one clue per line, no group breaks
        (lines(*GOLD) + "\n" + lines(*GOLD), "group_count"),  # the answer given twice
        (lines(TOOLS, COCKTAILS, MONKEY, ["Crete", "Rhodes", "Corfu"]), "group_size"),
        ("", "no_answer"),
        ("I cannot help with that.", "refusal"),
    ],
)
def test_no_partition_is_guessed(text: str, reason: str) -> None:
    result = parse_groups(text, WORDS)
    assert (result.status, result.reason, result.groups) == ("unrecoverable", reason, EMPTY_GROUPS)


def test_a_duplicate_is_never_a_look_alike() -> None:
    """``Bean`` named twice is a duplicate, not ``Beam`` misspelt; a misspelling close to
    two clues is no clue."""
    words = ["Bean", "Beam", *[f"Clue{i:02d}" for i in range(14)]]
    groups = [words[0:4], words[4:8], words[8:12], words[12:16]]
    text = lines(["Bean", "Bean", *groups[0][2:]], *groups[1:])
    assert parse_groups(text, words).reason == "duplicate"
    text = lines(["Bean", "Beax", *groups[0][2:]], *groups[1:])  # Beax: one edit from both
    assert parse_groups(text, words).reason == "ambiguous_item"  # issue 22: the true reason
    text = lines(["Bean", "Bewm", *groups[0][2:]], *groups[1:])  # Bewm: Beam 1 edit, Bean 2
    assert parse_groups(text, words).groups[0][:2] == ["Bean", "Beam"]
    text = lines(["Beeam", "Bean", *groups[0][2:]], *groups[1:])  # Beeam: Beam 88.9, Bean 66.7
    result = parse_groups(text, words)
    assert result.groups == [["Beam", "Bean", *groups[0][2:]], *groups[1:]]
    assert result.repairs[0]["clue"] == "Beam"


def test_clue_holding_a_comma_is_kept_whole() -> None:
    words = "Happy Sleepy Grumpy Dopey 1,000 Ten Dozen Score".split()
    words += "Atlantic Pacific Indian Arctic Basil Sage Thyme Dill".split()
    gold = [words[i : i + 4] for i in range(0, 16, 4)]
    assert paper_groups(lines(*gold))[0][1] == ["1", "000", "Ten", "Dozen"]  # notebook splits
    assert parse_groups(lines(*gold), words).groups == gold
    words[5] = "Salt and pepper"
    gold = [words[i : i + 4] for i in range(0, 16, 4)]
    text = "\n".join(", ".join(g[:3]) + " and " + g[3] for g in gold)
    assert parse_groups(text, words).groups == gold


def test_wall_with_a_repeated_clue() -> None:
    words = ["Bask", "Bask", *[f"C{i}" for i in range(14)]]
    gold = [["Bask", "C0", "C1", "C2"], ["Bask", "C3", "C4", "C5"]]
    gold += [[f"C{i}" for i in range(6, 10)], [f"C{i}" for i in range(10, 14)]]
    result = parse_groups(lines(*gold), words)
    assert (result.status, result.groups) == ("clean", gold)
    gold[1][0] = "C0"
    assert parse_groups(lines(*gold), words).reason == "duplicate"


def test_reasoning_blocks() -> None:
    answer = lines(*GOLD)
    result = parse_groups(f"<think>Hammer, Nuts, Kos and Suit?</think>\n{answer}", WORDS)
    assert (result.status, result.groups) == ("repaired", GOLD)
    assert result.repairs == [{"kind": "reasoning_dropped"}]
    assert parse_groups(f"Hmm, Hammer, Nuts.</think>{answer}", WORDS).groups == GOLD
    result = parse_groups(f"{answer}\n<THINK>but then Nuts, Crete", WORDS)
    assert (result.status, result.reason) == ("unrecoverable", "unclosed_reasoning")
    assert drop_reasoning("a<think>b</think>c<think>d</think>e") == ("ace", None, True)


def test_complete_only_when_asked() -> None:
    three = lines(TOOLS, COCKTAILS, ISLANDS)
    assert parse_groups(three, WORDS).reason == "group_count"
    result = parse_groups(three, WORDS, complete=True)
    assert result.groups == [TOOLS, COCKTAILS, ISLANDS, ["Nuts", "Suit", "Puzzle", "Business"]]
    assert result.repairs[-1]["kind"] == "completed"


def test_lines_split_on_newline_only() -> None:
    assert split_lines("a\u2028b\r\nc\rd\x85e") == ["a\u2028b", "c", "d\x85e"]


# --------------------------------------------------------------------------------------
# Robustness: linear time, no traceback
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Hammer, Wrench" + " " * 100_000 + "x. Connection" + " " * 100_000,
        "Group" + " " * 100_000 + "1",
        "[" * 100_000 + "]" * 100_000,
        "{" * 50_000,
        "Nuts (" + "(" * 100_000,
        ".,;:-|/ " * 20_000,
        "<think>" * 20_000,
        "connection - " * 20_000,
    ],
)
@pytest.mark.slow
def test_long_runs_take_linear_time(text: str) -> None:
    start = time.perf_counter()
    result = parse_groups(text, WORDS)
    assert time.perf_counter() - start < 2.0
    assert result.status == "unrecoverable"


RUNS = st.sampled_from(
    [
        " ",
        ",",
        ";",
        "|",
        "[",
        "]",
        "{",
        "}",
        "(",
        "-",
        "\n",
        "*",
        '"',
        "<think>",
        "</think>",
        "Group 1:",
        "Connection:",
        "Hammer",
    ]
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(RUNS, st.integers(1, 400)) | st.text(max_size=20), max_size=30))
def test_no_traceback_on_any_text(parts: list) -> None:
    text = "".join(p[0] * p[1] if isinstance(p, tuple) else p for p in parts)
    result = parse_groups(text, WORDS)
    assert result.status in ("clean", "repaired", "unrecoverable")
    if result.status != "unrecoverable":
        assert sorted(c for g in result.groups for c in g) == sorted(WORDS)
    else:
        assert result.groups == EMPTY_GROUPS


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.permutations(WORDS), st.sampled_from(list(LAYOUTS.values())), st.data())
def test_never_a_different_partition(order: list[str], layout: str, data: st.DataObject) -> None:
    """A layout filled with another partition, then damaged: the parse is that partition or
    unrecoverable."""
    other = [list(order[i : i + 4]) for i in range(0, 16, 4)]
    text = layout
    for gold, new in zip(GOLD, other, strict=True):
        for old_clue, new_clue in zip(gold, new, strict=True):
            text = text.replace(old_clue, f"\x00{new_clue}\x00")
    text = text.replace("\x00", "")
    cut = data.draw(st.integers(0, len(text)))
    text = data.draw(st.sampled_from([text, text[:cut], text[:cut] + text[cut + 5 :]]))
    result = parse_groups(text, WORDS)
    if result.status != "unrecoverable":
        assert sorted(map(sorted, result.groups)) == sorted(map(sorted, other))
