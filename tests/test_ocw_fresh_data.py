"""OCW.py and fresh data: archives extracted by content and the cache keyed on the content (a
replaced or edited source with the same size and mtime gives its new rows).
"""

from __future__ import annotations

import os
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import datasets
import pytest
from ocw_builder_support import DATASETS_MAJOR, build, make_folder, source_files, synthetic_wall

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
