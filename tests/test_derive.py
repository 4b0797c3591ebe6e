"""``ocw-hub derive randomized`` / :mod:`ocw_hub.data.randomize`: the ``ocw_randomized`` ablation.

Full scale: the derived test split equals the upstream script's output byte for byte
(``../shared/oracle/randomized/test.json``) and builds as ``ocw_randomized``. Small scale (no
``../shared``): the release-layout fixture of ``tests/data/ocw/dataset`` (6 real test walls,
including ``654041`` whose group ``b62c7c_02`` holds ``Bask`` twice) and hand-made walls.
"""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.data.randomize import (
    RandomizeError,
    RepeatedClueWarning,
    _SortedWithout,
    derive_randomized,
    randomize_test_split,
)
from ocw_hub.errors import OutputPathError
from ocw_hub.resources import load_script

FIXTURE = Path(__file__).resolve().parent / "data" / "ocw" / "dataset"
DRAWN = ("group_2", "group_3", "group_4")
#: The group of wall 654041 that lists the clue ``Bask`` twice (real data).
BASK_GROUP = "b62c7c_02"

runner = CliRunner()


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def make_wall(wall_id: str, clues: list[list[str]] | None = None, **extra: Any) -> dict:
    """A raw wall in the release shape; clues default to ``<wall>-<group>-<i>`` (all distinct)."""
    clues = clues or [[f"{wall_id}-{g}-{i}" for i in range(4)] for g in range(1, 5)]
    groups = {
        f"group_{g}": {
            "group_id": f"{wall_id}_0{g}",
            "gt_words": list(clues[g - 1]),
            "gt_connection": f"connection {wall_id} {g}",
            "human_performance": {"grouping": g % 2, "connection": (g // 2) % 2},
        }
        for g in range(1, 5)
    }
    return {
        "wall_id": wall_id,
        "season": 1,
        "episode": 1,
        "words": [c for group in clues for c in group],
        "gt_connections": [group["gt_connection"] for group in groups.values()],
        "groups": groups,
        "overall_human_performance": {
            "grouping": [g["human_performance"]["grouping"] for g in groups.values()],
            "connections": [g["human_performance"]["connection"] for g in groups.values()],
        },
        **extra,
    }


def check_wall(old: dict, new: dict, by_group: dict[str, tuple[str, dict]]) -> None:
    """One derived wall: group_1 kept, 3 groups of 3 other walls as written, no clue shared
    between groups, derived fields recomputed."""
    groups = list(new["groups"].values())
    assert list(new["groups"]) == ["group_1", *DRAWN]
    assert new["groups"]["group_1"] == old["groups"]["group_1"]
    origins = [by_group[g["group_id"]] for g in groups]
    assert [o[1] for o in origins] == groups  # carried as written
    assert len({o[0] for o in origins}) == 4  # four different source walls
    for i, group in enumerate(groups[1:], start=1):
        earlier = {c for g in groups[:i] for c in g["gt_words"]}
        assert earlier.isdisjoint(group["gt_words"])
    assert Counter(new["words"]) == Counter(c for g in groups for c in g["gt_words"])
    assert new["gt_connections"] == [g["gt_connection"] for g in groups]
    hp = [g["human_performance"] for g in groups]
    assert new["overall_human_performance"] == {
        "grouping": [h["grouping"] for h in hp],
        "connections": [h["connection"] for h in hp],
    }


def check_invariants(source: list[dict], derived: list[dict]) -> None:
    """What the algorithm guarantees, whatever the seed."""
    by_group = {
        g["group_id"]: (wall["wall_id"], g) for wall in source for g in wall["groups"].values()
    }
    assert [w["wall_id"] for w in derived] == [w["wall_id"] for w in source]
    for old, new in zip(source, derived, strict=True):
        check_wall(old, new, by_group)
        assert by_group[new["groups"]["group_1"]["group_id"]][0] == old["wall_id"]
    # every group 2-4 of the split is used exactly once
    drawn_ids = [w["groups"][name]["group_id"] for w in derived for name in DRAWN]
    assert sorted(drawn_ids) == sorted(
        w["groups"][name]["group_id"] for w in source for name in DRAWN
    )


def raw_test_walls(folder: Path) -> list[dict]:
    return json.loads((folder / "test.json").read_text(encoding="utf-8"))["dataset"]


def repeats(walls: list[dict]) -> dict[str, list[str]]:
    """wall id -> clues it holds more than once."""
    found = {}
    for wall in walls:
        clues = [c for c, n in Counter(wall["words"]).items() if n > 1]
        if clues:
            found[wall["wall_id"]] = clues
    return found


# --------------------------------------------------------------------------------------------
# Full scale: the oracle
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle(shared_data: Path) -> Path:
    """What upstream ``scripts/randomize_test_set.py`` writes for the stand-in's test split."""
    return shared_data.parent / "oracle" / "randomized" / "test.json"


@pytest.fixture(scope="module")
def derived_full(ocw_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("randomized") / "OCW_randomized"
    with pytest.warns(RepeatedClueWarning) as record:
        derive_randomized(ocw_dir, out)
    # the stand-in has one such wall: c76bc0 receives 654041's group with Bask twice
    messages = [str(w.message) for w in record if w.category is RepeatedClueWarning]
    assert len(messages) == 1
    assert "'c76bc0'" in messages[0] and "'Bask' appears 2 times" in messages[0]
    assert f"group {BASK_GROUP!r} of wall '654041'" in messages[0]
    return out


def test_full_scale_bytes_equal_the_upstream_output(
    derived_full: Path, ocw_dir: Path, oracle: Path
) -> None:
    assert (derived_full / "test.json").read_bytes() == oracle.read_bytes()
    for split in ("train", "validation"):
        assert (derived_full / f"{split}.json").read_bytes() == (
            ocw_dir / f"{split}.json"
        ).read_bytes()
    assert sorted(p.name for p in derived_full.iterdir()) == [
        "derived.json",
        "test.json",
        "train.json",
        "validation.json",
    ]


def test_full_scale_invariants_and_repeats(derived_full: Path, ocw_dir: Path) -> None:
    derived = raw_test_walls(derived_full)
    check_invariants(raw_test_walls(ocw_dir), derived)
    assert len(derived) == 494
    assert repeats(derived) == {"c76bc0": ["Bask"]}


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_full_scale_builds_as_ocw_randomized(
    derived_full: Path, tmp_path: Path, oracle: Path
) -> None:
    ocw = load_script("OCW")
    built = ocw_hub.load_dataset("ocw_randomized", data_dir=derived_full, cache_dir=tmp_path)
    assert {split: ds.num_rows for split, ds in built.items()} == {
        "train": 62,
        "validation": 62,
        "test": 494,
    }
    assert built["test"].to_list() == ocw.read_walls(oracle, "test")
    assert built["train"].to_list() == ocw.read_walls(derived_full / "train.json", "train")


def test_full_scale_cli_same_bytes(ocw_dir: Path, tmp_path: Path, oracle: Path) -> None:
    result = runner.invoke(
        app, ["derive", "randomized", "--data-dir", str(ocw_dir), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.output
    assert "c76bc0" in result.output  # the warning, as a one-line note
    assert (tmp_path / "o" / "test.json").read_bytes() == oracle.read_bytes()


# --------------------------------------------------------------------------------------------
# Small scale: the release-layout fixture (6 real test walls)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def derived_small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    """The fixture derived with seed 42, and the warnings of that run."""
    out = tmp_path_factory.mktemp("small") / "out"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = derive_randomized(FIXTURE, out)
    assert written == {s: out / f"{s}.json" for s in ("train", "validation", "test")}
    return out, caught


def test_fixture_derived_walls(derived_small: tuple[Path, list]) -> None:
    out, caught = derived_small
    source, derived = raw_test_walls(FIXTURE), raw_test_walls(out)
    check_invariants(source, derived)
    # exactly the walls holding the Bask group repeat a clue, and each gets one warning
    expected = {
        w["wall_id"]: ["Bask"]
        for w in derived
        if any(g["group_id"] == BASK_GROUP for g in w["groups"].values())
    }
    assert len(expected) == 1 and repeats(derived) == expected
    ours = [str(w.message) for w in caught if w.category is RepeatedClueWarning]
    assert len(ours) == 1 and repr(next(iter(expected))) in ours[0]
    # the rest of the document is kept: season_to_walls_map, key order, other splits
    document = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))
    written_doc = json.loads((out / "test.json").read_text(encoding="utf-8"))
    assert written_doc["season_to_walls_map"] == document["season_to_walls_map"]
    assert list(written_doc) == list(document)
    assert [list(w) for w in derived] == [list(w) for w in source]
    for split in ("train", "validation"):
        assert (out / f"{split}.json").read_bytes() == (FIXTURE / f"{split}.json").read_bytes()


def test_fixture_builds_as_ocw_randomized(derived_small: tuple[Path, list], tmp_path: Path) -> None:
    out, _ = derived_small
    ocw = load_script("OCW")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        test = ocw_hub.load_dataset(
            "ocw_randomized",
            split="test",
            data_dir=out,
            cache_dir=tmp_path / "cache",
            verification_mode="no_checks",  # 4/3/6 walls, not the official sizes
        )
        assert test.to_list() == ocw.read_walls(out / "test.json", "test")
    derived = raw_test_walls(out)
    assert test["wall_id"] == [w["wall_id"] for w in raw_test_walls(FIXTURE)]
    assert [[g["group_id"] for g in w["groups"].values()] for w in test] == [
        [g["group_id"] for g in w["groups"].values()] for w in derived
    ]
    assert test["words"] == [w["words"] for w in derived]


def test_same_seed_same_bytes_other_seed_other_walls(tmp_path: Path) -> None:
    walls = raw_test_walls(FIXTURE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RepeatedClueWarning)
        first = randomize_test_split(walls, seed=42)
        again = randomize_test_split(walls, seed=42)
        other = randomize_test_split(walls, seed=1)
    assert json.dumps(first) == json.dumps(again)
    check_invariants(walls, other)
    assert [w["groups"] for w in other] != [w["groups"] for w in first]
    assert raw_test_walls(FIXTURE) == walls  # the input is not modified


def test_fixture_seed_without_a_valid_group_is_an_error(tmp_path: Path) -> None:
    # seed 0 on these 6 walls leaves no valid group for the last wall (upstream: endless loop)
    with pytest.raises(RandomizeError, match=r"test wall '\w+': no valid group left") as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RepeatedClueWarning)
            derive_randomized(FIXTURE, tmp_path / "out", seed=0)
    assert info.value.wall_id in {w["wall_id"] for w in raw_test_walls(FIXTURE)}
    assert "seed 0" in str(info.value)
    assert not (tmp_path / "out" / "test.json").exists()  # nothing written


# --------------------------------------------------------------------------------------------
# Hand-made walls
# --------------------------------------------------------------------------------------------


def test_four_walls_each_take_one_group_from_each_other_wall() -> None:
    walls = [make_wall(w) for w in "ABCD"]
    derived = randomize_test_split(walls)
    check_invariants(walls, derived)
    for wall in derived:
        prefixes = sorted(g["group_id"][0] for g in wall["groups"].values())
        assert prefixes == ["A", "B", "C", "D"]


def test_two_walls_error_names_the_wall_and_slot() -> None:
    # A takes one group from B; no third wall is left for A's group_3
    with pytest.raises(RandomizeError) as info:
        randomize_test_split([make_wall("A"), make_wall("B")])
    assert info.value.wall_id == "A"
    assert "no valid group left for group_3" in str(info.value)
    assert "every other test wall already gave a group" in str(info.value)


def test_every_group_sharing_a_clue_is_an_error_not_a_hang() -> None:
    # every group of every wall holds the clue "Common": no group can join group_1
    walls = [
        make_wall(w, [[f"{w}{g}a", f"{w}{g}b", f"{w}{g}c", "Common"] for g in range(4)])
        for w in "ABCDE"
    ]
    with pytest.raises(RandomizeError, match="'A': no valid group left for group_2") as info:
        randomize_test_split(walls)
    assert "shares a clue" in str(info.value)


def test_clue_shared_with_one_group_only_is_avoided() -> None:
    # B's group_2 shares "Shared" with A's group_1: it may go anywhere but into wall A
    walls = [make_wall(w) for w in "ABCDEF"]
    walls[0]["groups"]["group_1"]["gt_words"][0] = "Shared"
    walls[1]["groups"]["group_2"]["gt_words"][0] = "Shared"
    succeeded = 0
    for seed in range(20):
        try:
            derived = randomize_test_split(walls, seed=seed)
        except RandomizeError:
            continue
        check_invariants(walls, derived)
        assert "B_02" not in [g["group_id"] for g in derived[0]["groups"].values()]
        succeeded += 1
    assert succeeded >= 5


def test_extra_keys_are_carried_over_in_order() -> None:
    walls = [make_wall(w, note=f"note {w}") for w in "ABCD"]
    for wall in walls:
        wall["groups"]["group_2"]["source"] = f"from {wall['wall_id']}"
        wall["overall_human_performance"]["comment"] = "kept"
    derived = randomize_test_split(walls)
    for new in derived:
        assert list(new) == list(walls[0])  # extra key last, as in the input
        assert new["note"] == f"note {new['wall_id']}"
        assert new["overall_human_performance"]["comment"] == "kept"
        for group in new["groups"].values():
            if group["group_id"].endswith("_02"):
                assert group["source"] == f"from {group['group_id'][0]}"


def test_repeat_inside_group_1_is_warned() -> None:
    walls = [make_wall(w) for w in "ABCD"]
    walls[2]["groups"]["group_1"]["gt_words"][1] = "C-1-0"  # C's kept group lists C-1-0 twice
    with pytest.warns(RepeatedClueWarning, match=r"wall 'C': clue 'C-1-0' appears 2 times"):
        derived = randomize_test_split(walls)
    assert repeats(derived) == {"C": ["C-1-0"]}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda w: w["groups"].pop("group_3"), r"wall 'B' \(#1\): field 'groups'"),
        (lambda w: w["groups"]["group_2"].pop("group_id"), r"'groups\.group_2\.group_id'"),
        (lambda w: w["groups"]["group_4"]["gt_words"].pop(), r"'groups\.group_4\.gt_words'"),
        (lambda w: w["groups"]["group_1"]["gt_words"].__setitem__(0, None), r"gt_words\[0\]"),
        (lambda w: w.__setitem__("wall_id", "A"), r"'A' \(#1\): field 'wall_id': duplicated"),
    ],
)
def test_malformed_walls_are_named(mutate: Any, message: str) -> None:
    walls = [make_wall(w) for w in "ABCD"]
    mutate(walls[1])
    with pytest.raises(RandomizeError, match=message):
        randomize_test_split(walls)


