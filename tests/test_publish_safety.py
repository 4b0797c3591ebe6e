"""ocw-hub publish, safely: nothing outside the folder is uploaded, the check and the upload
plan agree on every file, the repository mirrors the export in one commit, bad input ends in
one line, and the pre-release stand-in is not published as OCW unless forced. The exports of
the fixtures are not the official release either: the tests of the upload pass ``force``.

No test touches the network: a fake ``HfApi`` records the calls, and the subprocess tests point
``HF_ENDPOINT`` at a closed local port.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from ocw_fixtures import OCW_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.data.export import build_export
from ocw_hub.data.hub_check import check_export, check_space, inspect_export
from ocw_hub.data.hub_files import planned_files
from ocw_hub.data.publish import ExportError, PrereleaseExportError, publish
from ocw_hub.resources import metric_dir

HUB_DATA = Path(__file__).parent / "data" / "hub_export"
runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``out`` of a build of ocw_wordnet + ocw_randomized (4-character ids) and wote."""
    work = tmp_path_factory.mktemp("built")
    sources = {
        "ocw_wordnet": HUB_DATA / "ocw",
        "ocw_randomized": HUB_DATA / "ocw",
        "wote": HUB_DATA / "wote",
    }
    build_export(sources, work / "out", cache_dir=work / "cache", verification_mode="no_checks")
    return work / "out"


