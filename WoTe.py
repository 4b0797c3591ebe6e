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
    ``test.json``) when given, else the official files downloaded from ``_URL``.

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
    the parser cannot handle, an empty split, a missing or non-string field, a string that
    is not valid Unicode (a lone surrogate such as ``"\\ud800"``, which JSON allows but
    Arrow cannot store), an unparseable ``task_data`` / ``question_type`` / ``history``, a
    duplicate id) raises :class:`WoTeFormatError` naming the file, the question and
    conversation ids and the field. All splits are read and validated in
    ``_split_generators``, before anything is written to the cache.

Kept as is
    ``data_split`` is copied verbatim; the file a question is in decides its split. A
    ``data_split`` that disagrees with the file (never the case in the release) is logged
    as a warning naming the file and the questions, and the rows are kept.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import unicodedata
from typing import Any

import datasets

logger = datasets.utils.logging.get_logger(__name__)

_CITATION = """\
@misc{wote2024,
  title        = {Wizard-of-Tasks Extractive ({WoTe})},
  author       = {{GRILL Lab, University of Glasgow}},
  year         = {2024},
  howpublished = {\\url{https://github.com/grill-lab/WoTe}},
  note         = {Dataset repository, commit 7d6e88134fa1ca63a356b3df8efd36c5f203f615;
                  no paper citation is given in the repository README}
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
    """A WoTe source file is missing or does not have the documented shape."""


def _where(
    file: str | None,
    question_id: str | None,
    conversation_id: str | None = None,
    field: str | None = None,
) -> str:
    parts = [f"file {file}" if file else "<no file>"]
    if question_id is not None:
        parts.append(f"question_id {question_id!r}")
    if conversation_id is not None:
        parts.append(f"conversation_id {conversation_id!r}")
    if field is not None:
        parts.append(f"field {field!r}")
    return ", ".join(parts)


def _check_text(value: str, where: str) -> None:
    """Reject a string that cannot be encoded as UTF-8 (a lone surrogate from JSON)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise WoTeFormatError(
            f"{where}: not valid Unicode text: lone surrogate {value[err.start]!r} at "
            f"character {err.start} of {value[:40]!r}"
        ) from None


def _literal(
    text: str,
    field: str,
    file: str | None,
    question_id: str | None,
    conversation_id: str | None,
) -> Any:
    if not isinstance(text, str):
        raise WoTeFormatError(
            f"{_where(file, question_id, conversation_id, field)}: expected a string, "
            f"got {type(text).__name__}"
        )
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as err:
        raise WoTeFormatError(
            f"{_where(file, question_id, conversation_id, field)}: not a Python literal "
            f"({type(err).__name__}: {err}): {text[:80]!r}"
        ) from None


