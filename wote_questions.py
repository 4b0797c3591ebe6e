"""Reading and validating WoTe questions into the rows of ``WoTe.py`` (standard library only).

Imported relatively by ``WoTe.py``, which also imports ``source_files`` and ``wote_answers``
(``datasets`` 3.x copies only the siblings a script imports itself). Every input error is a
:class:`WoTeFormatError` naming the file, the question and conversation ids and the field:
``"<file>: question_id 'food-3-0' (conversation_id 'Wizard-of-Task-food-3', #0): field
'history': <problem>"`` (:class:`WoTeWhere`).
"""

from __future__ import annotations

import ast
import logging
import re
from typing import Any

from .source_files import (
    SPLITS,
    Where,
    check_line,
    check_name,
    check_text,
    load_json,
    short,
)
from .wote_answers import locate_answer

logger = logging.getLogger(__name__)

OFFICIAL_SPLIT_SIZES: dict[str, int] = {"train": 248, "validation": 169, "test": 412}


#: The 14 fields of every object in the release, all JSON strings.
RAW_FIELDS: tuple[str, ...] = (
    "conversation_id",
    "question_id",
    "question",
    "text_question",
    "original_answer",
    "extracted_answer",
    "document_url",
    "domain",
    "data_split",
    "intent_question",
    "intent_answer",
    "history",
    "question_type",
    "task_data",
)

#: The raw fields that go into a prompt as one line each (the question; the history, one line
#: per turn): a control character or line break in them is refused (:func:`check_line`), so
#: data can never add a line to a prompt. The task text (``context``) is many lines by nature;
#: ``ocw_hub.llm.wote`` refuses a line of it that would read as a prompt section header.
PROMPT_LINES: tuple[str, ...] = ("question", "history")

_TASK_KEYS: tuple[str, ...] = ("title", "description", "ingredients", "steps")
_ROLES: tuple[str, ...] = ("student", "teacher")


class WoTeFormatError(ValueError):
    """A WoTe source file does not have the documented shape.

    The message names the file, and when relevant the question (``question_id``,
    ``conversation_id`` and index) and the field: ``"<file>: question_id 'food-3-0'
    (conversation_id 'Wizard-of-Task-food-3', #0): field 'history': <problem>"``.
    """


#: The error WoTe raises for bad input (the same name in ocw_walls.py: one error design).
FORMAT_ERROR = WoTeFormatError


class WoTeWhere(Where):
    """:class:`WoTeWhere` of WoTe: raises :class:`WoTeFormatError`, labels questions."""

    error_type = WoTeFormatError

    @staticmethod
    def item_at(document: Any, json_path: list[str | int]) -> tuple[str, list[str | int]]:
        """``[3, "domain"]`` -> ``("question_id 'food-3-0' (conversation_id '...', #3)",
        ["domain"])``."""
        if json_path and isinstance(json_path[0], int):
            return _question_label(document[json_path[0]], json_path[0]), json_path[1:]
        return "", json_path


def _question_label(record: Any, index: int) -> str:
    """``"question_id 'food-3-0' (conversation_id 'Wizard-of-Task-food-3', #3)"``; an id that
    is not a string is left out (``"question (#3)"``)."""
    if not isinstance(record, dict):
        return f"question #{index}"
    qid, cid = record.get("question_id"), record.get("conversation_id")
    label = f"question_id {qid!r}" if isinstance(qid, str) else "question"
    conversation = f"conversation_id {cid!r}, " if isinstance(cid, str) else ""
    return f"{label} ({conversation}#{index})"


# --------------------------------------------------------------------------------------------
# The fields encoded as Python literals or as a flat string
# --------------------------------------------------------------------------------------------


