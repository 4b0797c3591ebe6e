"""Telling the main OCW release from an ablation copy by content (standard library only).

Imported relatively by ``OCW.py``, beside ``ocw_walls`` and ``source_files``: an ablation config
(``ocw_randomized``, ``ocw_wordnet``) given the main release raises :class:`OCWSourceError`
instead of naming the main walls after the ablation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .ocw_walls import ALL_WALLS_STEM, OCWFormatError, OCWWhere
from .source_files import load_json


class OCWSourceError(OCWFormatError):
    """A source that is not the config's own: the main OCW release given for an ablation
    config (``ocw_randomized``, ``ocw_wordnet``), whose rows would be the main walls under the
    ablation's name. The message names the config, the source and the evidence."""


def _wall_key(wall: Mapping[str, Any]) -> str:
    """A wall as its content: its id, and its groups as (clues as a set, connection), in a
    canonical order; the clue order of ``words``, the file layout and the JSON formatting do
    not count. A raw wall (numeric clue ``8.5``) and its validated row give the same key."""
    groups = sorted(
        [sorted(str(clue) for clue in group.get("gt_words", [])), str(group.get("gt_connection"))]
        for group in wall.get("groups", {}).values()
        if isinstance(group, Mapping)
    )
    return json.dumps([str(wall.get("wall_id")), groups], ensure_ascii=False)


def walls_fingerprint(walls: Sequence[Mapping[str, Any]]) -> str:
    """SHA-256 (hex) of a split's walls as content (:func:`_wall_key` of each, sorted): the same
    walls in any order, layout or archive give the same fingerprint."""
    keys = sorted(_wall_key(wall) for wall in walls)
    return hashlib.sha256("\n".join(keys).encode("utf-8", "surrogatepass")).hexdigest()


#: :func:`walls_fingerprint` of the test split of each copy of the main OCW release known
#: here. Only the stand-in (the pre-release export in the release layout, ``ocw/dataset/`` of
#: the project's shared data) is; the official ``OCW.tar.gz`` is told by its all-walls file
#: (:func:`main_release_evidence`).
MAIN_RELEASE_TESTS = {
    "5e749302319b502bea87dc050a49fcc364680a5898a3c66f2d838ae49cfc828e": "the stand-in: the "
    "pre-release export in the release layout",
}


def _all_walls_file(test_file: Path) -> Path | None:
    """The main release's all-walls file (``OCW.json``, any case) beside a split file."""
    for path in sorted(test_file.parent.glob("*.json")):
        if path.stem.lower() == ALL_WALLS_STEM and path.is_file():
            return path
    return None


def main_release_evidence(
    files: Mapping[str, Path], walls: Mapping[str, Sequence[Mapping[str, Any]]]
) -> str | None:
    """Why a source (its split files and their validated walls) is the main OCW release, or
    None. An ablation copy changes the test split (``ocw_randomized`` rebuilds its walls from
    groups of different walls, ``ocw_wordnet`` replaces the clues by WordNet synonyms), so the
    main release is told by its test walls:

    * the test split's :func:`walls_fingerprint` is one of :data:`MAIN_RELEASE_TESTS`; or
    * beside the test file lies the main release's all-walls file ``OCW.json`` (``OCW.tar.gz``
      holds it; the ablation releases are described as their three split files) and it holds
      every test wall (same :func:`_wall_key`), so a copy of the release folder with a
      rebuilt ``test.json`` is not taken for the release. An ablation tarball holding its
      own walls as ``OCW.json`` would be refused: none is known to.
    """
    test = walls["test"]
    label = MAIN_RELEASE_TESTS.get(walls_fingerprint(test))
    if label is not None:
        return f"its test split is the main release's ({label})"
    all_walls = _all_walls_file(Path(files["test"]))
    if all_walls is None:
        return None
    try:
        document = load_json(all_walls, "the all-walls file", OCWWhere)
        keys = {_wall_key(wall) for wall in document["dataset"] if isinstance(wall, Mapping)}
    except (OCWFormatError, KeyError, TypeError, AttributeError):
        return None  # not the release's all-walls file
    if test and all(_wall_key(wall) in keys for wall in test):
        return (
            f"{all_walls.name} beside its split files, the main release's all-walls file, "
            "holds every test wall"
        )
    return None


def refuse_main_release(
    config: str,
    files: Mapping[str, Path],
    walls: Mapping[str, Sequence[Mapping[str, Any]]],
    source: str,
    url: str = "",
) -> None:
    """Raise :class:`OCWSourceError` when ``source`` (read as ``files`` holding ``walls``) is
    the main release given for the ablation config ``config``: its rows would be the main walls
    under the ablation's name (:func:`main_release_evidence`). ``url``: the ablation release's
    download, named in the message when known."""
    evidence = main_release_evidence(files, walls)
    if evidence is not None:
        where = f" ({url})" if url else ""
        raise OCWSourceError(
            f"config {config!r}: {source} is the main OCW release, not the {config} copy: "
            f"{evidence}; give the {config} release as data_dir{where}, or load this one as "
            "config 'default'"
        )