def parse_task_data(
    text: str,
    *,
    file: str | None = None,
    question_id: str | None = None,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """Parse the ``task_data`` field, a Python-literal dict string, safely.

    Args:
        text: e.g. ``"{'title': 'Soup', 'description': '', 'ingredients': ['1 cup peas'],
            'steps': ['Boil.']}"``. Parsed with :func:`ast.literal_eval`, so only literals
            are accepted (a call such as ``__import__('os')`` is rejected, never run).
        file, question_id, conversation_id: only used in error messages.

    Returns:
        ``{"title": str, "description": str, "ingredients": list[str], "steps": list[str]}``
        with the keys in that order (the release has both key orders).

    Raises:
        WoTeFormatError: ``text`` is not a string or not a literal; the literal is not a
            dict; a key is missing or unexpected; a value has the wrong type or is a string
            that is not valid Unicode (a lone surrogate, e.g. written ``'\\ud800'``).
    """
    value = _literal(text, "task_data", file, question_id, conversation_id)
    where = _where(file, question_id, conversation_id, "task_data")
    if not isinstance(value, dict):
        raise WoTeFormatError(f"{where}: expected a dict literal, got {type(value).__name__}")
    missing = [key for key in _TASK_KEYS if key not in value]
    extra = sorted(str(key) for key in value if key not in _TASK_KEYS)
    if missing or extra:
        raise WoTeFormatError(f"{where}: missing keys {missing}, unexpected keys {extra}")
    task: dict[str, Any] = {}
    for key in ("title", "description"):
        if not isinstance(value[key], str):
            raise WoTeFormatError(f"{where}: {key!r} must be a string")
        _check_text(value[key], _where(file, question_id, conversation_id, f"task_data.{key}"))
        task[key] = value[key]
    for key in ("ingredients", "steps"):
        items = value[key]
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise WoTeFormatError(f"{where}: {key!r} must be a list of strings")
        for i, item in enumerate(items):
            _check_text(item, _where(file, question_id, conversation_id, f"task_data.{key}[{i}]"))
        task[key] = list(items)
    return task


def parse_question_type(
    text: str,
    *,
    file: str | None = None,
    question_id: str | None = None,
    conversation_id: str | None = None,
) -> list[str]:
    """Parse the ``question_type`` field, a Python-literal list string.

    Args:
        text: e.g. ``"['navigation', 'history']"`` (labels seen in the release:
            factoid, navigation, confirmation, complex, history, causal, listing).
        file, question_id, conversation_id: only used in error messages.

    Returns:
        The labels in their original order, e.g. ``["navigation", "history"]``.

    Raises:
        WoTeFormatError: not a literal, or not a list of strings, or a label that is not
            valid Unicode.
    """
    value = _literal(text, "question_type", file, question_id, conversation_id)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise WoTeFormatError(
            f"{_where(file, question_id, conversation_id, 'question_type')}: "
            f"expected a list of strings, got {text[:80]!r}"
        )
    for i, item in enumerate(value):
        _check_text(item, _where(file, question_id, conversation_id, f"question_type[{i}]"))
    return value


# A turn separator is a '|' followed by a known role and a colon; a '|' anywhere else
# stays inside the turn text.
_ROLE_PATTERN = "|".join(_ROLES)
_TURN_SPLIT = re.compile(rf"\s*\|\s*(?=(?:{_ROLE_PATTERN}):)")
_TURN = re.compile(rf"({_ROLE_PATTERN}):(.*)", re.DOTALL)


def parse_history(
    text: str,
    *,
    file: str | None = None,
    question_id: str | None = None,
    conversation_id: str | None = None,
) -> list[dict[str, str]]:
    """Parse the ``history`` field into a list of turns.

    Rule: the exact string ``"None"`` (or an empty/blank string) means no history and
    gives ``[]``. Otherwise the string is split at every ``|`` that is followed (after
    optional whitespace) by ``student:`` or ``teacher:``; each piece must start with one
    of these roles and a colon; the text is what follows the colon with surrounding
    whitespace stripped. A ``|`` not followed by a role stays in the text. The release
    holds only the roles ``student`` and ``teacher`` (2925 turns), always separated by
    ``" | "``, and no ``|`` inside a turn.

    Consequence, kept on purpose: only ``student`` and ``teacher`` are roles (lower case),
    so ``" | assistant: hello"`` or ``" | Teacher: hi"`` after a valid turn is not a turn
    boundary and stays in the previous turn's text (``"student: hi | assistant: hello"``
    gives one student turn ``"hi | assistant: hello"``), with no error or warning. Only a
    history whose *first* piece lacks a known role is an error.

    Args:
        text: e.g. ``"student: What next? | teacher: Stir. | student: How long?"``.
        file, question_id, conversation_id: only used in error messages.

    Returns:
        ``[{"role": "student", "text": "What next?"}, {"role": "teacher", "text":
        "Stir."}, {"role": "student", "text": "How long?"}]``, in conversation order.

    Raises:
        WoTeFormatError: not a string, not valid Unicode, or a turn does not start with a
            known role.
    """
    where = _where(file, question_id, conversation_id, "history")
    if not isinstance(text, str):
        raise WoTeFormatError(f"{where}: expected a string, got {type(text).__name__}")
    _check_text(text, where)
    if text.strip() in ("", "None"):
        return []
    turns = []
    for piece in _TURN_SPLIT.split(text.strip()):
        match = _TURN.fullmatch(piece)
        if match is None:
            raise WoTeFormatError(
                f"{where}: turn {piece[:60]!r} does not start with one of {list(_ROLES)} "
                "and a colon"
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


_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_APOSTROPHES = frozenset("'\u2018\u2019\u02bc`\u00b4")


def _normalise(text: str) -> tuple[str, list[int], list[int]]:
    """Normalise ``text`` for matching and map each output character to its source span.

    HTML entities are decoded, characters are NFKD-decomposed with combining marks
    dropped (``ñ`` → ``n``), apostrophes are dropped, whitespace runs become one space
    and letters are lower-cased. Returns ``(normalised, starts, ends)`` where the
    ``k``-th normalised character comes from ``text[starts[k]:ends[k]]``.
    """
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = 0
    while i < len(text):
        entity = _ENTITY.match(text, i) if text[i] == "&" else None
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


def locate_answer(answer: str, context: str) -> tuple[str, int]:
    """Find an extracted answer in the context.

    Tried in order, the first hit wins (the leftmost occurrence within a step):

    1. ``answer`` verbatim;
    2. ``answer`` ignoring case (:data:`re.IGNORECASE`, which never changes lengths);
    3. if ``answer`` contains the two characters backslash and ``n`` (how the release
       writes a join of ingredient or step lines): those turned into a newline, then
       steps 1-2 again;
    4. both strings normalised (HTML entities decoded, accents and apostrophes dropped,
       whitespace runs collapsed, lower case; the answer also stripped), e.g.
       ``"jalapeno"`` finds ``"jalape&ntilde;o"`` and ``"doesnt"`` finds ``"doesn't"``.

    No paraphrase or fuzzy matching: ``"400 degrees Fahrenheit"`` does not find
    ``"400°F"``.

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
    for candidate in candidates:
        start = context.find(candidate)
        if start >= 0:
            return context[start : start + len(candidate)], start
        match = re.search(re.escape(candidate), context, re.IGNORECASE)
        if match is not None:
            return match.group(), match.start()
    needle = _normalise(candidates[-1])[0].strip()
    if needle:
        haystack, starts, ends = _normalise(context)
        k = haystack.find(needle)
        if k >= 0:
            start, end = starts[k], ends[k + len(needle) - 1]
            return context[start:end], start
    return answer, -1


def _load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as err:
        raise WoTeFormatError(
            f"file {path}: invalid JSON (truncated or corrupt) at line {err.lineno}, "
            f"column {err.colno}: {err.msg}"
        ) from None
    except UnicodeDecodeError as err:
        raise WoTeFormatError(f"file {path}: not UTF-8 text: {err}") from None
    except (ValueError, RecursionError, MemoryError) as err:
        # e.g. "Exceeds the limit (4300 digits) for integer string conversion", or nesting
        # deeper than the interpreter's recursion limit.
        raise WoTeFormatError(
            f"file {path}: cannot parse the JSON: {type(err).__name__}: {str(err)[:200]}"
        ) from None


def read_questions(path: str, split: str) -> list[dict[str, Any]]:
    """Read, validate and convert one split file into the rows the builder yields.

    Args:
        path: a release file such as ``data/validation.json``: a JSON list of objects
            with the 14 string fields of :data:`RAW_FIELDS` (extra fields are ignored).
        split: the split name (``"train"``, ``"validation"`` or ``"test"``); it is named
            next to the file in error messages.

    Returns:
        One dict per question, in file order, with exactly the keys of :data:`FEATURES`
        (see the module docstring for the derived fields).

    Raises:
        WoTeFormatError: invalid JSON; not a list of objects; an empty list; a field
            missing, not a string or not valid Unicode; an unparseable ``task_data`` /
            ``question_type`` / ``history``; an ``id`` repeated within the file. The
            message names the file, the question and conversation ids and the field.

    A ``data_split`` that differs from ``split`` is kept verbatim and logged as a warning.
    """
    data = _load_json(path)
    file = path
    path = f"{path} (split {split})"
    if not isinstance(data, list):
        raise WoTeFormatError(f"file {path}: expected a JSON list, got {type(data).__name__}")
    if not data:
        raise WoTeFormatError(f"file {file}: split {split!r} has no questions")
    other_split: list[str] = []
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, record in enumerate(data):
        if not isinstance(record, dict):
            raise WoTeFormatError(
                f"file {path}: item {index} is a {type(record).__name__}, not an object"
            )
        qid = record.get("question_id")
        cid = record.get("conversation_id")
        qid = qid if isinstance(qid, str) else f"<item {index}>"
        cid = cid if isinstance(cid, str) else None
        for field in RAW_FIELDS:
            if field not in record:
                raise WoTeFormatError(f"{_where(path, qid, cid, field)}: field is missing")
            if not isinstance(record[field], str):
                raise WoTeFormatError(
                    f"{_where(path, qid, cid, field)}: expected a string, "
                    f"got {type(record[field]).__name__}"
                )
            _check_text(record[field], _where(path, qid, cid, field))
        if record["data_split"] != split:
            other_split.append(f"{qid!r} has {record['data_split']!r}")
        ids = {"file": path, "question_id": qid, "conversation_id": cid}
        task = parse_task_data(record["task_data"], **ids)
        context = render_context(task)
        text, start = locate_answer(record["extracted_answer"], context)
        key = f"{cid}/{qid}"
        if key in seen:
            raise WoTeFormatError(
                f"{_where(path, qid, cid, 'id')}: id {key!r} repeats item {seen[key]}"
            )
        seen[key] = index
        rows.append(
            {
                "id": key,
                "conversation_id": cid,
                "question_id": qid,
                "domain": record["domain"],
                "data_split": record["data_split"],
                "document_url": record["document_url"],
                "question": record["question"],
                "text_question": record["text_question"],
                "history": parse_history(record["history"], **ids),
                "question_type": parse_question_type(record["question_type"], **ids),
                "intent_question": record["intent_question"],
                "intent_answer": record["intent_answer"],
                "original_answer": record["original_answer"],
                "extracted_answer": record["extracted_answer"],
                "task_data": task,
                "context": context,
                "answers": {"text": [text], "answer_start": [start]},
            }
        )
    if other_split:
        shown = ", ".join(other_split[:5]) + (" ..." if len(other_split) > 5 else "")
        logger.warning(
            "file %s: field 'data_split' differs from the file's split for %d question(s) "
            "(%s); kept as is, the file decides the split",
            path,
            len(other_split),
            shown,
        )
    return rows


class WoTe(datasets.GeneratorBasedBuilder):
    """Builder for WoTe: one config ``wote``, splits train / validation / test."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
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
        data_dir = os.path.abspath(os.path.expanduser(str(data_dir)))
        if not os.path.isdir(data_dir):
            raise WoTeFormatError(f"data_dir {data_dir} is not a folder")
        files = {split: os.path.join(data_dir, f"{split}.json") for split in SPLITS}
        missing = [os.path.basename(path) for path in files.values() if not os.path.isfile(path)]
        if missing:
            found = sorted(os.listdir(data_dir))
            raise WoTeFormatError(
                f"data_dir {data_dir}: missing split file(s) {missing}; found {found}"
            )
        return files

    def _split_generators(self, dl_manager: datasets.DownloadManager) -> list:
        files = self._split_files(dl_manager)
        # Read and validate every split before anything is written.
        self._rows = {split: read_questions(files[split], split) for split in SPLITS}
        first_seen: dict[str, str] = {}
        for split in SPLITS:
            for row in self._rows[split]:
                if row["id"] in first_seen:
                    raise WoTeFormatError(
                        f"{_where(files[split], row['question_id'], row['conversation_id'])}:"
                        f" id {row['id']!r} also occurs in split {first_seen[row['id']]!r}"
                    )
                first_seen[row["id"]] = split
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"path": files[split], "split": split})
            for split in SPLITS
        ]

    def _generate_examples(self, path: str, split: str):
        rows = getattr(self, "_rows", {}).get(split)
        if rows is None:
            rows = read_questions(path, split)
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


#: The error this script raises for bad input (the same name in OCW.py: one error design).
FORMAT_ERROR = WoTeFormatError
