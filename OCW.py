"""Hugging Face ``datasets`` loading script for the Only Connect Wall (OCW) dataset.

OCW holds 618 "Connecting Walls" from the quiz show *Only Connect* (Naeini et al., NeurIPS 2023
Datasets and Benchmarks, "Large Language Models are Fixated by Red Herrings"). Each wall is
16 clues (``words``) that form 4 groups of 4 clues; each group has a connection
(``gt_connection``) and the recorded human performance on it.

Configurations (each with splits ``train`` / ``validation`` / ``test``, official sizes
62 / 62 / 494 walls):

* ``default`` -- the main dataset, ``OCW.tar.gz`` (extracts to ``dataset/``);
* ``ocw_randomized`` -- the same train and validation walls, with test walls rebuilt from
  groups of different walls (so red herrings are removed), ``OCW_randomized.tar.gz``;
* ``ocw_wordnet`` -- the "easy" WordNet-based ablation copy, ``OCW_wordnet.tar.gz``.

Sources, in order of precedence:

1. ``data_dir`` given and a folder: used as is;
2. ``data_dir`` given and an archive (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``, ...): extracted
   by this script (see below);
3. no ``data_dir``: the configuration's ``url`` (see ``_URLS``) is downloaded and extracted.

A ``data_dir`` that does not exist raises ``FileNotFoundError`` (the same message shape in
``WoTe.py``).

Archives are extracted into ``<downloads cache>/ocw_extracted/<sha256 of the archive>``, so
replacing an archive at the same path (even with the same size and modification time) gives a
fresh extraction, never the old files. A member with an absolute path, a ``..`` part, a link
that leaves the folder, or a device is refused (:class:`OCWFormatError`, nothing extracted).
The cache key of the prepared data (the config id) includes the SHA-256 of the ``data_dir``
content too (:class:`_ContentKeyedConfig`), so on ``datasets`` 3.x
``load_dataset("OCW.py", data_dir=...)`` also rebuilds when the source changes.

Inside the source, each split's JSON file is found recursively by the split name as a token of
the file name (tokens split on ``_``, ``-`` and ``.``, case-insensitive): ``test.json``,
``easy_test_wordnet.json`` and ``OCW_randomized/test.json`` all match ``test``;
``contest.json`` does not. The all-walls file ``OCW.json`` and hidden files are ignored.

Each file is ``{"season_to_walls_map": ..., "dataset": [wall, ...]}``. The builder reads
``dataset``: every wall is validated (see :func:`read_walls`) and every split is read and
cross-checked in ``_split_generators``, before any example is written, so a bad input raises
:class:`OCWFormatError` and leaves no prepared data in the cache; the validated walls reach
``_generate_examples`` through ``gen_kwargs``. :func:`read_season_map` reads
``season_to_walls_map`` (walls per season and the dates each season ran).

Every input error names the file, the wall (``wall_id`` and index) and the field:
``"<file>: wall '46fa44' (#0): field 'season': <problem>"`` (:class:`Where`).

The script imports only the standard library and ``datasets``. It works as a script on
``datasets`` 3.x (``load_dataset("OCW.py", "default", data_dir=..., trust_remote_code=True)``)
and imported by file path on ``datasets`` 3.x-5.x (``OCW(config_name=..., data_dir=...)``).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import posixpath
import re
import shutil
import tarfile
import tempfile
import unicodedata
import warnings
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import datasets

_CITATION = """\
@inproceedings{alavi-naeini2023large,
  title     = {Large Language Models are Fixated by Red Herrings: Exploring Creative Problem
               Solving and Einstellung Effect using the Only Connect Wall Dataset},
  author    = {Alavi Naeini, Saeid and Saqur, Raeid and Saeidi, Mozhgan and Giorgi, John and
               Taati, Babak},
  booktitle = {Advances in Neural Information Processing Systems},
  volume    = {36},
  series    = {Datasets and Benchmarks Track},
  year      = {2023},
  url       = {https://arxiv.org/abs/2306.11167}
}
"""

_DESCRIPTION = """\
The Only Connect Wall (OCW) dataset contains 618 "Connecting Walls" from Round 3 of the quiz
show Only Connect, collected from 15 seasons. Each wall has 16 clues that form 4 groups of 4
clues; each group has a ground-truth connection and the recorded human performance
(grouping solved, connection found). The benchmark tasks are grouping the 16 clues into the
4 groups and naming each group's connection. Red herrings (clues that plausibly fit more
than one group) make the walls hard for large language models.
"""

_HOMEPAGE = "https://github.com/TaatiTeam/OCW"

_LICENSE = "MIT"

_URLS = {
    "default": "https://www.cs.toronto.edu/~taati/OCW/OCW.tar.gz",
    "ocw_randomized": "https://www.cs.toronto.edu/~taati/OCW/OCW_randomized.tar.gz",
    "ocw_wordnet": "https://www.cs.toronto.edu/~taati/OCW/OCW_wordnet.tar.gz",
}

SPLITS = ("train", "validation", "test")
"""Split names, in the order they are generated."""

OFFICIAL_SPLIT_SIZES = {"train": 62, "validation": 62, "test": 494}
"""Number of walls per split in the official release (not enforced: fixtures may be smaller)."""

GROUP_NAMES = ("group_1", "group_2", "group_3", "group_4")
"""Keys of ``wall["groups"]``, in order."""

NUM_GROUPS = 4
CLUES_PER_GROUP = 4
NUM_CLUES = NUM_GROUPS * CLUES_PER_GROUP

MAX_CLUE_REPEATS = 2
"""A wall may hold one clue (compared lowercased) at most this many times.