def _check_literal_keys(tree: ast.AST, where: Where, field: str) -> None:
    """Reject a dict literal that repeats a key (``literal_eval`` would keep the last)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        seen: set[Any] = set()
        for key in node.keys:
            if not isinstance(key, ast.Constant):
                continue
            if key.value in seen:
                raise where.error(
                    field,
                    f"key {key.value!r} appears more than once in the literal; each key must "
                    "appear once",
                )
            seen.add(key.value)


def _literal(text: Any, where: Where, field: str) -> Any:
    """Parse a Python literal safely: :func:`ast.literal_eval`, never ``eval``."""
    if not isinstance(text, str):
        raise where.error(field, f"expected a string, got {type(text).__name__}")
    try:
        tree = ast.parse(text.lstrip(" \t"), mode="eval")  # as literal_eval parses a string
    except (ValueError, SyntaxError, MemoryError, RecursionError) as err:
        raise where.error(
            field, f"not a Python literal ({type(err).__name__}: {err}): {text[:80]!r}"
        ) from None
    _check_literal_keys(tree, where, field)
    try:
        return ast.literal_eval(tree)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as err:
        raise where.error(
            field, f"not a Python literal ({type(err).__name__}: {err}): {text[:80]!r}"
        ) from None


def _string(value: Any, where: Where, field: str) -> str:
    if not isinstance(value, str):
        raise where.error(field, f"expected a string, got {short(value)}")
    check_text(value, where, field)
    return value


def _string_list(items: Any, where: Where, field: str) -> list[str]:
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise where.error(field, f"expected a list of strings, got {short(items)}")
    for i, item in enumerate(items):
        check_text(item, where, f"{field}[{i}]")
    return list(items)


def parse_task_data(text: str, where: Where | None = None) -> dict[str, Any]:
    """Parse the ``task_data`` field, a Python-literal dict string, safely.

    Args:
        text: e.g. ``"{'title': 'Soup', 'description': '', 'ingredients': ['1 cup peas'],
            'steps': ['Boil.']}"``. Parsed with :func:`ast.literal_eval`, so only literals
            are accepted (a call such as ``__import__('os')`` is rejected, never run).
        where: the file and question, for error messages (:class:`WoTeWhere`).

    Returns:
        ``{"title": str, "description": str, "ingredients": list[str], "steps": list[str]}``
        with the keys in that order (the release has both key orders).

    Raises:
        WoTeFormatError: ``text`` is not a string or not a literal; the literal is not a
            dict, or repeats a key; a key is missing or unexpected; a value has the wrong
            type or is a string that is not valid Unicode (a lone surrogate, e.g. written
            ``'\\ud800'``).
    """
    where = where or WoTeWhere("<text>")
    value = _literal(text, where, "task_data")
    if not isinstance(value, dict):
        raise where.error("task_data", f"expected a dict literal, got {type(value).__name__}")
    missing = [key for key in _TASK_KEYS if key not in value]
    extra = sorted(str(key) for key in value if key not in _TASK_KEYS)
    if missing or extra:
        raise where.error("task_data", f"missing keys {missing}, unexpected keys {extra}")
    return {
        "title": _string(value["title"], where, "task_data.title"),
        "description": _string(value["description"], where, "task_data.description"),
        "ingredients": _string_list(value["ingredients"], where, "task_data.ingredients"),
        "steps": _string_list(value["steps"], where, "task_data.steps"),
    }


def parse_question_type(text: str, where: Where | None = None) -> list[str]:
    """Parse the ``question_type`` field, a Python-literal list string.

    Args:
        text: e.g. ``"['navigation', 'history']"`` (labels seen in the release:
            factoid, navigation, confirmation, complex, history, causal, listing).
        where: the file and question, for error messages (:class:`WoTeWhere`).

    Returns:
        The labels in their original order, e.g. ``["navigation", "history"]``.

    Raises:
        WoTeFormatError: not a literal, or not a list of strings, or a label that is not
            valid Unicode.
    """
    where = where or WoTeWhere("<text>")
    return _string_list(_literal(text, where, "question_type"), where, "question_type")


# A turn boundary is a '|' followed (after optional whitespace) by a known role and a colon; a
# '|' anywhere else stays inside the turn text. The pattern starts with the literal '|', so a
# search is linear in the text (a leading "\s*", as this script once had, retries every
# position of a whitespace run: quadratic, minutes for a run of 200,000 spaces).
_ROLE_PATTERN = "|".join(_ROLES)
_TURN_BOUNDARY = re.compile(rf"\|(?=\s*(?:{_ROLE_PATTERN}):)")
_TURN = re.compile(rf"({_ROLE_PATTERN}):(.*)", re.DOTALL)


def parse_history(text: str, where: Where | None = None) -> list[dict[str, str]]:
    """Parse the ``history`` field into a list of turns.

    Rule: the exact string ``"None"`` (or an empty/blank string) means no history and
    gives ``[]``. Otherwise the string is split at every ``|`` that is followed (after
    optional whitespace) by ``student:`` or ``teacher:``; each piece must start with one
    of these roles and a colon; the text is what follows the colon with surrounding
    whitespace stripped. A ``|`` not followed by a role stays in the text. The release
    holds only the roles ``student`` and ``teacher`` (2925 turns), always separated by
    ``" | "``, and no ``|`` inside a turn. Time and memory are linear in ``len(text)``.

    Consequence, kept on purpose: only ``student`` and ``teacher`` are roles (lower case),
    so ``" | assistant: hello"`` or ``" | Teacher: hi"`` after a valid turn is not a turn
    boundary and stays in the previous turn's text (``"student: hi | assistant: hello"``
    gives one student turn ``"hi | assistant: hello"``), with no error or warning. Only a
    history whose *first* piece lacks a known role is an error.

    Args:
        text: e.g. ``"student: What next? | teacher: Stir. | student: How long?"``.
        where: the file and question, for error messages (:class:`WoTeWhere`).

    Returns:
        ``[{"role": "student", "text": "What next?"}, {"role": "teacher", "text":
        "Stir."}, {"role": "student", "text": "How long?"}]``, in conversation order.

    Raises:
        WoTeFormatError: not a string, not valid Unicode, or a turn does not start with a
            known role.
    """
    where = where or WoTeWhere("<text>")
    if not isinstance(text, str):
        raise where.error("history", f"expected a string, got {type(text).__name__}")
    check_text(text, where, "history")
    stripped = text.strip()
    if stripped in ("", "None"):
        return []
    turns = []
    for piece in _TURN_BOUNDARY.split(stripped):
        match = _TURN.fullmatch(piece.strip())
        if match is None:
            raise where.error(
                "history",
                f"turn {piece.strip()[:60]!r} does not start with one of {list(_ROLES)} and a "
                "colon",
            )
        turns.append({"role": match.group(1), "text": match.group(2).strip()})
    return turns


def render_context(task: dict[str, Any]) -> str:
    """Render a parsed ``task_data`` as the plain-text ``context`` of a question.

    Rule (deterministic, nothing stripped or unescaped): the lines ``title``,
    ``description``, each ingredient in order, each step in order, joined by a single
    ``"\\n"``; no trailing newline. The result always has
    ``2 + len(ingredients) + len(steps)`` lines (an empty field gives an empty line;
    a field that itself contains newlines adds its own). Joining list items with
    ``"\\n"`` lets answers that were extracted across several ingredients or steps
    (written with a literal backslash-n in the release) be located.

    Args:
        task: ``{"title": str, "description": str, "ingredients": [str], "steps": [str]}``.

    Returns:
        The context string.
    """
    return "\n".join([task["title"], task["description"], *task["ingredients"], *task["steps"]])


# --------------------------------------------------------------------------------------------
# Reading a split file
# --------------------------------------------------------------------------------------------


def _check_record(record: Any, where: Where) -> dict[str, str]:
    """The 14 raw fields of one question: present, strings, valid Unicode; ids not blank."""
    if not isinstance(record, dict):
        raise where.error(None, f"expected a question object, got {type(record).__name__}")
    for field in RAW_FIELDS:
        if field not in record:
            raise where.error(field, "missing")
        if not isinstance(record[field], str):
            raise where.error(field, f"expected a string, got {type(record[field]).__name__}")
        check_text(record[field], where, field)
    for field in ("conversation_id", "question_id"):
        check_name(record[field], where, field)
    for field in PROMPT_LINES:
        check_line(record[field], where, field)
    return record


def _question_row(record: dict[str, str], where: Where) -> dict[str, Any]:
    """The row the builder yields for one checked question."""
    task = parse_task_data(record["task_data"], where)
    context = render_context(task)
    text, start = locate_answer(record["extracted_answer"], context)
    return {
        "id": f"{record['conversation_id']}/{record['question_id']}",
        "conversation_id": record["conversation_id"],
        "question_id": record["question_id"],
        "domain": record["domain"],
        "data_split": record["data_split"],
        "document_url": record["document_url"],
        "question": record["question"],
        "text_question": record["text_question"],
        "history": parse_history(record["history"], where),
        "question_type": parse_question_type(record["question_type"], where),
        "intent_question": record["intent_question"],
        "intent_answer": record["intent_answer"],
        "original_answer": record["original_answer"],
        "extracted_answer": record["extracted_answer"],
        "task_data": task,
        "context": context,
        "answers": {"text": [text], "answer_start": [start]},
    }


def read_questions(path: str, split: str) -> list[dict[str, Any]]:
    """Read, validate and convert one split file into the rows the builder yields.

    Args:
        path: a release file such as ``data/validation.json``: a JSON list of objects
            with the 14 string fields of :data:`RAW_FIELDS` (extra fields are ignored).
        split: the split name (``"train"``, ``"validation"`` or ``"test"``); it is named
            in error messages.

    Returns:
        One dict per question, in file order, with exactly the keys of ``FEATURES``
        (see the module docstring for the derived fields).

    Raises:
        WoTeFormatError: invalid JSON; a key repeated in one object (e.g. two ``domain``
            keys: ``json`` would silently keep the last); not a list of objects; an empty
            list; a field missing, not a string or not valid Unicode; a blank
            ``question_id`` or ``conversation_id`` (empty, or only whitespace, control or
            format characters such as NUL or the zero-width space U+200B); an unparseable
            ``task_data`` / ``question_type`` / ``history``; an ``id`` repeated within the
            file. The message names the file, the question and conversation ids and the
            field.

    A ``data_split`` that differs from ``split`` is kept verbatim and logged as a warning.
    """
    data = load_json(path, f"split {split!r}", WoTeWhere)
    if not isinstance(data, list):
        raise WoTeWhere(path).error(
            None, f"expected a JSON list of questions in split {split!r}, got {type(data).__name__}"
        )
    if not data:
        raise WoTeWhere(path).error(None, f"split {split!r} has no questions")
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, record in enumerate(data):
        where = WoTeWhere(path, _question_label(record, index))
        row = _question_row(_check_record(record, where), where)
        if row["id"] in seen:
            raise where.error("id", f"id {row['id']!r} repeats question #{seen[row['id']]}")
        seen[row["id"]] = index
        rows.append(row)
    _log_other_split(path, split, rows)
    return rows


def _log_other_split(path: str, split: str, rows: list[dict[str, Any]]) -> None:
    other = [
        f"{r['question_id']!r} has {r['data_split']!r}" for r in rows if r["data_split"] != split
    ]
    if other:
        shown = ", ".join(other[:5]) + (" ..." if len(other) > 5 else "")
        logger.warning(
            "%s: field 'data_split' differs from the file's split %r for %d question(s) (%s); "
            "kept as is, the file decides the split",
            path,
            split,
            len(other),
            shown,
        )


def check_unique_ids(rows: dict[str, list[dict[str, Any]]], files: dict[str, str]) -> None:
    """No ``id`` (conversation and question id) in two splits."""
    first_seen: dict[str, str] = {}
    for split in SPLITS:
        for index, row in enumerate(rows[split]):
            other = first_seen.setdefault(row["id"], split)
            if other != split:
                raise WoTeWhere(files[split], _question_label(row, index)).error(
                    "id", f"id {row['id']!r} also occurs in split {other!r}"
                )


#: The string fields of a row (the raw fields the builder keeps as they are, and the derived).
_ROW_STRINGS = tuple(f for f in RAW_FIELDS if f not in ("task_data", "history", "question_type"))
_ROW_STRINGS += ("id", "context")


def _check_history_lines(history: Any, where: Where) -> None:
    """Each turn's role and text of a row's parsed history one line (:data:`PROMPT_LINES`)."""
    if not isinstance(history, list):
        return  # the row's history is checked by its feature types when it is loaded
    for i, turn in enumerate(history):
        for key in ("role", "text"):
            value = turn.get(key) if isinstance(turn, dict) else None
            if isinstance(value, str):
                check_line(value, where, f"history[{i}].{key}")


def _check_row(row: Any, where: Where) -> None:
    """One row (the builder's shape) as the builder would have made it from its raw fields."""
    if not isinstance(row, dict):
        raise where.error(None, f"expected a question object, got {type(row).__name__}")
    for field in _ROW_STRINGS:
        if not isinstance(row.get(field), str):
            raise where.error(field, f"expected a string, got {type(row.get(field)).__name__}")
        check_text(row[field], where, field)
    for field in ("conversation_id", "question_id"):
        check_name(row[field], where, field)
    check_line(row["question"], where, "question")
    _check_history_lines(row.get("history"), where)
    if row["id"] != f"{row['conversation_id']}/{row['question_id']}":
        raise where.error("id", f"expected conversation_id/question_id, got {short(row['id'])}")
    task = row.get("task_data")
    parts = ("title", "description", "ingredients", "steps")
    if not isinstance(task, dict) or any(key not in task for key in parts):
        raise where.error("task_data", f"expected an object with {list(parts)}")
    if row["context"] != render_context(task):
        raise where.error("context", "differs from the context rendered from task_data")
    text, start = locate_answer(row["extracted_answer"], row["context"])
    if row.get("answers") != {"text": [text], "answer_start": [start]}:
        raise where.error(
            "answers",
            f"expected {{'text': [{short(text)}], 'answer_start': [{start}]}} (the "
            f"extracted_answer located in the context), got {short(row.get('answers'))}",
        )


def check_rows(rows: list[dict[str, Any]], source: object, split: str) -> None:
    """Check rows that were not built from the raw files here (an export, the ``datasets``
    cache, a Hub repo) as the builder makes them: string fields valid, ids not blank, ``id``
    made of the two ids and unique, ``context`` rendered from ``task_data``, ``answers`` the
    ``extracted_answer`` located in the context.

    Raises:
        WoTeFormatError: the message names ``source``, the question and the field.
    """
    if not rows:
        raise WoTeWhere(source).error(None, f"split {split!r} has no questions")
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        where = WoTeWhere(source, _question_label(row, index))
        _check_row(row, where)
        if row["id"] in seen:
            raise where.error("id", f"id {row['id']!r} repeats question #{seen[row['id']]}")
        seen[row["id"]] = index
