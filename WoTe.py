"""Wizard-of-Tasks Extractive (WoTe): a Hugging Face ``datasets`` loading script.

WoTe (https://github.com/grill-lab/WoTe) holds 829 questions asked by a user while
cooking or doing a DIY task, each with an answer span extracted from the task text.
The official release is three JSON files, ``data/{train,validation,test}.json``
(248 / 169 / 412 questions), each a JSON list of flat objects with 14 string fields.
This script keeps every original field, parses the three that are encoded as Python
literals or as a flat string, and adds SQuAD-style ``id``, ``context`` and ``answers``.

Self-contained: imports only the standard library and ``datasets``. It runs both as a
script (``datasets<4``: ``load_dataset("WoTe.py", "wote", data_dir=...,
trust_remote_code=True)``) and imported by path on ``datasets>=4`` (``WoTe(config_name=
"wote", data_dir=..., cache_dir=...)``, ``.download_and_prepare()``, ``.as_dataset()``).

Source
    ``data_dir`` (a folder containing ``train.json``, ``validation.json`` and
    ``test.json``) when given, else the official files downloaded from ``_URL``. A
    ``data_dir`` that does not exist raises ``FileNotFoundError`` (the same message shape in
    ``OCW.py``). The cache key (config id) includes the SHA-256 of the ``data_dir`` content,
    so an edited source file is read again even when its size and modification time are
    unchanged (:class:`_ContentKeyedConfig`).

Derived fields
    ``id``
        ``f"{conversation_id}/{question_id}"``, e.g. ``"Wizard-of-Task-food-3/food-3-0"``.
        ``question_id`` alone is NOT unique (``diy-63-5`` and ``diy-64-6`` each occur in
        two conversations of the validation split); the pair is unique across all three
        splits, which is checked at build time (:class:`WoTeFormatError` otherwise).
    ``task_data``
        The Python-literal string parsed with :func:`ast.literal_eval` (never ``eval``)
        into ``{title: str, description: str, ingredients: [str], steps: [str]}``.
    ``question_type``
        The Python-literal list string (``"['navigation', 'history']"``) as ``[str]``.
    ``history``
        The conversation before the question as a list of turns ``{role, text}``;
        the string ``"None"`` gives ``[]``. See :func:`parse_history` for the rule.
    ``context``
        :func:`render_context` of ``task_data``: the title, the description, each
        ingredient and each step, in that order, one per line, joined by ``"\\n"``.
    ``answers``
        SQuAD convention, always exactly one answer: ``{"text": [t], "answer_start": [s]}``
        from :func:`locate_answer` applied to ``extracted_answer``. ``s`` is a character
        (code point) offset with ``context[s:s + len(t)] == t``; ``s == -1`` means the
        extracted answer was not found in the context and ``t`` is the raw answer text.

Errors
    Every defect in a source file (missing split file, invalid or truncated JSON or JSON
    the parser cannot handle, a key repeated in one JSON object or in the ``task_data``
    literal, an empty split, a missing or non-string field, a string that is not valid
    Unicode (a lone surrogate such as ``"\\ud800"``, which JSON allows but Arrow cannot
    store), a blank ``question_id`` or ``conversation_id`` (empty, or only whitespace,
    control or format characters), an unparseable ``task_data`` / ``question_type`` /
    ``history``, a duplicate id) raises :class:`WoTeFormatError` naming the file, the
    question and conversation ids and the field: ``"<file>: question_id 'food-3-0'
    (conversation_id 'Wizard-of-Task-food-3', #0): field 'history': <problem>"``
    (:class:`Where`). All splits are read and validated in ``_split_generators``, before
    anything is written to the cache, and the validated rows reach ``_generate_examples``
    through ``gen_kwargs``. Parsing takes time and memory linear in the input (a history
    of 200,000 spaces or a field of several MB parses in well under a second).

Kept as is
    ``data_split`` is copied verbatim; the file a question is in decides its split. A
    ``data_split`` that disagrees with the file (never the case in the release) is logged
    as a warning naming the file and the questions, and the rows are kept.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import html
import io
import json
import os
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import datasets

logger = datasets.utils.logging.get_logger(__name__)

_CITATION = """\
@inproceedings{fischer2024grillbot,
  title     = {{GRILLBot} In Practice: Lessons and Tradeoffs Deploying Large Language Models
               for Adaptable Conversational Task Assistants},
  author    = {Fischer, Sophie and Gemmell, Carlos and Tecklenburg, Niklas and Mackie, Iain and
               Rossetto, Federico and Dalton, Jeffrey},
  year      = {2024},
  url       = {https://arxiv.org/abs/2402.07647}
}

@inproceedings{choi-etal-2022-wizard,
  title     = {Wizard of Tasks: A Novel Conversational Dataset for Solving Real-World
               Tasks in Conversational Settings},
  author    = {Choi, Jason Ingyu and Kuzi, Saar and Vedula, Nikhita and Zhao, Jie and
               Castellucci, Giuseppe and Collins, Marcus and Malmasi, Shervin and
               Rokhlenko, Oleg and Agichtein, Eugene},
  booktitle = {Proceedings of the 29th International Conference on Computational
               Linguistics (COLING 2022)},
  year      = {2022},
  url       = {https://aclanthology.org/2022.coling-1.310}
}
"""

_DESCRIPTION = """\
Wizard-of-Tasks Extractive (WoTe) extends the Wizard of Tasks conversations (Choi et al.,
2022) for task-specific, retrieval-augmented question answering: 829 user questions asked
while cooking or doing a DIY task (train 248, validation 169, test 412), each with the
crowd-worker answer, an annotated answer span extracted from the task text (title,
description, ingredients, steps), question-type labels, intents and the conversation
history. This loader adds a rendered `context` and SQuAD-style `answers`.
"""

_HOMEPAGE = "https://github.com/grill-lab/WoTe"

# The repository has no LICENSE file and its README states no licence.
_LICENSE = "Unknown: the grill-lab/WoTe repository states no licence."

_URL = "https://raw.githubusercontent.com/grill-lab/WoTe/main/data/{split}.json"

SPLITS: tuple[str, ...] = ("train", "validation", "test")
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

_TASK_KEYS: tuple[str, ...] = ("title", "description", "ingredients", "steps")
_ROLES: tuple[str, ...] = ("student", "teacher")

_string = datasets.Value("string")

FEATURES = datasets.Features(
    {
        "id": _string,
        "conversation_id": _string,
        "question_id": _string,
        "domain": _string,
        "data_split": _string,
        "document_url": _string,
        "question": _string,
        "text_question": _string,
        "history": [{"role": _string, "text": _string}],
        "question_type": datasets.Sequence(_string),
        "intent_question": _string,
        "intent_answer": _string,
        "original_answer": _string,
        "extracted_answer": _string,
        "task_data": {
            "title": _string,
            "description": _string,
            "ingredients": datasets.Sequence(_string),
            "steps": datasets.Sequence(_string),
        },
        "context": _string,
        "answers": datasets.Sequence({"text": _string, "answer_start": datasets.Value("int32")}),
    }
)


class WoTeFormatError(ValueError):
    """A WoTe source file does not have the documented shape.

    The message names the file, and when relevant the question (``question_id``,
    ``conversation_id`` and index) and the field: ``"<file>: question_id 'food-3-0'
    (conversation_id 'Wizard-of-Task-food-3', #0): field 'history': <problem>"``.
    """


#: The error this script raises for bad input (the same name in OCW.py: one error design).
FORMAT_ERROR = WoTeFormatError


# --------------------------------------------------------------------------------------------
# Shared by OCW.py and WoTe.py: everything down to the next banner is identical in both
# scripts (a Hub script gets only its own file); tests/test_script_copies.py keeps the copies
# identical. FORMAT_ERROR and _item_at are each script's own.
# --------------------------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN_CHARS = 80  # characters of a value shown in an error message


class Where:
    """Where a value was read: a source file and one item of it (a wall or a question).

    Every input error of the script is made by :meth:`error`, so every message has the shape
    ``"<file>: <item>: field '<field>': <problem>"``, e.g. ``"test.json: wall '46fa44' (#0):
    field 'season': must be 1 or more, got 0"`` (the item and the field are left out when
    there is none).

    Args:
        file: the source file (or archive, or folder).
        item: the wall or question, e.g. ``"wall '46fa44' (#0)"``; empty for the whole file.
    """

    def __init__(self, file: object, item: str = "") -> None:
        self.file = str(file)
        self.item = item

    def describe(self, field: str | None, problem: str) -> str:
        """The message ``"<file>: <item>: field '<field>': <problem>"``."""
        parts = (self.file, self.item, f"field {field!r}" if field else "", problem)
        return ": ".join(part for part in parts if part)

    def error(self, field: str | None, problem: str) -> ValueError:
        """The script's format error (``FORMAT_ERROR``) with :meth:`describe`'s message."""
        return FORMAT_ERROR(self.describe(field, problem))


def _missing_source(path: object) -> FileNotFoundError:
    """The error for a ``data_dir`` (folder, file or archive) that does not exist."""
    return FileNotFoundError(f"{path}: data_dir not found (no such file or folder)")


def _short(value: Any) -> str:
    """``repr(value)``, cut to a length that fits in an error message."""
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _is_blank(text: str) -> bool:
    """True when ``text`` shows nothing: empty, or only whitespace, control (Unicode category
    Cc, e.g. NUL) and format (Cf, e.g. the zero-width space U+200B) characters."""
    return all(char.isspace() or unicodedata.category(char) in ("Cc", "Cf") for char in text)


def _check_text(value: str, where: Where, field: str) -> None:
    """Reject a string that is not valid Unicode text: a lone surrogate such as ``"\\ud800"``,
    which JSON allows but UTF-8 (and so Arrow) cannot hold. Linear, allocates nothing."""
    match = _SURROGATE.search(value)
    if match is not None:
        raise where.error(
            field,
            f"not valid Unicode text: lone surrogate {match.group()!r} at character "
            f"{match.start()} of {value[:40]!r}",
        )


def _check_name(value: str, where: Where, field: str) -> None:
    """:func:`_check_text`, and reject a value that looks blank (:func:`_is_blank`): ids,
    clues and connections must show something."""
    _check_text(value, where, field)
    if _is_blank(value):
        raise where.error(
            field,
            f"empty or blank {_short(value)} (only whitespace, control or format characters)",
        )


def _load_json(path: object, what: str) -> Any:
    """Parse a JSON source file strictly and return the document.

    Strict: a key that appears twice in one JSON object (which ``json`` resolves silently,
    the last value winning) is an error naming the item (:func:`_item_at`), the field and the
    key.

    Args:
        path: the file.
        what: what the file is, for messages, e.g. ``"split 'train'"``.

    Raises:
        FORMAT_ERROR: invalid JSON (with line and column), not UTF-8, JSON the parser cannot
            handle (an integer of more than 4300 digits, nesting deeper than the recursion
            limit), or a repeated key.
    """
    repeats: list[tuple[dict, list]] = []

    def keep_pairs(pairs: list) -> dict:
        obj = dict(pairs)
        if len(obj) < len(pairs) and not repeats:
            repeats.append((obj, pairs))
        return obj

    where = Where(path)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle, object_pairs_hook=keep_pairs)
    except json.JSONDecodeError as error:
        raise where.error(
            None,
            f"invalid JSON in {what} (truncated or corrupt) at line {error.lineno} column "
            f"{error.colno}: {error.msg}",
        ) from error
    except UnicodeDecodeError as error:
        raise where.error(None, f"not UTF-8 text in {what}: {error}") from error
    except (ValueError, RecursionError, MemoryError) as error:
        # e.g. "Exceeds the limit (4300 digits) for integer string conversion", or nesting
        # deeper than the interpreter's recursion limit.
        raise where.error(
            None,
            f"cannot parse the JSON of {what}: {type(error).__name__}: {str(error)[:200]}",
        ) from error
    if repeats:
        _reject_repeated_key(path, document, *repeats[0])
    return document


def _reject_repeated_key(path: object, document: Any, obj: dict, pairs: list) -> NoReturn:
    """Raise the error for the first key that appears twice in ``obj`` (parsed from ``pairs``)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    values = ", ".join(_short(value) for name, value in pairs if name == key)
    item, field = _item_at(document, [*_json_path(document, obj), key])
    raise Where(path, item).error(
        _field_name(field),
        f"key {key!r} appears more than once in one JSON object (values {values}); "
        "each key must appear once",
    )


def _json_path(document: Any, target: object) -> list[str | int]:
    """The keys and indices that lead from ``document`` to the object ``target`` (compared by
    identity); ``[]`` for the document itself. Iterative, so any depth ``json`` parsed is fine."""
    stack: list[tuple[Any, list[str | int]]] = [(document, [])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, dict):
            stack.extend((value, [*path, key]) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, [*path, index]) for index, value in enumerate(node))
    return []


def _field_name(parts: list[str | int]) -> str:
    """``["groups", "group_2", "gt_words", 1]`` -> ``"groups.group_2.gt_words[1]"``."""
    name = ""
    for part in parts:
        if isinstance(part, int):
            name += f"[{part}]"
        else:
            name += f".{part}" if name else str(part)
    return name


def _source_digest(path: str) -> str:
    """SHA-256 of a local source's content: a file's bytes, or the relative path, size and bytes
    of every file under a folder (sorted). The sources are a few MB: milliseconds."""
    root = Path(path)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    for file in files:
        name = "" if file == root else file.relative_to(root).as_posix()
        digest.update(f"{name}\0{file.stat().st_size}\0".encode("utf-8", "surrogateescape"))
        with open(file, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


@dataclass
class _ContentKeyedConfig(datasets.BuilderConfig):
    """A ``BuilderConfig`` whose config id (the cache folder's name) includes the SHA-256 of a
    local ``data_dir``'s content, not only its path (:func:`_source_digest`).

    ``datasets`` keys a prepared dataset on the config id, which it computes from the config
    kwargs (the ``data_dir`` path string): an edited or replaced source at the same path
    would return the old rows. The digest is added to those kwargs, so on ``datasets`` 3.x
    ``load_dataset("<script>.py", data_dir=...)`` rebuilds when the content changes.
    """

    def create_config_id(
        self, config_kwargs: dict, custom_features: datasets.Features | None = None
    ) -> str:
        data_dir = config_kwargs.get("data_dir")
        if data_dir is not None and os.path.exists(data_dir):
            config_kwargs = {**config_kwargs, "source_sha256": _source_digest(str(data_dir))}
        return super().create_config_id(config_kwargs, custom_features)


# --------------------------------------------------------------------------------------------
# End of the part shared with the other script
# --------------------------------------------------------------------------------------------


def _item_at(document: Any, json_path: list[str | int]) -> tuple[str, list[str | int]]:
    """The question a JSON path points into, for messages: ``(label, path of the field)``;
    ``[3, "domain"]`` -> ``("question_id 'food-3-0' (conversation_id '...', #3)", ["domain"])``."""
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
        raise where.error(field, f"expected a string, got {_short(value)}")
    _check_text(value, where, field)
    return value


def _string_list(items: Any, where: Where, field: str) -> list[str]:
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise where.error(field, f"expected a list of strings, got {_short(items)}")
    for i, item in enumerate(items):
        _check_text(item, where, f"{field}[{i}]")
    return list(items)


def parse_task_data(text: str, where: Where | None = None) -> dict[str, Any]:
    """Parse the ``task_data`` field, a Python-literal dict string, safely.

    Args:
        text: e.g. ``"{'title': 'Soup', 'description': '', 'ingredients': ['1 cup peas'],
            'steps': ['Boil.']}"``. Parsed with :func:`ast.literal_eval`, so only literals
            are accepted (a call such as ``__import__('os')`` is rejected, never run).
        where: the file and question, for error messages (:class:`Where`).

    Returns:
        ``{"title": str, "description": str, "ingredients": list[str], "steps": list[str]}``
        with the keys in that order (the release has both key orders).

    Raises:
        WoTeFormatError: ``text`` is not a string or not a literal; the literal is not a
            dict, or repeats a key; a key is missing or unexpected; a value has the wrong
            type or is a string that is not valid Unicode (a lone surrogate, e.g. written
            ``'\\ud800'``).
    """
    where = where or Where("<text>")
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
        where: the file and question, for error messages (:class:`Where`).

    Returns:
        The labels in their original order, e.g. ``["navigation", "history"]``.

    Raises:
        WoTeFormatError: not a literal, or not a list of strings, or a label that is not
            valid Unicode.
    """
    where = where or Where("<text>")
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
        where: the file and question, for error messages (:class:`Where`).

    Returns:
        ``[{"role": "student", "text": "What next?"}, {"role": "teacher", "text":
        "Stir."}, {"role": "student", "text": "How long?"}]``, in conversation order.

    Raises:
        WoTeFormatError: not a string, not valid Unicode, or a turn does not start with a
            known role.
    """
    where = where or Where("<text>")
    if not isinstance(text, str):
        raise where.error("history", f"expected a string, got {type(text).__name__}")
    _check_text(text, where, "history")
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
# Locating the extracted answer in the context (linear time and memory)
# --------------------------------------------------------------------------------------------


def _fold_char(char: str) -> str:
    """The case-insensitive form of one lower-case character: its upper case lowered again
    (``ı`` -> ``i``, ``ſ`` -> ``s``, ``ς`` -> ``σ``), unless that is not one character."""
    upper = char.upper()
    if len(upper) != 1:
        return char
    lower = upper.lower()
    return lower if len(lower) == 1 else char


def _fold_case(text: str) -> str:
    """``text`` with each character case-folded on its own: one character in, one out, so an
    offset in the result is an offset in ``text``.

    (``str.lower`` and ``str.casefold`` can change lengths: ``"İ".lower()`` is 2 characters,
    ``"ß".casefold()`` is ``"ss"``.) A character, its upper, lower, title and swapped case
    fold alike, and characters that fold alike match under :data:`re.IGNORECASE` (both
    checked over the cased characters of Unicode by the tests). Linear, in C string methods.
    """
    folded = text.replace("\u0130", "i").lower()  # İ: the one character whose lower() is 2
    if folded.isascii():
        return folded
    table = {ord(char): _fold_char(char) for char in set(folded)}
    return folded.translate({code: out for code, out in table.items() if chr(code) != out})


_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_APOSTROPHES = frozenset("'\u2018\u2019\u02bc`\u00b4")
# Apostrophes that are their own NFKD form: dropped inside a word ("doesn't" -> "doesnt").
# (The acute accent U+00B4 decomposes to a space and a combining mark: it is no such letter.)
_DROPPED = "".join(sorted(c for c in _APOSTROPHES if unicodedata.normalize("NFKD", c) == c))
_DROPPED_CHAR = re.compile(f"[{re.escape(_DROPPED)}]")
_INNER_SPACES = " \t\n\r\f\v\x1c\x1d\x1e\x1f"  # whitespace that is its own NFKD form
_GAP_CHARS = _INNER_SPACES + _DROPPED
_RUN_TABLE = str.maketrans({**dict.fromkeys(_INNER_SPACES, " "), **dict.fromkeys(_DROPPED)})
# Where a stretch of plain, whitespace and apostrophe characters stops being one run: two
# whitespace characters, or whitespace next to an apostrophe.
_BREAK = re.compile(
    f"[{re.escape(_INNER_SPACES)}][{re.escape(_GAP_CHARS)}]"
    f"|[{re.escape(_DROPPED)}][{re.escape(_INNER_SPACES)}]"
)

# How the characters of a piece's output map to the text (see _pieces).
_ONE_TO_ONE, _SKIPPING_DROPPED, _WHOLE = "one-to-one", "skipping-dropped", "whole"


def _is_plain(char: str) -> bool:
    """A character that :func:`_normalise` turns into exactly one character, its lower case,
    whatever surrounds it: not whitespace, ``&``, an apostrophe or a combining mark, its own
    NFKD form, and one character in lower case."""
    if char.isspace() or char == "&" or char in _APOSTROPHES or unicodedata.combining(char):
        return False
    return unicodedata.normalize("NFKD", char) == char and len(char.lower()) == 1


_ASCII_PLAIN = "".join(char for char in map(chr, range(128)) if _is_plain(char))


@functools.lru_cache(maxsize=64)
def _token_patterns(extra_plain: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``(tokens, plain)``: ``tokens`` cuts a text into stretches (a plain character, then
    plain, single-whitespace and apostrophe characters), whitespace runs, HTML entities and
    single other characters; ``plain`` finds a plain character. ``extra_plain`` holds the
    text's non-ASCII plain characters. Each is one character class repeated, which ``re``
    matches in a tight loop with no backtracking state (a repeated group, such as a group
    for one space and a word, keeps state per iteration: gigabytes for a field of 50 MB)."""
    plain = "[" + re.escape(_ASCII_PLAIN + extra_plain) + "]"
    stretch = "[" + re.escape(_ASCII_PLAIN + extra_plain + _GAP_CHARS) + "]"
    tokens = re.compile(
        rf"(?P<stretch>{plain}{stretch}*)|(?P<space>\s+)|(?P<entity>{_ENTITY.pattern})|.",
        re.DOTALL,
    )
    return tokens, re.compile(plain)


def _normalise_piece(source: str, after_space: bool) -> str:
    """NFKD, without combining marks and apostrophes, whitespace runs as one space (none right
    after a space), lower case."""
    out = []
    for char in unicodedata.normalize("NFKD", source):
        if unicodedata.combining(char) or char in _APOSTROPHES:
            continue
        if char.isspace():
            if after_space:
                continue
            char = " "
        after_space = char == " "
        out.append(char.lower())
    return "".join(out)


def _extra_plain(text: str) -> str:
    """The non-ASCII characters of ``text`` that are plain (:func:`_is_plain`), sorted."""
    if text.isascii():
        return ""
    return "".join(sorted(char for char in set(text) if not char.isascii() and _is_plain(char)))


def _run_and_gap(text: str, start: int, stop: int, gap_end: int) -> Iterator[tuple]:
    """The run ``text[start:stop]`` without trailing whitespace or apostrophes (words with
    single spaces and inner apostrophes: lower case, apostrophes dropped), then the gap after
    it up to ``gap_end`` (whitespace and apostrophes: one space if any whitespace)."""
    body = text[start:stop].rstrip(_GAP_CHARS)
    output = body.translate(_RUN_TABLE).lower()
    mapping = _ONE_TO_ONE if len(output) == len(body) else _SKIPPING_DROPPED
    yield start, start + len(body), output, mapping
    gap = text[start + len(body) : gap_end]
    if gap:
        yield start + len(body), gap_end, " " if gap.strip(_DROPPED) else "", _WHOLE


def _stretch_pieces(text: str, start: int, end: int, plain: re.Pattern[str]) -> Iterator[tuple]:
    """Split a stretch ``text[start:end]`` (see :func:`_token_patterns`) into runs and gaps
    at each :data:`_BREAK`; every character is looked at a constant number of times."""
    position = start
    while (found := _BREAK.search(text, position, end)) is not None:
        following = plain.search(text, found.end(), end)
        gap_end = following.start() if following else end
        yield from _run_and_gap(text, position, found.start(), gap_end)
        position = gap_end
    if position < end:
        yield from _run_and_gap(text, position, end, end)


def _token_pieces(match: re.Match[str], after_space: bool) -> list[tuple]:
    """The pieces of a whitespace run, an HTML entity or a single other character."""
    start, end = match.span()
    kind, source = match.lastgroup, match.group()
    if kind == "space":
        return [(start, end, "" if after_space else " ", _WHOLE)]
    if kind == "entity" and html.unescape(source) == source:  # unknown to html: plain text
        return [
            (start, start + 1, "&", _ONE_TO_ONE),
            (start + 1, end, source[1:].lower(), _ONE_TO_ONE),
        ]
    if kind == "entity":
        source = html.unescape(source)
    return [(start, end, _normalise_piece(source, after_space), _WHOLE)]


def _pieces(text: str) -> Iterator[tuple[int, int, str, str]]:
    """The normalised text, piece by piece: ``(start, end, output, mapping)``.

    ``output`` comes from ``text[start:end]``. ``mapping`` says how: ``_ONE_TO_ONE``, the
    ``k``-th output character comes from ``text[start + k]``; ``_SKIPPING_DROPPED``, from the
    ``k``-th character that is not a dropped apostrophe; ``_WHOLE``, every output character
    comes from the whole piece (an entity, a whitespace run, a character NFKD expands).
    Normal text is a few long runs, so this is fast; time and memory are linear in any case.
    """
    tokens, plain = _token_patterns(_extra_plain(text))
    after_space = False
    for match in tokens.finditer(text):
        if match.lastgroup == "stretch":
            pieces: Any = _stretch_pieces(text, *match.span(), plain)
        else:
            pieces = _token_pieces(match, after_space)
        for piece in pieces:
            if piece[2]:
                after_space = piece[2].endswith(" ")
                yield piece


def _normalise(text: str) -> str:
    """Normalise ``text`` for matching: HTML entities decoded, characters NFKD-decomposed with
    combining marks dropped (``ñ`` -> ``n``), apostrophes dropped, whitespace runs made one
    space, lower case. Map an offset back with :func:`_source_span`."""
    buffer = io.StringIO()
    for _, _, output, _ in _pieces(text):
        buffer.write(output)
    return buffer.getvalue()


def _source_offset(text: str, piece: tuple[int, int, str, str], k: int) -> tuple[int, int]:
    """Where output character ``k`` of ``piece`` comes from: ``(start, end)`` in ``text``."""
    start, end, _, mapping = piece
    if mapping == _ONE_TO_ONE:
        return start + k, start + k + 1
    if mapping == _WHOLE:
        return start, end
    index = start + k  # then one further for each dropped apostrophe up to it
    for dropped in _DROPPED_CHAR.finditer(text, start, end):
        if dropped.start() > index:
            break
        index += 1
    return index, index + 1


def _source_span(text: str, first: int, last: int) -> tuple[int, int]:
    """``(start, end)`` of the part of ``text`` that characters ``first`` .. ``last`` of
    ``_normalise(text)`` come from."""
    position = start = 0
    for piece in _pieces(text):
        after = position + len(piece[2])
        if position <= first < after:
            start = _source_offset(text, piece, first - position)[0]
        if last < after:
            return start, _source_offset(text, piece, last - position)[1]
        position = after
    return start, len(text)


def _locate_normalised(answer: str, context: str) -> tuple[str, int] | None:
    needle = _normalise(answer).strip()
    found = _normalise(context).find(needle) if needle else -1
    if found < 0:
        return None
    start, end = _source_span(context, found, found + len(needle) - 1)
    return context[start:end], start


def locate_answer(answer: str, context: str) -> tuple[str, int]:
    """Find an extracted answer in the context.

    Tried in order, the first hit wins (the leftmost occurrence within a step):

    1. ``answer`` verbatim;
    2. ``answer`` ignoring case (each character folded on its own, as :data:`re.IGNORECASE`
       compares them, so lengths never change);
    3. if ``answer`` contains the two characters backslash and ``n`` (how the release
       writes a join of ingredient or step lines): those turned into a newline, then
       steps 1-2 again;
    4. both strings normalised (HTML entities decoded, accents and apostrophes dropped,
       whitespace runs collapsed, lower case; the answer also stripped), e.g.
       ``"jalapeno"`` finds ``"jalape&ntilde;o"`` and ``"doesnt"`` finds ``"doesn't"``.

    No paraphrase or fuzzy matching: ``"400 degrees Fahrenheit"`` does not find
    ``"400°F"``. Time and memory are linear in the lengths of ``answer`` and ``context``.

    Args:
        answer: the ``extracted_answer`` of a question.
        context: the text to search, normally :func:`render_context` of its task.

    Returns:
        ``(text, start)``: when found, ``text`` is the exact slice of ``context`` (its
        case and spacing, which may differ from ``answer``) and ``start`` its character
        offset, so ``context[start:start + len(text)] == text`` always holds; when not
        found (or ``answer`` is blank), ``(answer, -1)``.
    """
    if not answer.strip():
        return answer, -1
    candidates = [answer]
    if "\\n" in answer:
        candidates.append(answer.replace("\\n", "\n"))
    folded_context = None
    for candidate in candidates:
        start = context.find(candidate)
        if start < 0:
            folded_context = folded_context or _fold_case(context)
            start = folded_context.find(_fold_case(candidate))
        if start >= 0:
            return context[start : start + len(candidate)], start
    return _locate_normalised(candidates[-1], context) or (answer, -1)


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
        _check_text(record[field], where, field)
    for field in ("conversation_id", "question_id"):
        _check_name(record[field], where, field)
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
        One dict per question, in file order, with exactly the keys of :data:`FEATURES`
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
    data = _load_json(path, f"split {split!r}")
    if not isinstance(data, list):
        raise Where(path).error(
            None, f"expected a JSON list of questions in split {split!r}, got {type(data).__name__}"
        )
    if not data:
        raise Where(path).error(None, f"split {split!r} has no questions")
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, record in enumerate(data):
        where = Where(path, _question_label(record, index))
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


def _check_unique_ids(rows: dict[str, list[dict[str, Any]]], files: dict[str, str]) -> None:
    """No ``id`` (conversation and question id) in two splits."""
    first_seen: dict[str, str] = {}
    for split in SPLITS:
        for index, row in enumerate(rows[split]):
            other = first_seen.setdefault(row["id"], split)
            if other != split:
                raise Where(files[split], _question_label(row, index)).error(
                    "id", f"id {row['id']!r} also occurs in split {other!r}"
                )


class WoTe(datasets.GeneratorBasedBuilder):
    """Builder for WoTe: one config ``wote``, splits train / validation / test.

    All splits are read and validated in ``_split_generators``; the rows reach
    ``_generate_examples`` through ``gen_kwargs``.
    """

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = _ContentKeyedConfig
    BUILDER_CONFIGS = [
        _ContentKeyedConfig(
            name="wote",
            version=datasets.Version("1.0.0"),
            description="All 829 WoTe questions with parsed fields, context and answers.",
        )
    ]
    DEFAULT_CONFIG_NAME = "wote"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=FEATURES,
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
        )

    def _split_files(self, dl_manager: datasets.DownloadManager) -> dict[str, str]:
        data_dir = self.config.data_dir
        if data_dir is None:
            return dl_manager.download({split: _URL.format(split=split) for split in SPLITS})
        folder = os.path.abspath(os.path.expanduser(str(data_dir)))
        if not os.path.exists(folder):
            raise _missing_source(data_dir)
        if not os.path.isdir(folder):
            raise Where(data_dir).error(
                None, "data_dir is not a folder (expected train.json, validation.json, test.json)"
            )
        files = {split: os.path.join(folder, f"{split}.json") for split in SPLITS}
        missing = [os.path.basename(path) for path in files.values() if not os.path.isfile(path)]
        if missing:
            found = sorted(os.listdir(folder))
            raise Where(folder).error(None, f"missing split file(s) {missing}; found {found}")
        return files

    def _split_generators(self, dl_manager: datasets.DownloadManager) -> list:
        files = self._split_files(dl_manager)
        # Read and validate every split before anything is written.
        rows = {split: read_questions(files[split], split) for split in SPLITS}
        _check_unique_ids(rows, files)
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"rows": rows[split], "split": split})
            for split in SPLITS
        ]

    def _generate_examples(
        self, rows: list[dict[str, Any]], split: str
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Yield ``(id, row)`` for the validated rows of one split."""
        located = sum(row["answers"]["answer_start"][0] >= 0 for row in rows)
        logger.info(
            "WoTe %s: %d questions, extracted answer located in context for %d, not for %d",
            split,
            len(rows),
            located,
            len(rows) - located,
        )
        for row in rows:
            yield row["id"], row
