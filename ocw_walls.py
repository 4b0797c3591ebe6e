"""Reading and validating OCW walls and the release's season map (standard library only).

Imported relatively by ``OCW.py`` (``from .ocw_walls import ...``), which also imports
``source_files`` (``datasets`` 3.x copies only the siblings a script imports itself). Every
input error is an :class:`OCWFormatError` naming the file, the wall (``wall_id`` and index)
and the field: ``"<file>: wall '46fa44' (#0): field 'season': <problem>"`` (:class:`OCWWhere`).
"""

from __future__ import annotations

import datetime
import math
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from .source_files import (
    SPLITS,
    Where,
    check_name,
    check_text,
    extract_archive,
    find_split_files,
    load_json,
    short,
)

OFFICIAL_SPLIT_SIZES = {"train": 62, "validation": 62, "test": 494}
"""Number of walls per split in the official release (not enforced: fixtures may be smaller)."""

GROUP_NAMES = ("group_1", "group_2", "group_3", "group_4")
"""Keys of ``wall["groups"]``, in order."""

N_GROUPS = 4
GROUP_SIZE = 4
N_CLUES = N_GROUPS * GROUP_SIZE

MAX_CLUE_REPEATS = 2
"""A wall may hold one clue (compared lowercased) at most this many times.

The same rule, with the same comparison, as ``MAX_CLUE_REPEATS`` of the metric
(``metrics/ocw_metric/inputs.py``), which rejects a gold wall with a clue more than
twice: the builder rejects such a wall at build time instead of letting scoring fail later.
The release holds two walls with a clue twice (``654041``, ``b308e4``) and none with more.
"""

ALL_WALLS_STEM = "ocw"  # OCW.json holds every wall of every split: never a split file
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


class OCWFormatError(ValueError):
    """A source file, an archive or a wall breaks the OCW format.

    The message names the file, and when relevant the wall (``wall_id`` and index) and the
    field at fault: ``"<file>: wall '46fa44' (#0): field 'season': <problem>"``.
    """


#: The error OCW raises for bad input (the same name in wote_questions.py: one error design).
FORMAT_ERROR = OCWFormatError


class OCWDataWarning(UserWarning):
    """A real quirk of the data that is kept, not rejected.

    Raised for a non-string clue (converted with ``str()``) and for a clue that appears more
    than once in one wall (compared after Unicode NFC normalisation and case folding; kept as
    is).
    """


class OCWWhere(Where):
    """:class:`OCWWhere` of OCW: raises :class:`OCWFormatError`, labels walls and seasons."""

    error_type = OCWFormatError

    @staticmethod
    def item_at(document: Any, json_path: list[str | int]) -> tuple[str, list[str | int]]:
        """``["dataset", 3, "groups", "group_2"]`` -> ``("wall '46fa44' (#3)", ["groups",
        "group_2"])``; ``["season_to_walls_map", "3", "num_walls"]`` -> ``("season '3'", the
        whole path)``."""
        if len(json_path) >= 2 and json_path[0] == "dataset" and isinstance(json_path[1], int):
            return _wall_label(document["dataset"][json_path[1]], json_path[1]), json_path[2:]
        if len(json_path) >= 2 and json_path[0] == "season_to_walls_map":
            return f"season {json_path[1]!r}", json_path
        return "", json_path


def find_wall_files(root: str | Path) -> dict[str, Path]:
    """:func:`source_files.find_split_files` with OCW's rule: ``OCW.json`` (every wall) is no
    split file; errors are :class:`OCWFormatError`."""
    return find_split_files(root, OCWWhere, ALL_WALLS_STEM)


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
        problem = f"expected {kind.__name__}, got {type(value).__name__} {short(value)}"
        raise where.error(field, problem)
    if kind is str:
        check_text(value, where, field)
    elif kind is int and not _INT32_MIN <= value <= _INT32_MAX:
        raise where.error(field, f"integer {value} does not fit in int32")
    return value


