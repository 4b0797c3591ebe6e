"""Tests for the WoTe loading script ``WoTe.py`` (run on the installed ``datasets``).

The full-scale tests build the real release in ``../shared/data/wote`` offline (fixture
``wote_dir``); the other tests write small synthetic releases (rows in the release shape,
written here) to ``tmp_path``.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

import datasets
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ocw_fixtures import Pairs, dumps

from ocw_hub.resources import load_metric_module, load_script, load_sibling

wote = load_script("WoTe")
wote_questions = load_sibling("wote_questions")
wote_answers = load_sibling("wote_answers")
DATASETS_MAJOR = int(datasets.__version__.split(".")[0])
SPLITS = ("train", "validation", "test")

# Measured on the real release: extracted answers located in the rendered context.
LOCATED = {"train": 229, "validation": 154, "test": 376}


def _build(
    data_dir: Path, cache_dir: Path, verification_mode: str = "no_checks"
) -> datasets.DatasetDict:
    """Build; the small synthetic releases are not the official sizes (which datasets 3.x
    checks from dataset_infos.json), so only the full-scale build checks them."""
    builder = wote.WoTe(config_name="wote", data_dir=str(data_dir), cache_dir=str(cache_dir))
    builder.download_and_prepare(verification_mode=verification_mode)
    return builder.as_dataset()


@pytest.fixture(scope="module")
def built(wote_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> datasets.DatasetDict:
    return _build(wote_dir, tmp_path_factory.mktemp("wote_cache"), "basic_checks")


@pytest.fixture(scope="module")
def raw(wote_dir: Path) -> dict[str, list[dict[str, str]]]:
    return {
        split: json.loads((wote_dir / f"{split}.json").read_text(encoding="utf-8"))
        for split in wote.SPLITS
    }


# --- a small synthetic release -----------------------------------------------------------


def synthetic_question(n: int, split: str) -> dict[str, str]:
    """A question in the release shape (14 string fields), written for these tests."""
    task = {
        "title": f"Soup {n:03d}",
        "description": "A quick soup; it doesn't need stock.",
        "ingredients": [f"{n % 9 + 1} cups water", "1 pinch salt"],
        "steps": ["Boil the water.", "Add the salt and stir."],
    }
    return {
        "conversation_id": f"Wizard-of-Task-food-{n:03d}",
        "question_id": f"food-{n:03d}-0",
        "question": "What next?",
        "text_question": "What next?",
        "original_answer": "Add the salt.",
        "extracted_answer": "add the salt",
        "document_url": f"https://example.org/soup/{n:03d}",
        "domain": "cooking",
        "data_split": split,
        "intent_question": "request_next_step",
        "intent_answer": "answer_question_recipe_steps",
        "history": "student: Hi | teacher: Hello, boil the water first.",
        "question_type": "['navigation']",
        "task_data": repr(task),
    }


def write_release(root: Path, per_split: int = 2) -> dict[str, list[dict[str, str]]]:
    """Write ``train.json``, ``validation.json``, ``test.json`` of ``per_split`` questions."""
    root.mkdir(parents=True, exist_ok=True)
    release = {}
    for s, split in enumerate(SPLITS):
        rows = [synthetic_question(10 * s + i, split) for i in range(per_split)]
        (root / f"{split}.json").write_text(dumps(rows), encoding="utf-8")
        release[split] = rows
    return release


def _rewrite(path: Path, edit) -> None:
    records = json.loads(path.read_text(encoding="utf-8"))
    edit(records)
    path.write_text(dumps(records), encoding="utf-8")


def _assert_build_fails(data_dir: Path, cache_dir: Path, *fragments: str) -> str:
    with pytest.raises(wote.WoTeFormatError) as info:
        _build(data_dir, cache_dir)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert list(cache_dir.rglob("*.arrow")) == []
    return message


def _label(row: dict[str, str], index: int) -> str:
    return (
        f"question_id {row['question_id']!r} (conversation_id {row['conversation_id']!r}, #{index})"
    )


# --- full scale -------------------------------------------------------------------------


def test_split_sizes_and_features(built: datasets.DatasetDict) -> None:
    assert {split: built[split].num_rows for split in built} == {
        "train": 248,
        "validation": 169,
        "test": 412,
    }
    assert dict(wote.OFFICIAL_SPLIT_SIZES) == {"train": 248, "validation": 169, "test": 412}
    for split in wote.SPLITS:
        assert built[split].features == wote.FEATURES
    assert list(wote.FEATURES) == [
        "id",
        "conversation_id",
        "question_id",
        "domain",
        "data_split",
        "document_url",
        "question",
        "text_question",
        "history",
        "question_type",
        "intent_question",
        "intent_answer",
        "original_answer",
        "extracted_answer",
        "task_data",
        "context",
        "answers",
    ]


def test_ids_unique_and_duplicated_question_ids_disambiguated(
    built: datasets.DatasetDict,
) -> None:
    ids = [i for split in wote.SPLITS for i in built[split]["id"]]
    assert len(ids) == 829
    assert len(set(ids)) == 829
    validation = built["validation"]
    pairs = sorted(
        (row["question_id"], row["id"])
        for row in validation
        if row["question_id"] in ("diy-63-5", "diy-64-6")
    )
    assert pairs == [
        ("diy-63-5", "Wizard-of-Task-diy-63/diy-63-5"),
        ("diy-63-5", "Wizard-of-Task-diy-64/diy-63-5"),
        ("diy-64-6", "Wizard-of-Task-diy-63/diy-64-6"),
        ("diy-64-6", "Wizard-of-Task-diy-64/diy-64-6"),
    ]


def test_answer_spans_and_located_counts(built: datasets.DatasetDict) -> None:
    located = {}
    for split in wote.SPLITS:
        count = 0
        for row in built[split]:
            (text,), (start,) = row["answers"]["text"], row["answers"]["answer_start"]
            if start >= 0:
                count += 1
                assert row["context"][start : start + len(text)] == text
            else:
                assert start == -1
                assert text == row["extracted_answer"]
        located[split] = count
    assert located == LOCATED


def test_gold_differs_from_extracted_answer_after_squad_normalisation(
    built: datasets.DatasetDict,
) -> None:
    """The README's figures: located answers whose gold (the context slice) and
    ``extracted_answer`` differ after SQuAD's normalisation, by cause."""
    normalize = load_metric_module("spans").normalize_answer
    causes: dict[str, dict[str, int]] = {split: {} for split in wote.SPLITS}
    for split in wote.SPLITS:
        for row in built[split]:
            (text,), (start,) = row["answers"]["text"], row["answers"]["answer_start"]
            answer = row["extracted_answer"]
            if start < 0 or normalize(text) == normalize(answer):
                continue
            cause = "backslash-n" if "\\n" in answer else "accent"
            # what remains once the joins are line breaks and accents and entities dropped
            plain = wote_answers._normalise
            assert normalize(plain(text)) == normalize(plain(answer.replace("\\n", "\n")))
            causes[split][cause] = causes[split].get(cause, 0) + 1
    assert causes == {
        "train": {"backslash-n": 11, "accent": 4},
        "validation": {"backslash-n": 7, "accent": 2},
        "test": {"backslash-n": 19, "accent": 3},
    }