The same rule, with the same comparison, as ``MAX_CLUE_REPEATS`` of the metric
(``metrics/ocw_metric/inputs.py``), which rejects a gold wall with a clue more than
twice: the builder rejects such a wall at build time instead of letting scoring fail later.
The release holds two walls with a clue twice (``654041``, ``b308e4``) and none with more.
"""

_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
_ALL_WALLS_STEM = "ocw"  # OCW.json holds every wall of every split: never a split file
_TOKEN_SEPARATORS = re.compile(r"[_\-.]+")
_MAX_LISTED = 50  # JSON files listed in a "cannot find split" error
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_EXTRACTED_FOLDER = "ocw_extracted"  # under the downloads cache: <sha256 of the archive>/


def _group_features() -> dict[str, Any]:
    return {
        "group_id": datasets.Value("string"),
        "gt_words": datasets.Sequence(datasets.Value("string")),
        "gt_connection": datasets.Value("string"),
        "human_performance": {
            "grouping": datasets.Value("int32"),
            "connection": datasets.Value("int32"),
        },
    }


FEATURES = datasets.Features(
    {
        "wall_id": datasets.Value("string"),
        "season": datasets.Value("int32"),
        "episode": datasets.Value("int32"),
        "words": datasets.Sequence(datasets.Value("string")),
        "gt_connections": datasets.Sequence(datasets.Value("string")),
        "groups": {name: _group_features() for name in GROUP_NAMES},
        "overall_human_performance": {
            "grouping": datasets.Sequence(datasets.Value("int32")),
            "connections": datasets.Sequence(datasets.Value("int32")),
        },
    }
)
"""Schema of one wall (one example).

* ``wall_id`` (string), ``season`` (int32, 1 or more), ``episode`` (int32, 1 or more);
* ``words``: the 16 clues, in file order (shuffled in the release);
* ``gt_connections``: the 4 connections, in group order;
* ``groups``: struct ``group_1`` .. ``group_4``, each ``{group_id, gt_words (4 clues),
  gt_connection, human_performance: {grouping, connection}}`` with scores 0 or 1;
* ``overall_human_performance``: ``{grouping: 4 ints, connections: 4 ints}``, the groups'
  scores in group order.

