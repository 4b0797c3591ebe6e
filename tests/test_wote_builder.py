"""Tests for the WoTe loading script ``WoTe.py`` (run on the installed ``datasets``).

The full-scale tests build the real release in ``../shared/data/wote`` offline (via
``data_dir``); the bad-input tests write damaged copies of it to ``tmp_path``.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import shutil
import sys
from pathlib import Path
from types import ModuleType

import datasets
import pytest
from hypothesis import given
from hypothesis import strategies as st

REPO_ROOT = Path(__file__).resolve().parents[1]
_MODULE_NAME = "wote_builder_under_test"


def _load_wote_script() -> ModuleType:
    """Import ``WoTe.py`` by path; registered in ``sys.modules`` as ``datasets`` requires."""
    if _MODULE_NAME in sys.modules:
        return sys.modules[_MODULE_NAME]
    spec = importlib.util.spec_from_file_location(_MODULE_NAME, REPO_ROOT / "WoTe.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[_MODULE_NAME] = module
    spec.loader.exec_module(module)
    return module


wote = _load_wote_script()

# Measured on the real release: extracted answers located in the rendered context.
LOCATED = {"train": 229, "validation": 154, "test": 378}


def _build(data_dir: Path, cache_dir: Path) -> datasets.DatasetDict:
    builder = wote.WoTe(config_name="wote", data_dir=str(data_dir), cache_dir=str(cache_dir))
    builder.download_and_prepare()
    return builder.as_dataset()


@pytest.fixture(scope="module")
def built(wote_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> datasets.DatasetDict:
    return _build(wote_dir, tmp_path_factory.mktemp("wote_cache"))


@pytest.fixture(scope="module")
def raw(wote_dir: Path) -> dict[str, list[dict[str, str]]]:
    return {
        split: json.loads((wote_dir / f"{split}.json").read_text(encoding="utf-8"))
        for split in wote.SPLITS
    }


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


def test_located_counts_logged(wote_dir: Path, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO, logger=_MODULE_NAME)
    _build(wote_dir, tmp_path)
    messages = [r.getMessage() for r in caplog.records if r.name == _MODULE_NAME]
    assert messages == [
        "WoTe train: 248 questions, extracted answer located in context for 229, not for 19",
        "WoTe validation: 169 questions, extracted answer located in context for 154, not for 15",
        "WoTe test: 412 questions, extracted answer located in context for 378, not for 34",
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
    "text",
    [
        "__import__('os').system('echo pwned')",
        "{'title': __import__('os').getcwd(), 'description': '', 'ingredients': [], 'steps': []}",
        "['title', 'description']",
        "{'title': 'x', 'description': '', 'ingredients': []}",
        "{'title': 'x', 'description': '', 'ingredients': [1], 'steps': []}",
        "{'title': 'x', 'description': ''",
    ],
)
def test_parse_task_data_rejects(text: str) -> None:
    with pytest.raises(wote.WoTeFormatError, match="task_data") as info:
        wote.parse_task_data(text, file="f.json", question_id="q-1")
    assert "f.json" in str(info.value) and "q-1" in str(info.value)


def test_parse_question_type() -> None:
    assert wote.parse_question_type("['navigation', 'history']") == ["navigation", "history"]
    with pytest.raises(wote.WoTeFormatError, match="question_type"):
        wote.parse_question_type("['factoid'")
    with pytest.raises(wote.WoTeFormatError, match="question_type"):
        wote.parse_question_type("'factoid'")


def test_parse_history() -> None:
    assert wote.parse_history("None") == []
    assert wote.parse_history(
        "student: What's next?  | teacher: Stir: gently | a|b. | student: How long? "
    ) == [
        {"role": "student", "text": "What's next?"},
        {"role": "teacher", "text": "Stir: gently | a|b."},
        {"role": "student", "text": "How long?"},
    ]
    with pytest.raises(wote.WoTeFormatError, match="history"):
        wote.parse_history("chef: hello", question_id="q-2")


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
    # No paraphrase matching.
    assert wote.locate_answer("400 degrees F", "Heat to 400°F.") == ("400 degrees F", -1)


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
def test_locate_answer_property(context: str, bounds: tuple, choices: list[int]) -> None:
    start = bounds[0] % len(context)
    end = min(len(context), start + bounds[1])
    answer = _case_changed(context[start:end], choices)
    if not answer.strip():
        return
    text, found = wote.locate_answer(answer, context)
    assert found >= 0
    assert context[found : found + len(text)] == text
    assert text.lower() == answer.lower() or text.casefold() == answer.casefold()


# --- bad input --------------------------------------------------------------------------


def _copy_release(wote_dir: Path, target: Path) -> Path:
    target.mkdir()
    for split in wote.SPLITS:
        shutil.copyfile(wote_dir / f"{split}.json", target / f"{split}.json")
    return target


def _assert_build_fails(data_dir: Path, cache_dir: Path, *fragments: str) -> str:
    with pytest.raises(wote.WoTeFormatError) as info:
        _build(data_dir, cache_dir)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert list(cache_dir.rglob("*.arrow")) == []
    return message


def _rewrite(path: Path, edit) -> None:
    records = json.loads(path.read_text(encoding="utf-8"))
    edit(records)
    path.write_text(json.dumps(records), encoding="utf-8")


def test_truncated_json(wote_dir: Path, tmp_path: Path) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    text = (data / "test.json").read_text(encoding="utf-8")
    (data / "test.json").write_text(text[: len(text) // 2], encoding="utf-8")
    _assert_build_fails(data, tmp_path / "cache", "test.json", "invalid JSON")


def test_unparseable_task_data(wote_dir: Path, tmp_path: Path) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")

    def edit(records: list) -> None:
        records[5]["task_data"] = records[5]["task_data"][:-40]

    _rewrite(data / "validation.json", edit)
    qid = json.loads((wote_dir / "validation.json").read_text())[5]["question_id"]
    _assert_build_fails(
        data, tmp_path / "cache", "validation.json", repr(qid), "'task_data'", "not a Python"
    )


def test_missing_split_file(wote_dir: Path, tmp_path: Path) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    (data / "test.json").rename(data / "test.json.bak")
    message = _assert_build_fails(data, tmp_path / "cache", "['test.json']")
    assert "['test.json.bak', 'train.json', 'validation.json']" in message


def test_missing_field(wote_dir: Path, tmp_path: Path) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    _rewrite(data / "train.json", lambda records: records[3].pop("domain"))
    qid = json.loads((wote_dir / "train.json").read_text())[3]["question_id"]
    _assert_build_fails(data, tmp_path / "cache", "train.json", repr(qid), "'domain'", "missing")


def test_non_string_field(wote_dir: Path, tmp_path: Path) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")

    def edit(records: list) -> None:
        records[0]["question_type"] = ["factoid"]

    _rewrite(data / "train.json", edit)
    _assert_build_fails(data, tmp_path / "cache", "train.json", "'question_type'", "list")


def test_id_repeated_across_splits(wote_dir: Path, tmp_path: Path) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    first = json.loads((wote_dir / "train.json").read_text())[0]
    _rewrite(data / "test.json", lambda records: records.append(first))
    _assert_build_fails(
        data, tmp_path / "cache", "test.json", f"{first['conversation_id']}/", "'train'"
    )


# --- bad input that used to fail only inside pyarrow, and other edge cases ---------------


def _first(wote_dir: Path, split: str, index: int = 0) -> dict:
    return json.loads((wote_dir / f"{split}.json").read_text(encoding="utf-8"))[index]


@pytest.mark.parametrize("field", ["question", "question_id", "history", "extracted_answer"])
def test_lone_surrogate_in_a_raw_field(wote_dir: Path, tmp_path: Path, field: str) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    source = _first(wote_dir, "train", 2)

    def edit(records: list) -> None:
        records[2][field] = records[2][field] + "\ud800"  # JSON "\ud800": allowed by JSON

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
def test_lone_surrogate_inside_task_data(
    wote_dir: Path, tmp_path: Path, text: str, field: str
) -> None:
    assert "\\udc80" in text and "\udc80" not in text
    data = _copy_release(wote_dir, tmp_path / "data")
    source = _first(wote_dir, "test", 4)

    def edit(records: list) -> None:
        records[4]["task_data"] = text

    _rewrite(data / "test.json", edit)
    _assert_build_fails(
        data,
        tmp_path / "cache",
        "test.json",
        repr(source["question_id"]),
        f"field 'task_data.{field}': not valid Unicode text: lone surrogate '\\udc80'",
    )


def test_lone_surrogate_in_question_type_label() -> None:
    with pytest.raises(wote.WoTeFormatError, match=r"q-9.*field 'question_type\[1\]': not valid"):
        wote.parse_question_type("['factoid', '\\ud800']", file="f.json", question_id="q-9")


def test_empty_split_list(wote_dir: Path, tmp_path: Path) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    (data / "validation.json").write_text("[]", encoding="utf-8")
    _assert_build_fails(
        data, tmp_path / "cache", "validation.json: split 'validation' has no questions"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[{"x": ' + "7" * 5000 + "}]", "ValueError: Exceeds the limit (4300 digits)"),
        ("[" * 100_000 + "]" * 100_000, "RecursionError"),
    ],
    ids=["5000-digit integer", "100k-deep nesting"],
)
def test_json_the_parser_cannot_handle(
    wote_dir: Path, tmp_path: Path, text: str, problem: str
) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    (data / "train.json").write_text(text, encoding="utf-8")
    _assert_build_fails(data, tmp_path / "cache", "train.json", "cannot parse the JSON", problem)


def test_data_split_disagreeing_with_the_file_is_kept_and_logged(
    wote_dir: Path, tmp_path: Path, caplog
) -> None:
    data = _copy_release(wote_dir, tmp_path / "data")
    source = _first(wote_dir, "train", 1)

    def edit(records: list) -> None:
        records[1]["data_split"] = "test"

    _rewrite(data / "train.json", edit)
    caplog.set_level(logging.WARNING, logger=_MODULE_NAME)
    built = _build(data, tmp_path / "cache")
    assert built["train"][1]["data_split"] == "test"  # kept verbatim, in the file's split
    assert built["train"].num_rows == 248
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.name == _MODULE_NAME and r.levelno == logging.WARNING
    ]
    assert len(warnings) == 1
    assert "train.json" in warnings[0] and "field 'data_split'" in warnings[0]
    assert f"{source['question_id']!r} has 'test'" in warnings[0]


def test_history_unknown_role_stays_in_the_previous_turn() -> None:
    # Documented rule: only "student:" and "teacher:" start a turn; no error, no warning.
    assert wote.parse_history("student: hi | assistant: hello | teacher: ok") == [
        {"role": "student", "text": "hi | assistant: hello"},
        {"role": "teacher", "text": "ok"},
    ]
    with pytest.raises(wote.WoTeFormatError, match=r"q-3.*field 'history'.*'assistant: hello'"):
        wote.parse_history("assistant: hello", question_id="q-3")
