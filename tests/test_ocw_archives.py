"""OCW.py's sources: folder layouts, a tarball or zip as data_dir, the download path, truncated
or unsafe archives (synthetic walls in ``tmp_path``).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import datasets
import pytest
from ocw_builder_support import (
    arrow_files,
    assert_fails_cleanly,
    build,
    make_folder,
    ocw_walls,
    source_files,
    write_split,
)

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