Lists are variable-length in Arrow; their lengths (16 and 4) are enforced by validation.
"""


class OCWFormatError(ValueError):
    """A source file, an archive or a wall breaks the OCW format.

    The message names the file, and when relevant the wall (``wall_id`` and index) and the
    field at fault: ``"<file>: wall '46fa44' (#0): field 'season': <problem>"``.
    """


#: The error this script raises for bad input (the same name in WoTe.py: one error design).
FORMAT_ERROR = OCWFormatError


class OCWDataWarning(UserWarning):
    """A real quirk of the data that is kept, not rejected.

    Raised for a non-string clue (converted with ``str()``) and for a clue that appears more
    than once in one wall (compared after Unicode NFC normalisation and case folding; kept as
    is).
    """


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
    """The item a JSON path points into, for messages: ``(label, path of the field)``.

    ``["dataset", 3, "groups", "group_2"]`` -> ``("wall '46fa44' (#3)", ["groups", "group_2"])``;
    ``["season_to_walls_map", "3", "num_walls"]`` -> ``("season '3'", the whole path)``.
    """
    if len(json_path) >= 2 and json_path[0] == "dataset" and isinstance(json_path[1], int):
        return _wall_label(document["dataset"][json_path[1]], json_path[1]), json_path[2:]
    if len(json_path) >= 2 and json_path[0] == "season_to_walls_map":
        return f"season {json_path[1]!r}", json_path
    return "", json_path


# --------------------------------------------------------------------------------------------
# Locating the split files
# --------------------------------------------------------------------------------------------


def _name_tokens(file_name: str) -> list[str]:
    return [token for token in _TOKEN_SEPARATORS.split(file_name.lower()) if token]


def _candidate_json_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") or part == "__MACOSX" for part in relative.parts):
            continue  # hidden files, including macOS "._test.json" resource forks
        if path.is_file() and path.suffix.lower() == ".json":
            files.append(path)
    return files


def _split_candidates(candidates: list[Path]) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {split: [] for split in SPLITS}
    for path in candidates:
        tokens = _name_tokens(path.name)
        if tokens[:-1] == [_ALL_WALLS_STEM]:
            continue
        for split in SPLITS:
            if split in tokens:
                found[split].append(path)
    return found


def _listing(root: Path, candidates: list[Path]) -> str:
    shown = [str(p.relative_to(root)) for p in candidates[:_MAX_LISTED]]
    if len(candidates) > _MAX_LISTED:
        shown.append(f"... and {len(candidates) - _MAX_LISTED} more")
    return ", ".join(shown) or "no JSON files"


def find_split_files(root: str | Path) -> dict[str, Path]:
    """Find the JSON file of each split under ``root`` (searched recursively).

    A file belongs to split ``s`` when ``s`` is one of the tokens of its name split on ``_``,
    ``-`` and ``.`` (case-insensitive): ``test.json``, ``easy_test_wordnet.json`` and
    ``OCW_randomized/test.json`` match ``test``; ``contest.json`` does not. ``OCW.json`` (all
    walls), hidden files and ``__MACOSX`` folders are ignored.

    Args:
        root: folder to search (e.g. the extracted release tarball).

    Returns:
        ``{"train": path, "validation": path, "test": path}``.

    Raises:
        FileNotFoundError: ``root`` does not exist.
        OCWFormatError: ``root`` is not a folder; a split has no matching file or more than
            one; the message lists the JSON files found under ``root``.
    """
    root = Path(root)
    if not root.exists():
        raise _missing_source(root)
    if not root.is_dir():
        raise Where(root).error(None, "not a folder")
    candidates = _candidate_json_files(root)
    found = _split_candidates(candidates)
    problems = []
    for split in SPLITS:
        if not found[split]:
            problems.append(f"no file for split {split!r}")
        elif len(found[split]) > 1:
            names = ", ".join(str(p.relative_to(root)) for p in found[split])
            problems.append(f"several files for split {split!r}: {names}")
    if problems:
        raise Where(root).error(
            None,
            f"cannot find one JSON file per split ({'; '.join(problems)}). "
            f"Files found: {_listing(root, candidates)}",
        )
    return {split: found[split][0] for split in SPLITS}


# --------------------------------------------------------------------------------------------
# Parsing and validating walls
# --------------------------------------------------------------------------------------------


def _wall_label(raw: Any, index: int) -> str:
    """``"wall '46fa44' (#3)"``, or ``"wall #3"`` when the wall has no string ``wall_id``."""
    wall_id = raw.get("wall_id") if isinstance(raw, dict) else None
    return f"wall {wall_id!r} (#{index})" if isinstance(wall_id, str) else f"wall #{index}"


def _get(raw: Mapping[str, Any], key: str, where: Where, field: str) -> Any:
    if key not in raw:
        raise where.error(field, "missing")
    return raw[key]


def _require(raw: Mapping[str, Any], key: str, kind: type, where: Where, field: str) -> Any:
    """``raw[key]`` of JSON type ``kind``; a string must be valid Unicode, an int fit int32."""
    value = _get(raw, key, where, field)
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        problem = f"expected {kind.__name__}, got {type(value).__name__} {_short(value)}"
        raise where.error(field, problem)
    if kind is str:
        _check_text(value, where, field)
    elif kind is int and not _INT32_MIN <= value <= _INT32_MAX:
        raise where.error(field, f"integer {value} does not fit in int32")
    return value


def _require_name(raw: Mapping[str, Any], key: str, where: Where, field: str) -> str:
    """A required string that must show something (an id or a connection)."""
    value = _require(raw, key, str, where, field)
    _check_name(value, where, field)
    return value


def _require_count(raw: Mapping[str, Any], key: str, where: Where) -> int:
    """A required integer of 1 or more (``season``, ``episode``)."""
    value = _require(raw, key, int, where, key)
    if value < 1:
        raise where.error(key, f"must be 1 or more, got {value}")
    return value


def _clue(value: Any, where: Where, field: str) -> str:
    """Return ``value`` as a clue string; a JSON number becomes ``str(value)`` (reported by
    :func:`_warn_quirks`)."""
    if isinstance(value, str):
        _check_name(value, where, field)
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise where.error(field, f"a non-finite number is not a clue, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise where.error(field, f"expected a string clue, got {type(value).__name__} {_short(value)}")


def _clue_list(raw: Any, length: int, where: Where, field: str) -> list[str]:
    if not isinstance(raw, list):
        raise where.error(field, f"expected a list of {length} clues, got {type(raw).__name__}")
    if len(raw) != length:
        raise where.error(field, f"expected {length} clues, got {len(raw)}")
    return [_clue(value, where, f"{field}[{i}]") for i, value in enumerate(raw)]


def _score(raw: Any, where: Where, field: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw not in (0, 1):
        raise where.error(field, f"human score must be 0 or 1, got {_short(raw)}")
    return raw


def _group(raw: Any, where: Where, name: str) -> dict[str, Any]:
    field = f"groups.{name}"
    if not isinstance(raw, dict):
        raise where.error(field, f"expected an object, got {type(raw).__name__}")
    group_id = _require_name(raw, "group_id", where, f"{field}.group_id")
    gt_words = _get(raw, "gt_words", where, f"{field}.gt_words")
    gt_words = _clue_list(gt_words, CLUES_PER_GROUP, where, f"{field}.gt_words")
    gt_connection = _require_name(raw, "gt_connection", where, f"{field}.gt_connection")
    human = _require(raw, "human_performance", dict, where, f"{field}.human_performance")
    scores = {}
    for key in ("grouping", "connection"):
        score_field = f"{field}.human_performance.{key}"
        scores[key] = _score(_get(human, key, where, score_field), where, score_field)
    return {
        "group_id": group_id,
        "gt_words": gt_words,
        "gt_connection": gt_connection,
        "human_performance": scores,
    }


def _groups(raw: Mapping[str, Any], where: Where) -> dict[str, dict[str, Any]]:
    """The 4 groups, validated, in the order ``group_1`` .. ``group_4``; group ids unique."""
    raw_groups = _require(raw, "groups", dict, where, "groups")
    if sorted(raw_groups) != list(GROUP_NAMES):
        raise where.error(
            "groups",
            f"expected exactly {NUM_GROUPS} groups {list(GROUP_NAMES)}, got {list(raw_groups)}",
        )
    groups = {name: _group(raw_groups[name], where, name) for name in GROUP_NAMES}
    first: dict[str, str] = {}
    for name, group in groups.items():
        other = first.setdefault(group["group_id"], name)
        if other != name:
            raise where.error(
                f"groups.{name}.group_id",
                f"{group['group_id']!r} is also the group_id of groups.{other}; each group of "
                "a wall has its own group_id",
            )
    return groups


def _check_clues(words: list[str], groups: Mapping[str, Any], where: Where) -> None:
    """``words`` equal the groups' clues as a multiset; no clue more than twice (lowercased)."""
    group_clues = Counter(clue for group in groups.values() for clue in group["gt_words"])
    wall_clues = Counter(words)
    if wall_clues != group_clues:
        only_words = sorted((wall_clues - group_clues).elements())
        only_groups = sorted((group_clues - wall_clues).elements())
        raise where.error(
            "words",
            "clues differ from the union of the groups' gt_words: "
            f"only in words {only_words}, only in groups {only_groups}",
        )
    clue, count = Counter(clue.lower() for clue in words).most_common(1)[0]
    if count > MAX_CLUE_REPEATS:
        raise where.error(
            "words",
            f"clue {clue!r} occurs {count} times in the wall (compared lowercased); a wall "
            f"holds no clue more than {MAX_CLUE_REPEATS} times (the metric rejects such a "
            "gold wall)",
        )


