"""WoTe's sibling modules on their own: ``task_data``, question types and history parsed,
the context rendered, answers located (on word boundaries, case folded, normalised as the
rule says) in linear time.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from wote_builder_support import synthetic_question, wote, wote_answers, wote_questions

# --- units ------------------------------------------------------------------------------


def test_parse_task_data_quotes_and_escapes() -> None:
    text = (
        "{'title': 'Mum\\'s \"best\" pie', 'description': \"Don't panic\\n\", "
        "'steps': ['Mix \\\\ stir', 'Bake'], 'ingredients': []}"
    )
    assert wote.parse_task_data(text) == {
        "title": 'Mum\'s "best" pie',
        "description": "Don't panic\n",
        "ingredients": [],
        "steps": ["Mix \\ stir", "Bake"],
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("__import__('os').system('echo pwned')", "not a Python literal (ValueError"),
        (
            "{'title': __import__('os').getcwd(), 'description': '', 'ingredients': [], "
            "'steps': []}",
            "not a Python literal",
        ),
        ("['title', 'description']", "expected a dict literal, got list"),
        ("{'title': 'x', 'description': '', 'ingredients': []}", "missing keys ['steps']"),
        (
            "{'title': 'x', 'description': '', 'ingredients': [1], 'steps': []}",
            "field 'task_data.ingredients': expected a list of strings, got [1]",
        ),
        ("{'title': 'x', 'description': ''", "not a Python literal (SyntaxError"),
        (
            "{'title': 'a', 'description': '', 'ingredients': [], 'steps': [], 'title': 'b'}",
            "field 'task_data': key 'title' appears more than once in the literal",
        ),
    ],
)
def test_parse_task_data_rejects(text: str, problem: str) -> None:
    where = wote_questions.WoTeWhere("f.json", "question_id 'q-1' (#0)")
    with pytest.raises(wote.WoTeFormatError, match="^f.json: question_id 'q-1' ") as info:
        wote.parse_task_data(text, where)
    assert problem in str(info.value)


def test_parse_question_type() -> None:
    assert wote.parse_question_type("['navigation', 'history']") == ["navigation", "history"]
    with pytest.raises(wote.WoTeFormatError, match="field 'question_type': not a Python"):
        wote.parse_question_type("['factoid'")
    with pytest.raises(wote.WoTeFormatError, match="field 'question_type': expected a list"):
        wote.parse_question_type("'factoid'")


def test_parse_history() -> None:
    assert wote.parse_history("None") == []
    assert wote.parse_history("  \t") == []
    assert wote.parse_history(
        "student: What's next?  | teacher: Stir: gently | a|b. | student: How long? "
    ) == [
        {"role": "student", "text": "What's next?"},
        {"role": "teacher", "text": "Stir: gently | a|b."},
        {"role": "student", "text": "How long?"},
    ]
    assert wote.parse_history("student: a|\n\tteacher:b") == [
        {"role": "student", "text": "a"},
        {"role": "teacher", "text": "b"},
    ]
    with pytest.raises(wote.WoTeFormatError, match="^<text>: field 'history': turn 'chef: hello'"):
        wote.parse_history("chef: hello")


def test_render_context() -> None:
    task = {"title": "T", "description": "", "ingredients": ["a", "b"], "steps": ["s1"]}
    assert wote.render_context(task) == "T\n\na\nb\ns1"


def test_locate_answer() -> None:
    context = "Soup\nHot.\n1 Cup Peas\n2 cups broth\nBoil the peas.\nServe."
    assert wote.locate_answer("boil THE peas", context) == ("Boil the peas", 34)
    assert wote.locate_answer("1 cup peas\\n2 cups broth", context) == (
        "1 Cup Peas\n2 cups broth",
        10,
    )
    assert wote.locate_answer("You are done", context) == ("You are done", -1)
    assert wote.locate_answer("   ", context) == ("   ", -1)
    # Exact case wins over an earlier case-insensitive hit.
    assert wote.locate_answer("peas", context) == ("peas", 43)
    # Normalised tier: entity, accent, apostrophe and whitespace differences.
    text, start = wote.locate_answer(
        "the jalapeno doesnt  burn", "x The jalape&ntilde;o doesn't\u00a0burn"
    )
    assert (text, start) == ("The jalape&ntilde;o doesn't\u00a0burn", 2)
    text, start = wote.locate_answer("jalapeno", "1 jalapeño")
    assert (text, start) == ("jalapeño", 2)
    # An '&...;' that is no HTML entity is plain text.
    assert wote.locate_answer("salt &amp pepper; done", "Salt &amp pepper;  done") == (
        "Salt &amp pepper;  done",
        0,
    )
    # Case-insensitive on characters whose lower case changes length or form.
    assert wote.locate_answer("istanbul", "to İstanbul") == ("İstanbul", 3)
    assert wote.locate_answer("ISPARTA", "ısparta") == ("ısparta", 0)
    # No paraphrase matching.
    assert wote.locate_answer("400 degrees F", "Heat to 400°F.") == ("400 degrees F", -1)


def test_locate_answer_on_word_boundaries() -> None:
    context = "Do not stir. Nothing else; no, really: NO."
    assert wote.locate_answer("no", context) == ("no", 27)  # not in "not", "Nothing"
    assert wote.locate_answer("NO", "Do not stir. Nothing else.") == ("NO", -1)
    assert wote.locate_answer("not", "Knot it, not too tight") == ("not", 9)
    # only the ends that are word characters are bounded
    assert wote.locate_answer("(no", "a(not (no)") == ("(no", 6)
    assert wote.locate_answer("no)", "a(not (no)") == ("no)", 7)
    assert wote.locate_answer("-", "well-done") == ("-", 4)
    # every tier: the \\n join, the normalised search
    assert wote.locate_answer("1 cup\\npea", "1 cups\npeas\n1 cup\npea") == ("1 cup\npea", 12)
    assert wote.locate_answer("doesnt", "it doesn'tt, it doesn't") == ("doesn't", 16)
    assert wote.locate_answer("jalapeno", "jalapeños, a jalapeño") == ("jalapeño", 13)


@pytest.mark.slow
def test_fold_case_over_every_cased_character() -> None:
    """One character in, one out; a character and its upper, lower, title and swapped case
    fold alike; characters that fold alike match under re.IGNORECASE."""
    cased = [
        chr(code)
        for code in range(0x110000)
        if not 0xD800 <= code < 0xE000 and chr(code).lower() + chr(code).upper() != 2 * chr(code)
    ]
    assert len(cased) > 2800
    classes: dict[str, list[str]] = {}
    for char in cased:
        folded = wote_answers._fold_case(char)
        assert len(folded) == 1, char
        for variant in (char.upper(), char.lower(), char.title(), char.swapcase()):
            if len(variant) == 1:
                assert wote_answers._fold_case(variant) == folded, (char, variant)
        classes.setdefault(folded, []).append(char)
    for members in classes.values():
        for a in members:
            assert all(re.fullmatch(re.escape(a), b, re.IGNORECASE) for b in members), members
    text = "".join(cased)
    assert len(wote_answers._fold_case(text)) == len(text)


def _case_changed(text: str, choices: list[int]) -> str:
    out = []
    for index, char in enumerate(text):
        changed = (char, char.upper(), char.lower(), char.swapcase())[choices[index]]
        out.append(changed if len(changed) == 1 else char)
    return "".join(out)


@given(
    context=st.text(min_size=1, max_size=60),
    bounds=st.tuples(st.integers(0, 60), st.integers(1, 60)),
    choices=st.lists(st.integers(0, 3), min_size=60, max_size=60),
)
@pytest.mark.slow
def test_locate_answer_property(context: str, bounds: tuple, choices: list[int]) -> None:
    """A slice of the context, its case changed, is found (ignoring case) unless it cuts a
    word; a hit never starts or ends inside a word."""
    start = bounds[0] % len(context)
    end = min(len(context), start + bounds[1])
    answer = _case_changed(context[start:end], choices)
    if not answer.strip():
        return
    text, found = wote.locate_answer(answer, context)
    cuts = (re.match(r"\w", answer) and re.search(r"\w\Z", context[:start])) or (
        re.search(r"\w\Z", answer) and re.match(r"\w", context[end:])
    )
    assert found >= 0 or cuts
    if found >= 0:
        assert context[found : found + len(text)] == text
        assert cuts or re.fullmatch(re.escape(answer), text, re.IGNORECASE)
        assert not (re.match(r"\w", text) and re.search(r"\w\Z", context[:found]))
        assert not (re.search(r"\w\Z", text) and re.match(r"\w", context[found + len(text) :]))


_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_APOSTROPHES = "'\u2018\u2019\u02bc`\u00b4"


def reference_normalise(text: str) -> tuple[str, list[int], list[int]]:
    """The rule of ``_normalise``, one character at a time (slow and obvious): entities
    decoded, NFKD without combining marks and apostrophes, whitespace runs as one space,
    lower case; with, for each output character, the start and end of its source."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = 0
    while i < len(text):
        entity = _ENTITY.match(text, i)
        if entity is not None and html.unescape(entity.group()) != entity.group():
            source, end = html.unescape(entity.group()), entity.end()
        else:
            source, end = text[i], i + 1
        for char in unicodedata.normalize("NFKD", source):
            if unicodedata.combining(char) or char in _APOSTROPHES:
                continue
            if char.isspace():
                if out and out[-1] == " ":
                    ends[-1] = end
                    continue
                char = " "
            for lowered in char.lower():
                out.append(lowered)
                starts.append(i)
                ends.append(end)
        i = end
    return "".join(out), starts, ends


