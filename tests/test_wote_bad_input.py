"""WoTe.py on bad input: a clear WoTeFormatError naming the file, the question and the field,
and nothing written.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from ocw_fixtures import Pairs, dumps
from wote_builder_support import (
    _assert_build_fails,
    _build,
    _label,
    _rewrite,
    wote,
    wote_questions,
    write_release,
)

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