def _connections(raw: Mapping[str, Any], groups: Mapping[str, Any], where: Where) -> list:
    connections = _require(raw, "gt_connections", list, where, "gt_connections")
    expected = [group["gt_connection"] for group in groups.values()]
    if connections != expected:
        raise where.error(
            "gt_connections",
            f"expected the groups' gt_connection in group order {expected}, got "
            f"{_short(connections)}",
        )
    return list(connections)


def _overall(raw: Mapping[str, Any], groups: Mapping[str, Any], where: Where) -> dict:
    overall = _require(raw, "overall_human_performance", dict, where, "overall_human_performance")
    out: dict[str, list[int]] = {}
    for key, group_key in (("grouping", "grouping"), ("connections", "connection")):
        field = f"overall_human_performance.{key}"
        values = _require(overall, key, list, where, field)
        scores = [_score(value, where, f"{field}[{i}]") for i, value in enumerate(values)]
        expected = [group["human_performance"][group_key] for group in groups.values()]
        if scores != expected:
            raise where.error(
                field, f"expected the groups' scores in group order {expected}, got {scores}"
            )
        out[key] = scores
    return out


def _numeric_clues(raw: Mapping[str, Any]) -> dict[tuple[str, str], list[str]]:
    """``(repr, str)`` of each clue that is a JSON number -> the fields where it is."""
    places = [("words", raw["words"])]
    places += [(f"groups.{n}.gt_words", raw["groups"][n]["gt_words"]) for n in GROUP_NAMES]
    found: dict[tuple[str, str], list[str]] = {}
    for field, clues in places:
        for i, clue in enumerate(clues):
            if not isinstance(clue, str):
                found.setdefault((repr(clue), str(clue)), []).append(f"{field}[{i}]")
    return found