TRICKY = [
    *"aB c.",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u3000",
    "'",
    "\u2019",
    "`",
    "\u00b4",
    "\u02bc",
    "&amp;",
    "&ntilde;",
    "&foo;",
    "&#39;",
    "&",
    "\u00e9",
    "e\u0301",
    "\ufb01",
    "\u0130",
    "\u0131",
    "\u00bd",
    "\u4e2d",
    "\u00df",
]


@given(st.lists(st.sampled_from(TRICKY), max_size=25).map("".join))
def test_normalise_and_spans_follow_the_rule(text: str) -> None:
    expected, starts, ends = reference_normalise(text)
    assert wote_answers._normalise(text) == expected
    for first, char in enumerate(expected):
        if char == " ":
            continue
        for last in range(first, len(expected)):
            if expected[last] != " ":
                assert wote_answers._source_span(text, first, last) == (starts[first], ends[last])


# --- parsing stays linear -----------------------------------------------------------------


def test_history_with_a_long_run_of_spaces() -> None:
    r"""Was quadratic (minutes for 200,000 spaces): the split regex began with ``\s*``."""
    spaces = " " * 200_000
    assert wote.parse_history(f"student: hi{spaces}there | teacher: ok{spaces}") == [
        {"role": "student", "text": f"hi{spaces}there"},
        {"role": "teacher", "text": "ok"},
    ]
    assert wote.parse_history(f"student:{spaces}|{spaces}teacher:{spaces}x") == [
        {"role": "student", "text": ""},
        {"role": "teacher", "text": "x"},
    ]
    pipes = "| " * 100_000
    assert wote.parse_history(f"student: {pipes}end") == [
        {"role": "student", "text": f"{pipes}end"}
    ]


