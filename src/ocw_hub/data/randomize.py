"""The ``ocw_randomized`` ablation, derived offline from an OCW release folder.

The paper's OCW-Randomized copy (upstream ``scripts/randomize_test_set.py``, TaatiTeam/OCW,
MIT) replaces every test wall by a wall built from groups of other test walls, so that a wall
has (almost) no red herrings; train and validation are copied unchanged. This module
re-implements that algorithm from its description, and reproduces the upstream output byte for
byte (checked against the upstream script's output for the stand-in release):

1. one random stream, seeded once (``random.seed(42)`` upstream; here a private
   ``random.Random(seed)``, which gives the same draws);
2. for each test wall, in file order: keep its ``group_1``; for ``group_2`` .. ``group_4`` in
   turn, draw a wall with ``rng.choice(sorted(wall_ids - seen_walls))`` and one of its groups
   with ``rng.choice(["group_2", "group_3", "group_4"])``, until the group was never used before
   (its ``group_id`` across the whole test split) and shares no clue (exact, case-sensitive
   equality of the clue values) with the groups of the wall so far. ``wall_ids`` are the test
   walls; ``seen_walls`` starts as the wall itself and gains each wall an accepted group came
   from (a rejected draw does not count), so the four groups come from four different walls;
3. ``words`` is the 16 clues collected in group order then ``rng.shuffle``-d; ``gt_connections``
   and ``overall_human_performance`` are recomputed from the groups;
4. the test file is written with ``json.dump`` and no indentation (``", "`` and ``": "``
   separators, ASCII escapes), the document and every wall and group with their keys in the
   order of the input, extra keys kept, ``season_to_walls_map`` copied as is.

Every group 2-4 of the split is used exactly once, so the last walls have few choices left: a
split (or a seed) where no valid group remains is an error here (:class:`RandomizeError`),
where the upstream loop would never end. The check that a group shares no clue with the wall
so far does not look inside the group itself: a clue repeated within one source group (real
case: ``Bask`` twice in a group of wall ``654041``) reaches the derived wall; each such wall
gets a :class:`RepeatedClueWarning`.
"""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import OCWHubError
from ..outputs import PathLike, check_output_dir, write_json, write_text_atomic
from ..shown import capped

#: The groups that are replaced, and the groups a replacement is drawn from (in this order).
DRAWN_GROUPS = ("group_2", "group_3", "group_4")
#: Every group of a wall, in order.
GROUP_NAMES = ("group_1", *DRAWN_GROUPS)
#: The split files written by :func:`derive_randomized`.
SPLIT_FILES = {"train": "train.json", "validation": "validation.json", "test": "test.json"}
#: Draws per candidate (wall, group) of a slot: after this many misses the slot is checked
#: for a valid group at all (none: an error); after _DRAWS_LIMIT as many, it is given up. Each
#: draw hits a valid group with probability >= 1/(3 M) (M candidate walls), so giving up while
#: one exists has a probability below exp(-600): the output is the upstream one.
_DRAWS_BEFORE_CHECK = 3
_DRAWS_LIMIT = 600


class RandomizeError(OCWHubError, ValueError):
    """The test split cannot be randomized: a wall or group misses a field the algorithm
    uses, a ``wall_id`` repeats, or no valid group remains for a wall (the message names the
    wall, the group slot and the seed).

    Attributes:
        wall_id: the wall at fault, or None when the error is about the input as a whole.
    """

    def __init__(self, message: str, *, wall_id: str | None = None) -> None:
        super().__init__(message)
        self.wall_id = wall_id


class RepeatedClueWarning(UserWarning):
    """A derived wall holds one clue more than once; the upstream algorithm lets it through
    (a clue repeated within one source group, or within the kept ``group_1``)."""


# --------------------------------------------------------------------------------------------
# Checking the raw walls
# --------------------------------------------------------------------------------------------


def _check_group(raw: Any, where: str, name: str) -> None:
    field = f"groups.{name}"
    if not isinstance(raw, Mapping):
        raise RandomizeError(f"{where}: field {field!r}: expected an object")
    for key in ("group_id", "gt_connection"):
        if not isinstance(raw.get(key), str):
            raise RandomizeError(f"{where}: field '{field}.{key}': expected a string")
    words = raw.get("gt_words")
    if not isinstance(words, list) or len(words) != 4:
        raise RandomizeError(f"{where}: field '{field}.gt_words': expected a list of 4 clues")
    for i, clue in enumerate(words):
        if isinstance(clue, bool) or not isinstance(clue, (str, int, float)):
            raise RandomizeError(
                f"{where}: field '{field}.gt_words[{i}]': expected a clue, got {clue!r}"
            )
    human = raw.get("human_performance")
    if not isinstance(human, Mapping) or not {"grouping", "connection"} <= set(human):
        raise RandomizeError(
            f"{where}: field '{field}.human_performance': expected grouping and connection"
        )


