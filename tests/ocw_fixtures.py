"""Small stand-ins for the two OCW ablation releases, written by the tests themselves.

The real ``OCW_randomized.tar.gz`` and ``OCW_wordnet.tar.gz`` cannot be downloaded here; these
fixtures rebuild their shape from real walls of ``../shared/data/ocw/raw/onlyconnect.json``:

* ``randomized``: folder ``OCW_randomized/`` with ``train.json``, ``validation.json``,
  ``test.json``; the test walls are rebuilt from groups of four different walls (as the
  ablation does), train and validation are real walls.
* ``wordnet``: folder ``OCW_wordnet/`` with ``easy_train_wordnet.json``,
  ``easy_validation_wordnet.json``, ``easy_test_wordnet.json`` (split found by the name token).

Standard library only: the ``datasets`` 3.6.0 environment imports this module too.
"""

from __future__ import annotations

import json
import random
import tarfile
from pathlib import Path

#: Walls per split in the fixtures.
SIZES = {"train": 3, "validation": 2, "test": 4}
#: Walls of the raw export with known defects, kept out of the ablation fixtures.
DEFECTIVE = {"0f1677", "654041", "b308e4"}


def _raw_walls(raw_path: Path) -> list[dict]:
    walls = json.loads(Path(raw_path).read_text(encoding="utf-8"))["dataset"]
    return [w for w in walls if w["wall_id"] not in DEFECTIVE]


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


def write_ablation(raw_path: Path, root: Path, kind: str, seed: int = 0) -> Path:
    """Write a small ablation release under ``root``; returns the release folder.

    Args:
        raw_path: ``onlyconnect.json`` (the 618-wall export).
        root: where to write; the release folder ``OCW_randomized`` / ``OCW_wordnet`` is
            created inside it.
        kind: ``"randomized"`` or ``"wordnet"``.
    """
    rng = random.Random(seed)
    walls = _raw_walls(raw_path)
    folder = Path(root) / ("OCW_randomized" if kind == "randomized" else "OCW_wordnet")
    folder.mkdir(parents=True, exist_ok=True)
    picked = iter(rng.sample(walls, 40))
    for split, size in SIZES.items():
        if kind == "randomized" and split == "test":
            split_walls = [
                _randomized_wall(i, [next(picked) for _ in range(4)], rng) for i in range(size)
            ]
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