def test_located_counts_logged(wote_dir: Path, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO, logger=wote.__name__)
    _build(wote_dir, tmp_path)
    messages = [r.getMessage() for r in caplog.records if r.name == wote.__name__]
    assert messages == [
        "WoTe train: 248 questions, extracted answer located in context for 229, not for 19",
        "WoTe validation: 169 questions, extracted answer located in context for 154, not for 15",
        "WoTe test: 412 questions, extracted answer located in context for 376, not for 36",
    ]


def test_real_row_field_by_field(built: datasets.DatasetDict, raw: dict) -> None:
    row = built["test"][398]
    source = raw["test"][398]
    assert row["id"] == "Wizard-of-Task-food-61/food-61-8"
    for field in wote.RAW_FIELDS:
        if field not in ("history", "question_type", "task_data"):
            assert row[field] == source[field], field
    assert row["question"] == "Should I add some oil to the pan first?"
    assert row["question_type"] == ["confirmation", "complex"]
    assert row["history"] == [
        {"role": "student", "text": "Make 8 flour tortillos"},
        {
            "role": "teacher",
            "text": "Actually, the next step doesn't have anything to do with the tortillas. "
            "You're going to want to grill your meat for about 5 minutes on each side. "
            "Since you're using minced beef instead of fish the cooking time may vary, but "
            "you want to make sure that the internal temperature reaches 160 degrees F to "
            "be safe.",
        },
        {
            "role": "student",
            "text": "Should I be making beef patties to grill or am I just grilling loose "
            "ground meat?",
        },
        {
            "role": "teacher",
            "text": "Use a cast iron pan on the grill to cook the loose ground meat.",
        },
    ]
    task = row["task_data"]
    assert task["title"] == "Grilled Fish Tacos with Chipotle Ranch"
    assert task["description"].startswith("Don't have a grill? You can broil the fish")
    assert len(task["ingredients"]) == 10
    assert task["ingredients"][0] == "1 (12.0-ounce) package frozen mahi-mahi fillets, defrosted"
    assert task["ingredients"][-1] == "1/4 cup chipotle ranch dressing"
    assert task["steps"] == [
        "Prepare a grill for medium heat cooking.",
        "Coat fillets with oil and sprinkle with seasoning.",
        "Grill fish over medium heat until cooked through and browned, about 5 minutes each side.",
        "While fish is cooking, warm tortillas in a large skillet over medium heat or "
        "sprinkle lightly with water and warm on grill.",
        "Wrap in a clean towel or foil to keep warm.",
        "When fish is cooked, break gently into bite-sized pieces, divide among tortillas "
        "and top with cheese, cabbage, tomatoes, onions and other toppings, as desired.",
        "Drizzle with dressing before serving.",
    ]
    assert row["context"] == "\n".join(
        [task["title"], task["description"], *task["ingredients"], *task["steps"]]
    )
    # The raw answer joins two steps with a literal backslash-n.
    assert source["extracted_answer"] == (
        "prepare a grill for medium heat cooking.\\ncoat fillets with oil and sprinkle "
        "with seasoning"
    )
    assert row["answers"] == {
        "text": [
            "Prepare a grill for medium heat cooking.\n"
            "Coat fillets with oil and sprinkle with seasoning"
        ],
        "answer_start": [536],
    }


