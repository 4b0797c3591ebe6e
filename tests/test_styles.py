"""Prompt styles as template files (``ocw_hub/llm/prompt_styles``, ``ocw_hub.llm.styles``):
each style's prompt for a fixture wall (its structure, not its prose), the answer block each
style's parsing reads (round trips of a perfect answer, a cot answer without its final-answer
line, JSON that is invalid or breaks the schema), the schema check, the file format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parsing import CONNECTIONS, GOLD, lines
from test_prompting import EXAMPLE, WALL

from ocw_hub.llm.answer_blocks import after_marker
from ocw_hub.llm.prompts import STYLES, PromptError, make_request
from ocw_hub.llm.responses import Response, parse_wall
from ocw_hub.llm.styles import (
    SCHEMA_KEYWORDS,
    STYLE_NAMES,
    StyleError,
    load_style,
    read_sections,
    schema_problem,
    styles_markdown,
    styles_table,
)

STYLE_DIR = Path(__file__).parents[1] / "src" / "ocw_hub" / "llm" / "prompt_styles"
CLUES = ", ".join(WALL["words"])
GROUP_LINES = [f"{', '.join(g)}. Connection:" for g in GOLD]


def _messages(task: str, style: str, shots: int = 1, response_format: str = "schema"):
    request = make_request(WALL, task, [EXAMPLE] * shots, "m", style, response_format)
    system, user = request["body"]["messages"]
    return request["body"], system["content"], user["content"]


def _schema(task: str) -> dict:
    return json.loads((STYLE_DIR / f"json.{task}.schema.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------
# The prompts
# --------------------------------------------------------------------------------------


def test_every_style_file_is_listed_and_loads() -> None:
    names = sorted(p.name.split(".")[0] for p in STYLE_DIR.glob("*.txt"))
    assert names == sorted(STYLE_NAMES) and STYLES == STYLE_NAMES
    answers = {name: (load_style(name).answer, load_style(name).marker) for name in STYLE_NAMES}
    assert answers == {
        "paper": ("text", None),
        "ours": ("text", None),
        "cot": ("after", "Final answer:"),
        "json": ("json", None),
    }


@pytest.mark.parametrize("style", ["ours", "cot", "json"])
@pytest.mark.parametrize("task", ["grouping", "connections"])
def test_a_style_prompt_has_the_wall_once_after_the_examples(style: str, task: str) -> None:
    """Our styles share the layout: the examples block under its header, then the wall's clues
    on one ``Clues:`` line (task 1) or its 4 group lines after ``Groups:`` (task 2), then the
    closing instruction on the last line; zero-shot: no examples block at all."""
    _, _, user = _messages(task, style)
    paragraphs = user.split("\n\n")
    assert paragraphs[0] == "Solved walls, one group per line with its connection:"
    assert paragraphs[1].split("\n")[0] == "Example 1" and len(paragraphs[1].split("\n")) == 5
    question = f"Clues: {CLUES}" if task == "grouping" else "\n".join(["Groups:", *GROUP_LINES])
    assert paragraphs[2] == question and user.count(question) == 1
    assert len(paragraphs) == 4 and "\n" not in paragraphs[3]
    _, _, zero = _messages(task, style, shots=0)
    assert zero.split("\n\n") == [question, paragraphs[3]]


@pytest.mark.parametrize("task", ["grouping", "connections"])
def test_cot_asks_for_the_final_answer_line_that_its_parsing_reads(task: str) -> None:
    body, system, user = _messages(task, "cot")
    marker = load_style("cot").marker
    assert f'a line holding only "{marker}"' in system and f'"{marker}"' in user.split("\n")[-1]
    assert "response_format" not in body


@pytest.mark.parametrize("task", ["grouping", "connections"])
def test_json_sends_its_schema_as_response_format_or_in_the_prompt(task: str) -> None:
    body, system, user = _messages(task, "json")
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": f"ocw_{task}", "strict": True, "schema": _schema(task)},
    }
    key = "groups" if task == "grouping" else "connections"
    assert '{"' + key + '": [' in system and "schema" not in user
    in_prompt, _, prompt_user = _messages(task, "json", response_format="prompt")
    assert "response_format" not in in_prompt
    head, last = prompt_user.rsplit("\n\n", 1)
    assert head == user
    assert last.endswith(": " + json.dumps(_schema(task))) and "\n" not in last
    assert json.loads(last.split(": ", 1)[1]) == _schema(task)


def test_other_styles_ignore_the_response_format_and_bad_ones_are_refused() -> None:
    assert _messages("grouping", "cot", response_format="prompt") == _messages("grouping", "cot")
    with pytest.raises(PromptError, match="unknown response format 'xml'"):
        make_request(WALL, "grouping", [], "m", "json", "xml")
    with pytest.raises(PromptError, match="unknown prompt style 'cot2'"):
        make_request(WALL, "grouping", [], "m", "cot2")


@pytest.mark.parametrize("style", STYLE_NAMES)
@pytest.mark.parametrize("clue", ["${examples}", "$clues", "$$", "${schema}", "$"])
def test_a_clue_that_looks_like_a_placeholder_is_written_as_it_is(style: str, clue: str) -> None:
    """Substitution is one pass: text from data is never read as a placeholder."""
    wall = json.loads(json.dumps(WALL))
    old = wall["groups"]["group_1"]["gt_words"][0]
    wall["groups"]["group_1"]["gt_words"][0] = clue
    wall["words"][wall["words"].index(old)] = clue
    for task in ("grouping", "connections"):
        plain = make_request(WALL, task, [EXAMPLE], "m", style, "prompt")["body"]["messages"]
        odd = make_request(wall, task, [EXAMPLE], "m", style, "prompt")["body"]["messages"]
        assert odd[1]["content"] == plain[1]["content"].replace(old, clue, 1)
        assert odd[0] == plain[0]


# --------------------------------------------------------------------------------------
# The answer blocks: round trips and failures
# --------------------------------------------------------------------------------------


def _parse(text: str, style: str, task: str = "grouping", finish: str = "stop"):
    response = Response("w1", text, 1, finish_reason=finish)
    return parse_wall(WALL, response, task=task, mode="robust", style=style)


#: A reasoning that writes a wrong partition (a misreading), so parsing it would be caught.
REASONING = (
    "Let me think step by step.\n"
    + lines(*[[g[k] for g in GOLD] for k in range(4)])
    + "\nThese rows do not hold, so the final answer is below."
)

PERFECT = {
    "paper": (
        lines(*GOLD),
        "\n".join(
            f"{g}. Connection: {c}"
            for g, c in zip([", ".join(g) for g in GOLD], CONNECTIONS, strict=True)
        ),
    ),
    "ours": (
        lines(*GOLD),
        "\n".join(f"{line} {c}" for line, c in zip(GROUP_LINES, CONNECTIONS, strict=True)),
    ),
    "cot": (
        f"{REASONING}\n\n**Final answer:**\n{lines(*GOLD)}",
        "Thinking: tools, drinks.\n"
        "Final answer:\n"
        + "\n".join(f"{line} {c}" for line, c in zip(GROUP_LINES, CONNECTIONS, strict=True)),
    ),
    "json": (json.dumps({"groups": GOLD}), json.dumps({"connections": CONNECTIONS})),
}


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_a_perfect_answer_in_each_style_parses_to_the_gold(style: str) -> None:
    grouping, connections = PERFECT[style]
    parsed = _parse(grouping, style)
    assert (parsed.status, parsed.groups, parsed.reason) == ("clean", GOLD, None)
    parsed = _parse(connections, style, "connections")
    assert (parsed.status, parsed.connections) == ("clean", CONNECTIONS)


def test_cot_reads_only_after_the_last_marker() -> None:
    """The reasoning's partition (rows of the wall, all wrong) is never parsed: the answer
    after the marker is, and a marker on the last line with the groups after it on that line
    counts too."""
    assert _parse(REASONING + "\n" + lines(*GOLD), "ours").status == "unrecoverable"
    swapped = [GOLD[0], GOLD[1], [*GOLD[2][:3], GOLD[3][0]], [GOLD[2][3], *GOLD[3][1:]]]
    text = f"{REASONING}\nFinal answer:\n{lines(*swapped)}\n\nfinal answer: {lines(*GOLD)}"
    assert _parse(text, "cot").groups == GOLD
    assert after_marker("a\n## FINAL ANSWER: x, y\nz", "Final answer:") == "x, y\nz"
    assert after_marker("the final answer: is below", "Final answer:") is None
    # after the marker, only the emphasis that opened it goes: the answer's own marks stay
    assert after_marker("Final answer: ___ monkey\nb", "Final answer:") == "___ monkey\nb"
    assert after_marker("## **Final answer:** * Hand tools", "Final answer:") == "* Hand tools"


@pytest.mark.parametrize("task", ["grouping", "connections"])
def test_a_cot_answer_without_its_marker_is_unrecoverable(task: str) -> None:
    """The reasoning holds the gold groups, but with no final-answer line nothing is read."""
    text = lines(*GOLD) if task == "grouping" else PERFECT["ours"][1]
    parsed = _parse("Thinking it over:\n" + text, "cot", task)
    assert (parsed.status, parsed.reason) == ("unrecoverable", "no_final_answer")
    assert parsed.groups == (None if task == "connections" else [[""] * 4] * 4)
    assert parsed.connections in (None, [""] * 4)


@pytest.mark.parametrize(
    ("text", "reason", "detail"),
    [
        ('{"groups": [["Hammer", "Wrench"', "invalid_json", "not JSON"),
        ("Here it is: " + json.dumps({"groups": GOLD}), "invalid_json", "not JSON"),
        (json.dumps({"groups": GOLD[:3]}), "schema_mismatch", "$.groups: 3 items"),
        (json.dumps({"groups": [*GOLD[:3], GOLD[3][:3]]}), "schema_mismatch", "$.groups[3]: 3"),
        (
            json.dumps({"groups": GOLD, "connections": []}),
            "schema_mismatch",
            "$: unexpected key 'connections'",
        ),
        (json.dumps(GOLD), "schema_mismatch", "$: expected object, got list"),
        (json.dumps({"groups": [[1, 2, 3, 4], *GOLD[1:]]}), "schema_mismatch", "$.groups[0][0]"),
    ],
)
def test_json_that_is_invalid_or_breaks_the_schema_is_unrecoverable(text, reason, detail) -> None:
    parsed = _parse(text, "json")
    assert (parsed.status, parsed.reason) == ("unrecoverable", reason)
    assert parsed.detail is not None and parsed.detail.startswith(detail)
    assert parsed.groups == [[""] * 4] * 4


def test_json_answers_keep_the_clue_law_and_allow_one_fence() -> None:
    fenced = _parse("```json\n" + json.dumps({"groups": GOLD}) + "\n```", "json")
    assert (fenced.status, fenced.groups) == ("repaired", GOLD)
    assert [r["kind"] for r in fenced.repairs] == ["code_fence"]
    cased = _parse(json.dumps({"groups": [[c.upper() for c in GOLD[0]], *GOLD[1:]]}), "json")
    assert cased.status == "repaired" and cased.groups == GOLD
    twice = _parse(json.dumps({"groups": [GOLD[0], GOLD[0], *GOLD[2:]]}), "json")
    assert (twice.status, twice.reason) == ("unrecoverable", "duplicate")
    other = _parse(json.dumps({"groups": [[*GOLD[0][:3], "Spanner"], *GOLD[1:]]}), "json")
    assert (other.status, other.reason) == ("unrecoverable", "unknown_item")
    connections = _parse(json.dumps({"connections": ["a", "b"]}), "json", "connections")
    assert (connections.reason, connections.connections) == ("schema_mismatch", [""] * 4)


def test_a_truncated_json_answer_is_no_answer_even_when_allowed() -> None:
    response = Response("w1", json.dumps({"groups": GOLD})[:-5], 1, finish_reason="length")
    parsed = parse_wall(
        WALL, response, task="grouping", mode="robust", allow_truncated=True, style="json"
    )
    assert (parsed.status, parsed.reason) == ("unrecoverable", "invalid_json")


def test_paper_mode_reads_only_text_styles() -> None:
    for style in ("cot", "json"):
        with pytest.raises(ValueError, match="paper mode reads answers in text"):
            parse_wall(WALL, Response("w1", "x", 1), task="grouping", mode="paper", style=style)
    parsed = parse_wall(
        WALL, Response("w1", lines(*GOLD), 1), task="grouping", mode="paper", style="ours"
    )
    assert parsed.groups == GOLD


# --------------------------------------------------------------------------------------
# The schema check and the file format
# --------------------------------------------------------------------------------------


def test_schema_check_by_hand() -> None:
    schema = {
        "type": "object",
        "required": ["a"],
        "additionalProperties": False,
        "properties": {
            "a": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}}
        },
    }
    assert schema_problem({"a": ["x"]}, schema) is None
    assert schema_problem({"a": ["x", "y", "z"]}, schema) == "$.a: 3 items, expected 1 to 2"
    assert schema_problem({"a": []}, schema) == "$.a: 0 items, expected 1 to 2"
    assert schema_problem({}, schema) == "$: missing key 'a'"
    assert schema_problem({"a": ["x"], "b": 1}, schema) == "$: unexpected key 'b'"
    assert schema_problem({"a": ["x", 2]}, schema) == "$.a[1]: expected string, got int"
    assert schema_problem("a", schema) == "$: expected object, got str"
    nested: dict = {"groups": [[["deep"]] * 4] * 4}
    assert (
        schema_problem(nested, _schema("grouping")) == "$.groups[0][0]: expected string, got list"
    )


def test_the_shipped_schemas_use_only_checked_keywords() -> None:
    from ocw_hub.llm.styles import _keywords

    for task in ("grouping", "connections"):
        assert _keywords(_schema(task)) <= SCHEMA_KEYWORDS
        assert load_style("json").schemas[task] == _schema(task)


def test_style_file_sections_are_exact() -> None:
    text = "=== a ===\none\n\n=== b ===\ntwo\n  three\n\n\n=== c ===\n"
    assert read_sections(text, "f") == {"a": "one\n", "b": "two\n  three\n\n", "c": ""}
    with pytest.raises(StyleError, match="f: expected a first line"):
        read_sections("x\n=== a ===\n", "f")
    with pytest.raises(StyleError, match="section 'a' given twice"):
        read_sections("=== a ===\n1\n=== a ===\n2\n", "f")


def test_a_style_file_with_an_unknown_placeholder_is_refused(monkeypatch) -> None:
    from ocw_hub.llm import styles

    text = (STYLE_DIR / "ours.txt").read_text(encoding="utf-8")
    for broken, message in (
        (text.replace("${clues}", "${clue}", 1), r"unknown placeholder\(s\) \['clue'\]"),
        (text.replace("Solve this wall.", "Pay $5.", 1), "starts no placeholder"),
        (text.replace("=== connections user ===", "=== connection user ==="), "no section"),
        (text.replace("=== reproduces ===", "=== reproduced ==="), "'reproduces'"),
    ):
        monkeypatch.setattr(styles, "_resource", lambda _name, b=broken: b)
        styles.load_style.cache_clear()
        with pytest.raises(StyleError, match=message):
            styles.load_style("ours")
    monkeypatch.undo()
    styles.load_style.cache_clear()
    assert styles.load_style("ours").answer == "text"


def test_the_docs_hold_every_style_text() -> None:
    shown = styles_markdown()
    for name in STYLE_NAMES:
        for section, text in load_style(name).sections.items():
            if section != "description":
                assert f"### {section}\n\n````text\n{text}\n````\n" in shown


@settings(max_examples=60, deadline=None)
@given(
    groups=st.permutations(range(4)),
    clues=st.lists(st.permutations(range(4)), min_size=4, max_size=4),
    style=st.sampled_from(STYLE_NAMES),
)
def test_a_perfect_answer_in_any_order_round_trips(groups, clues, style) -> None:
    """Whatever the order of the groups and of their clues, a perfect answer in each style
    parses to the gold partition (as a partition: groups and clues in any order)."""
    answer = [[GOLD[g][c] for c in order] for g, order in zip(groups, clues, strict=True)]
    text = {
        "json": json.dumps({"groups": answer}),
        "cot": f"{REASONING}\nFinal answer:\n{lines(*answer)}",
    }.get(style, lines(*answer))
    parsed = _parse(text, style)
    assert parsed.status == "clean" and parsed.groups == answer
    assert sorted(map(sorted, parsed.groups)) == sorted(map(sorted, GOLD))


def test_the_table_says_what_each_style_reproduces() -> None:
    rows = [line for line in styles_table().splitlines() if line.startswith("| `")]
    assert [row.split(" | ")[0].strip("| `") for row in rows] == list(STYLE_NAMES)
    for name, row in zip(STYLE_NAMES, rows, strict=True):
        reproduces = load_style(name).reproduces
        assert reproduces and "\n" not in reproduces
        assert row.endswith(f" | {reproduces} |"), name
    assert "Loredo Lopez et al., COLING 2025" in load_style("cot").reproduces
    assert "notebook" in load_style("paper").reproduces