@pytest.fixture()
def export(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of the OCW export, free to damage."""
    return Path(shutil.copytree(built / "ocw", tmp_path / "export"))


class FakeApi:
    """Records the calls publish makes to ``HfApi``; the repository starts with ``files``."""

    token = "hf_fake_token"

    def __init__(self, files: list[str] | None = None) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.files = list(files or [".gitattributes"])

    def create_repo(self, repo_id: str, **kw: object) -> None:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kw}))

    def create_branch(self, repo_id: str, **kw: object) -> None:
        self.calls.append(("create_branch", {"repo_id": repo_id, **kw}))

    def list_repo_files(self, repo_id: str, **kw: object) -> list[str]:
        self.calls.append(("list_repo_files", {"repo_id": repo_id, **kw}))
        return list(self.files)

    def create_commit(self, repo_id: str, **kw: object) -> None:
        self.calls.append(("create_commit", {"repo_id": repo_id, **kw}))

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def operations(self) -> tuple[list[str], list[str]]:
        """(deleted paths, added paths) of the one commit."""
        (commit,) = [kw for name, kw in self.calls if name == "create_commit"]
        ops = commit["operations"]
        deleted = [op.path_in_repo for op in ops if isinstance(op, CommitOperationDelete)]
        added = [op.path_in_repo for op in ops if isinstance(op, CommitOperationAdd)]
        assert len(deleted) + len(added) == len(ops)
        return deleted, added


@pytest.fixture()
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline mode off for a test that publishes to a fake api: the variable, and the
    constant huggingface_hub read from it on import (set when the whole run is offline, as
    in .ci/run)."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def _one_line_error(result) -> str:
    """The error of a failed command: exit 1, one line after ``error:``, no traceback."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, result.output
    return errors[0]


# --------------------------------------------------------------------------------------------
# Symbolic links and the upload plan
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_link_leaving_the_folder_is_refused_by_check_and_publish(
    export: Path, tmp_path: Path, online: None
) -> None:
    secret = tmp_path / "token"
    secret.write_text("hf_secret_token")
    (export / "data" / "notes.txt").symlink_to(secret)
    problems = check_export(export)
    assert len(problems) == 1
    assert problems[0] == (
        f"data/notes.txt: a symbolic link to {secret.resolve()}, outside the folder (it would "
        "be uploaded); replace it by the file itself or remove it"
    )
    api = FakeApi()
    with pytest.raises(ExportError, match="outside the folder"):
        publish(export, "org/ocw", api=api)
    assert api.calls == []  # nothing was sent
    result = runner.invoke(app, ["publish", str(export), "--repo-id", "org/ocw", "--dry-run"])
    assert result.exit_code == 1 and "data/notes.txt: a symbolic link" in result.output


@pytest.mark.slow
def test_linked_folder_and_dangling_link_are_refused(export: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "id_rsa").write_text("key")
    (export / "data" / "more").symlink_to(tmp_path / "outside", target_is_directory=True)
    (export / "gone.parquet").symlink_to(tmp_path / "nowhere.parquet")
    problems = check_export(export)
    assert any(p.startswith("data/more: a symbolic link to") for p in problems)
    assert any(
        p.startswith("gone.parquet: a symbolic link to") and "does not exist" in p for p in problems
    )
    assert "data/more/id_rsa" not in {f.path for f in planned_files(export)}


def test_link_inside_the_folder_is_fine(export: Path) -> None:
    (export / "LICENSE").write_text("MIT\n")
    (export / "COPYING").symlink_to(export / "LICENSE")
    report = inspect_export(export)
    assert report.problems == []
    assert {"COPYING", "LICENSE"} <= {f.path for f in report.files}


def test_check_and_the_upload_plan_agree_on_every_file(export: Path, online: None) -> None:
    """One function lists the files: the check examines exactly what publish uploads."""
    (export / "notes.txt").write_text("hello")
    (export / ".env").write_text("HF_TOKEN=hf_secret")  # hidden: never uploaded
    (export / ".cache").mkdir()
    (export / ".cache" / "x.parquet").write_bytes(b"not parquet")  # hidden folder: ignored
    report = inspect_export(export)
    assert report.problems == []
    assert report.differences == ["notes.txt: belongs to no config; uploaded as is"]
    api = FakeApi()
    uploaded = publish(export, "org/ocw", api=api, force=True)
    assert [f.path for f in uploaded] == [f.path for f in report.files]
    _, added = api.operations()
    assert added == [f.path for f in report.files]
    assert ".env" not in added and "notes.txt" in added and "README.md" in added


# --------------------------------------------------------------------------------------------
# The repository mirrors the export, in one commit
# --------------------------------------------------------------------------------------------


def test_republishing_without_a_config_deletes_its_old_files(export: Path, online: None) -> None:
    """The repo held ocw_randomized; the export no longer does: one commit deletes its files
    and uploads the rest."""
    before = [".gitattributes", *(f.path for f in planned_files(export)), "old-notes.md"]
    shutil.rmtree(export / "data" / "ocw_randomized")
    card = export / "README.md"
    text = card.read_text()
    start = text.index("- config_name: ocw_randomized\n  data_files:")
    end = text.index("- config_name: ocw_wordnet\n  data_files:")
    text = text[:start] + text[end:]
    start = text.index("- config_name: ocw_randomized\n  features:")
    end = text.index("- config_name: ocw_wordnet\n  features:")
    card.write_text(text[:start] + text[end:])
    board = yaml.safe_load((export / "eval.yaml").read_text())  # its leaderboard tasks too
    board["tasks"] = [t for t in board["tasks"] if t["config"] != "ocw_randomized"]
    (export / "eval.yaml").write_text(yaml.safe_dump(board))
    assert check_export(export) == []
    api = FakeApi(before)
    publish(export, "org/ocw", revision="v2", api=api, force=True)
    assert api.names() == ["create_repo", "create_branch", "list_repo_files", "create_commit"]
    assert api.calls[2][1] == {"repo_id": "org/ocw", "repo_type": "dataset", "revision": "v2"}
    deleted, added = api.operations()
    named = {path.rsplit("-", 1)[0]: path for path in before if path.endswith(".parquet")}
    assert deleted == [
        *(named[f"data/ocw_randomized/{s}"] for s in ("test", "train", "validation")),
        "old-notes.md",
    ]
    assert added == ["README.md"] + [
        named[f"data/ocw_wordnet/{s}"] for s in ("test", "train", "validation")
    ] + ["eval.yaml"]
    commit = api.calls[3][1]
    assert commit["repo_type"] == "dataset" and commit["revision"] == "v2"
    assert ".gitattributes" not in deleted  # the Hub's LFS rules are kept


def test_publish_creates_the_repo_then_commits_once(export: Path, online: None) -> None:
    api = FakeApi()
    files = publish(export, "org/ocw", private=True, api=api, force=True)
    assert api.names() == ["create_repo", "list_repo_files", "create_commit"]
    assert api.calls[0][1] == {
        "repo_id": "org/ocw",
        "repo_type": "dataset",
        "private": True,
        "exist_ok": True,
    }
    deleted, added = api.operations()
    assert deleted == [] and added == [f.path for f in files] and len(files) == 8
    message = api.calls[2][1]["commit_message"]
    assert message == "Upload Only Connect Wall (OCW) with ocw-hub (mirror of the folder)"


def test_metric_folder_publishes_as_a_space(tmp_path: Path, online: None) -> None:
    assert check_space(metric_dir()) == []
    api = FakeApi([".gitattributes", "README.md", "stale.py"])
    files = publish(metric_dir(), "org/ocw_metric", space=True, api=api)
    paths = {f.path for f in files}
    # Every file of the folder: the card, the Space files, the script and each sibling module.
    assert paths == {p.name for p in metric_dir().iterdir() if p.is_file()}
    assert {"app.py", "ocw_metric.py", "inputs.py", "grouping.py", "spans.py"} <= paths
    assert not any("__pycache__" in p for p in paths)
    assert api.calls[0][1]["repo_type"] == "space" and api.calls[0][1]["space_sdk"] == "gradio"
    deleted, added = api.operations()
    assert deleted == ["stale.py"] and sorted(added) == sorted(paths)
    broken = Path(shutil.copytree(metric_dir(), tmp_path / "m"))
    (broken / "app.py").unlink()
    result = runner.invoke(
        app, ["publish", str(broken), "--repo-id", "o/m", "--space", "--dry-run"]
    )
    assert result.exit_code == 1 and "app.py: missing" in result.output
    for script in broken.glob("*.py"):
        script.unlink()
    (broken / "app.py").write_text("")
    assert check_space(broken) == [f"{broken}: no metric script besides app.py"]


def test_folder_of_several_exports_is_refused(built: Path) -> None:
    with pytest.raises(ExportError, match="holds 2 exports; publish each to its own repository"):
        publish(built, "org/both", dry_run=True)
    for name in ("ocw", "wote"):
        files = publish(built / name, f"org/{name}", dry_run=True, force=True)
        assert files[0].path == "README.md"


# --------------------------------------------------------------------------------------------
# One line for every bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dry_run", [True, False])
@pytest.mark.parametrize("repo_id", ["org/bad..name", "a/b/c", "org/name with spaces"])
def test_malformed_repo_id_is_one_line(export: Path, repo_id: str, dry_run: bool) -> None:
    args = ["publish", str(export), "--repo-id", repo_id] + (["--dry-run"] if dry_run else [])
    line = _one_line_error(runner.invoke(app, args))
    assert line.startswith(f"error: repo id {repo_id!r}: ")


def test_offline_publish_is_one_line(export: Path) -> None:
    """conftest sets HF_HUB_OFFLINE=1: refused before any request."""
    args = ["publish", str(export), "--repo-id", "org/ocw", "--force"]
    line = _one_line_error(runner.invoke(app, args))
    assert line == "error: publishing needs the Hub, but HF_HUB_OFFLINE is set (offline mode)"


def test_space_with_broken_card_yaml_is_one_finding(tmp_path: Path) -> None:
    broken = Path(shutil.copytree(metric_dir(), tmp_path / "m"))
    card = broken / "README.md"
    card.write_text(card.read_text().replace("sdk: gradio", "sdk: [gradio", 1))
    problems = check_space(broken)
    assert len(problems) == 1 and "README.md: unreadable card YAML" in problems[0]
    result = runner.invoke(app, ["publish", str(broken), "--repo-id", "o/m", "--space"])
    line = _one_line_error(result)
    assert line.startswith(f"error: {broken}: not a publishable Space: {broken}/README.md: ")
    assert "unreadable card YAML (while parsing a flow sequence" in line


def _publish_in_a_clean_env(folder: Path, home: Path, **env: str) -> subprocess.CompletedProcess:
    """``ocw-hub publish`` in a subprocess whose Hub is a closed local port (no network)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    clean.update(HF_HOME=str(home), HF_ENDPOINT="http://127.0.0.1:9", **env)
    code = "from ocw_hub.cli import app; app()"
    return subprocess.run(
        [sys.executable, "-c", code, "publish", str(folder), "--repo-id", "org/ocw", "--force"],
        capture_output=True,
        text=True,
        check=False,
        env=clean,
        timeout=120,
    )


@pytest.mark.slow
def test_publish_without_a_token_is_one_line(export: Path, tmp_path: Path) -> None:
    done = _publish_in_a_clean_env(export, tmp_path / "home")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: no Hugging Face token: set HF_TOKEN or log in with `hf auth login` (a token "
        "with write access)"
    ]


@pytest.mark.slow
def test_hub_that_cannot_be_reached_is_one_line(export: Path, tmp_path: Path) -> None:
    done = _publish_in_a_clean_env(export, tmp_path / "home", HF_TOKEN="hf_not_a_real_token")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the Hub to publish org/ocw")


# --------------------------------------------------------------------------------------------
# The pre-release stand-in
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An export of real walls with the pre-release 6-character ids (tests/data/ocw)."""
    work = tmp_path_factory.mktemp("stand_in")
    with pytest.warns(UserWarning, match="6-character pre-release"):
        build_export(
            {"default": OCW_FIXTURE}, work / "out", work / "cache", verification_mode="no_checks"
        )
    return work / "out" / "ocw"


@pytest.mark.slow
def test_stand_in_is_refused_without_force(stand_in: Path, online: None) -> None:
    assert "> **Provenance: not the official OCW release.**" in (stand_in / "README.md").read_text()
    report = inspect_export(stand_in)
    assert report.problems == [] and report.prerelease == ["default"]
    api = FakeApi()
    with pytest.raises(PrereleaseExportError) as caught:
        publish(stand_in, "org/ocw", api=api)
    assert caught.value.configs == ["default"] and api.calls == []
    line = _one_line_error(
        runner.invoke(app, ["publish", str(stand_in), "--repo-id", "org/ocw", "--dry-run"])
    )
    assert "config(s) default hold the 6-character wall ids of the pre-release export" in line
    assert line.endswith("pass --force to publish it anyway")
    result = runner.invoke(
        app, ["publish", str(stand_in), "--repo-id", "org/ocw", "--dry-run", "--force"]
    )
    assert result.exit_code == 0 and "Would upload to org/ocw" in result.output
    files = publish(stand_in, "org/ocw", api=api, force=True)
    assert api.operations()[1] == [f.path for f in files]
    check = runner.invoke(app, ["check", str(stand_in)])
    assert check.exit_code == 0 and "publish refuses it without --force" in check.output
