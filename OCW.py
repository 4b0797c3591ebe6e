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
2. ``data_dir`` given and an archive (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``, ...):
   extracted with ``dl_manager.download_and_extract``;
3. no ``data_dir``: the configuration's ``url`` (see ``_URLS``) is downloaded and extracted.

Inside the source, each split's JSON file is found recursively by the split name as a token of
the file name (tokens split on ``_``, ``-`` and ``.``, case-insensitive): ``test.json``,
``easy_test_wordnet.json`` and ``OCW_randomized/test.json`` all match ``test``;
``contest.json`` does not. The all-walls file ``OCW.json`` and hidden files are ignored.

Each file is ``{"season_to_walls_map": ..., "dataset": [wall, ...]}``; only ``dataset`` is
read. Every wall is validated (see :func:`read_walls`) and every split is read and
cross-checked before any example is written, so a bad input raises :class:`OCWFormatError`
and leaves no prepared data in the cache. This includes what would otherwise fail only inside
``pyarrow`` while writing: strings that are not valid Unicode (a lone surrogate such as
``"\\ud800"``, which JSON allows), ``season``/``episode`` outside int32, and an empty split.

An archive that cannot be extracted (truncated, or not an archive despite its name) raises
:class:`OCWFormatError` naming the archive, and the partially extracted folder is removed;
errors about the files inside an archive name the archive and the extraction folder.

The script imports only the standard library and ``datasets``. It works as a script on
``datasets`` 3.x (``load_dataset("OCW.py", "default", data_dir=..., trust_remote_code=True)``)
and imported by file path on ``datasets`` 3.x-5.x (``OCW(config_name=..., data_dir=...)``).
"""

import json
import math
import re
import shutil
import tarfile
import warnings
import zipfile
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
_ALL_WALLS_STEM = "ocw"  # OCW.json holds every wall of every split: never a split file
_TOKEN_SEPARATORS = re.compile(r"[_\-.]+")
_MAX_LISTED = 50  # JSON files listed in a "cannot find split" error
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


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

* ``wall_id`` (string), ``season`` (int32), ``episode`` (int32);
* ``words``: the 16 clues, in file order (shuffled in the release);
* ``gt_connections``: the 4 connections, in group order;
* ``groups``: struct ``group_1`` .. ``group_4``, each ``{group_id, gt_words (4 clues),
  gt_connection, human_performance: {grouping, connection}}`` with scores 0 or 1;
* ``overall_human_performance``: ``{grouping: 4 ints, connections: 4 ints}``, the groups'
  scores in group order.

Lists are variable-length in Arrow; their lengths (16 and 4) are enforced by validation.
"""


class OCWFormatError(ValueError):
    """A source file or wall breaks the OCW format.

    The message names the file, and when relevant the wall (``wall_id`` or index) and the
    field at fault.
    """


class OCWDataWarning(UserWarning):
    """A real quirk of the data that is kept, not rejected.

    Raised for a non-string clue (converted with ``str()``) and for a clue that appears more
    than once in one wall (kept as is).
    """


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
        FileNotFoundError: ``root`` is not a folder.
        OCWFormatError: a split has no matching file or more than one; the message lists the
            JSON files found under ``root``.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"OCW data folder not found: {root}")
    candidates = _candidate_json_files(root)
    found: dict[str, list[Path]] = {split: [] for split in SPLITS}
    for path in candidates:
        tokens = _name_tokens(path.name)
        if tokens[:-1] == [_ALL_WALLS_STEM]:
            continue
        for split in SPLITS:
            if split in tokens:
                found[split].append(path)

    shown = [str(p.relative_to(root)) for p in candidates[:_MAX_LISTED]]
    if len(candidates) > _MAX_LISTED:
        shown.append(f"... and {len(candidates) - _MAX_LISTED} more")
    listing = ", ".join(shown) or "no JSON files"
    problems = []
    for split in SPLITS:
        if not found[split]:
            problems.append(f"no file for split {split!r}")
        elif len(found[split]) > 1:
            names = ", ".join(str(p.relative_to(root)) for p in found[split])
            problems.append(f"several files for split {split!r}: {names}")
    if problems:
        raise OCWFormatError(
            f"{root}: cannot find one JSON file per split ({'; '.join(problems)}). "
            f"Files found: {listing}"
        )
    return {split: found[split][0] for split in SPLITS}