@pytest.mark.slow
@given(st.sets(st.text(max_size=3), max_size=12), st.data())
def test_candidates_are_sorted_ids_without_the_seen_walls(ids: set[str], data: Any) -> None:
    # rng.choice on the candidates must draw what it draws on sorted(wall_ids - seen_walls)
    ordered = sorted(ids)
    seen = data.draw(st.sets(st.sampled_from(ordered), max_size=4)) if ordered else set()
    expected = sorted(ids - seen)
    candidates = _SortedWithout(ordered, {w: i for i, w in enumerate(ordered)}, seen)
    assert len(candidates) == len(expected)
    assert [candidates[i] for i in range(len(expected))] == expected
    assert [candidates[-i] for i in range(1, len(expected) + 1)] == expected[::-1]
    with pytest.raises(IndexError):
        candidates[len(expected)]
    seed = data.draw(st.integers(0, 2**16))
    if expected:
        assert random.Random(seed).choice(candidates) == random.Random(seed).choice(expected)


@st.composite
def split_and_seed(draw: st.DrawFn) -> tuple[list[dict], int]:
    """4-12 walls of distinct clues, a few of them replaced by clues shared across walls."""
    walls = [make_wall(f"w{w}") for w in range(draw(st.integers(min_value=4, max_value=12)))]
    places = st.tuples(
        st.integers(0, len(walls) - 1), st.sampled_from(["group_1", *DRAWN]), st.integers(0, 3)
    )
    for w, name, i in draw(st.lists(places, max_size=8)):
        walls[w]["groups"][name]["gt_words"][i] = draw(st.sampled_from(["X", "Y", "Z"]))
    return walls, draw(st.integers(min_value=0, max_value=2**32))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(split_and_seed())
