"""OCW.py on bad input: a clear OCWFormatError naming the file and the wall, and nothing
written; the input the builder reads is what it checks (duplicate keys, blank or inconsistent
walls, repeated clues).
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from ocw_builder_support import arrow_files, assert_fails_cleanly, build, make_folder, write_split
from ocw_fixtures import Pairs, dumps

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