def _repeated_clues(groups: Mapping[str, Any]) -> list[list[tuple[str, str]]]:
    """Clues that occur more than once in a wall, compared after Unicode NFC normalisation and
    case folding: for each, its ``(spelling, field)`` occurrences."""
    places: dict[str, list[tuple[str, str]]] = {}
    for name, group in groups.items():
        for i, clue in enumerate(group["gt_words"]):
            key = unicodedata.normalize("NFC", clue).casefold()
            places.setdefault(key, []).append((clue, f"groups.{name}.gt_words[{i}]"))
    return [found for found in places.values() if len(found) > 1]


def _warn_quirks(raw: Mapping[str, Any], groups: Mapping[str, Any], where: Where) -> None:
    """One :class:`OCWDataWarning` per numeric clue and per repeated clue of a valid wall."""
    for (number, text), fields in _numeric_clues(raw).items():
        message = (
            f"clue {number} is a JSON number, not a string; loaded as {text!r} "
            f"(in {', '.join(fields)})"
        )
        warnings.warn(where.describe(None, message), OCWDataWarning, stacklevel=4)
    for found in _repeated_clues(groups):
        spellings = list(dict.fromkeys(clue for clue, _ in found))
        variants = ""
        if len(spellings) > 1:
            shown = ", ".join(repr(s) for s in spellings)
            variants = f" as {shown} (equal after Unicode NFC normalisation and case folding)"
        message = (
            f"clue {spellings[0]!r} appears {len(found)} times in the wall{variants} "
            f"(at {', '.join(field for _, field in found)}); kept as is"
        )
        warnings.warn(where.describe(None, message), OCWDataWarning, stacklevel=4)


def _normalise_wall(raw: Any, path: Path, index: int) -> dict[str, Any]:
    """Validate one raw wall and return it in the shape of :data:`FEATURES`."""
    where = Where(path, _wall_label(raw, index))
    if not isinstance(raw, dict):
        raise where.error(None, f"expected a wall object, got {type(raw).__name__}")
    wall_id = _require_name(raw, "wall_id", where, "wall_id")
    season = _require_count(raw, "season", where)
    episode = _require_count(raw, "episode", where)
    words = _clue_list(_get(raw, "words", where, "words"), NUM_CLUES, where, "words")
    groups = _groups(raw, where)
    _check_clues(words, groups, where)
    connections = _connections(raw, groups, where)
    overall = _overall(raw, groups, where)
    _warn_quirks(raw, groups, where)
    return {
        "wall_id": wall_id,
        "season": season,
        "episode": episode,
        "words": words,
        "gt_connections": connections,
        "groups": groups,
        "overall_human_performance": overall,
    }


def _walls_list(document: Any, path: Path, split: str) -> list:
    if not isinstance(document, dict) or not isinstance(document.get("dataset"), list):
        keys = f" with keys {sorted(document)}" if isinstance(document, dict) else ""
        raise Where(path).error(
            None,
            f"expected an object with a 'dataset' list of walls in split {split!r}, got "
            f"{type(document).__name__}{keys}",
        )
    if not document["dataset"]:
        raise Where(path).error(None, f"split {split!r} has no walls")
    return document["dataset"]


def read_walls(path: str | Path, split: str) -> list[dict[str, Any]]:
    """Read, validate and normalise the walls of one split file.

    The file is ``{"season_to_walls_map": ..., "dataset": [wall, ...]}``; only ``dataset`` is
    read here (see :func:`read_season_map`). Each returned wall has exactly the keys of
    :data:`FEATURES` (extra keys of the raw wall or its groups are dropped), ``groups`` in the
    order ``group_1`` .. ``group_4``, and is what the builder yields for that wall, in file
    order.

    Checks, each failing with :class:`OCWFormatError` naming the file, the wall and the field:

    * the JSON is valid and no object repeats a key (e.g. a wall with two ``wall_id`` keys or
      a group with two ``gt_words``: ``json`` would silently keep the last);
    * at least one wall; required fields present with the right JSON types;
    * ``season`` and ``episode`` integers from 1 to 2**31 - 1 (int32);
    * every string valid Unicode (no lone surrogate); ``wall_id``, ``group_id``,
      ``gt_connection`` and every clue not blank (empty, or only whitespace, control or
      format characters such as NUL or the zero-width space U+200B);
    * 16 clues in ``words``; exactly 4 groups named ``group_1`` .. ``group_4`` of 4 clues
      each, with 4 different ``group_id``; ``words`` equal, as a multiset, to the union of
      the groups' ``gt_words``; no clue (compared lowercased) more than
      :data:`MAX_CLUE_REPEATS` (2) times in a wall, the metric's rule for a gold wall;
    * ``gt_connections`` equal to the groups' ``gt_connection`` in group order; human scores
      0 or 1 and ``overall_human_performance`` equal to the groups' scores in group order;
    * ``wall_id`` unique within the file.

    Kept quirks, each with an :class:`OCWDataWarning` naming file, wall and clue:

    * a clue that is a JSON number (real case: ``8.5`` in wall ``0f1677``) is rendered with
      ``str()`` in ``words`` and in ``gt_words``: ``8.5`` -> ``"8.5"``, ``8`` -> ``"8"``
      (booleans, ``null``, ``NaN``/``Infinity`` and empty strings are errors);
    * a clue repeated within one wall (real cases: ``Bask`` in ``654041``, ``Glamour`` in
      ``b308e4``), compared after Unicode NFC normalisation and case folding (so ``"Bask"``
      and ``"BASK"`` count as one clue twice), is kept as is.

    Args:
        path: the split's JSON file.
        split: the split name, used in messages only.

    Returns:
        The list of walls, in file order.

    Raises:
        OCWFormatError: any failed check above.
    """
    path = Path(path)
    raw_walls = _walls_list(_load_json(path, f"split {split!r}"), path, split)
    walls: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_walls):
        wall = _normalise_wall(raw, path, index)
        wall_id = wall["wall_id"]
        if wall_id in seen:
            raise Where(path, _wall_label(raw, index)).error(
                "wall_id", f"duplicated in split {split!r} (first at #{seen[wall_id]})"
            )
        seen[wall_id] = index
        walls.append(wall)
    return walls


