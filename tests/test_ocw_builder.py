"""Tests of the OCW loading script ``OCW.py`` (imported by path, run on the installed datasets).

Small inputs are synthetic walls written by the tests into ``tmp_path`` (no ``../shared``
needed); the full-scale tests read the stand-in release in ``../shared/data/ocw/dataset`` and
the real quirk walls of ``onlyconnect.json`` (fixtures ``ocw_dir``, ``ocw_raw``).
"""

from __future__ import annotations

import copy
import datetime
import json
import re
import warnings
from collections import Counter
from pathlib import Path

import datasets
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ocw_builder_support import (
    GROUP_NAMES,
    as_release,
    build,
    make_folder,
    source_files,
    write_split,
)
from ocw_fixtures import Pairs, dumps

# ------------------------------------------------------------------------------------------
# Helpers and fixtures
# ------------------------------------------------------------------------------------------


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