def test_read_questions_matches_builder(wote_dir: Path, built: datasets.DatasetDict) -> None:
    rows = wote.read_questions(str(wote_dir / "validation.json"), "validation")
    assert rows == built["validation"].to_list()


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


def test_answers_not_located_inside_a_word(built: datasets.DatasetDict) -> None:
    """``diy-112-2`` ("no") was located inside "not"; ``diy-202-3`` is cut off mid-word in
    the release ("... from the vomi" of "vomit"). Neither context has the answer as whole
    words, so both keep the release's answer, unlocated."""
    rows = {row["id"]: row for row in built["test"]}
    for key, answer in [
        ("Wizard-of-Task-diy-112/diy-112-2", "no"),
        ("Wizard-of-Task-diy-202/diy-202-3", "use a dry cloth to soak up any liquid from the vomi"),
    ]:
        row = rows[key]
        assert row["extracted_answer"] == answer
        assert row["answers"] == {"text": [answer], "answer_start": [-1]}
        assert answer in row["context"].lower()
        assert re.search(rf"\b{re.escape(answer)}\b", row["context"], re.IGNORECASE) is None


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


# --- rows travel in gen_kwargs; the data_dir ---------------------------------------------


def test_validated_rows_travel_in_gen_kwargs(tmp_path: Path) -> None:
    release = write_release(tmp_path / "data")
    builder = wote.WoTe(
        config_name="wote", data_dir=str(tmp_path / "data"), cache_dir=str(tmp_path / "c")
    )
    generators = builder._split_generators(datasets.DownloadManager())
    for path in (tmp_path / "data").iterdir():
        path.unlink()  # nothing is read again: the rows are in gen_kwargs
    for generator in generators:
        assert set(generator.gen_kwargs) == {"rows", "split"}
        rows = [row for _, row in builder._generate_examples(**generator.gen_kwargs)]
        expected = release[generator.name]
        assert [r["question_id"] for r in rows] == [r["question_id"] for r in expected]
        # context lines: "Soup 0n0" (8), the description (36), "k cups water" (12),
        # "1 pinch salt" (12), "Boil the water." (15): the last step starts at 9+37+13+13+16
        assert rows[0]["answers"] == {"text": ["Add the salt"], "answer_start": [88]}
    assert not [name for name in vars(builder) if "row" in name.lower()]