def _check_walls(walls: Sequence[Any]) -> dict[str, Mapping[str, Any]]:
    """The walls by ``wall_id``, after checking the fields the algorithm reads."""
    by_id: dict[str, Mapping[str, Any]] = {}
    for index, wall in enumerate(walls):
        if not isinstance(wall, Mapping) or not isinstance(wall.get("wall_id"), str):
            raise RandomizeError(f"test wall #{index}: field 'wall_id': expected a string")
        wall_id = wall["wall_id"]
        where = f"test wall {wall_id!r} (#{index})"
        if wall_id in by_id:
            raise RandomizeError(f"{where}: field 'wall_id': duplicated", wall_id=wall_id)
        groups = wall.get("groups")
        if not isinstance(groups, Mapping) or any(name not in groups for name in GROUP_NAMES):
            raise RandomizeError(
                f"{where}: field 'groups': expected {list(GROUP_NAMES)}", wall_id=wall_id
            )
        for name in GROUP_NAMES:
            try:
                _check_group(groups[name], where, name)
            except RandomizeError as error:
                error.wall_id = wall_id
                raise
        by_id[wall_id] = wall
    return by_id


# --------------------------------------------------------------------------------------------
# The algorithm
# --------------------------------------------------------------------------------------------


class _SortedWithout(Sequence[str]):
    """``sorted(ids - excluded)`` as a read-only sequence, without building the list: the
    same length and items, so ``rng.choice`` on it draws exactly what it draws on the list."""

    def __init__(self, sorted_ids: Sequence[str], positions: Mapping[str, int], excluded: set):
        self._ids = sorted_ids
        self._skips = sorted(positions[wall_id] for wall_id in excluded)

    def __len__(self) -> int:
        return len(self._ids) - len(self._skips)

    def __getitem__(self, index: Any) -> Any:
        if not isinstance(index, int):
            raise TypeError(f"indexes are integers, got {type(index).__name__}")
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        for skip in self._skips:
            if skip <= index:
                index += 1
        return self._ids[index]


