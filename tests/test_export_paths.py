"""Where ``ocw-hub build`` writes: refused or done right (symlinks, read-only folders, an
earlier layout, a folder that is not an export), and cleaned up every time.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from export_support import HUB_DATA, _build_small, _contents, _tree, runner
from huggingface_hub import DatasetCard
from ocw_fixtures import OCW_FIXTURE, write_ablation

from ocw_hub.cli import app
from ocw_hub.data import staging as staging_module
from ocw_hub.data.export import build_export
from ocw_hub.data.hub_check import check_export
from ocw_hub.data.staging import ExportPathError
from ocw_hub.resources import load_script

# --------------------------------------------------------------------------------------------
# Where build writes: refused or done right, and cleaned up every time
# --------------------------------------------------------------------------------------------


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob(".*"))


def test_out_symlink_updates_the_exports_behind_it(tmp_path: Path) -> None:
    real = tmp_path / "exports" / "v1"
    real.mkdir(parents=True)
    link = tmp_path / "hub"
    link.symlink_to(real, target_is_directory=True)
    assert _build_small(link, tmp_path / "c", "wote").exit_code == 0
    assert link.is_symlink() and (real / "wote" / "README.md").is_file()
    (train,) = (real / "wote" / "data" / "wote").glob("train-*.parquet")
    before = train.stat().st_ino
    result = _build_small(link, tmp_path / "c", "wote")
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == real.resolve()
    after = train.stat().st_ino  # same rows: the same name
    assert after != before  # the export behind the link was rewritten
    assert _hidden(tmp_path / "exports") == []
    # a dangling link is refused, nothing is created at its target
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "missing" / "hub", target_is_directory=True)
    result = _build_small(dangling, tmp_path / "c", "wote")
    assert result.exit_code == 1 and "which does not exist" in result.output
    assert not (tmp_path / "missing").exists()


def test_export_folder_symlink_updates_its_target(tmp_path: Path) -> None:
    (tmp_path / "hub").mkdir()
    elsewhere = tmp_path / "disk" / "wote-export"
    elsewhere.mkdir(parents=True)
    (tmp_path / "hub" / "wote").symlink_to(elsewhere, target_is_directory=True)
    result = _build_small(tmp_path / "hub", tmp_path / "c", "wote")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "hub" / "wote").is_symlink()
    assert _tree(elsewhere)[0] == "README.md" and len(_tree(elsewhere)) == 5
    assert _hidden(tmp_path / "disk") == []
    # a dangling link is refused before any work
    shutil.rmtree(elsewhere)
    result = _build_small(tmp_path / "hub", tmp_path / "c", "wote")
    assert result.exit_code == 1 and "which does not exist" in result.output
    assert not elsewhere.exists()


def test_cache_dir_inside_out_is_refused(tmp_path: Path) -> None:
    result = _build_small(tmp_path / "hub", tmp_path / "hub" / "cache", "wote")
    assert result.exit_code == 1
    assert "--cache-dir: cache folder" in result.output
    assert "overlaps the export folder" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "hub").exists()  # refused before any work
    with pytest.raises(ExportPathError) as caught:
        build_export({"wote": HUB_DATA / "wote"}, tmp_path / "hub", tmp_path / "hub" / "wote" / "c")
    assert caught.value.parameter == "cache_dir"


def test_read_only_folder_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _build_small(tmp_path / "hub", tmp_path / "c", "wote").exit_code == 0
    locked = tmp_path / "hub" / "wote" / "data" / "wote"
    before = _contents(tmp_path / "hub")
    locked.chmod(0o555)
    try:
        if os.geteuid() == 0:  # root writes anyway: let os.access see what a user would
            real_access = os.access
            monkeypatch.setattr(
                staging_module.os,
                "access",
                lambda p, mode: False if Path(p) == locked else real_access(p, mode),
            )
        result = _build_small(tmp_path / "hub", tmp_path / "c", "wote")
    finally:
        locked.chmod(0o755)
    assert result.exit_code == 1, result.output
    assert "--out: export folder" in result.output
    assert "data/wote is read-only, so the previous export cannot be replaced" in result.output
    assert _contents(tmp_path / "hub") == before
    assert _hidden(tmp_path) == []


def test_failed_install_puts_every_export_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert _build_small(tmp_path / "hub", tmp_path / "c").exit_code == 0
    before = _contents(tmp_path / "hub")
    real_rename = Path.rename

    def rename(self: Path, target: Path) -> Path:  # the second export cannot be moved in
        if (
            Path(target).name == "wote"
            and self.name.startswith(".wote.")
            and ".old-" not in self.name
        ):
            raise PermissionError(13, "Permission denied", str(target))
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    result = _build_small(tmp_path / "hub", tmp_path / "c")
    assert result.exit_code == 1
    assert "cannot be replaced (PermissionError: Permission denied)" in result.output
    assert "the previous exports are kept" in result.output and "Traceback" not in result.output
    assert _contents(tmp_path / "hub") == before
    assert _hidden(tmp_path / "hub") == []


def test_old_export_that_cannot_be_removed_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed is installed: a failure to delete the replaced export never ends in exit 1."""
    assert _build_small(tmp_path / "hub", tmp_path / "c", "wote").exit_code == 0
    real_rmtree = shutil.rmtree

    def rmtree(path, *args, **kwargs):
        if ".old-" in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(staging_module.shutil, "rmtree", rmtree)
    result = _build_small(tmp_path / "hub", tmp_path / "c", "wote")
    assert result.exit_code == 0, result.output
    assert "could not be removed" in result.output and "remove it by hand" in result.output
    assert check_export(tmp_path / "hub" / "wote") == []