def test_any_split_gives_a_valid_result_or_a_named_error(case: tuple[list[dict], int]) -> None:
    walls, seed = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RepeatedClueWarning)
        try:
            derived = randomize_test_split(walls, seed=seed)
        except RandomizeError as error:
            assert error.wall_id in {w["wall_id"] for w in walls}
            assert "no valid group left" in str(error)
            return
    check_invariants(walls, derived)


# --------------------------------------------------------------------------------------------
# Output folder and CLI
# --------------------------------------------------------------------------------------------


def test_out_equal_to_or_inside_the_input_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "dataset"
    source.mkdir()
    for split in ("train", "validation", "test"):
        (source / f"{split}.json").write_bytes((FIXTURE / f"{split}.json").read_bytes())
    before = {p.name: p.read_bytes() for p in source.iterdir()}
    for out in (source, source / "randomized", tmp_path):
        with pytest.raises(OutputPathError, match="overlaps the input"):
            derive_randomized(source, out)
    assert {p.name: p.read_bytes() for p in source.iterdir()} == before


def test_out_with_other_json_files_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "old_test.json").write_text("{}")
    with pytest.raises(RandomizeError, match=r"holds other JSON files \(old_test\.json\)"):
        derive_randomized(FIXTURE, out)
    assert sorted(p.name for p in out.iterdir()) == ["old_test.json"]


def test_missing_input_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(RandomizeError, match="no-such: no such folder"):
        derive_randomized(tmp_path / "no-such", tmp_path / "out")


def test_cli_small_fixture_and_errors(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["derive", "randomized", "--data-dir", str(FIXTURE), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "warning:" in result.output and "'Bask' appears 2 times" in result.output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RepeatedClueWarning)
        expected = randomize_test_split(raw_test_walls(FIXTURE), seed=42)
    assert raw_test_walls(out) == expected

    inside = runner.invoke(
        app, ["derive", "randomized", "--data-dir", str(out), "--out", str(out / "again")]
    )
    assert inside.exit_code == 1
    assert "error:" in inside.output and "overlaps the input" in inside.output

    bad_seed = runner.invoke(
        app,
        ["derive", "randomized", "--data-dir", str(FIXTURE), "--out", str(tmp_path / "o")]
        + ["--seed", "0"],
    )
    assert bad_seed.exit_code == 1
    assert "no valid group left" in bad_seed.output
