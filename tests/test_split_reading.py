"""Loading a split of raw OCW files reads and checks that split (and what its checks need: the
other splits' wall ids and sizes), not every split: a command scoring the test walls pays for
no validation of the training walls, and a flaw there is that split's own error."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from ocw_hub.data.sources import load_rows
from ocw_hub.resources import load_sibling

ocw_walls = load_sibling("ocw_walls")


def _copy(fixture: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "ocw"
    shutil.copytree(fixture, folder)
    return folder


def _edit(folder: Path, split: str, edit) -> None:  # type: ignore[no-untyped-def]
    path = folder / f"{split}.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document["dataset"])
    path.write_text(json.dumps(document), encoding="utf-8")


def _rows(folder: Path, split: str, checks: str = "no_checks") -> list[dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_rows("default", split, folder, verification_mode=checks).rows


def test_a_flaw_in_another_split_is_not_read(ocw_fixture_dir: Path, tmp_path: Path) -> None:
    folder = _copy(ocw_fixture_dir, tmp_path)
    expected = _rows(folder, "test")

    def blank_clue(walls: list[dict]) -> None:
        walls[0]["groups"]["group_1"]["gt_words"][0] = " "

    _edit(folder, "train", blank_clue)
    assert _rows(folder, "test") == expected
    with pytest.raises(ocw_walls.OCWFormatError, match="blank"):
        _rows(folder, "train")


def test_the_scored_split_warns_alone(ocw_fixture_dir: Path, tmp_path: Path) -> None:
    """The validation wall 0f1677's numeric clue is warned of when validation is read only."""
    folder = _copy(ocw_fixture_dir, tmp_path)
    for split, warned in (("test", False), ("validation", True)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_rows("default", split, folder, verification_mode="no_checks")
        assert any("0f1677" in str(w.message) for w in caught) is warned, split


@pytest.mark.parametrize("scored", ["test", "train"])
def test_a_wall_id_in_two_splits_is_still_refused(
    ocw_fixture_dir: Path, tmp_path: Path, scored: str
) -> None:
    folder = _copy(ocw_fixture_dir, tmp_path)
    test_id = json.loads((folder / "test.json").read_text(encoding="utf-8"))["dataset"][0]
    _edit(folder, "train", lambda walls: walls[0].update(wall_id=test_id["wall_id"]))
    with pytest.raises(ocw_walls.OCWFormatError, match="in two splits, 'train'"):
        _rows(folder, scored)


def test_split_sizes_are_checked_from_every_split(ocw_fixture_dir: Path, tmp_path: Path) -> None:
    """The fixture's 4/3/6 walls are not the official sizes: refused, naming each split."""
    folder = _copy(ocw_fixture_dir, tmp_path)
    with pytest.raises(Exception, match="train") as caught:
        _rows(folder, "test", checks="basic_checks")
    assert "validation" in str(caught.value)


def test_read_splits_agrees_with_read_all_splits(ocw_fixture_dir: Path) -> None:
    files = ocw_walls.find_wall_files(ocw_fixture_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        everything = ocw_walls.read_all_splits(files)
        walls, sizes = ocw_walls.read_splits(files, {"test"})
    assert walls == {"test": everything["test"]}
    assert sizes == {split: len(rows) for split, rows in everything.items()}


def test_line_breaking_chars_are_the_categories_of_every_code_point() -> None:
    """``line_breaking_char`` (one search, run on every clue) finds exactly the characters of
    the categories ``LINE_BREAKING`` names, by this Python's Unicode database."""
    import sys
    import unicodedata

    source_files = load_sibling("source_files")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        expected = unicodedata.category(char) in source_files.LINE_BREAKING
        assert (source_files.line_breaking_char(f"ab{char}") is not None) is expected, hex(code)
    assert source_files.line_breaking_char("Café\u2028x\n") == (4, "\u2028")


def test_check_name_refuses_what_its_three_checks_refuse() -> None:
    """The one-search path of ``check_name`` (the usual name) accepts and refuses the same
    strings as ``check_text``, ``is_blank`` and ``check_line`` one after the other."""
    import random

    source_files = load_sibling("source_files")
    where = source_files.Where("file.json")
    tricky = [
        "a",
        "Z",
        "é",
        "8",
        "½",
        " ",
        "\t",
        "\n",
        "\x85",
        "\u200b",
        "\u2028",
        "\u2029",
        "\ud800",
        "\udfff",
        "\x7f",
        "\x9f",
        "\xa0",
        "-",
        "👩",
        "\u0301",
        "Ⅻ",
    ]
    rng = random.Random(0)
    texts = [""] + tricky + ["".join(rng.choices(tricky, k=rng.randint(1, 5))) for _ in range(5000)]

    def slow(text: str) -> bool:
        try:
            source_files.check_text(text, where, "f")
            source_files.check_line(text, where, "f")
        except ValueError:
            return False
        return not source_files.is_blank(text)

    for text in texts:
        try:
            source_files.check_name(text, where, "f")
            accepted = True
        except ValueError:
            accepted = False
        assert accepted is slow(text), repr(text)