def test_missing_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    pattern = rf"^{re.escape(str(missing))}: data_dir not found \(no such file or folder\)$"
    with pytest.raises(FileNotFoundError, match=pattern):
        _build(missing, tmp_path / "cache")


def test_data_dir_that_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "train.json"
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(wote.WoTeFormatError, match=rf"^{re.escape(str(path))}: data_dir is neith"):
        _build(path, tmp_path / "cache")


def test_edited_file_with_same_size_and_mtime_gives_new_rows(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)
    cache = tmp_path / "cache"
    assert _build(data, cache)["train"][0]["domain"] == "cooking"
    _edit_keeping_stat(data / "train.json", '"cooking"', '"diyxxxx"')
    assert _build(data, cache)["train"][0]["domain"] == "diyxxxx"


def test_edited_file_through_the_package_api(tmp_path: Path) -> None:
    import ocw_hub

    data = tmp_path / "data"
    write_release(data)

    def load() -> datasets.Dataset:
        return ocw_hub.load_dataset(
            "wote",
            "validation",
            data_dir=data,
            cache_dir=tmp_path / "cache",
            verification_mode="no_checks",
        )

    assert load()[1]["question"] == "What next?"
    _edit_keeping_stat(data / "validation.json", '"What next?"', '"What then?"')
    assert load()[1]["question"] == "What then?"


