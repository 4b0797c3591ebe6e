"""The small fixtures of ``tests/data`` and stand-ins for the two OCW ablation releases.

Fixture files (see ``tests/data/README.md`` for where they come from):

* ``tests/data/ocw/dataset/{train,validation,test}.json``: 4 / 3 / 6 real OCW walls in the
  release layout, including the three walls with known defects (:data:`QUIRK_WALLS`);
* ``tests/data/wote/{train,validation,test}.json``: 3 / 3 / 5 synthetic WoTe questions in the
  release shape (written for these tests, not taken from the release).

The real ``OCW_randomized.tar.gz`` and ``OCW_wordnet.tar.gz`` cannot be downloaded here;
:func:`write_ablation` rebuilds their shape from real walls (by default the fixture walls):

* ``randomized``: folder ``OCW_randomized/`` with ``train.json``, ``validation.json``,
  ``test.json``; the test walls are rebuilt from groups of four different walls (as the
  ablation does), train and validation are real walls.
* ``wordnet``: folder ``OCW_wordnet/`` with ``easy_train_wordnet.json``,
  ``easy_validation_wordnet.json``, ``easy_test_wordnet.json`` (split found by the name token).

Standard library only: the ``datasets`` 3.6.0 environment and ``compat3/fingerprint.py`` (run
as a script) import this module too.
"""

from __future__ import annotations

import json
import random
import tarfile
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
#: The OCW fixture in the release layout (a ``dataset/`` folder of three split files).
OCW_FIXTURE = DATA / "ocw" / "dataset"
#: The WoTe fixture: ``train.json``, ``validation.json``, ``test.json`` in the release shape.
WOTE_FIXTURE = DATA / "wote"
#: Walls (OCW) and questions (WoTe) per split in the fixtures.
OCW_FIXTURE_SIZES = {"train": 4, "validation": 3, "test": 6}
WOTE_FIXTURE_SIZES = {"train": 3, "validation": 3, "test": 5}

#: Walls per split in the ablation stand-ins written by :func:`write_ablation`.
SIZES = {"train": 3, "validation": 2, "test": 4}
#: Walls with known defects (numeric clue 8.5; Bask twice in a group; Glamour in two groups),
#: kept out of the ablation stand-ins.
QUIRK_WALLS = ("0f1677", "654041", "b308e4")
DEFECTIVE = set(QUIRK_WALLS)


def _walls(source: Path) -> list[dict]:
    """Every wall of ``source``: a release folder (its split files, ``OCW.json`` skipped) or
    one JSON file such as the raw export ``onlyconnect.json``."""
    source = Path(source)
    files = (
        [source]
        if source.is_file()
        else [source / f"{split}.json" for split in ("train", "validation", "test")]
    )
    return [w for f in files for w in json.loads(f.read_text(encoding="utf-8"))["dataset"]]


def _finish(wall: dict, rng: random.Random) -> dict:
    """Recompute the derived fields of a wall from its groups and shuffle its clues."""
    groups = list(wall["groups"].values())
    words = [c for g in groups for c in g["gt_words"]]
    rng.shuffle(words)
    wall["words"] = words
    wall["gt_connections"] = [g["gt_connection"] for g in groups]
    wall["overall_human_performance"] = {
        "grouping": [g["human_performance"]["grouping"] for g in groups],
        "connections": [g["human_performance"]["connection"] for g in groups],
    }
    return wall


def _randomized_wall(index: int, sources: list[dict], rng: random.Random) -> dict:
    groups = {
        f"group_{k + 1}": dict(src["groups"][f"group_{k + 1}"]) for k, src in enumerate(sources)
    }
    wall = {
        "wall_id": f"r{index:03d}",
        "season": sources[0]["season"],
        "episode": sources[0]["episode"],
        "groups": groups,
    }
    return _finish(wall, rng)


def write_ablation(source: Path, root: Path, kind: str, seed: int = 0) -> Path:
    """Write a small ablation release (3 / 2 / 4 walls) under ``root``; returns its folder.

    Args:
        source: the real walls to build from: :data:`OCW_FIXTURE` (no ``../shared`` needed),
            or any release folder or raw export such as ``onlyconnect.json``. The walls of
            :data:`QUIRK_WALLS` are left out; 9 others are needed.
        root: where to write; the release folder ``OCW_randomized`` / ``OCW_wordnet`` is
            created inside it.
        kind: ``"randomized"`` or ``"wordnet"``.
        seed: the seed of the wall picks and clue shuffles (same seed, same files).

    Train and validation hold distinct real walls (``randomized``: ids kept; ``wordnet``:
    ids prefixed ``w``). The ``randomized`` test walls ``r000`` .. ``r003`` each take group
    ``k`` from the ``k``-th of four different source walls; the ``wordnet`` test walls are
    real walls.

    Raises:
        ValueError: ``kind`` is not one of the two, or ``source`` has fewer than 9 usable walls.
    """
    if kind not in ("randomized", "wordnet"):
        raise ValueError(f"kind must be 'randomized' or 'wordnet', got {kind!r}")
    rng = random.Random(seed)
    walls = [w for w in _walls(source) if w["wall_id"] not in DEFECTIVE]
    needed = sum(SIZES.values())
    if len(walls) < needed:
        raise ValueError(f"{source}: {len(walls)} usable walls, {needed} needed")
    folder = Path(root) / ("OCW_randomized" if kind == "randomized" else "OCW_wordnet")
    folder.mkdir(parents=True, exist_ok=True)
    picked = iter(rng.sample(walls, needed))
    for split, size in SIZES.items():
        if kind == "randomized" and split == "test":
            split_walls = [_randomized_wall(i, rng.sample(walls, 4), rng) for i in range(size)]
        else:
            split_walls = []
            for _ in range(size):
                wall = json.loads(json.dumps(next(picked)))
                if kind == "wordnet":
                    wall["wall_id"] = "w" + wall["wall_id"]
                split_walls.append(_finish(wall, rng))
        name = f"easy_{split}_wordnet.json" if kind == "wordnet" else f"{split}.json"
        payload = {"season_to_walls_map": {}, "dataset": split_walls}
        (folder / name).write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return folder


def tarball(folder: Path, out: Path) -> Path:
    """Pack ``folder`` as ``out`` (a ``.tar.gz`` whose single top folder is ``folder.name``)."""
    with tarfile.open(out, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return out


class Pairs(list):
    """A JSON object written as its ``(key, value)`` pairs, so that a key can repeat."""


def dumps(value: Any) -> str:
    """``json.dumps`` that writes :class:`Pairs` as objects (keys possibly repeated)."""
    if isinstance(value, dict):
        value = Pairs(value.items())
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value)