def _read_all_splits(files: Mapping[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Read every split and check that no ``wall_id`` is in two splits."""
    walls = {split: read_walls(files[split], split) for split in SPLITS}
    owner: dict[str, str] = {}
    for split in SPLITS:
        for wall in walls[split]:
            wall_id = wall["wall_id"]
            other = owner.setdefault(wall_id, split)
            if other != split:
                raise Where(files[split], f"wall {wall_id!r}").error(
                    "wall_id", f"in two splits, {other!r} ({files[other]}) and {split!r}"
                )
    return walls


# --------------------------------------------------------------------------------------------
# The season map
# --------------------------------------------------------------------------------------------

_DATE_FORMATS = ("%d/%m/%Y", "%Y-%m-%d")  # the release writes "15/09/2008"
_SEASON_KEYS = ("num_walls", "start_date", "end_date")
_SEASON_NUMBER = re.compile(r"[0-9]+")


def _season_date(
    entry: Mapping[str, Any], key: str, where: Where, field: str
) -> datetime.date | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        for form in _DATE_FORMATS:
            try:
                return datetime.datetime.strptime(value, form).date()
            except ValueError:
                continue
    raise where.error(
        f"{field}.{key}",
        f"expected a date DD/MM/YYYY (as in the release), YYYY-MM-DD or null, got {_short(value)}",
    )


def _season_info(entry: Mapping[str, Any], where: Where, field: str) -> dict[str, Any]:
    """One season of the release shape ``{num_walls, start_date, end_date}``, dates parsed."""
    unexpected = sorted(set(entry) - set(_SEASON_KEYS))
    if unexpected:
        raise where.error(field, f"unexpected keys {unexpected}; expected {list(_SEASON_KEYS)}")
    info = {
        "num_walls": _get(entry, "num_walls", where, f"{field}.num_walls"),
        "start_date": _season_date(entry, "start_date", where, field),
        "end_date": _season_date(entry, "end_date", where, field),
    }
    if info["start_date"] and info["end_date"] and info["start_date"] > info["end_date"]:
        raise where.error(
            field, f"start_date {info['start_date']} is after end_date {info['end_date']}"
        )
    return info


def _season_entry(key: str, entry: Any, where: Where) -> tuple[int, dict[str, Any]]:
    field = f"season_to_walls_map.{key}"
    if not _SEASON_NUMBER.fullmatch(key):
        raise where.error(field, f"a season must be a whole number, got {key!r}")
    season = int(key)
    if isinstance(entry, dict):
        info, count_field = _season_info(entry, where, field), f"{field}.num_walls"
    else:  # the raw export's shape: {season: number of walls}
        info, count_field = {"num_walls": entry, "start_date": None, "end_date": None}, field
    count = info["num_walls"]
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise where.error(
            count_field, f"expected a number of walls (0 or more), got {_short(count)}"
        )
    if season == 0 and count:
        raise where.error(field, f"season 0 holds {count} walls; seasons start at 1")
    return season, info


def read_season_map(path: str | Path) -> dict[int, dict[str, Any]]:
    """Read the ``season_to_walls_map`` of a release file: walls per season and the dates the
    season ran.

    Every split file of the release (and ``OCW.json``) holds the map of the whole dataset
    (all 618 walls), e.g. ``{"1": {"num_walls": 30, "start_date": "15/09/2008",
    "end_date": "22/12/2008"}, ...}`` (upstream README). The pre-release export holds the
    older shape ``{season: number of walls}``, which gives null dates; it also lists season
    ``0`` with 0 walls, which is kept.

    Args:
        path: a release JSON file (``train.json``, ``validation.json``, ``test.json``,
            ``OCW.json``) or the raw export ``onlyconnect.json``.

    Returns:
        ``{season: {"num_walls": int, "start_date": datetime.date | None, "end_date":
        datetime.date | None}}`` sorted by season (an int); dates written ``DD/MM/YYYY`` (the
        release) or ``YYYY-MM-DD``; ``null`` dates (as in the stand-in) stay ``None``.

    Raises:
        OCWFormatError: invalid JSON or a repeated key; no ``season_to_walls_map`` object; a
            season that is not a whole number or is listed twice; ``num_walls`` missing, not
            a whole number, negative, or more than 0 for season 0; a date that is not a date
            in one of the forms above, or a start after the end; an unexpected key. The
            message names the file, the season and the field.
    """
    path = Path(path)
    document = _load_json(path, "the release file")
    raw = document.get("season_to_walls_map") if isinstance(document, dict) else None
    if not isinstance(raw, dict):
        raise Where(path).error(
            "season_to_walls_map", f"expected an object {{season: ...}}, got {_short(raw)}"
        )
    seasons: dict[int, dict[str, Any]] = {}
    for key, entry in raw.items():
        where = Where(path, f"season {key!r}")
        season, info = _season_entry(key, entry, where)
        if season in seasons:
            raise where.error(f"season_to_walls_map.{key}", f"season {season} is listed twice")
        seasons[season] = info
    return dict(sorted(seasons.items()))


# --------------------------------------------------------------------------------------------
# Archives
# --------------------------------------------------------------------------------------------

# What unpacking a damaged archive raises: EOFError (truncated gzip/bz2/xz stream),
# tarfile.ReadError / zipfile.BadZipFile (corrupt archive), zlib.error (bad deflate data in a
# zip member), OSError (bad compressed data).
_EXTRACTION_ERRORS = (EOFError, tarfile.TarError, zipfile.BadZipFile, zlib.error, OSError)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _unsafe_name(name: str) -> str | None:
    """Why an archive member's name would land outside the extraction folder, or None."""
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "an absolute path"
    if ".." in re.split(r"[/\\]", name):
        return "a '..' part"
    return None


def _unsafe_member(member: tarfile.TarInfo) -> str | None:
    """Why a tar member is refused (absolute path, '..', a link leaving the folder, a device
    or fifo), or None."""
    problem = _unsafe_name(member.name)
    if problem is not None:
        return problem
    if member.issym() or member.islnk():
        base = posixpath.dirname(member.name) if member.issym() else ""
        target = posixpath.normpath(posixpath.join(base, member.linkname))
        if member.linkname.startswith("/") or target == ".." or target.startswith("../"):
            return f"a link to {member.linkname!r}, outside the archive's folder"
    elif not (member.isfile() or member.isdir()):
        return "not a file, a folder or a link"
    return None


def _unpack_tar(archive: str, local: Path, dest: Path) -> None:
    with tarfile.open(local) as tar:
        members = tar.getmembers()  # reads the whole archive: a truncated one fails here
        for member in members:
            problem = _unsafe_member(member)
            if problem is not None:
                raise Where(archive, f"member {member.name!r}").error(
                    None, f"refused: {problem}; nothing extracted"
                )
        if hasattr(tarfile, "data_filter"):  # Python 3.12+, and 3.8-3.11 security releases
            tar.extractall(dest, members=members, filter="data")
        else:  # pragma: no cover - older Pythons; every member was checked above
            tar.extractall(dest, members=members)


def _unpack_zip(archive: str, local: Path, dest: Path) -> None:
    with zipfile.ZipFile(local) as zipped:
        for info in zipped.infolist():
            problem = _unsafe_name(info.filename)
            if problem is not None:
                raise Where(archive, f"member {info.filename!r}").error(
                    None, f"refused: {problem}; nothing extracted"
                )
        zipped.extractall(dest)


def _unpack(archive: str, local: Path, dest: Path) -> None:
    """Unpack ``local`` (tar, possibly compressed, or zip) into the empty folder ``dest``."""
    try:
        if tarfile.is_tarfile(local):
            _unpack_tar(archive, local, dest)
        elif zipfile.is_zipfile(local):
            _unpack_zip(archive, local, dest)
        else:
            raise Where(archive).error(
                None,
                "not a readable archive (expected a tar or zip archive, possibly compressed, "
                "holding the split JSON files)",
            )
    except _EXTRACTION_ERRORS as error:
        raise Where(archive).error(
            None,
            "cannot extract the OCW archive: it is truncated or not a readable archive "
            f"({type(error).__name__}: {error})",
        ) from error


def extract_archive(
    archive: str, local: str | Path, cache_dir: str | Path, force: bool = False
) -> Path:
    """Extract an OCW archive into a folder named by the SHA-256 of its content.

    The folder is ``<cache_dir>/ocw_extracted/<sha256>``: an archive replaced at the same
    path (even with the same size and modification time) gets a new folder, so old files are
    never read. An existing folder is reused (unless ``force``). The archive is unpacked into
    a temporary folder next to it and renamed into place when complete, so a failed or
    interrupted extraction leaves nothing behind.

    Args:
        archive: the archive as the user gave it (a path or URL), named in messages.
        local: the archive's local file (the downloaded copy of a URL).
        cache_dir: where to keep extractions (the builder uses its downloads cache).
        force: extract again even if the folder exists (``download_mode="force_redownload"``).

    Returns:
        The extracted folder.

    Raises:
        OCWFormatError: the archive is truncated, not a tar or zip archive, or holds a member
            with an absolute path, a ``..`` part, a link out of the folder or a device; the
            message names ``archive``.
    """
    target = Path(cache_dir) / _EXTRACTED_FOLDER / _file_sha256(Path(local))
    if target.is_dir() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name[:16]}-", dir=target.parent))
    try:
        _unpack(archive, Path(local), staging)
        if force and target.is_dir():
            shutil.rmtree(target)
        _move_into_place(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # nothing left once moved into place
    return target


def _move_into_place(staging: Path, target: Path) -> None:
    """Rename the complete extraction to its final name; if another process finished the same
    extraction first (same content, same name), keep theirs."""
    try:
        os.replace(staging, target)
    except OSError:
        if not target.is_dir():
            raise


# --------------------------------------------------------------------------------------------
# Builder
# --------------------------------------------------------------------------------------------


@dataclass
class OCWConfig(_ContentKeyedConfig):
    """BuilderConfig for OCW (its config id includes the content of a local ``data_dir``).

    Args:
        url: the release tarball downloaded when no ``data_dir`` is given.
    """

    url: str = ""


class OCW(datasets.GeneratorBasedBuilder):
    """Only Connect Wall: walls of 16 clues in 4 groups of 4, splits train/validation/test.

    ``data_dir`` may be a folder or an archive holding ``train``/``validation``/``test`` JSON
    files (see :func:`find_split_files`); without it the configuration's ``url`` is
    downloaded. Examples are keyed by ``wall_id`` and yielded in file order, as returned by
    :func:`read_walls`. All splits are validated in ``_split_generators`` before any is
    written, and the validated walls are passed to ``_generate_examples`` in ``gen_kwargs``.
    """

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = OCWConfig
    BUILDER_CONFIGS = [
        OCWConfig(
            name="default",
            version=VERSION,
            description="The main OCW dataset (OCW.tar.gz).",
            url=_URLS["default"],
        ),
        OCWConfig(
            name="ocw_randomized",
            version=VERSION,
            description="OCW with a randomized test split: test walls rebuilt from groups of "
            "different walls, which removes red herrings (OCW_randomized.tar.gz).",
            url=_URLS["ocw_randomized"],
        ),
        OCWConfig(
            name="ocw_wordnet",
            version=VERSION,
            description="Easy WordNet-based OCW copy for ablations (OCW_wordnet.tar.gz).",
            url=_URLS["ocw_wordnet"],
        ),
    ]
    DEFAULT_CONFIG_NAME = "default"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=FEATURES,
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
        )

    def _source_root(self, dl_manager: datasets.DownloadManager) -> tuple[Path, str | None]:
        """Return ``(folder holding the split files, archive or URL it was extracted from)``."""
        download_config = dl_manager.download_config
        cache_dir = download_config.cache_dir or datasets.config.DOWNLOADED_DATASETS_PATH
        force = download_config.force_extract  # download_mode="force_redownload"
        data_dir = self.config.data_dir
        if data_dir is None:
            url = self.config.url or _URLS.get(self.config.name, _URLS["default"])
            local = dl_manager.download(url)
            return extract_archive(url, local, cache_dir, force), url
        data_dir = str(data_dir)
        path = Path(data_dir).expanduser()
        if path.is_dir():
            return path, None
        if not path.exists():
            raise _missing_source(data_dir)
        if not data_dir.lower().endswith(_ARCHIVE_SUFFIXES):
            raise Where(data_dir).error(
                None,
                f"data_dir is neither a folder nor an archive ({', '.join(_ARCHIVE_SUFFIXES)})",
            )
        return extract_archive(data_dir, path, cache_dir, force), data_dir

    def _split_generators(self, dl_manager: datasets.DownloadManager) -> list:
        root, archive = self._source_root(dl_manager)
        try:
            files = find_split_files(root)
            # Validate every split (and cross-split ids) before any example is written.
            walls = _read_all_splits(files)
        except OCWFormatError as error:
            if archive is None:
                raise
            message = str(error).removeprefix(f"{root}: ")  # the lookup error starts with it
            raise OCWFormatError(
                f"in archive {archive} (extracted to {root}): {message}"
            ) from error
        return [
            datasets.SplitGenerator(
                name=split, gen_kwargs={"walls": walls[split], "filepath": str(files[split])}
            )
            for split in SPLITS
        ]

    def _generate_examples(
        self, walls: list[dict[str, Any]], filepath: str
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Yield ``(wall_id, wall)`` for the validated walls of one split file (``filepath``,
        named for the record only)."""
        for wall in walls:
            yield wall["wall_id"], wall