def _require_name(raw: Mapping[str, Any], key: str, where: Where, field: str) -> str:
    """A required string that must show something (an id or a connection)."""
    value = _require(raw, key, str, where, field)
    check_name(value, where, field)
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
        check_name(value, where, field)
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise where.error(field, f"a non-finite number is not a clue, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise where.error(field, f"expected a string clue, got {type(value).__name__} {short(value)}")


def _clue_list(raw: Any, length: int, where: Where, field: str) -> list[str]:
    if not isinstance(raw, list):
        raise where.error(field, f"expected a list of {length} clues, got {type(raw).__name__}")
    if len(raw) != length:
        raise where.error(field, f"expected {length} clues, got {len(raw)}")
    return [_clue(value, where, f"{field}[{i}]") for i, value in enumerate(raw)]


def _score(raw: Any, where: Where, field: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw not in (0, 1):
        raise where.error(field, f"human score must be 0 or 1, got {short(raw)}")
    return raw


def _group(raw: Any, where: Where, name: str) -> dict[str, Any]:
    field = f"groups.{name}"
    if not isinstance(raw, dict):
        raise where.error(field, f"expected an object, got {type(raw).__name__}")
    group_id = _require_name(raw, "group_id", where, f"{field}.group_id")
    gt_words = _get(raw, "gt_words", where, f"{field}.gt_words")
    gt_words = _clue_list(gt_words, GROUP_SIZE, where, f"{field}.gt_words")
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
            f"expected exactly {N_GROUPS} groups {list(GROUP_NAMES)}, got {list(raw_groups)}",
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
            f"{short(connections)}",
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
        warnings.warn(where.describe(None, message), OCWDataWarning, stacklevel=5)
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
        warnings.warn(where.describe(None, message), OCWDataWarning, stacklevel=5)


def _normalise_wall(raw: Any, path: object, index: int) -> dict[str, Any]:
    """Validate one raw wall and return it in the shape of ``FEATURES`` of ``OCW.py``."""
    where = OCWWhere(path, _wall_label(raw, index))
    if not isinstance(raw, dict):
        raise where.error(None, f"expected a wall object, got {type(raw).__name__}")
    wall_id = _require_name(raw, "wall_id", where, "wall_id")
    season = _require_count(raw, "season", where)
    episode = _require_count(raw, "episode", where)
    words = _clue_list(_get(raw, "words", where, "words"), N_CLUES, where, "words")
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
        raise OCWWhere(path).error(
            None,
            f"expected an object with a 'dataset' list of walls in split {split!r}, got "
            f"{type(document).__name__}{keys}",
        )
    if not document["dataset"]:
        raise OCWWhere(path).error(None, f"split {split!r} has no walls")
    return document["dataset"]


def read_walls(path: str | Path, split: str) -> list[dict[str, Any]]:
    """Read, validate and normalise the walls of one split file.

    The file is ``{"season_to_walls_map": ..., "dataset": [wall, ...]}``; only ``dataset`` is
    read here (see :func:`read_season_map`). Each returned wall has exactly the keys of
    ``FEATURES`` of ``OCW.py`` (extra keys of the raw wall or its groups are dropped),
    ``groups`` in the order ``group_1`` .. ``group_4``, and is what the builder yields for
    that wall, in file order.

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
    raw_walls = _walls_list(load_json(path, f"split {split!r}", OCWWhere), path, split)
    return _checked_walls(raw_walls, path, split)


def _checked_walls(raw_walls: Sequence[Any], path: object, split: str) -> list[dict[str, Any]]:
    walls: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_walls):
        wall = _normalise_wall(raw, path, index)
        wall_id = wall["wall_id"]
        if wall_id in seen:
            raise OCWWhere(path, _wall_label(raw, index)).error(
                "wall_id", f"duplicated in split {split!r} (first at #{seen[wall_id]})"
            )
        seen[wall_id] = index
        walls.append(wall)
    return walls


def check_rows(rows: Sequence[Mapping[str, Any]], source: object, split: str) -> None:
    """Check rows that were not built from the raw files here (an export, the ``datasets``
    cache, a Hub repo) with :func:`read_walls`' checks, so that every source is held to the
    same rules before anything is scored or parsed. The kept quirks are not warned again.

    Args:
        rows: the split's rows, in the shape of ``FEATURES``.
        source: where they were read (named in messages as the file).
        split: the split name, used in messages only.

    Raises:
        OCWFormatError: as :func:`read_walls` (the same message: the wall and the field).
    """
    if not rows:
        raise OCWWhere(source).error(None, f"split {split!r} has no walls")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OCWDataWarning)
        _checked_walls(rows, source, split)


def read_all_splits(files: Mapping[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Read every split and check that no ``wall_id`` is in two splits."""
    return read_splits(files, SPLITS)[0]


def read_splits(
    files: Mapping[str, Path], full: Collection[str]
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    """The splits ``full`` read and validated (:func:`read_walls`), and the number of walls
    of every split. The other splits are read for their wall ids only (their walls are not
    validated), for the check that no ``wall_id`` of a split of ``full`` is in two splits."""
    walls: dict[str, list[dict[str, Any]]] = {}
    ids: dict[str, list[Any]] = {}
    for split in SPLITS:
        if split in full:
            walls[split] = read_walls(files[split], split)
            ids[split] = [wall["wall_id"] for wall in walls[split]]
        else:
            path = Path(files[split])
            raw = _walls_list(load_json(path, f"split {split!r}", OCWWhere), path, split)
            ids[split] = [w.get("wall_id") for w in raw if isinstance(w, Mapping)]
    owner: dict[str, str] = {}
    for split in SPLITS:
        for wall_id in ids[split]:
            if not isinstance(wall_id, str):
                continue  # a wall of a split not read in full: its own check names it
            other = owner.setdefault(wall_id, split)
            if other != split and (split in full or other in full):
                raise OCWWhere(files[split], f"wall {wall_id!r}").error(
                    "wall_id", f"in two splits, {other!r} ({files[other]}) and {split!r}"
                )
    return walls, {split: len(ids[split]) for split in SPLITS}


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
        f"expected a date DD/MM/YYYY (as in the release), YYYY-MM-DD or null, got {short(value)}",
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
            count_field, f"expected a number of walls (0 or more), got {short(count)}"
        )
    if season == 0 and count:
        raise where.error(field, f"season 0 holds {count} walls; seasons start at 1")
    return season, info


def read_season_map(
    source: str | Path, cache_dir: str | Path | None = None
) -> dict[int, dict[str, Any]]:
    """Read the release's ``season_to_walls_map``: walls per season and the dates each ran.

    Every split file of the release (and ``OCW.json``) holds the map of the whole dataset
    (all 618 walls), e.g. ``{"1": {"num_walls": 30, "start_date": "15/09/2008",
    "end_date": "22/12/2008"}, ...}`` (upstream README). The pre-release export holds the
    older shape ``{season: number of walls}``, which gives null dates; it also lists season
    ``0`` with 0 walls, which is kept. For a folder or an archive, every split file is read;
    when they disagree, the test split's map is returned and an :class:`OCWDataWarning` says so.

    Args:
        source: a release JSON file (``train.json``, ``validation.json``, ``test.json``,
            ``OCW.json``) or the raw export ``onlyconnect.json``; or a source as the builder
            takes it: a folder of split files (:func:`find_wall_files`) or an archive (any
            other file: a ``.tar.gz`` or a downloaded copy), extracted as the builder does.
        cache_dir: where an archive is extracted (:func:`source_files.extract_archive`; the
            builder uses its downloads cache, so this reuses its extraction). Required for
            an archive.

    Returns:
        ``{season: {"num_walls": int, "start_date": datetime.date | None, "end_date":
        datetime.date | None}}`` sorted by season (an int); dates written ``DD/MM/YYYY`` (the
        release) or ``YYYY-MM-DD``; ``null`` dates (as in the stand-in) stay ``None``.

    Raises:
        FileNotFoundError: ``source`` does not exist.
        OCWFormatError: invalid JSON or a repeated key; no ``season_to_walls_map`` object; a
            season that is not a whole number or is listed twice; ``num_walls`` missing, not
            a whole number, negative, or more than 0 for season 0; a date that is not a date
            in one of the forms above, or a start after the end; an unexpected key; a bad
            archive or split lookup. The message names the file, the season and the field.
    """
    path = Path(source).expanduser()
    if path.is_file() and path.suffix.lower() == ".json":
        return _file_season_map(path)
    if path.is_file():
        if cache_dir is None:
            raise OCWWhere(path).error(None, "an archive needs a cache_dir to extract into")
        path = extract_archive(str(source), path, cache_dir, where=OCWWhere)
    maps = {split: _file_season_map(file) for split, file in find_wall_files(path).items()}
    chosen = maps["test"]
    if any(other != chosen for other in maps.values()):
        message = "the split files disagree on season_to_walls_map; the test split's is used"
        warnings.warn(OCWWhere(source).describe(None, message), OCWDataWarning, stacklevel=2)
    return chosen


def _file_season_map(path: Path) -> dict[int, dict[str, Any]]:
    """The season map of one release JSON file (see :func:`read_season_map`)."""
    document = load_json(path, "the release file", OCWWhere)
    raw = document.get("season_to_walls_map") if isinstance(document, dict) else None
    if not isinstance(raw, dict):
        raise OCWWhere(path).error(
            "season_to_walls_map", f"expected an object {{season: ...}}, got {short(raw)}"
        )
    seasons: dict[int, dict[str, Any]] = {}
    for key, entry in raw.items():
        where = OCWWhere(path, f"season {key!r}")
        season, info = _season_entry(key, entry, where)
        if season in seasons:
            raise where.error(f"season_to_walls_map.{key}", f"season {season} is listed twice")
        seasons[season] = info
    return dict(sorted(seasons.items()))
