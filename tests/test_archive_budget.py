"""The archive budget of ``source_files.extract_archive``: one budget for the whole extraction
(each split file, all split files together, the number of members), checked before anything
is written. The budgets are lowered here so that a bomb is a few kB, not GBs."""

from __future__ import annotations

import io
import json
import re
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from ocw_fixtures import OCW_FIXTURE, tarball

from ocw_hub.resources import load_sibling

source_files = load_sibling("source_files")
ocw_walls = load_sibling("ocw_walls")

#: A split file's size in these tests: each member is under the per-member cap (4000), four
#: of them are over the total (10_000).
PADDED = json.dumps({"dataset": [], "pad": " " * 3000}).encode()


def _tar(
    path: Path, members: list[tuple[str, bytes]], links: tuple[tuple[str, str], ...] = ()
) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in links:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.LNKTYPE, target
            tar.addfile(info)
    return path


def _zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        for name, data in members:
            zipped.writestr(name, data)
    return path


def _twenty_members(tmp: Path) -> Path:
    """The bomb of the report: 20 split files each under the per-member cap."""
    return _tar(tmp / "bomb.tar.gz", [(f"dataset/part{i:02}.json", PADDED) for i in range(20)])


def _twenty_members_zip(tmp: Path) -> Path:
    return _zip(tmp / "bomb.zip", [(f"dataset/part{i:02}.json", PADDED) for i in range(20)])


def _hard_links(tmp: Path) -> Path:
    """One split file and 19 hard links to it: each link is read as the whole file."""
    links = [(f"dataset/link{i:02}.json", "dataset/OCW.json") for i in range(19)]
    return _tar(tmp / "links.tar.gz", [("dataset/OCW.json", PADDED)], tuple(links))


def _many_empty_members(tmp: Path) -> Path:
    """More members than the cap (empty, not even split files)."""
    return _tar(tmp / "many.tar.gz", [(f"dataset/n{i}.txt", b"") for i in range(60)])


def _many_empty_members_zip(tmp: Path) -> Path:
    return _zip(tmp / "many.zip", [(f"dataset/n{i}.txt", b"") for i in range(60)])


def _one_large_member(tmp: Path) -> Path:
    big = json.dumps({"dataset": [], "pad": "x" * 5000}).encode()
    return _tar(tmp / "big.tar.gz", [("dataset/OCW.json", big)])


BOMBS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "20 members, tar.gz": (_twenty_members, r"20 split files hold \d+ bytes.*10000"),
    "20 members, zip": (_twenty_members_zip, r"20 split files hold \d+ bytes.*10000"),
    "hard links to one member": (_hard_links, r"20 split files hold \d+ bytes.*10000"),
    "members over the count, tar": (_many_empty_members, r"more than 50 members"),
    "members over the count, zip": (_many_empty_members_zip, r"more than 50 members"),
    "one member over its cap": (_one_large_member, r"member 'dataset/OCW\.json'.*4000"),
}


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_files, "MAX_MEMBER_BYTES", 4000)
    monkeypatch.setattr(source_files, "MAX_ARCHIVE_BYTES", 10_000)
    monkeypatch.setattr(source_files, "MAX_ARCHIVE_MEMBERS", 50)


@pytest.mark.parametrize("name", list(BOMBS))
def test_an_archive_over_its_budget_is_refused_whole(tmp_path, small_budget, name):
    make, problem = BOMBS[name]
    archive = make(tmp_path)
    cache = tmp_path / "cache"
    with pytest.raises(ocw_walls.OCWFormatError) as raised:
        source_files.extract_archive(str(archive), archive, cache, where=ocw_walls.OCWWhere)
    message = str(raised.value)
    assert message.startswith(str(archive)) and "\n" not in message
    assert re.search(problem, message), message
    assert [p for p in cache.rglob("*") if p.is_file()] == []


def test_an_archive_just_inside_its_budget_is_extracted(tmp_path, small_budget):
    """Three padded split files (under 10_000 bytes together) and 46 other members: 49 in
    all, under the count; everything that can be a split file is extracted."""
    members = [(f"dataset/{s}.json", PADDED) for s in ("train", "validation", "test")]
    members += [(f"dataset/n{i}.txt", b"") for i in range(46)]
    archive = _tar(tmp_path / "ok.tar.gz", members)
    folder = source_files.extract_archive(
        str(archive), archive, tmp_path / "cache", where=ocw_walls.OCWWhere
    )
    assert sorted(p.name for p in (folder / "dataset").iterdir()) == [
        "test.json",
        "train.json",
        "validation.json",
    ]
    assert (folder / "dataset" / "test.json").read_bytes() == PADDED


def test_the_release_shape_fits_the_default_budget(tmp_path):
    """The fixture release packed as the real OCW.tar.gz is packed extracts under the shipped
    budget, byte for byte."""
    archive = tarball(OCW_FIXTURE, tmp_path / "OCW.tar.gz")
    folder = source_files.extract_archive(
        str(archive), archive, tmp_path / "cache", where=ocw_walls.OCWWhere
    )
    for original in OCW_FIXTURE.glob("*.json"):
        assert (folder / OCW_FIXTURE.name / original.name).read_bytes() == original.read_bytes()