@pytest.mark.slow
def test_locate_answer_in_a_context_of_several_megabytes() -> None:
    filler = "Stir the soup gently, it doesn't burn. " * 80_000  # 3.1 MB
    context = f"{filler}Add the jalape&ntilde;o.\n{' ' * 1_000_000}End."
    assert len(context) > 4_000_000
    # tier 4 (normalised) over the whole context, mapped back to the source span
    assert wote.locate_answer("add the jalapeno", context) == (
        "Add the jalape&ntilde;o",
        len(filler),
    )
    # a long run of spaces in the context, and an answer found nowhere
    assert wote.locate_answer("add the pepper", context) == ("add the pepper", -1)
    # many short runs: double spaces and apostrophes at word edges everywhere
    choppy = "'a'  b  " * 150_000 + "the  END"  # 1.2 MB, a piece every 2 characters
    assert wote.locate_answer("the end", choppy) == ("the  END", len(choppy) - 8)
    # tier 2 on a worst case for a regex search with IGNORECASE (was O(len * len(answer)))
    needle = "a" * 3000 + "b"
    assert wote.locate_answer(needle, "A" * 3_000_000) == (needle, -1)
    assert wote.locate_answer(needle.upper(), "a" * 3_000_000 + " " + needle) == (
        needle,
        3_000_001,
    )
    # whole words: a hit inside a word at every position but the last
    assert wote.locate_answer("AB", "ab" * 1_500_000 + " ab") == ("ab", 3_000_001)


@pytest.mark.slow
def test_read_questions_with_a_field_of_several_megabytes(tmp_path: Path) -> None:
    row = synthetic_question(1, "train")
    step = "Whisk the eggs and fold in the flour, then whisk again. " * 100_000  # 5.7 MB
    task = {"title": "Cake", "description": "", "ingredients": ["2 eggs"], "steps": [step]}
    row["task_data"] = repr(task)
    row["history"] = "student: hi" + " " * 2_000_000 + "| teacher: ok"
    row["extracted_answer"] = "FOLD in the flour,  then whisk again"  # tier 4: 2 spaces
    path = tmp_path / "train.json"
    path.write_text(json.dumps([row]), encoding="utf-8")
    (out,) = wote.read_questions(str(path), "train")
    assert out["task_data"]["steps"] == [step]
    assert out["context"] == "Cake\n\n2 eggs\n" + step
    assert out["answers"] == {
        "text": ["fold in the flour, then whisk again"],
        "answer_start": [len("Cake\n\n2 eggs\n") + len("Whisk the eggs and ")],
    }
    assert out["history"] == [{"role": "student", "text": "hi"}, {"role": "teacher", "text": "ok"}]
