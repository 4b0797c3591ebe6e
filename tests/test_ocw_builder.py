"""Tests of the OCW loading script ``OCW.py`` (imported by path, run on the installed datasets).

Small inputs are synthetic walls written by the tests into ``tmp_path`` (no ``../shared``
needed); the full-scale tests read the stand-in release in ``../shared/data/ocw/dataset`` and
the real quirk walls of ``onlyconnect.json`` (fixtures ``ocw_dir``, ``ocw_raw``).
"""

from __future__ import annotations

import copy
import datetime
import gzip
import io
import json
import os
import re
import tarfile
import warnings
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import datasets
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ocw_fixtures import Pairs, dumps

from ocw_hub.resources import load_sibling

DEFECT_IDS = ("0f1677", "654041", "b308e4")
GROUP_NAMES = ["group_1", "group_2", "group_3", "group_4"]
DATASETS_MAJOR = int(datasets.__version__.split(".")[0])


# ------------------------------------------------------------------------------------------
# Helpers and fixtures
# ------------------------------------------------------------------------------------------


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


# ------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------


def test_public_constants(ocw):
    assert ocw.SPLITS == ("train", "validation", "test")
    assert ocw.OFFICIAL_SPLIT_SIZES == {"train": 62, "validation": 62, "test": 494}
    assert issubclass(ocw.OCWFormatError, ValueError)
    assert ocw.FORMAT_ERROR is ocw.OCWFormatError
    assert issubclass(ocw.OCWDataWarning, UserWarning)
    assert ocw.OCW.DEFAULT_CONFIG_NAME == "default"
    configs = {c.name: c for c in ocw.OCW.BUILDER_CONFIGS}
    assert list(configs) == ["default", "ocw_randomized", "ocw_wordnet"]
    assert configs["default"].url == "https://www.cs.toronto.edu/~taati/OCW/OCW.tar.gz"
    assert configs["ocw_wordnet"].url.endswith("/OCW_wordnet.tar.gz")
    assert str(configs["ocw_randomized"].version) == "1.0.0"
    assert isinstance(ocw.FEATURES, datasets.Features)
    assert list(ocw.FEATURES) == [
        "wall_id",
        "season",
        "episode",
        "words",
        "gt_connections",
        "groups",
        "overall_human_performance",
    ]
    assert list(ocw.FEATURES["groups"]) == GROUP_NAMES
    group = ocw.FEATURES["groups"]["group_3"]
    assert group["human_performance"]["grouping"] == datasets.Value("int32")
    assert ocw.FEATURES["season"] == datasets.Value("int32")
    assert "Naeini" in ocw._CITATION and ocw._LICENSE == "MIT"


def test_max_clue_repeats_is_the_metrics_rule(ocw):
    from ocw_hub.resources import load_metric_module

    assert ocw.MAX_CLUE_REPEATS == load_metric_module("inputs").MAX_CLUE_REPEATS == 2


# ------------------------------------------------------------------------------------------
# Full scale over the stand-in release (62/62/494)
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def full(ocw, ocw_dir, tmp_path_factory):
    cache = tmp_path_factory.mktemp("ocw_full_cache")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = build(ocw, cache, data_dir=str(ocw_dir))
    return ds, [w for w in caught if issubclass(w.category, ocw.OCWDataWarning)]


def test_full_split_sizes_and_features(ocw, full):
    ds, _ = full
    assert {split: ds[split].num_rows for split in ds} == {
        "train": 62,
        "validation": 62,
        "test": 494,
    }
    assert {split: ds[split].num_rows for split in ds} == ocw.OFFICIAL_SPLIT_SIZES
    for split in ocw.SPLITS:
        assert ds[split].features == ocw.FEATURES


def test_full_rows_equal_release_json(ocw, full, ocw_dir):
    ds, _ = full
    for split in ocw.SPLITS:
        release = json.loads((ocw_dir / f"{split}.json").read_text(encoding="utf-8"))["dataset"]
        rows = ds[split].to_list()
        assert [r["wall_id"] for r in rows] == [w["wall_id"] for w in release]  # file order
        assert rows == [as_release(w) for w in release]


def test_full_known_wall_values(full):
    ds, _ = full
    row = ds["test"][0]
    assert row["wall_id"] == "46fa44"
    assert (row["season"], row["episode"]) == (1, 1)
    assert row["words"][:4] == ["Santa", "Squash ball", "Dr Riviera", "Lag"]
    assert len(row["words"]) == 16
    assert row["gt_connections"] == ["Made from rubber", "Prison slang", "Called Nick", "Quarks"]
    assert list(row["groups"]) == GROUP_NAMES
    assert row["groups"]["group_3"] == {
        "group_id": "4ce162_03",
        "gt_words": ["Santa", "Satan", "Bottom", "Dr Riviera"],
        "gt_connection": "Called Nick",
        "human_performance": {"grouping": 1, "connection": 0},
    }
    assert row["overall_human_performance"] == {
        "grouping": [1, 1, 1, 1],
        "connections": [1, 1, 0, 0],
    }
    # The upstream evaluation reads groups with .values(): keep that working.
    assert [g["gt_connection"] for g in row["groups"].values()] == row["gt_connections"]


def test_full_rows_match_raw_export(full, raw_walls):
    """The stand-in shuffles clues only: groups and connections equal the raw export."""
    ds, _ = full
    row = ds["validation"].filter(lambda r: r["wall_id"] == "0f1677")[0]
    raw = as_release(raw_walls["0f1677"])
    assert Counter(row["words"]) == Counter(raw["words"])
    assert row["groups"] == raw["groups"]
    assert row["gt_connections"] == raw["gt_connections"]


def test_full_warnings_name_the_real_defects(full):
    _, caught = full
    messages = [str(w.message) for w in caught]
    assert len(messages) == 3
    assert any("0f1677" in m and "'8.5'" in m and "validation.json" in m for m in messages)
    assert any("654041" in m and "'Bask'" in m and "test.json" in m for m in messages)
    assert any("b308e4" in m and "'Glamour'" in m for m in messages)


# ------------------------------------------------------------------------------------------
# Real defects of the raw export, in a small fixture folder
# ------------------------------------------------------------------------------------------


@pytest.fixture()
def defect_folder(tmp_path, raw_walls, clean_walls) -> Path:
    root = tmp_path / "data"
    write_split(root / "train.json", copy.deepcopy(clean_walls[:2]))
    write_split(root / "validation.json", [copy.deepcopy(raw_walls["0f1677"])])
    write_split(root / "test.json", [copy.deepcopy(raw_walls[w]) for w in ("654041", "b308e4")])
    return root


