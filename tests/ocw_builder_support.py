"""Helpers and fixtures of the OCW loading-script tests (``tests/test_ocw_*.py``): synthetic
walls, release folders, a build into a private cache. The fixtures are registered for the whole
suite by ``tests/conftest.py`` (``pytest_plugins``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import datasets
import pytest
from ocw_fixtures import dumps

from ocw_hub.resources import load_sibling

GROUP_NAMES = ["group_1", "group_2", "group_3", "group_4"]
DATASETS_MAJOR = int(datasets.__version__.split(".")[0])


@pytest.fixture(scope="module")
def ocw(load_builder_module):
    return load_builder_module("OCW")


source_files = load_sibling("source_files")
ocw_walls = load_sibling("ocw_walls")


def synthetic_wall(n: int, word: str = "Clue") -> dict[str, Any]:
    """A valid wall: ``wall_id`` ``s<nnn>``, clues ``"<word> <nnn>.<g>.<c>"`` (all of one
    length for a given ``word``), ``words`` not in group order."""
    wall_id = f"s{n:03d}"
    groups = {
        f"group_{g}": {
            "group_id": f"{wall_id}_0{g}",
            "gt_words": [f"{word} {n:03d}.{g}.{c}" for c in range(1, 5)],
            "gt_connection": f"Connection {n:03d}.{g}",
            "human_performance": {"grouping": g % 2, "connection": (n + g) % 2},
        }
        for g in range(1, 5)
    }
    in_order = [clue for group in groups.values() for clue in group["gt_words"]]
    return {
        "wall_id": wall_id,
        "season": 1 + n % 9,
        "episode": 1 + n % 7,
        "words": in_order[1::2] + in_order[::2],
        "gt_connections": [g["gt_connection"] for g in groups.values()],
        "groups": groups,
        "overall_human_performance": {
            "grouping": [g["human_performance"]["grouping"] for g in groups.values()],
            "connections": [g["human_performance"]["connection"] for g in groups.values()],
        },
    }


@pytest.fixture()
def clean_walls() -> list[dict[str, Any]]:
    """Six valid synthetic walls (fresh copies for each test)."""
    return [synthetic_wall(n) for n in range(6)]


@pytest.fixture(scope="module")
def raw_walls(ocw_raw: Path) -> dict[str, dict[str, Any]]:
    """All 618 walls of the raw export, by wall_id, in file order."""
    walls = json.loads(ocw_raw.read_text(encoding="utf-8"))["dataset"]
    return {wall["wall_id"]: wall for wall in walls}


def write_split(path: Path, walls: list[Any], season_map: Any = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"season_to_walls_map": season_map or {}, "dataset": walls}
    path.write_text(dumps(document), encoding="utf-8")
    return path


def make_folder(root: Path, clean: list[dict[str, Any]], names: dict[str, str] | None = None):
    """Write train/validation/test (2 clean walls each) under ``root``; returns the walls."""
    names = names or {split: f"{split}.json" for split in ("train", "validation", "test")}
    splits = {
        "train": copy.deepcopy(clean[0:2]),
        "validation": copy.deepcopy(clean[2:4]),
        "test": copy.deepcopy(clean[4:6]),
    }
    for split, walls in splits.items():
        write_split(root / names[split], walls)
    return splits


def build(ocw, cache_dir: Path, config: str = "default", **kwargs) -> datasets.DatasetDict:
    """Build a config; split sizes are asserted by the tests themselves (on datasets 3.x the
    builder would also check them against the official sizes of dataset_infos.json, which
    the small fixtures here do not have)."""
    builder = ocw.OCW(config_name=config, cache_dir=str(cache_dir), **kwargs)
    builder.download_and_prepare(verification_mode="no_checks")
    return builder.as_dataset()


def arrow_files(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.rglob("*.arrow")) + sorted(cache_dir.rglob("dataset_info.json"))


def as_release(wall: dict[str, Any]) -> dict[str, Any]:
    """What the builder yields for a raw wall: numeric clues rendered with ``str()``."""
    out = copy.deepcopy(wall)
    out["words"] = [str(c) for c in out["words"]]
    for group in out["groups"].values():
        group["gt_words"] = [str(c) for c in group["gt_words"]]
    return out


def assert_fails_cleanly(ocw, tmp_path, root, pattern: str) -> pytest.ExceptionInfo:
    cache = tmp_path / "cache"
    with pytest.raises(ocw.OCWFormatError, match=pattern) as info:
        build(ocw, cache, data_dir=str(root))
    assert arrow_files(cache) == []
    return info