# --------------------------------------------------------------------------------------------
# Parsing and validating walls
# --------------------------------------------------------------------------------------------


class _WallContext:
    """Formats error and warning messages for one wall of one file."""

    def __init__(self, path: Path, index: int, wall_id: str | None = None) -> None:
        self.path = path
        self.index = index
        self.wall_id = wall_id
        # (repr of the numeric clue, its str()) -> fields where it was converted
        self.converted: dict[tuple[str, str], list[str]] = {}

    def where(self) -> str:
        wall = f"wall {self.wall_id!r} (#{self.index})" if self.wall_id else f"wall #{self.index}"
        return f"{self.path}: {wall}"

    def error(self, field: str, problem: str) -> OCWFormatError:
        return OCWFormatError(f"{self.where()}: field {field!r}: {problem}")


def _require(raw: Mapping[str, Any], key: str, kind: type, ctx: _WallContext, field: str) -> Any:
    if key not in raw:
        raise ctx.error(field, "missing")
    value = raw[key]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise ctx.error(field, f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
    if kind is str:
        _check_text(value, ctx, field)
    elif kind is int and not _INT32_MIN <= value <= _INT32_MAX:
        raise ctx.error(field, f"integer {value} does not fit in int32")
    return value


def _require_text(raw: Mapping[str, Any], key: str, ctx: _WallContext, field: str) -> str:
    """A required string field that must not be empty or whitespace only."""
    value = _require(raw, key, str, ctx, field)
    if not value.strip():
        raise ctx.error(field, f"empty or blank {value!r}")
    return value


def _check_text(value: str, ctx: _WallContext, field: str) -> None:
    """Reject a string that cannot be encoded as UTF-8 (a lone surrogate from JSON)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ctx.error(
            field,
            f"not valid Unicode text: lone surrogate {value[error.start]!r} at character "
            f"{error.start} of {value[:40]!r}",
        ) from None


def _clue(value: Any, ctx: _WallContext, field: str) -> str:
    """Return ``value`` as a clue string; a JSON number becomes ``str(value)``.

    Conversions are recorded in ``ctx.converted`` and reported once per wall and value by
    :func:`_warn_quirks`.
    """
    if isinstance(value, str):
        if not value.strip():
            raise ctx.error(field, f"empty clue {value!r}")
        _check_text(value, ctx, field)
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise ctx.error(field, f"a non-finite number is not a clue, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        text = str(value)
        ctx.converted.setdefault((repr(value), text), []).append(field)
        return text
    raise ctx.error(field, f"expected a string clue, got {type(value).__name__} {value!r}")


def _clue_list(raw: Any, length: int, ctx: _WallContext, field: str) -> list[str]:
    if not isinstance(raw, list):
        raise ctx.error(field, f"expected a list of {length} clues, got {type(raw).__name__}")
    if len(raw) != length:
        raise ctx.error(field, f"expected {length} clues, got {len(raw)}")
    return [_clue(value, ctx, f"{field}[{i}]") for i, value in enumerate(raw)]


def _score(raw: Any, ctx: _WallContext, field: str) -> int:
    if isinstance(raw, bool) or raw not in (0, 1) or not isinstance(raw, int):
        raise ctx.error(field, f"human score must be 0 or 1, got {raw!r}")
    return raw


def _group(raw: Any, ctx: _WallContext, name: str) -> dict[str, Any]:
    field = f"groups.{name}"
    if not isinstance(raw, dict):
        raise ctx.error(field, f"expected an object, got {type(raw).__name__}")
    group_id = _require_text(raw, "group_id", ctx, f"{field}.group_id")
    if "gt_words" not in raw:
        raise ctx.error(f"{field}.gt_words", "missing")
    gt_words = _clue_list(raw["gt_words"], CLUES_PER_GROUP, ctx, f"{field}.gt_words")
    gt_connection = _require_text(raw, "gt_connection", ctx, f"{field}.gt_connection")
    human = _require(raw, "human_performance", dict, ctx, f"{field}.human_performance")
    scores = {}
    for key in ("grouping", "connection"):
        score_field = f"{field}.human_performance.{key}"
        if key not in human:
            raise ctx.error(score_field, "missing")
        scores[key] = _score(human[key], ctx, score_field)
    return {
        "group_id": group_id,
        "gt_words": gt_words,
        "gt_connection": gt_connection,
        "human_performance": scores,
    }


def _warn_quirks(ctx: _WallContext, words: list[str], groups: Mapping[str, Any]) -> None:
    """Emit one :class:`OCWDataWarning` per converted numeric clue and per repeated clue."""
    for (number, text), fields in ctx.converted.items():
        warnings.warn(
            f"{ctx.where()}: clue {number} is a JSON number, not a string; loaded as "
            f"{text!r} (in {', '.join(fields)})",
            OCWDataWarning,
            stacklevel=3,
        )
    for clue, count in Counter(words).items():
        if count > 1:
            places = [
                f"groups.{name}.gt_words[{i}]"
                for name, group in groups.items()
                for i, group_clue in enumerate(group["gt_words"])
                if group_clue == clue
            ]
            warnings.warn(
                f"{ctx.where()}: clue {clue!r} appears {count} times in the wall "
                f"(at {', '.join(places)}); kept as is",
                OCWDataWarning,
                stacklevel=3,
            )


def _normalise_wall(raw: Any, path: Path, index: int) -> dict[str, Any]:
    """Validate one raw wall and return it in the shape of :data:`FEATURES`."""
    ctx = _WallContext(path, index)
    if not isinstance(raw, dict):
        raise ctx.error("<wall>", f"expected an object, got {type(raw).__name__}")
    wall_id = _require_text(raw, "wall_id", ctx, "wall_id")
    ctx.wall_id = wall_id
    season = _require(raw, "season", int, ctx, "season")
    episode = _require(raw, "episode", int, ctx, "episode")

    if "words" not in raw:
        raise ctx.error("words", "missing")
    words = _clue_list(raw["words"], NUM_CLUES, ctx, "words")

    raw_groups = _require(raw, "groups", dict, ctx, "groups")
    if sorted(raw_groups) != list(GROUP_NAMES):
        raise ctx.error(
            "groups",
            f"expected exactly {NUM_GROUPS} groups {list(GROUP_NAMES)}, got {list(raw_groups)}",
        )
    groups = {name: _group(raw_groups[name], ctx, name) for name in GROUP_NAMES}

    group_clues = Counter(clue for group in groups.values() for clue in group["gt_words"])
    wall_clues = Counter(words)
    if wall_clues != group_clues:
        only_words = sorted((wall_clues - group_clues).elements())
        only_groups = sorted((group_clues - wall_clues).elements())
        raise ctx.error(
            "words",
            "clues differ from the union of the groups' gt_words: "
            f"only in words {only_words}, only in groups {only_groups}",
        )
    connections = _require(raw, "gt_connections", list, ctx, "gt_connections")
    expected_connections = [group["gt_connection"] for group in groups.values()]
    if connections != expected_connections:
        raise ctx.error(
            "gt_connections",
            f"expected the groups' gt_connection in group order {expected_connections}, "
            f"got {connections}",
        )

    overall = _require(raw, "overall_human_performance", dict, ctx, "overall_human_performance")
    overall_out: dict[str, list[int]] = {}
    for key, group_key in (("grouping", "grouping"), ("connections", "connection")):
        field = f"overall_human_performance.{key}"
        values = _require(overall, key, list, ctx, field)
        scores = [_score(value, ctx, f"{field}[{i}]") for i, value in enumerate(values)]
        expected = [group["human_performance"][group_key] for group in groups.values()]
        if scores != expected:
            raise ctx.error(
                field, f"expected the groups' scores in group order {expected}, got {scores}"
            )
        overall_out[key] = scores

    _warn_quirks(ctx, words, groups)
    return {
        "wall_id": wall_id,
        "season": season,
        "episode": episode,
        "words": words,
        "gt_connections": list(connections),
        "groups": groups,
        "overall_human_performance": overall_out,
    }


def read_walls(path: str | Path, split: str) -> list[dict[str, Any]]:
    """Read, validate and normalise the walls of one split file.

    The file is ``{"season_to_walls_map": ..., "dataset": [wall, ...]}``; only ``dataset`` is
    read. Each returned wall has exactly the keys of :data:`FEATURES` (extra keys of the raw
    wall or its groups are dropped), ``groups`` in the order ``group_1`` .. ``group_4``, and is
    what the builder yields for that wall, in file order.

    Checks, each failing with :class:`OCWFormatError` naming the file, the wall and the
    field: at least one wall in the file; required fields present with the right JSON types
    (``season``/``episode`` integers that fit in int32); every string valid Unicode (no lone
    surrogate); ``wall_id``, ``group_id`` and ``gt_connection`` not empty or blank;
    16 clues in ``words``; exactly 4 groups named ``group_1`` .. ``group_4`` of 4 clues each;
    ``words`` equal, as a multiset, to the union of the groups' ``gt_words``;
    ``gt_connections`` equal to the groups' ``gt_connection`` in group order; human scores
    0 or 1 and ``overall_human_performance`` equal to the groups' scores in group order;
    ``wall_id`` unique within the file.

    Kept quirks, each with an :class:`OCWDataWarning` naming file, wall and clue:

    * a clue that is a JSON number (real case: ``8.5`` in wall ``0f1677``) is rendered with
      ``str()`` in ``words`` and in ``gt_words``: ``8.5`` -> ``"8.5"``, ``8`` -> ``"8"``
      (booleans, ``null``, ``NaN``/``Infinity`` and empty strings are errors);
    * a clue repeated within one wall (real cases: ``Bask`` in ``654041``, ``Glamour`` in
      ``b308e4``) is kept as is.

    Args:
        path: the split's JSON file.
        split: the split name, used in messages only.

    Returns:
        The list of walls, in file order.

    Raises:
        OCWFormatError: invalid JSON (with line and column), JSON the parser cannot handle
            (an integer of more than 4300 digits, nesting deeper than the recursion limit),
            wrong top-level shape, or any failed check above.
    """
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except json.JSONDecodeError as error:
        raise OCWFormatError(
            f"{path}: invalid JSON in split {split!r} at line {error.lineno} column "
            f"{error.colno}: {error.msg}"
        ) from error
    except UnicodeDecodeError as error:
        raise OCWFormatError(f"{path}: not UTF-8 text in split {split!r}: {error}") from error
    except (ValueError, RecursionError, MemoryError) as error:
        # e.g. "Exceeds the limit (4300 digits) for integer string conversion", or nesting
        # deeper than the interpreter's recursion limit.
        raise OCWFormatError(
            f"{path}: cannot parse the JSON of split {split!r}: {type(error).__name__}: "
            f"{str(error)[:200]}"
        ) from error

    if not isinstance(document, dict) or not isinstance(document.get("dataset"), list):
        raise OCWFormatError(
            f"{path}: expected an object with a 'dataset' list of walls in split {split!r}, "
            f"got {type(document).__name__}"
            + (f" with keys {sorted(document)}" if isinstance(document, dict) else "")
        )
    if not document["dataset"]:
        raise OCWFormatError(f"{path}: split {split!r} has no walls")

    walls: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(document["dataset"]):
        wall = _normalise_wall(raw, path, index)
        wall_id = wall["wall_id"]
        if wall_id in seen:
            raise OCWFormatError(
                f"{path}: wall {wall_id!r} (#{index}): field 'wall_id': duplicated in split "
                f"{split!r} (first at #{seen[wall_id]})"
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
            if wall_id in owner:
                other = owner[wall_id]
                raise OCWFormatError(
                    f"wall {wall_id!r}: field 'wall_id': in two splits, {other!r} "
                    f"({files[other]}) and {split!r} ({files[split]})"
                )
            owner[wall_id] = split
    return walls


# --------------------------------------------------------------------------------------------
# Builder
# --------------------------------------------------------------------------------------------

# What extracting a damaged archive raises: EOFError (truncated gzip/bz2/xz stream),
# tarfile.ReadError / zipfile.BadZipFile (corrupt archive), OSError (bad compressed data).
_EXTRACTION_ERRORS = (EOFError, tarfile.TarError, zipfile.BadZipFile, OSError)


def _extraction_folder(dl_manager: datasets.DownloadManager, local_archive: str) -> Path | None:
    """Where ``datasets`` extracts ``local_archive`` (None when it cannot be told).

    Uses ``datasets``' own ``ExtractManager`` (the same call in 3.x to 5.x); only needed to
    remove a partially extracted folder, so any failure here just skips the clean-up.
    """
    try:
        from datasets.utils.extract import ExtractManager

        manager = ExtractManager(cache_dir=dl_manager.download_config.cache_dir)
        return Path(manager._get_output_path(local_archive))
    except Exception:  # noqa: BLE001 - private API of datasets; clean-up is best effort
        return None


def _extract_archive(dl_manager: datasets.DownloadManager, archive: str) -> Path:
    """Download (if a URL) and extract ``archive``; return the extracted folder.

    Raises:
        OCWFormatError: the archive is truncated or is not a readable archive; the message
            names ``archive`` as given and the cause is chained. The partially extracted
            folder, if any, is removed so that a later run does not take it for a complete
            extraction (``datasets`` skips extracting into a non-empty folder).
    """
    local = str(dl_manager.download(archive))  # a missing local file stays FileNotFoundError
    try:
        root = Path(dl_manager.extract(local))
    except _EXTRACTION_ERRORS as error:
        folder = _extraction_folder(dl_manager, local)
        if folder is not None and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
        raise OCWFormatError(
            f"{archive}: cannot extract the OCW archive: it is truncated or not a readable "
            f"archive ({type(error).__name__}: {error})"
        ) from error
    if not root.is_dir():
        # datasets returns the file itself when it recognises no archive format.
        raise OCWFormatError(
            f"{archive}: not a readable archive: extracting it gave no folder (expected a "
            f"tar or zip archive, possibly compressed, holding the split JSON files)"
        )
    return root


@dataclass
class OCWConfig(datasets.BuilderConfig):
    """BuilderConfig for OCW.

    Args:
        url: the release tarball downloaded when no ``data_dir`` is given.
    """

    url: str = ""


class OCW(datasets.GeneratorBasedBuilder):
    """Only Connect Wall: walls of 16 clues in 4 groups of 4, splits train/validation/test.

    ``data_dir`` may be a folder or an archive holding ``train``/``validation``/``test`` JSON
    files (see :func:`find_split_files`); without it the configuration's ``url`` is
    downloaded. Examples are keyed by ``wall_id`` and yielded in file order, as returned by
    :func:`read_walls`. All splits are validated before any is written.
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
        data_dir = self.config.data_dir
        if data_dir is None:
            url = self.config.url or _URLS.get(self.config.name, _URLS["default"])
            return _extract_archive(dl_manager, url), url
        data_dir = str(data_dir)
        if Path(data_dir).is_dir():
            return Path(data_dir), None
        if data_dir.lower().endswith(_ARCHIVE_SUFFIXES):
            return _extract_archive(dl_manager, data_dir), data_dir
        raise FileNotFoundError(
            f"OCW data_dir {data_dir!r} is neither a folder nor an archive "
            f"({', '.join(_ARCHIVE_SUFFIXES)})"
        )

    def _split_generators(self, dl_manager: datasets.DownloadManager) -> list:
        root, archive = self._source_root(dl_manager)
        try:
            files = find_split_files(root)
            # Validate every split (and cross-split ids) before any example is written.
            walls_by_split = _read_all_splits(files)
        except OCWFormatError as error:
            if archive is None:
                raise
            message = str(error).removeprefix(f"{root}: ")  # the lookup error starts with it
            raise OCWFormatError(
                f"in archive {archive} (extracted to {root}): {message}"
            ) from error
        self._walls_by_file = {str(files[split]): walls for split, walls in walls_by_split.items()}
        return [
            datasets.SplitGenerator(
                name=split, gen_kwargs={"filepath": str(files[split]), "split": split}
            )
            for split in SPLITS
        ]

    def _generate_examples(self, filepath: str, split: str) -> Iterator[tuple[str, dict]]:
        cached = getattr(self, "_walls_by_file", {}).get(filepath)
        walls = cached if cached is not None else read_walls(filepath, split)
        for wall in walls:
            yield wall["wall_id"], wall


#: The error this script raises for bad input (the same name in WoTe.py: one error design).
FORMAT_ERROR = OCWFormatError