def test_numeric_clue_is_rendered_with_str_and_warned(ocw, defect_folder, tmp_path):
    with pytest.warns(ocw.OCWDataWarning) as record:
        ds = build(ocw, tmp_path / "cache", data_dir=str(defect_folder))
    numeric = [w for w in record if re.search(r"0f1677.*clue 8\.5 .*'8\.5'", str(w.message))]
    assert len(numeric) == 1  # one warning per clue, listing both places
    assert "validation.json" in str(numeric[0].message)
    assert "words[" in str(numeric[0].message) and "group_2.gt_words[1]" in str(numeric[0].message)
    row = ds["validation"][0]
    assert row["wall_id"] == "0f1677"
    assert row["words"][5] == "8.5"  # raw export lists clues in group order
    assert row["words"][4:8] == ["Seven", "8.5", "1984", "2010"]
    assert row["groups"]["group_2"]["gt_words"] == ["Seven", "8.5", "1984", "2010"]
    assert all(isinstance(c, str) for c in row["words"])


def test_repeated_clues_are_kept_with_a_warning(ocw, defect_folder, tmp_path):
    with pytest.warns(ocw.OCWDataWarning) as record:
        ds = build(ocw, tmp_path / "cache", data_dir=str(defect_folder))
    messages = [str(w.message) for w in record]
    assert any("654041" in m and "'Bask' appears 2 times" in m for m in messages)
    assert any(
        "b308e4" in m and "group_3.gt_words[3]" in m and "group_4.gt_words[3]" in m
        for m in messages
    )
    rows = {r["wall_id"]: r for r in ds["test"]}
    assert Counter(rows["654041"]["words"])["Bask"] == 2
    assert rows["654041"]["groups"]["group_2"]["gt_words"] == ["Bask", "Mask", "Rok", "Bask"]
    assert rows["b308e4"]["groups"]["group_3"]["gt_words"][3] == "Glamour"
    assert rows["b308e4"]["groups"]["group_4"]["gt_words"][3] == "Glamour"
    assert Counter(rows["b308e4"]["words"])["Glamour"] == 2


def test_read_walls_int_clue_and_extra_keys(ocw, tmp_path, clean_walls):
    wall = copy.deepcopy(clean_walls[0])
    clue = wall["groups"]["group_1"]["gt_words"][0]
    wall["groups"]["group_1"]["gt_words"][0] = 8
    wall["words"][wall["words"].index(clue)] = 8
    wall["extra"] = "dropped"
    wall["groups"]["group_1"]["note"] = "dropped too"
    path = write_split(tmp_path / "test.json", [wall])
    with pytest.warns(ocw.OCWDataWarning, match=r"clue 8 is a JSON number.*'8'"):
        (out,) = ocw.read_walls(path, "test")
    assert out["groups"]["group_1"]["gt_words"][0] == "8"
    assert "8" in out["words"]
    assert set(out) == set(ocw.FEATURES)
    assert set(out["groups"]["group_1"]) == set(ocw.FEATURES["groups"]["group_1"])


# ------------------------------------------------------------------------------------------
# Sources: folder layouts, tarball data_dir, download path
# ------------------------------------------------------------------------------------------


def make_tarball(
    tmp_path: Path, clean, inner: str = "dataset", all_walls: bool = True
) -> tuple[Path, dict]:
    staging = tmp_path / "staging"
    splits = make_folder(staging / inner, clean)
    if all_walls:  # the main release's OCW.json (an ablation tarball has none)
        write_split(staging / inner / "OCW.json", [w for ws in splits.values() for w in ws])
    tarball = tmp_path / "OCW.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(staging / inner, arcname=inner)
    return tarball, splits


def test_data_dir_tarball(ocw, tmp_path, clean_walls):
    tarball, splits = make_tarball(tmp_path, clean_walls)
    ds = build(ocw, tmp_path / "cache", data_dir=str(tarball))
    for split in ocw.SPLITS:
        assert ds[split]["wall_id"] == [w["wall_id"] for w in splits[split]]
    assert ds["test"][1]["groups"] == splits["test"][1]["groups"]


@pytest.mark.parametrize("as_uri", [False, True])
def test_download_path_uses_config_url(ocw, tmp_path, clean_walls, monkeypatch, as_uri):
    tarball, splits = make_tarball(tmp_path, clean_walls, inner="OCW_randomized", all_walls=False)
    url = tarball.as_uri() if as_uri else str(tarball)
    config = next(c for c in ocw.OCW.BUILDER_CONFIGS if c.name == "ocw_randomized")
    monkeypatch.setattr(config, "url", url)
    calls = []
    original = datasets.DownloadManager.download

    def spy(self, url_or_urls):
        calls.append(url_or_urls)
        return original(self, url_or_urls)

    monkeypatch.setattr(datasets.DownloadManager, "download", spy)
    ds = build(ocw, tmp_path / "cache", config="ocw_randomized")
    assert calls == [url]
    assert ds["validation"]["wall_id"] == [w["wall_id"] for w in splits["validation"]]


def test_download_path_falls_back_to_urls_table(ocw, tmp_path, clean_walls, monkeypatch):
    tarball, splits = make_tarball(tmp_path, clean_walls)
    config = next(c for c in ocw.OCW.BUILDER_CONFIGS if c.name == "default")
    monkeypatch.setattr(config, "url", "")
    monkeypatch.setitem(ocw._URLS, "default", str(tarball))
    ds = build(ocw, tmp_path / "cache")
    assert ds["train"]["wall_id"] == [w["wall_id"] for w in splits["train"]]


def test_wordnet_like_file_names(ocw, tmp_path, clean_walls):
    root = tmp_path / "OCW_wordnet"
    names = {s: f"easy_{s}_wordnet.json" for s in ("train", "validation", "test")}
    splits = make_folder(root, clean_walls, names)
    assert ocw_walls.find_wall_files(tmp_path) == {s: root / names[s] for s in names}
    ds = build(ocw, tmp_path / "cache", config="ocw_wordnet", data_dir=str(root))
    assert ds["test"]["wall_id"] == [w["wall_id"] for w in splits["test"]]


def test_find_split_files_tokens(ocw, tmp_path):
    for name in ("train.json", "Validation.json", "sub/test.json", "contest.json", "OCW.json"):
        write_split(tmp_path / name, [])
    write_split(tmp_path / "._test.json", [])  # macOS resource fork in a tarball
    write_split(tmp_path / "testing.json", [])
    assert ocw_walls.find_wall_files(tmp_path) == {
        "train": tmp_path / "train.json",
        "validation": tmp_path / "Validation.json",
        "test": tmp_path / "sub" / "test.json",
    }


@pytest.mark.parametrize("name", ["nope", "nope.tar.gz"])
def test_missing_data_dir(ocw, tmp_path, name):
    missing = tmp_path / name
    pattern = rf"^{re.escape(str(missing))}: data_dir not found \(no such file or folder\)$"
    with pytest.raises(FileNotFoundError, match=pattern):
        build(ocw, tmp_path / "cache", data_dir=str(missing))