def test_read_only_files_of_an_old_export_are_removed(tmp_path: Path) -> None:
    """Files (not folders) made read-only do not stop a rebuild: nothing is left behind."""
    assert _build_small(tmp_path / "hub", tmp_path / "c", "wote").exit_code == 0
    for file in (tmp_path / "hub" / "wote").rglob("*.parquet"):
        file.chmod(0o444)
    assert _build_small(tmp_path / "hub", tmp_path / "c", "wote").exit_code == 0
    assert _hidden(tmp_path) == []


def test_out_of_the_earlier_one_folder_layout_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "hub"
    (out / "data" / "wote").mkdir(parents=True)
    (out / "README.md").write_text("---\nconfigs: []\n---\n")
    result = _build_small(out, tmp_path / "c", "wote")
    assert result.exit_code == 1
    assert "an export of the earlier one-folder layout (README.md, data/)" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "data"]


def test_out_that_is_not_an_export_is_never_deleted(tmp_path: Path) -> None:
    source = write_ablation(OCW_FIXTURE, tmp_path / "src", "wordnet")
    precious = tmp_path / "thesis"
    precious.mkdir()
    (precious / "chapter1.tex").write_text("keep me")
    base = [
        "build",
        "-c",
        "ocw_wordnet",
        "--data-dir",
        str(source),
        "--no-checks",
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    result = runner.invoke(app, [*base, "--out", str(precious)])
    assert result.exit_code == 1 and "not an ocw-hub export" in result.output
    assert (precious / "chapter1.tex").read_text() == "keep me"
    # an export's own folder with other files is not replaced either
    (precious / "chapter1.tex").unlink()
    (precious / "ocw").mkdir()
    (precious / "ocw" / "notes.txt").write_text("mine")
    result = runner.invoke(app, [*base, "--out", str(precious)])
    assert result.exit_code == 1 and "not an ocw-hub export" in result.output
    assert (precious / "ocw" / "notes.txt").read_text() == "mine"
    # the source's own folder (or one above it), or a folder inside it, is refused
    result = runner.invoke(app, [*base, "--out", str(tmp_path / "src")])
    assert result.exit_code == 1 and "holds the source" in result.output
    result = runner.invoke(app, [*base, "--out", str(source / "hub")])
    assert result.exit_code == 1 and "lies inside the source folder" in result.output
    assert (source / "easy_test_wordnet.json").is_file() and not (source / "hub").exists()
    # a file is refused
    (tmp_path / "file").write_text("x")
    result = runner.invoke(app, [*base, "--out", str(tmp_path / "file")])
    assert result.exit_code == 1 and "is a file" in result.output
    # an empty folder and a previous export are replaced
    (tmp_path / "empty").mkdir()
    assert runner.invoke(app, [*base, "--out", str(tmp_path / "empty")]).exit_code == 0
    assert runner.invoke(app, [*base, "--out", str(tmp_path / "empty")]).exit_code == 0
    assert (tmp_path / "empty" / "ocw" / "README.md").is_file()
    assert (tmp_path / "empty" / "ocw").stat().st_mode & 0o055  # not a private mkdtemp folder


def test_bad_source_leaves_previous_export_untouched(tmp_path: Path) -> None:
    good = write_ablation(OCW_FIXTURE, tmp_path / "good", "wordnet")
    out = tmp_path / "hub"
    build_export(
        {"ocw_wordnet": good}, out, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    assert DatasetCard.load(out / "ocw" / "README.md").data.license == "mit"
    before = _contents(out)
    bad = tmp_path / "bad" / "OCW_wordnet"
    bad.mkdir(parents=True)
    for f in good.iterdir():
        (bad / f.name).write_text(f.read_text()[:-40])  # truncated JSON
    result = runner.invoke(
        app,
        [
            "build",
            "-c",
            "ocw_wordnet",
            "--data-dir",
            str(bad),
            "--out",
            str(out),
            "--cache-dir",
            str(tmp_path / "c"),
            "--no-checks",
        ],
    )
    assert result.exit_code == 1
    assert "easy_" in result.output and "wordnet.json" in result.output
    assert _contents(out) == before
    assert _hidden(tmp_path) == []


def test_failed_first_build_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "OCW_wordnet"
    bad.mkdir()
    (bad / "easy_train_wordnet.json").write_text("{}")
    out = tmp_path / "exports" / "hub"
    result = runner.invoke(
        app,
        [
            "build",
            "-c",
            "ocw_wordnet",
            "--data-dir",
            str(bad),
            "--out",
            str(out),
            "--cache-dir",
            str(tmp_path / "c"),
        ],
    )
    assert result.exit_code == 1
    assert "validation" in result.output  # the missing split is named
    assert sorted(p.name for p in tmp_path.iterdir()) == ["OCW_wordnet", "c"]


def test_unavailable_source_names_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No local copy and no download: the message says which flag to give (no network used:
    the official URL is pointed at a local file that does not exist)."""
    ocw = load_script("OCW")
    monkeypatch.setitem(ocw._URLS, "ocw_wordnet", str(tmp_path / "nowhere" / "OCW_wordnet.tar.gz"))
    for config in ocw.OCW.BUILDER_CONFIGS:
        if config.name == "ocw_wordnet":
            monkeypatch.setattr(config, "url", ocw._URLS["ocw_wordnet"])
    result = runner.invoke(
        app,
        [
            "build",
            "-c",
            "ocw_wordnet",
            "--out",
            str(tmp_path / "hub"),
            "--cache-dir",
            str(tmp_path / "c"),
        ],
    )
    assert result.exit_code == 1
    assert "--data-dir ocw_wordnet=DIR" in result.output
    assert not (tmp_path / "hub").exists()


def test_missing_local_dir_names_the_flag(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["build", "-c", "wote", "--data-dir", str(tmp_path / "nope"), "--out", str(tmp_path / "o")],
    )
    assert result.exit_code == 1
    assert "--data-dir" in result.output and "nope" in result.output
    assert not (tmp_path / "o").exists()


def test_unknown_config_flag(tmp_path: Path) -> None:
    result = runner.invoke(app, ["build", "-c", "ocw_easy", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "unknown config" in result.output


def test_copy_of_another_size_needs_no_checks(tmp_path: Path) -> None:
    source = write_ablation(OCW_FIXTURE, tmp_path / "src", "wordnet")
    args = [
        "build",
        "-c",
        "ocw_wordnet",
        "--data-dir",
        str(source),
        "--out",
        str(tmp_path / "hub"),
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "split sizes differ from the official ones" in result.output
    assert "pass --no-checks" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "hub").exists()
    assert runner.invoke(app, [*args, "--no-checks"]).exit_code == 0