def _edit_keeping_stat(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (same length) in ``path``; keep its size and mtime."""
    assert len(old) == len(new)
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.mark.skipif(DATASETS_MAJOR >= 4, reason="the script path needs datasets 3.x")
def test_script_path_on_datasets_3_gives_new_rows(repo_root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)

    def load() -> datasets.DatasetDict:
        return datasets.load_dataset(
            str(repo_root / "WoTe.py"),
            "wote",
            data_dir=str(data),
            trust_remote_code=True,
            cache_dir=str(tmp_path / "cache"),
            verification_mode="no_checks",
        )

    assert load()["test"][0]["domain"] == "cooking"
    _edit_keeping_stat(data / "test.json", '"cooking"', '"diyxxxx"')
    assert load()["test"][0]["domain"] == "diyxxxx"


# --- bad input --------------------------------------------------------------------------


def test_truncated_json(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)
    text = (data / "test.json").read_text(encoding="utf-8")
    (data / "test.json").write_text(text[: len(text) // 2], encoding="utf-8")
    _assert_build_fails(
        data, tmp_path / "cache", f"{data / 'test.json'}: invalid JSON in split 'test'"
    )


def test_unparseable_task_data(tmp_path: Path) -> None:
    data = tmp_path / "data"
    release = write_release(data)

    def edit(records: list) -> None:
        records[1]["task_data"] = records[1]["task_data"][:-40]

    _rewrite(data / "validation.json", edit)
    _assert_build_fails(
        data,
        tmp_path / "cache",
        f"validation.json: {_label(release['validation'][1], 1)}: field 'task_data': not a "
        "Python literal",
    )


def test_missing_split_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)
    (data / "test.json").rename(data / "test.json.bak")
    message = _assert_build_fails(data, tmp_path / "cache", "no file for split 'test'")
    assert message.endswith("Files found: train.json, validation.json")


def test_missing_field(tmp_path: Path) -> None:
    data = tmp_path / "data"
    release = write_release(data)
    _rewrite(data / "train.json", lambda records: records[1].pop("domain"))
    label = _label(release["train"][1], 1)
    _assert_build_fails(data, tmp_path / "cache", f"train.json: {label}: field 'domain': missing")


def test_non_string_field(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)

    def edit(records: list) -> None:
        records[0]["question_type"] = ["factoid"]

    _rewrite(data / "train.json", edit)
    _assert_build_fails(
        data, tmp_path / "cache", "field 'question_type': expected a string, got list"
    )


def test_id_repeated_across_splits(tmp_path: Path) -> None:
    data = tmp_path / "data"
    release = write_release(data)
    first = release["train"][0]
    _rewrite(data / "test.json", lambda records: records.append(first))
    _assert_build_fails(
        data,
        tmp_path / "cache",
        f"test.json: {_label(first, 2)}: field 'id': id '{first['conversation_id']}/",
        "also occurs in split 'train'",
    )


def test_id_repeated_in_a_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    release = write_release(data)
    first = release["validation"][0]
    _rewrite(data / "validation.json", lambda records: records.append(first))
    _assert_build_fails(data, tmp_path / "cache", f"{_label(first, 2)}: field 'id'", "question #0")


def test_duplicate_json_key_in_a_row(tmp_path: Path) -> None:
    """A row with two ``domain`` keys: ``json`` would silently keep the last."""
    data = tmp_path / "data"
    release = write_release(data)
    rows: list[Any] = list(release["train"])
    rows[1] = Pairs([*rows[1].items(), ("domain", "diy")])
    (data / "train.json").write_text(dumps(rows), encoding="utf-8")
    _assert_build_fails(
        data,
        tmp_path / "cache",
        f"{data / 'train.json'}: question_id 'food-001-0' (conversation_id "
        "'Wizard-of-Task-food-001', #1): field 'domain': key 'domain' appears more than once "
        "in one JSON object (values 'cooking', 'diy'); each key must appear once",
    )


def test_duplicate_key_in_the_task_data_literal(tmp_path: Path) -> None:
    data = tmp_path / "data"
    release = write_release(data)

    def edit(records: list) -> None:
        records[0]["task_data"] = records[0]["task_data"][:-1] + ", 'steps': []}"

    _rewrite(data / "test.json", edit)
    _assert_build_fails(
        data,
        tmp_path / "cache",
        f"test.json: {_label(release['test'][0], 0)}: field 'task_data': key 'steps' appears "
        "more than once in the literal",
    )


@pytest.mark.parametrize("field", ["question_id", "conversation_id"])
@pytest.mark.parametrize(
    "value", ["", "\u200b", "\x00", " \ufeff\t"], ids=["empty", "ZWSP", "NUL", "BOM"]
)
def test_blank_ids(tmp_path: Path, field: str, value: str) -> None:
    data = tmp_path / "data"
    write_release(data)

    def edit(records: list) -> None:
        records[1][field] = value

    _rewrite(data / "validation.json", edit)
    _assert_build_fails(
        data,
        tmp_path / "cache",
        "validation.json: ",
        f"{field} {value!r}",
        f"#1): field '{field}': empty or blank {value!r} (only whitespace, control or format "
        "characters)",
    )


@pytest.mark.parametrize("field", ["question", "question_id", "history", "extracted_answer"])
def test_lone_surrogate_in_a_raw_field(tmp_path: Path, field: str) -> None:
    data = tmp_path / "data"
    release = write_release(data)
    source = release["train"][1]

    def edit(records: list) -> None:
        records[1][field] = records[1][field] + "\ud800"  # JSON "\ud800": allowed by JSON

    _rewrite(data / "train.json", edit)
    qid = source["question_id"] + "\ud800" if field == "question_id" else source["question_id"]
    _assert_build_fails(
        data,
        tmp_path / "cache",
        "train.json",
        f"question_id {qid!r}",
        f"conversation_id {source['conversation_id']!r}",
        f"field {field!r}: not valid Unicode text: lone surrogate '\\ud800'",
    )


@pytest.mark.parametrize(
    ("text", "field"),
    [
        # The Python escape \udc80 inside the literal: valid JSON text, a surrogate once parsed.
        ("{'title': 'T\\udc80', 'description': '', 'ingredients': [], 'steps': []}", "title"),
        (
            "{'title': 'T', 'description': '', 'ingredients': [], 'steps': ['a', '\\udc80']}",
            "steps[1]",
        ),
    ],
)
def test_lone_surrogate_inside_task_data(tmp_path: Path, text: str, field: str) -> None:
    assert "\\udc80" in text and "\udc80" not in text
    data = tmp_path / "data"
    release = write_release(data)

    def edit(records: list) -> None:
        records[0]["task_data"] = text

    _rewrite(data / "test.json", edit)
    _assert_build_fails(
        data,
        tmp_path / "cache",
        f"test.json: {_label(release['test'][0], 0)}",
        f"field 'task_data.{field}': not valid Unicode text: lone surrogate '\\udc80'",
    )


def test_lone_surrogate_in_question_type_label() -> None:
    where = wote_questions.WoTeWhere("f.json", "question_id 'q-9' (#0)")
    with pytest.raises(wote.WoTeFormatError, match=r"q-9.*field 'question_type\[1\]': not valid"):
        wote.parse_question_type("['factoid', '\\ud800']", where)


def test_empty_split_list(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)
    (data / "validation.json").write_text("[]", encoding="utf-8")
    _assert_build_fails(
        data, tmp_path / "cache", "validation.json: split 'validation' has no questions"
    )


def test_item_that_is_not_an_object(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)
    _rewrite(data / "train.json", lambda records: records.append(["not", "an", "object"]))
    _assert_build_fails(
        data, tmp_path / "cache", "train.json: question #2: expected a question object, got list"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[{"x": ' + "7" * 5000 + "}]", "ValueError: Exceeds the limit (4300 digits)"),
        ("[" * 100_000 + "]" * 100_000, "RecursionError"),
    ],
    ids=["5000-digit integer", "100k-deep nesting"],
)
def test_json_the_parser_cannot_handle(tmp_path: Path, text: str, problem: str) -> None:
    data = tmp_path / "data"
    write_release(data)
    (data / "train.json").write_text(text, encoding="utf-8")
    _assert_build_fails(
        data, tmp_path / "cache", "train.json: cannot parse the JSON of split 'train'", problem
    )


def test_data_split_disagreeing_with_the_file_is_kept_and_logged(tmp_path: Path, caplog) -> None:
    data = tmp_path / "data"
    release = write_release(data)

    def edit(records: list) -> None:
        records[1]["data_split"] = "test"

    _rewrite(data / "train.json", edit)
    caplog.set_level(logging.WARNING, logger=wote_questions.__name__)
    built = _build(data, tmp_path / "cache")
    assert built["train"][1]["data_split"] == "test"  # kept verbatim, in the file's split
    assert built["train"].num_rows == 2
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.name == wote_questions.__name__ and r.levelno == logging.WARNING
    ]
    assert len(warnings) == 1
    assert "train.json: field 'data_split' differs from the file's split 'train'" in warnings[0]
    assert f"{release['train'][1]['question_id']!r} has 'test'" in warnings[0]


def test_history_unknown_role_stays_in_the_previous_turn() -> None:
    # Documented rule: only "student:" and "teacher:" start a turn; no error, no warning.
    assert wote.parse_history("student: hi | assistant: hello | teacher: ok") == [
        {"role": "student", "text": "hi | assistant: hello"},
        {"role": "teacher", "text": "ok"},
    ]
    where = wote_questions.WoTeWhere("f.json", "question_id 'q-3' (#0)")
    with pytest.raises(wote.WoTeFormatError, match=r"q-3.*field 'history'.*'assistant: hello'"):
        wote.parse_history("assistant: hello", where)