def test_data_dir_file_that_is_not_an_archive(ocw, tmp_path, clean_walls):
    path = write_split(tmp_path / "train.json", clean_walls[:1])
    pattern = rf"^{re.escape(str(path))}: data_dir is neither a folder nor an archive"
    with pytest.raises(ocw.OCWFormatError, match=pattern):
        build(ocw, tmp_path / "cache", data_dir=str(path))


def _extracted_json(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json"))  # split files left by an extraction


def _truncated_copy(source: Path, target: Path) -> Path:
    data = source.read_bytes()
    target.write_bytes(data[: len(data) // 2])
    return target


def _zip_of(tmp_path: Path, clean) -> Path:
    make_tarball(tmp_path, clean)  # writes the split files under tmp_path / "staging"
    archive = tmp_path / "OCW.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted((tmp_path / "staging").rglob("*.json")):
            zipped.write(path, path.relative_to(tmp_path / "staging"))
    return archive


@pytest.mark.parametrize("kind", ["tar.gz", "zip"])
def test_truncated_archive(ocw, tmp_path, clean_walls, kind):
    if kind == "tar.gz":
        good, _ = make_tarball(tmp_path, clean_walls)
    else:
        good = _zip_of(tmp_path, clean_walls)
    archive = _truncated_copy(good, tmp_path / f"OCW_cut.{kind}")
    cache = tmp_path / "cache"
    pattern = rf"{re.escape(str(archive))}: (cannot extract .*truncated|not a readable archive)"
    for _ in range(2):  # the second run must not take a partial extraction for a good one
        with pytest.raises(ocw.OCWFormatError, match=pattern):
            build(ocw, cache, data_dir=str(archive))
        assert arrow_files(cache) == []
        assert _extracted_json(cache) == []  # the partially extracted folder was removed


def test_truncated_tarball_chains_the_cause(ocw, tmp_path, clean_walls):
    good, _ = make_tarball(tmp_path, clean_walls)
    archive = _truncated_copy(good, tmp_path / "OCW_cut.tar.gz")
    with pytest.raises(ocw.OCWFormatError, match=r"cannot extract .*truncated") as info:
        build(ocw, tmp_path / "cache", data_dir=str(archive))
    assert isinstance(info.value.__cause__, (EOFError, tarfile.TarError, OSError))


@pytest.mark.parametrize("content", ["text", "gzip of text"])
def test_archive_name_but_not_an_archive(ocw, tmp_path, content):
    archive = tmp_path / "OCW.tar.gz"
    payload = b'{"dataset": []}\n'
    archive.write_bytes(payload if content == "text" else gzip.compress(payload))
    cache = tmp_path / "cache"
    pattern = rf"{re.escape(str(archive))}: not a readable archive"
    with pytest.raises(ocw.OCWFormatError, match=pattern):
        build(ocw, cache, data_dir=str(archive))
    assert arrow_files(cache) == []


def test_split_lookup_in_archive_names_the_archive(ocw, tmp_path, clean_walls):
    staging = tmp_path / "staging" / "dataset"
    splits = make_folder(staging, clean_walls)
    write_split(staging / "sub" / "test.json", splits["test"])
    tarball = tmp_path / "OCW.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(staging, arcname="dataset")
    pattern = (
        rf"in archive {re.escape(str(tarball))} \(extracted to .*\): cannot find one JSON file "
        r"per split \(several files for split 'test': dataset/sub/test\.json, dataset/test\.json"
    )
    assert_fails_cleanly(ocw, tmp_path, tarball, pattern)


def test_bad_wall_in_archive_names_the_archive(ocw, tmp_path, clean_walls):
    staging = tmp_path / "staging" / "dataset"
    splits = make_folder(staging, clean_walls)
    splits["train"][0]["season"] = 2**31
    write_split(staging / "train.json", splits["train"])
    tarball = tmp_path / "OCW.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(staging, arcname="dataset")
    wall_id = splits["train"][0]["wall_id"]
    pattern = (
        rf"in archive {re.escape(str(tarball))} \(extracted to .*\): .*dataset/train\.json: "
        rf"wall '{wall_id}' \(#0\): field 'season': integer 2147483648 does not fit in int32"
    )
    assert_fails_cleanly(ocw, tmp_path, tarball, pattern)


# ------------------------------------------------------------------------------------------
# Bad input: a clear OCWFormatError naming file and wall, and nothing written
# ------------------------------------------------------------------------------------------


def _set_clue(wall, group: str, index: int, new: Any) -> None:
    old = wall["groups"][group]["gt_words"][index]
    wall["groups"][group]["gt_words"][index] = new
    wall["words"][wall["words"].index(old)] = new


def _drop_clue(wall):
    wall["words"].pop()


def _three_groups(wall):
    del wall["groups"]["group_4"]


def _group_of_five(wall):
    wall["groups"]["group_2"]["gt_words"].append("Extra")


def _swap_connections(wall):
    wall["gt_connections"][0], wall["gt_connections"][1] = (
        wall["gt_connections"][1],
        wall["gt_connections"][0],
    )


def _human_two(wall):
    wall["groups"]["group_3"]["human_performance"]["connection"] = 2


def _overall_mismatch(wall):
    wall["overall_human_performance"]["grouping"][0] = (
        1 - wall["groups"]["group_1"]["human_performance"]["grouping"]
    )


def _season_string(wall):
    wall["season"] = "1"


def _missing_connection(wall):
    del wall["groups"]["group_1"]["gt_connection"]


def _clue_not_in_groups(wall):
    wall["words"][0] = "Not a clue of any group"


def _null_clue(wall):
    _set_clue(wall, "group_4", 0, None)


def _surrogate_clue(wall):
    _set_clue(wall, "group_2", 1, "Bad \ud800 clue")


def _surrogate_connection(wall):
    wall["groups"]["group_3"]["gt_connection"] = "\udcff"
    wall["gt_connections"][2] = "\udcff"


def _surrogate_group_id(wall):
    wall["groups"]["group_2"]["group_id"] = "x\ud83d"


def _season_too_big(wall):
    wall["season"] = 2**40


def _episode_too_small(wall):
    wall["episode"] = -(2**31) - 1


def _nan_clue(wall):
    _set_clue(wall, "group_1", 2, float("nan"))


def _infinite_clue(wall):
    _set_clue(wall, "group_1", 2, float("-inf"))


def _empty_connection(wall):
    wall["groups"]["group_4"]["gt_connection"] = ""
    wall["gt_connections"][3] = ""


def _blank_group_id(wall):
    wall["groups"]["group_1"]["group_id"] = " \t"


BAD_WALLS: dict[str, tuple[Callable[[dict], None], str]] = {
    "15 clues": (_drop_clue, r"field 'words': expected 16 clues, got 15"),
    "3 groups": (_three_groups, r"field 'groups': expected exactly 4 groups"),
    "group of 5": (_group_of_five, r"field 'groups.group_2.gt_words': expected 4 clues, got 5"),
    "gt_connections order": (_swap_connections, r"field 'gt_connections'"),
    "human score 2": (
        _human_two,
        r"field 'groups.group_3.human_performance.connection': .*0 or 1, got 2",
    ),
    "overall mismatch": (_overall_mismatch, r"field 'overall_human_performance.grouping'"),
    "season string": (_season_string, r"field 'season': expected int, got str"),
    "missing field": (_missing_connection, r"field 'groups.group_1.gt_connection': missing"),
    "multiset": (_clue_not_in_groups, r"field 'words': clues differ .*Not a clue of any group"),
    "null clue": (_null_clue, r"field 'words\[\d+\]': expected a string clue, got NoneType"),
    # Each of these used to pass validation and then fail inside pyarrow while writing.
    "surrogate clue": (
        _surrogate_clue,
        r"field 'words\[\d+\]': not valid Unicode text: lone surrogate '\\ud800' at character 4",
    ),
    "surrogate connection": (
        _surrogate_connection,
        r"field 'groups.group_3.gt_connection': not valid Unicode text: .*'\\udcff'",
    ),
    "surrogate group_id": (
        _surrogate_group_id,
        r"field 'groups.group_2.group_id': not valid Unicode text: .*'\\ud83d'",
    ),
    "season over int32": (_season_too_big, r"field 'season': integer 1099511627776 .*int32"),
    "episode under int32": (_episode_too_small, r"field 'episode': integer -2147483649 .*int32"),
    # JSON NaN / Infinity are numbers, but not clues (they used to load as "nan").
    "NaN clue": (_nan_clue, r"field 'words\[\d+\]': a non-finite number is not a clue, got nan"),
    "-Infinity clue": (_infinite_clue, r"field 'words\[\d+\]': a non-finite .*got -inf"),
    "empty gt_connection": (_empty_connection, r"field 'groups.group_4.gt_connection': empty"),
    "blank group_id": (_blank_group_id, r"field 'groups.group_1.group_id': empty or blank"),
}


@pytest.mark.parametrize("case", list(BAD_WALLS))
def test_bad_wall_raises_and_writes_nothing(ocw, tmp_path, clean_walls, case):
    mutate, field_pattern = BAD_WALLS[case]
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    bad = splits["test"][1]
    mutate(bad)
    write_split(root / "test.json", splits["test"])
    cache = tmp_path / "cache"
    pattern = rf"test\.json: wall '{bad['wall_id']}' \(#1\): {field_pattern}"
    with pytest.raises(ocw.OCWFormatError, match=pattern):
        build(ocw, cache, data_dir=str(root))
    assert arrow_files(cache) == []


def assert_fails_cleanly(ocw, tmp_path, root, pattern: str) -> pytest.ExceptionInfo:
    cache = tmp_path / "cache"
    with pytest.raises(ocw.OCWFormatError, match=pattern) as info:
        build(ocw, cache, data_dir=str(root))
    assert arrow_files(cache) == []
    return info


@pytest.mark.parametrize(
    ("wall_id", "problem"),
    [
        ("\ud800", r"not valid Unicode text: lone surrogate '\\ud800'"),
        ("  ", "blank"),
        ("\u200b", "blank"),  # zero-width space (Cf)
        ("\x00", "blank"),  # NUL (Cc)
        ("\u2060\ufeff\t", "blank"),  # word joiner, BOM (Cf), tab
        ("", "blank"),
    ],
)
def test_bad_wall_id(ocw, tmp_path, clean_walls, wall_id, problem):
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    splits["validation"][1]["wall_id"] = wall_id
    write_split(root / "validation.json", splits["validation"])
    if problem == "blank":
        problem = rf"empty or blank {re.escape(repr(wall_id))} \(only whitespace, control or format"
    pattern = (
        rf"validation\.json: wall {re.escape(repr(wall_id))} \(#1\): field 'wall_id': {problem}"
    )
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def test_empty_split_list(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    make_folder(root, clean_walls)
    write_split(root / "train.json", [])
    assert_fails_cleanly(ocw, tmp_path, root, r"train\.json: split 'train' has no walls")


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (
            lambda text: text.replace('"dataset":', '"big": ' + "7" * 5000 + ', "dataset":', 1),
            r"ValueError: Exceeds the limit \(4300 digits\)",
        ),
        (
            lambda text: text.replace(
                '"dataset":', '"x": ' + "[" * 100_000 + "]" * 100_000 + ', "dataset":', 1
            ),
            r"RecursionError",
        ),
    ],
    ids=["5000-digit integer", "100k-deep nesting"],
)
def test_json_the_parser_cannot_handle(ocw, tmp_path, clean_walls, edit, problem):
    root = tmp_path / "data"
    make_folder(root, clean_walls)
    path = root / "validation.json"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    pattern = rf"validation\.json: cannot parse the JSON of split 'validation': {problem}"
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def test_truncated_json(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    make_folder(root, clean_walls)
    text = (root / "validation.json").read_text(encoding="utf-8")
    (root / "validation.json").write_text(text[: len(text) // 2], encoding="utf-8")
    assert_fails_cleanly(ocw, tmp_path, root, r"validation\.json: invalid JSON .*line 1 column \d+")


def test_duplicated_wall_id_in_split(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    write_split(root / "train.json", splits["train"] + [copy.deepcopy(splits["train"][0])])
    wall_id = splits["train"][0]["wall_id"]
    pattern = rf"train\.json: wall '{wall_id}' \(#2\): field 'wall_id': duplicated .*#0"
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def test_wall_in_two_splits(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    write_split(root / "test.json", splits["test"] + [copy.deepcopy(splits["train"][1])])
    wall_id = splits["train"][1]["wall_id"]
    pattern = (
        rf"test\.json: wall '{wall_id}': field 'wall_id': in two splits, 'train' "
        rf"\(.*train\.json\) and 'test'"
    )
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def test_missing_split_file_lists_files(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    make_folder(root, clean_walls)
    (root / "validation.json").rename(root / "valid.json")
    pattern = r"no file for split 'validation'.*Files found: test\.json, train\.json, valid\.json"
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def test_two_candidates_for_a_split(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    write_split(root / "extra" / "easy_test.json", splits["test"])
    pattern = r"several files for split 'test': extra/easy_test\.json, test\.json"
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def test_wrong_top_level_shape(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    make_folder(root, clean_walls)
    (root / "train.json").write_text(json.dumps(clean_walls[:2]), encoding="utf-8")
    assert_fails_cleanly(ocw, tmp_path, root, r"train\.json: expected an object with a 'dataset'")


# ------------------------------------------------------------------------------------------
# Property: validity depends on the multiset of clues, not on their order
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def property_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("ocw_property")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@pytest.mark.slow
@given(data=st.data())
def test_permuted_words_validate_and_changed_clue_fails(ocw, clean_walls, property_dir, data):
    wall = copy.deepcopy(data.draw(st.sampled_from(clean_walls)))
    path = property_dir / "test.json"

    wall["words"] = data.draw(st.permutations(wall["words"]))
    write_split(path, [wall])
    (out,) = ocw.read_walls(path, "test")
    assert out["words"] == wall["words"]

    position = data.draw(st.integers(0, 15))
    one_line = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))  # others refused
    new_clue = data.draw(
        st.text(one_line, min_size=1).filter(lambda s: not source_files.is_blank(s))
    )
    if new_clue == wall["words"][position]:
        return
    wall["words"][position] = new_clue
    write_split(path, [wall])
    with pytest.raises(ocw.OCWFormatError, match=r"field 'words': clues differ"):
        ocw.read_walls(path, "test")


# ------------------------------------------------------------------------------------------
# Validated rows reach _generate_examples through gen_kwargs
# ------------------------------------------------------------------------------------------


def test_validated_walls_travel_in_gen_kwargs(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    builder = ocw.OCW(config_name="default", data_dir=str(root), cache_dir=str(tmp_path / "c"))
    dl_manager = datasets.DownloadManager(
        download_config=datasets.DownloadConfig(cache_dir=str(tmp_path / "downloads"))
    )
    generators = builder._split_generators(dl_manager)
    assert [g.name for g in generators] == ["train", "validation", "test"]
    for path in root.iterdir():
        path.unlink()  # nothing is read again: the walls are in gen_kwargs
    for generator in generators:
        assert set(generator.gen_kwargs) == {"walls", "filepath"}
        assert generator.gen_kwargs["filepath"] == str(root / f"{generator.name}.json")
        rows = list(builder._generate_examples(**generator.gen_kwargs))
        assert rows == [(w["wall_id"], w) for w in splits[generator.name]]
    assert not [name for name in vars(builder) if "wall" in name.lower()]


# ------------------------------------------------------------------------------------------
# Input the builder reads is what it checks
# ------------------------------------------------------------------------------------------


def _repeat_key(obj: dict, key: str, value: Any) -> Pairs:
    """``obj`` as pairs with ``key`` written a second time, with ``value``."""
    return Pairs([*obj.items(), (key, value)])


def _wall_with_two_ids(wall):
    return _repeat_key(wall, "wall_id", "s999")


def _group_with_two_gt_words(wall):
    groups = dict(wall["groups"])
    groups["group_2"] = _repeat_key(groups["group_2"], "gt_words", ["A", "B", "C", "D"])
    return {**wall, "groups": groups}


def _human_with_two_scores(wall):
    groups = copy.deepcopy(wall["groups"])
    human = groups["group_4"]["human_performance"]
    groups["group_4"]["human_performance"] = _repeat_key(human, "grouping", 1)
    return {**wall, "groups": groups}


DUPLICATE_KEYS = {
    "wall_id": (
        _wall_with_two_ids,
        r"wall 's999' \(#1\): field 'wall_id': key 'wall_id' appears more than once in one "
        r"JSON object \(values 's005', 's999'\); each key must appear once",
    ),
    "gt_words": (
        _group_with_two_gt_words,
        r"wall 's005' \(#1\): field 'groups.group_2.gt_words': key 'gt_words' appears more "
        r"than once .*\(values \['Clue 005.2.1', .*\], \['A', 'B', 'C', 'D'\]\)",
    ),
    "human_performance.grouping": (
        _human_with_two_scores,
        r"wall 's005' \(#1\): field 'groups.group_4.human_performance.grouping': key 'grouping'",
    ),
}


@pytest.mark.parametrize("case", list(DUPLICATE_KEYS))
def test_duplicate_json_keys_are_rejected(ocw, tmp_path, clean_walls, case):
    mutate, problem = DUPLICATE_KEYS[case]
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    write_split(root / "test.json", [splits["test"][0], mutate(splits["test"][1])])
    assert_fails_cleanly(ocw, tmp_path, root, rf"test\.json: {problem}")


def test_duplicate_top_level_key_is_rejected(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    text = dumps(Pairs([("dataset", splits["train"]), ("dataset", splits["validation"])]))
    (root / "train.json").write_text(text, encoding="utf-8")
    pattern = r"train\.json: field 'dataset': key 'dataset' appears more than once"
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def _set_both(wall, group: str, index: int, new: Any) -> None:
    """Change a clue of ``group`` and the same clue in ``words``."""
    old = wall["groups"][group]["gt_words"][index]
    wall["groups"][group]["gt_words"][index] = new
    wall["words"][wall["words"].index(old)] = new


@pytest.mark.parametrize(
    "clue",
    ["\u200b", "\x00", "\u200b\u200d\u2060", "\ufeff", " \x07\t", "\u00ad", "\u202e"],
    ids=["ZWSP", "NUL", "ZW-joiners", "BOM", "space-BEL-tab", "soft-hyphen", "RLO"],
)
def test_blank_looking_clue(ocw, tmp_path, clean_walls, clue):
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    _set_both(splits["train"][0], "group_3", 2, clue)
    write_split(root / "train.json", splits["train"])
    pattern = (
        rf"train\.json: wall 's000' \(#0\): field 'words\[\d+\]': empty or blank "
        rf"{re.escape(repr(clue))} \(only whitespace, control or format characters\)"
    )
    assert_fails_cleanly(ocw, tmp_path, root, pattern)


def test_visible_text_with_a_format_character_is_kept(ocw, tmp_path, clean_walls):
    wall = clean_walls[0]
    _set_both(wall, "group_1", 0, "Bask\u200b")
    (out,) = ocw.read_walls(write_split(tmp_path / "test.json", [wall]), "test")
    assert out["groups"]["group_1"]["gt_words"][0] == "Bask\u200b"


def _blank_group_id(wall):
    wall["groups"]["group_2"]["group_id"] = "\u200b"


def _blank_connection(wall):
    wall["groups"]["group_1"]["gt_connection"] = "\x00"
    wall["gt_connections"][0] = "\x00"


def _season_zero(wall):
    wall["season"] = 0


def _episode_negative(wall):
    wall["episode"] = -3


def _same_group_id(wall):
    wall["groups"]["group_3"]["group_id"] = wall["groups"]["group_1"]["group_id"]


def _clue_three_times(wall):
    _set_both(wall, "group_1", 0, "Bask")
    _set_both(wall, "group_2", 0, "bask")
    _set_both(wall, "group_4", 3, "BASK")


BLANK_OR_INCONSISTENT = {
    "blank group_id": (
        _blank_group_id,
        r"field 'groups.group_2.group_id': empty or blank '\\u200b'",
    ),
    "blank connection": (
        _blank_connection,
        r"field 'groups.group_1.gt_connection': empty or blank '\\x00'",
    ),
    "season 0": (_season_zero, r"field 'season': must be 1 or more, got 0"),
    "episode -3": (_episode_negative, r"field 'episode': must be 1 or more, got -3"),
    "same group_id": (
        _same_group_id,
        r"field 'groups.group_3.group_id': 's005_01' is also the group_id of groups.group_1",
    ),
    "clue 3 times": (
        _clue_three_times,
        r"field 'words': clue 'bask' occurs 3 times in the wall \(compared lowercased\); a "
        r"wall holds no clue more than 2 times",
    ),
}


@pytest.mark.parametrize("case", list(BLANK_OR_INCONSISTENT))
def test_blank_or_inconsistent_wall(ocw, tmp_path, clean_walls, case):
    mutate, problem = BLANK_OR_INCONSISTENT[case]
    root = tmp_path / "data"
    splits = make_folder(root, clean_walls)
    mutate(splits["test"][1])
    write_split(root / "test.json", splits["test"])
    assert_fails_cleanly(ocw, tmp_path, root, rf"test\.json: wall 's005' \(#1\): {problem}")


def _groups_of(wall) -> list[list[str]]:
    return [list(g["gt_words"]) for g in wall["groups"].values()]


def test_builder_and_metric_agree_on_repeated_clues(ocw, tmp_path, clean_walls):
    """The metric rejects a gold wall with a clue 3 times and scores one with a clue twice;
    the builder rejects and keeps the same walls."""
    from ocw_hub.resources import load_metric_module

    metric = load_metric_module("inputs")
    twice, thrice = clean_walls[0], clean_walls[1]
    _set_both(twice, "group_1", 0, "Bask")
    _set_both(twice, "group_3", 1, "BASK")
    _clue_three_times(thrice)
    with pytest.warns(ocw.OCWDataWarning, match=r"clue 'Bask' appears 2 times .*'Bask', 'BASK'"):
        (kept,) = ocw.read_walls(write_split(tmp_path / "a.json", [twice]), "test")
    assert metric.validate_reference_wall(_groups_of(kept), "gold") == _groups_of(twice)
    with pytest.raises(ValueError, match="occurs 3 times"):
        metric.validate_reference_wall(_groups_of(thrice), "gold")
    with pytest.raises(ocw.OCWFormatError, match="occurs 3 times"):
        ocw.read_walls(write_split(tmp_path / "b.json", [thrice]), "test")


@pytest.mark.parametrize(
    ("spellings", "shown"),
    [
        (("Caf\u00e9", "cafe\u0301"), r"'Café', 'cafe\u0301' \(equal after Unicode NFC"),
        (("Straße", "STRASSE", "strasse"), r"appears 3 times .*'Straße', 'STRASSE', 'strasse'"),
    ],
    ids=["NFC", "casefold"],
)
def test_clues_equal_after_nfc_and_casefold_are_warned(
    ocw, tmp_path, clean_walls, spellings, shown
):
    wall = clean_walls[2]
    for group, spelling in zip(("group_1", "group_2", "group_4"), spellings, strict=False):
        _set_both(wall, group, 1, spelling)
    with pytest.warns(ocw.OCWDataWarning, match=shown) as record:
        (out,) = ocw.read_walls(write_split(tmp_path / "t.json", [wall]), "test")
    assert len(record) == 1
    assert "wall 's002' (#0)" in str(record[0].message)
    assert [g["gt_words"][1] for g in out["groups"].values()][:2] == list(spellings[:2])


def test_real_quirk_walls_load_with_one_warning_each(ocw, tmp_path, raw_walls):
    """654041 (Bask twice in a group) and b308e4 (Glamour in two groups) keep loading."""
    walls = [copy.deepcopy(raw_walls[w]) for w in ("654041", "b308e4")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = ocw.read_walls(write_split(tmp_path / "test.json", walls), "test")
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert "wall '654041' (#0): clue 'Bask' appears 2 times in the wall (at " in messages[0]
    assert "groups.group_2.gt_words[0], groups.group_2.gt_words[3]); kept as is" in messages[0]
    assert "wall 'b308e4' (#1): clue 'Glamour' appears 2 times" in messages[1]
    assert [w["wall_id"] for w in out] == ["654041", "b308e4"]


# ------------------------------------------------------------------------------------------
# The season map
# ------------------------------------------------------------------------------------------


def test_season_map_of_the_stand_in(ocw, ocw_dir):
    seasons = ocw.read_season_map(ocw_dir / "test.json")
    assert list(seasons) == list(range(1, 16))
    assert seasons[1] == {"num_walls": 30, "start_date": None, "end_date": None}
    assert seasons[12]["num_walls"] == 74
    assert sum(s["num_walls"] for s in seasons.values()) == 618
    assert ocw.read_season_map(ocw_dir / "OCW.json") == seasons


def test_season_map_of_the_raw_export_matches_its_walls(ocw, ocw_raw, raw_walls):
    seasons = ocw.read_season_map(ocw_raw)
    assert seasons[0] == {"num_walls": 0, "start_date": None, "end_date": None}
    per_season = Counter(wall["season"] for wall in raw_walls.values())
    assert {s: info["num_walls"] for s, info in seasons.items() if s} == dict(per_season)


def test_season_map_release_shape_with_dates(ocw, tmp_path, clean_walls):
    season_map = {
        "1": {"num_walls": 30, "start_date": "15/09/2008", "end_date": "22/12/2008"},
        "10": {"num_walls": 54, "start_date": "2014-09-01", "end_date": None},
        "2": {"num_walls": 16, "start_date": None, "end_date": None},
    }
    path = write_split(tmp_path / "train.json", clean_walls[:1], season_map)
    assert ocw.read_season_map(path) == {
        1: {
            "num_walls": 30,
            "start_date": datetime.date(2008, 9, 15),
            "end_date": datetime.date(2008, 12, 22),
        },
        2: {"num_walls": 16, "start_date": None, "end_date": None},
        10: {"num_walls": 54, "start_date": datetime.date(2014, 9, 1), "end_date": None},
    }


BAD_SEASON_MAPS = {
    "impossible date": (
        {"3": {"num_walls": 30, "start_date": "31/02/2010", "end_date": None}},
        r"season '3': field 'season_to_walls_map.3.start_date': expected a date DD/MM/YYYY "
        r"\(as in the release\), YYYY-MM-DD or null, got '31/02/2010'",
    ),
    "US date": (
        {"3": {"num_walls": 30, "start_date": None, "end_date": "12/31/2010"}},
        r"season '3': field 'season_to_walls_map.3.end_date': expected a date",
    ),
    "start after end": (
        {"4": {"num_walls": 1, "start_date": "02/01/2010", "end_date": "01/01/2010"}},
        r"season '4': field 'season_to_walls_map.4': start_date 2010-01-02 is after end_date",
    ),
    "negative count": (
        {"5": {"num_walls": -1, "start_date": None, "end_date": None}},
        r"season '5': field 'season_to_walls_map.5.num_walls': expected a number of walls "
        r"\(0 or more\), got -1",
    ),
    "count as text": ({"5": "30"}, r"season '5': field 'season_to_walls_map.5': expected a"),
    "missing count": (
        {"6": {"start_date": None, "end_date": None}},
        r"season '6': field 'season_to_walls_map.6.num_walls': missing",
    ),
    "misspelt key": (
        {"7": {"num_walls": 3, "start_data": "01/01/2010"}},
        r"season '7': field 'season_to_walls_map.7': unexpected keys \['start_data'\]",
    ),
    "season not a number": ({"S1": 30}, r"season 'S1': .*a season must be a whole number"),
    "season 0 with walls": ({"0": 4}, r"season '0': .*season 0 holds 4 walls"),
    "season listed twice": ({"1": 3, "01": 3}, r"season '01': .*season 1 is listed twice"),
    "not an object": ([30, 16], r"field 'season_to_walls_map': expected an object"),
    "repeated key": (
        Pairs([("2", 16), ("2", 17)]),
        r"season '2': field 'season_to_walls_map.2': key '2' appears more than once",
    ),
}


@pytest.mark.parametrize("case", list(BAD_SEASON_MAPS))
def test_bad_season_map(ocw, tmp_path, clean_walls, case):
    season_map, problem = BAD_SEASON_MAPS[case]
    path = tmp_path / "OCW.json"
    path.write_text(dumps({"season_to_walls_map": season_map, "dataset": []}), encoding="utf-8")
    with pytest.raises(ocw.OCWFormatError, match=rf"^{re.escape(str(path))}: {problem}"):
        ocw.read_season_map(path)


def test_season_map_missing(ocw, tmp_path):
    path = tmp_path / "train.json"
    path.write_text('{"dataset": []}', encoding="utf-8")
    with pytest.raises(ocw.OCWFormatError, match=r"field 'season_to_walls_map': expected an"):
        ocw.read_season_map(path)


# ------------------------------------------------------------------------------------------
# Fresh data: archives extracted by content, cache keyed on the content
# ------------------------------------------------------------------------------------------


def _replace_keeping_stat(path: Path, write: Callable[[Path], Any]) -> None:
    """Rewrite ``path`` with ``write`` and give it back its size and modification time."""
    before = path.stat()
    write(path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def _same_size_release(tmp_path: Path, word: str) -> tuple[Path, dict[str, list]]:
    """A plain ``.tar`` whose size depends only on the lengths of ``word`` and the ids."""
    walls = [synthetic_wall(n, word) for n in range(6)]
    staging = tmp_path / f"staging-{word}"
    splits = make_folder(staging / "dataset", walls)
    out = tmp_path / f"{word}.tar"
    with tarfile.open(out, "w") as tar:
        for path in sorted((staging / "dataset").iterdir()):
            info = tar.gettarinfo(path, arcname=f"dataset/{path.name}")
            info.mtime = 0
            with open(path, "rb") as handle:
                tar.addfile(info, handle)
    return out, splits


def test_replaced_tarball_with_same_size_and_mtime_gives_new_rows(ocw, tmp_path):
    first, _ = _same_size_release(tmp_path, "Clue")
    second, second_splits = _same_size_release(tmp_path, "Hint")
    assert first.stat().st_size == second.stat().st_size
    archive = tmp_path / "OCW.tar"
    archive.write_bytes(first.read_bytes())
    cache = tmp_path / "cache"
    assert build(ocw, cache, data_dir=str(archive))["test"][0]["words"][0].startswith("Clue")
    _replace_keeping_stat(archive, lambda p: p.write_bytes(second.read_bytes()))
    rows = build(ocw, cache, data_dir=str(archive))["test"]
    assert rows.to_list() == second_splits["test"]
    extracted = sorted(p.name for p in (cache / "downloads" / "ocw_extracted").iterdir())
    assert extracted == sorted(source_files.source_digest(p) for p in (first, second))


def test_replaced_tarball_through_the_package_api(tmp_path):
    import ocw_hub

    first, _ = _same_size_release(tmp_path, "Clue")
    second, second_splits = _same_size_release(tmp_path, "Hint")
    archive = tmp_path / "OCW.tar"
    archive.write_bytes(first.read_bytes())

    def load() -> datasets.Dataset:
        return ocw_hub.load_dataset(
            "default",
            "test",
            data_dir=archive,
            cache_dir=tmp_path / "cache",
            verification_mode="no_checks",
        )

    assert load()[0]["words"][0].startswith("Clue")
    _replace_keeping_stat(archive, lambda p: p.write_bytes(second.read_bytes()))
    assert load().to_list() == second_splits["test"]


def test_edited_folder_with_same_size_and_mtime_gives_new_rows(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    make_folder(root, clean_walls)
    cache = tmp_path / "cache"
    assert build(ocw, cache, data_dir=str(root))["train"][0]["wall_id"] == "s000"
    path = root / "train.json"
    edited = path.read_text(encoding="utf-8").replace('"s000"', '"t000"')
    _replace_keeping_stat(path, lambda p: p.write_text(edited, encoding="utf-8"))
    assert build(ocw, cache, data_dir=str(root))["train"][0]["wall_id"] == "t000"


def test_config_id_follows_the_content(ocw, tmp_path, clean_walls):
    root = tmp_path / "data"
    make_folder(root, clean_walls)
    cache = str(tmp_path / "cache")

    def config_id() -> str:
        return ocw.OCW(config_name="default", data_dir=str(root), cache_dir=cache).config_id

    first = config_id()
    assert first.startswith("default-") and config_id() == first
    (root / "extra.txt").write_text("x", encoding="utf-8")
    assert config_id() != first
    assert ocw.OCW(config_name="default", cache_dir=cache).config_id == "default"


@pytest.mark.skipif(DATASETS_MAJOR >= 4, reason="the script path needs datasets 3.x")
def test_script_path_on_datasets_3_gives_new_rows(repo_root, tmp_path, clean_walls):
    """``load_dataset("OCW.py", data_dir=...)`` on datasets 3.x: a tarball replaced at the
    same path with the same size and mtime, and a folder edited in place, give new rows."""
    first, _ = _same_size_release(tmp_path, "Clue")
    second, second_splits = _same_size_release(tmp_path, "Hint")
    archive = tmp_path / "OCW.tar"
    archive.write_bytes(first.read_bytes())

    def load(data_dir: Path) -> datasets.DatasetDict:
        return datasets.load_dataset(
            str(repo_root / "OCW.py"),
            "default",
            data_dir=str(data_dir),
            trust_remote_code=True,
            cache_dir=str(tmp_path / "cache"),
            verification_mode="no_checks",
        )

    assert load(archive)["test"][0]["words"][0].startswith("Clue")
    _replace_keeping_stat(archive, lambda p: p.write_bytes(second.read_bytes()))
    assert load(archive)["test"].to_list() == second_splits["test"]

    root = tmp_path / "data"
    make_folder(root, clean_walls)
    assert load(root)["train"][0]["wall_id"] == "s000"
    path = root / "train.json"
    edited = path.read_text(encoding="utf-8").replace('"s000"', '"t000"')
    _replace_keeping_stat(path, lambda p: p.write_text(edited, encoding="utf-8"))
    assert load(root)["train"][0]["wall_id"] == "t000"


def _tar_with(tmp_path: Path, clean_walls, extra: Callable[[tarfile.TarFile], None]) -> Path:
    staging = tmp_path / "staging"
    make_folder(staging / "dataset", clean_walls)
    out = tmp_path / "OCW.tar.gz"
    with tarfile.open(out, "w:gz") as tar:
        tar.add(staging / "dataset", arcname="dataset")
        extra(tar)
    return out


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", data: bytes = b"x"):
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, link
        info.size = len(data) if kind == tarfile.REGTYPE else 0
        tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)

    return add


UNSAFE_MEMBERS = {
    "absolute path": (_member("/tmp/ocw-evil.json"), r"'/tmp/ocw-evil.json'.*an absolute"),
    "dot-dot": (_member("dataset/../../evil.json"), r"'dataset/../../evil.json'.*a '\.\.' part"),
    "symlink out": (
        _member("dataset/link", tarfile.SYMTYPE, "/etc/passwd"),
        r"'dataset/link'.*a link to '/etc/passwd', outside the archive's folder",
    ),
    "relative symlink out": (
        _member("dataset/link", tarfile.SYMTYPE, "../../secret"),
        r"'dataset/link'.*a link to '\.\./\.\./secret', outside",
    ),
    "hard link out": (
        _member("dataset/hard", tarfile.LNKTYPE, "../outside"),
        r"'dataset/hard'.*a link to '\.\./outside', outside",
    ),
    "device": (_member("dataset/dev", tarfile.CHRTYPE), r"'dataset/dev'.*not a file, a folder"),
}


@pytest.mark.parametrize("case", list(UNSAFE_MEMBERS))
def test_unsafe_tar_member_is_refused(ocw, tmp_path, clean_walls, case):
    extra, problem = UNSAFE_MEMBERS[case]
    archive = _tar_with(tmp_path, clean_walls, extra)
    cache = tmp_path / "cache"
    pattern = rf"^{re.escape(str(archive))}: member {problem}.*; nothing extracted$"
    with pytest.raises(ocw.OCWFormatError, match=pattern):
        build(ocw, cache, data_dir=str(archive))
    assert list((cache / "downloads" / "ocw_extracted").iterdir()) == []
    assert not Path("/tmp/ocw-evil.json").exists()
    assert arrow_files(cache) == []


def test_unsafe_zip_member_is_refused(ocw, tmp_path, clean_walls):
    archive = tmp_path / "OCW.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("dataset/../../evil.json", "{}")
    with pytest.raises(ocw.OCWFormatError, match=r"member 'dataset/\.\./\.\./evil\.json'"):
        build(ocw, tmp_path / "cache", data_dir=str(archive))


def test_link_inside_the_archive_is_followed(ocw, tmp_path, clean_walls):
    """A symlink whose target stays inside the extracted folder is fine."""
    staging = tmp_path / "staging"
    splits = make_folder(staging / "dataset", clean_walls)
    (staging / "dataset" / "test.json").rename(staging / "stash.data")
    archive = tmp_path / "OCW.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(staging / "dataset", arcname="dataset")
        tar.add(staging / "stash.data", arcname="stash.data")
        _member("dataset/test.json", tarfile.SYMTYPE, "../stash.data")(tar)
    ds = build(ocw, tmp_path / "cache", data_dir=str(archive))
    assert ds["test"]["wall_id"] == [w["wall_id"] for w in splits["test"]]


def test_force_redownload_extracts_again(ocw, tmp_path, clean_walls):
    archive = _tar_with(tmp_path, clean_walls, lambda tar: None)
    cache = tmp_path / "cache"
    build(ocw, cache, data_dir=str(archive))
    (folder,) = (cache / "downloads" / "ocw_extracted").iterdir()
    assert folder.name == source_files.source_digest(archive)
    (folder / "dataset" / "test.json").write_text("{", encoding="utf-8")  # damaged by hand
    builder = ocw.OCW(config_name="default", data_dir=str(archive), cache_dir=str(cache))
    builder.download_and_prepare(download_mode="force_redownload", verification_mode="no_checks")
    assert builder.as_dataset()["test"]["wall_id"] == ["s004", "s005"]


def test_archive_yields_only_the_split_files(ocw, tmp_path, clean_walls):
    """Members that cannot be split files (here 8 MB of zeros, a hidden JSON file) stay in the
    archive: the extraction holds the split files only."""
    zeros = _member("dataset/zeros.bin", data=bytes(8 * 2**20))
    hidden = _member("dataset/.hidden.json", data=b"{}")
    archive = _tar_with(tmp_path, clean_walls, lambda tar: (zeros(tar), hidden(tar)))
    ds = build(ocw, tmp_path / "cache", data_dir=str(archive))
    assert ds["test"].num_rows == 2
    (folder,) = (tmp_path / "cache" / "downloads" / "ocw_extracted").iterdir()
    extracted = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert extracted == ["dataset/test.json", "dataset/train.json", "dataset/validation.json"]


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_split_file_over_the_cap_is_refused_and_nothing_kept(
    tmp_path, clean_walls, monkeypatch, kind
):
    monkeypatch.setattr(source_files, "MAX_MEMBER_BYTES", 4000)
    big = json.dumps({"dataset": [], "pad": "x" * 5000}).encode()
    if kind == "tar":
        archive = _tar_with(tmp_path, clean_walls, _member("dataset/OCW.json", data=big))
    else:
        archive = tmp_path / "OCW.zip"
        with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
            zipped.writestr("dataset/OCW.json", big)
    cache = tmp_path / "cache"
    with pytest.raises(ocw_walls.OCWFormatError, match=r"member 'dataset/OCW\.json'.*4000"):
        source_files.extract_archive(str(archive), archive, cache, where=ocw_walls.OCWWhere)
    assert [p for p in cache.rglob("*") if p.is_file()] == []