class _Randomizer:
    """The state shared by all walls of one run: the random stream and the used groups."""

    def __init__(self, walls: Mapping[str, Mapping[str, Any]], seed: int) -> None:
        self.walls = walls
        self.seed = seed
        self.rng = random.Random(seed)
        self.sorted_ids = sorted(walls)
        self.positions = {wall_id: i for i, wall_id in enumerate(self.sorted_ids)}
        self.used: set[str] = set()

    def _valid(self, group: Mapping[str, Any], clues: set[Any]) -> bool:
        return group["group_id"] not in self.used and clues.isdisjoint(group["gt_words"])

    def _any_valid(self, candidates: Sequence[str], clues: set[Any]) -> bool:
        return any(
            self._valid(self.walls[wall_id]["groups"][name], clues)
            for wall_id in candidates
            for name in DRAWN_GROUPS
        )

    def _give_up(self, wall_id: str, slot: str, reason: str) -> RandomizeError:
        return RandomizeError(
            f"test wall {wall_id!r}: no valid group left for {slot} (seed {self.seed}): "
            f"{reason}; the upstream script would loop for ever here",
            wall_id=wall_id,
        )

    def draw(self, wall_id: str, slot: str, seen: set[str], clues: set[Any]) -> tuple[str, Any]:
        """Draw (source wall id, group) for one slot as upstream does, bounded."""
        # sorted(wall_ids - seen), constant during the loop (seen holds at most 4 walls).
        candidates = _SortedWithout(self.sorted_ids, self.positions, seen)
        if not candidates:
            raise self._give_up(wall_id, slot, "every other test wall already gave a group")
        check_at = _DRAWS_BEFORE_CHECK * 3 * len(candidates)
        for draws in range(1, _DRAWS_LIMIT * 3 * len(candidates) + 1):
            source = self.rng.choice(candidates)
            group = self.walls[source]["groups"][self.rng.choice(DRAWN_GROUPS)]
            if self._valid(group, clues):
                return source, group
            if draws == check_at and not self._any_valid(candidates, clues):
                raise self._give_up(
                    wall_id,
                    slot,
                    "every group 2-4 of the other walls is used already or shares a clue "
                    "with the wall so far",
                )
        raise self._give_up(wall_id, slot, f"no valid group drawn in {draws} draws")

    def wall(self, wall: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """The derived wall (raw keys kept) and, per group slot, the wall it came from."""
        wall_id = wall["wall_id"]
        groups = {"group_1": wall["groups"]["group_1"]}
        sources = {"group_1": wall_id}
        seen = {wall_id}
        clues = set(groups["group_1"]["gt_words"])
        for slot in DRAWN_GROUPS:
            source, group = self.draw(wall_id, slot, seen, clues)
            seen.add(source)
            self.used.add(group["group_id"])
            clues.update(group["gt_words"])
            groups[slot] = group
            sources[slot] = source
        words = [clue for group in groups.values() for clue in group["gt_words"]]
        self.rng.shuffle(words)
        derived = dict(wall)
        derived["words"] = words
        derived["gt_connections"] = [group["gt_connection"] for group in groups.values()]
        derived["groups"] = groups
        overall = dict(wall.get("overall_human_performance") or {})
        overall["grouping"] = [g["human_performance"]["grouping"] for g in groups.values()]
        overall["connections"] = [g["human_performance"]["connection"] for g in groups.values()]
        derived["overall_human_performance"] = overall
        return derived, sources


def _warn_repeats(derived: Mapping[str, Any], sources: Mapping[str, str]) -> None:
    for clue, count in Counter(derived["words"]).items():
        if count < 2:
            continue
        places = [
            f"{slot} = group {group['group_id']!r} of wall {sources[slot]!r}"
            for slot, group in derived["groups"].items()
            if clue in group["gt_words"]
        ]
        warnings.warn(
            f"randomized test wall {derived['wall_id']!r}: clue {clue!r} appears {count} times "
            f"(from {'; '.join(places)}); the upstream algorithm lets a clue repeated within "
            "one group through, kept as is",
            RepeatedClueWarning,
            stacklevel=3,
        )


def randomize_test_split(walls: Sequence[Mapping[str, Any]], seed: int = 42) -> list[dict]:
    """Rebuild every test wall from groups of other test walls, as upstream
    ``scripts/randomize_test_set.py`` does (see the module docstring for the algorithm).

    Args:
        walls: the test walls as written in the split file (raw JSON objects: 16 clues in
            ``words``, 4 groups ``group_1`` .. ``group_4`` of 4 clues), in file order; at
            least 4 walls, since the 4 groups of a derived wall come from 4 different walls.
        seed: the seed of the one random stream (upstream: 42).

    Returns:
        One derived wall per input wall, in the same order: a shallow copy of the raw wall
        (its other keys and their order kept) with ``group_1`` kept, ``group_2`` ..
        ``group_4`` taken (as written, extra keys kept) from other test walls, ``words``
        the 16 clues shuffled, ``gt_connections`` (4 strings) and
        ``overall_human_performance`` (``grouping``, ``connections``: 4 scores 0|1, in group
        order) recomputed. The input is not modified.

    Raises:
        RandomizeError: a wall misses a field the algorithm reads (``wall_id``, the 4 groups
            with ``group_id``, ``gt_words``, ``gt_connection``, ``human_performance``), a
            ``wall_id`` repeats, or no valid group remains for a wall with this seed (the
            message names the wall and the group slot).

    Warns:
        RepeatedClueWarning: once per derived wall and clue that the wall holds more than once
            (the message names the wall, the clue and the groups it comes from).
    """
    by_id = _check_walls(walls)
    randomizer = _Randomizer(by_id, seed)
    derived_walls = []
    for wall in walls:
        derived, sources = randomizer.wall(wall)
        _warn_repeats(derived, sources)
        derived_walls.append(derived)
    return derived_walls


# --------------------------------------------------------------------------------------------
# Folders
# --------------------------------------------------------------------------------------------


def _split_files(ocw_dir: Path) -> dict[str, Path]:
    """The input split files, validated as the OCW builder validates them."""
    from ..resources import load_sibling

    ocw = load_sibling("ocw_walls")
    if not ocw_dir.is_dir():
        raise RandomizeError(f"OCW data folder {ocw_dir}: no such folder")
    files = ocw.find_wall_files(ocw_dir)
    root = ocw_dir.resolve()
    owner: dict[str, str] = {}
    for split, path in files.items():
        if not path.resolve().is_relative_to(root):
            raise RandomizeError(f"{path}: a symbolic link out of {ocw_dir}; not read")
        with warnings.catch_warnings():
            # The input's own quirks are the builder's to report; ours are about the output.
            warnings.simplefilter("ignore", ocw.OCWDataWarning)
            walls = ocw.read_walls(path, split)
        for wall in walls:
            other = owner.setdefault(wall["wall_id"], split)
            if other != split:
                raise RandomizeError(
                    f"wall {wall['wall_id']!r}: field 'wall_id': in two splits, {other!r} "
                    f"and {split!r} ({path})",
                    wall_id=wall["wall_id"],
                )
    return files


def _check_other_json(out: Path) -> None:
    """Refuse an output folder holding JSON files the builder would also read."""
    if not out.is_dir():
        return
    from ..provenance import DERIVED_RECORD

    ours = {out / name for name in (*SPLIT_FILES.values(), DERIVED_RECORD)}
    others = sorted(str(path.relative_to(out)) for path in out.rglob("*.json") if path not in ours)
    if others:
        raise RandomizeError(
            f"output folder {out} holds other JSON files ({capped(others, 10)}), which "
            "the OCW builder would take for split files; choose an empty folder"
        )


def derive_randomized(ocw_dir: PathLike, out: PathLike, seed: int = 42) -> dict[str, Path]:
    """Write the ``ocw_randomized`` config's source folder from an OCW release folder.

    Args:
        ocw_dir: the OCW release folder (the extracted ``dataset/`` of ``OCW.tar.gz``, or a
            folder with one ``train``, ``validation`` and ``test`` JSON file; found as the
            builder finds them).
        out: the folder to write ``train.json``, ``validation.json`` and ``test.json`` into
            (created if missing); loads with ``ocw_hub.load_dataset("ocw_randomized",
            data_dir=out)``.
        seed: the seed of the random stream (upstream: 42).

    Returns:
        ``{"train": path, "validation": path, "test": path}`` of the files written. ``test``
        holds the derived walls (:func:`randomize_test_split`) in the input document (its
        ``season_to_walls_map`` and other keys kept), written as ``json.dump`` writes it;
        ``train`` and ``validation`` are byte copies of the input files. Also writes
        ``derived.json``: the source folder, its SHA-256, the seed, whether the source is the
        pre-release stand-in (:func:`ocw_hub.provenance.derived_record`).

    Raises:
        OutputPathError: ``out`` is a file or a symlink, equals ``ocw_dir``, lies inside it or
            holds it (checked before any work).
        RandomizeError: ``ocw_dir`` is not a folder; a split file is a symlink out of it; a
            ``wall_id`` is in two splits; ``out`` holds other JSON files; no valid group remains
            for a test wall (see :func:`randomize_test_split`).
        OCWFormatError: (the loading script's) a split file is missing, repeated or malformed;
            the message names the file, the wall and the field.

    Warns:
        RepeatedClueWarning: see :func:`randomize_test_split`.
    """
    source = Path(ocw_dir).expanduser()
    target = check_output_dir(out, inputs=[source])
    _check_other_json(target)
    files = _split_files(source)
    texts = {split: files[split].read_bytes().decode("utf-8") for split in SPLIT_FILES}
    document = json.loads(texts["test"])
    document["dataset"] = randomize_test_split(document["dataset"], seed)
    texts["test"] = json.dumps(document)
    written = {}
    for split, name in SPLIT_FILES.items():
        written[split] = target / name
        write_text_atomic(written[split], texts[split])
    _write_derived_record(source, target, seed, [w["wall_id"] for w in document["dataset"]])
    return written


def _write_derived_record(source: Path, target: Path, seed: int, ids: list[str]) -> None:
    """``derived.json`` in ``target``: what it was derived from (:func:`derived_record`)."""
    from ..provenance import DERIVED_RECORD, derived_record
    from .card import are_prerelease_ids

    record = derived_record(source, "randomized", seed, stand_in=are_prerelease_ids(ids))
    write_json(target / DERIVED_RECORD, record)


__all__ = [
    "RandomizeError",
    "RepeatedClueWarning",
    "derive_randomized",
    "randomize_test_split",
]
