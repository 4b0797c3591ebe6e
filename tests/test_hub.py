"""ocw-hub check / publish: the viewer check and the upload, without touching the network."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ocw_fixtures import write_ablation
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.export import build_export
from ocw_hub.publish import ExportError, check_export, check_space, planned_files, publish
from ocw_hub.resources import metric_dir

runner = CliRunner()


@pytest.fixture(scope="module")
def clean_export(tmp_path_factory: pytest.TempPathFactory, ocw_raw: Path) -> Path:
    work = tmp_path_factory.mktemp("hub")
    sources = {
        "ocw_wordnet": write_ablation(ocw_raw, work / "w", "wordnet"),
        "ocw_randomized": write_ablation(ocw_raw, work / "r", "randomized"),
    }
    out = work / "export"
    build_export(sources, out, cache_dir=work / "cache", verification_mode="no_checks")
    return out


@pytest.fixture()
def export(clean_export: Path, tmp_path: Path) -> Path:
    """A fresh copy of a valid export, free to damage."""
    return Path(shutil.copytree(clean_export, tmp_path / "export"))


def _files(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix(): p.stat().st_size for p in folder.rglob("*") if p.is_file()
    }


def test_dry_run_lists_exactly_the_export_files(export: Path) -> None:
    result = runner.invoke(app, ["publish", str(export), "--repo-id", "org/ocw", "--dry-run"])
    assert result.exit_code == 0, result.output
    files = _files(export)
    assert len(files) == 7  # card + 2 configs x 3 splits
    assert {(f.path, f.size) for f in planned_files(export)} == set(files.items())
    for path, size in files.items():
        assert path in result.output and str(size) in result.output


def test_valid_export_passes_the_viewer_check(export: Path) -> None:
    assert check_export(export) == []
    result = runner.invoke(app, ["check", str(export)])
    assert result.exit_code == 0 and "OK" in result.output


def test_stray_py_at_root_is_refused(export: Path) -> None:
    (export / "OCW.py").write_text("# a loading script\n")
    with pytest.raises(ExportError, match=r"OCW\.py: a \.py file at the root"):
        publish(export, "org/ocw", dry_run=True)
    result = runner.invoke(app, ["publish", str(export), "--repo-id", "org/ocw", "--dry-run"])
    assert result.exit_code == 1 and "OCW.py" in result.output


def test_missing_parquet_file_is_refused(export: Path) -> None:
    (export / "data/ocw_wordnet/test-00000-of-00001.parquet").unlink()
    with pytest.raises(ExportError, match="config 'ocw_wordnet' split 'test': no file matches"):
        publish(export, "org/ocw", dry_run=True)


def test_parquet_file_no_config_names_is_refused(export: Path) -> None:
    shutil.copy(
        export / "data/ocw_wordnet/test-00000-of-00001.parquet", export / "data/extra.parquet"
    )
    assert check_export(export) == [
        "data/extra.parquet: a Parquet file no config of the card names"
    ]


def test_card_with_wrong_row_count_is_refused(export: Path) -> None:
    card = export / "README.md"
    text = card.read_text()
    assert "num_examples: 4" in text
    card.write_text(text.replace("num_examples: 4", "num_examples: 5", 1))
    problems = check_export(export)
    assert len(problems) == 1
    assert "card says 5 rows, files hold 4" in problems[0]


def test_features_that_disagree_with_the_card_are_refused(export: Path) -> None:
    path = export / "data/ocw_randomized/train-00000-of-00001.parquet"
    table = pq.read_table(path).drop_columns(["episode"])
    metadata = json.loads(table.schema.metadata[b"huggingface"])
    del metadata["info"]["features"]["episode"]
    table = table.replace_schema_metadata({b"huggingface": json.dumps(metadata).encode()})
    pq.write_table(table, path)
    problems = check_export(export)
    assert len(problems) == 1
    assert problems[0].startswith("data/ocw_randomized/train-00000-of-00001.parquet: features")
    assert "differ from the card's dataset_info for config 'ocw_randomized'" in problems[0]


def test_unreadable_parquet_is_refused(export: Path) -> None:
    (export / "data/ocw_wordnet/train-00000-of-00001.parquet").write_bytes(b"not parquet")
    problems = check_export(export)
    assert any("not readable as Parquet" in p for p in problems)


def test_card_without_configs_is_refused(export: Path) -> None:
    (export / "README.md").write_text("---\nlicense: mit\n---\n# no configs\n")
    assert "no `configs`" in check_export(export)[0]


class FakeApi:
    """Records the calls publish makes to HfApi (no network)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def create_repo(self, repo_id: str, **kw: object) -> None:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kw}))

    def create_branch(self, repo_id: str, **kw: object) -> None:
        self.calls.append(("create_branch", {"repo_id": repo_id, **kw}))

    def upload_folder(self, **kw: object) -> None:
        self.calls.append(("upload_folder", kw))


def test_publish_uploads_in_one_commit(export: Path) -> None:
    api = FakeApi()
    files = publish(export, "org/ocw", revision="v1", private=True, api=api)
    assert [name for name, _ in api.calls] == ["create_repo", "create_branch", "upload_folder"]
    assert api.calls[0][1] == {
        "repo_id": "org/ocw",
        "repo_type": "dataset",
        "private": True,
        "exist_ok": True,
    }
    upload = api.calls[2][1]
    assert upload["repo_type"] == "dataset" and upload["revision"] == "v1"
    assert (
        sorted(upload["allow_patterns"]) == sorted(f.path for f in files) == sorted(_files(export))
    )


def test_metric_folder_publishes_as_a_space(tmp_path: Path) -> None:
    assert check_space(metric_dir()) == []
    api = FakeApi()
    files = publish(metric_dir(), "org/ocw_metric", space=True, api=api)
    paths = {f.path for f in files}
    assert {"README.md", "app.py", "requirements.txt", "ocw_metric.py", "compute_score.py"} <= paths
    assert not any("__pycache__" in p for p in paths)
    assert api.calls[0][1]["repo_type"] == "space" and api.calls[0][1]["space_sdk"] == "gradio"
    broken = Path(shutil.copytree(metric_dir(), tmp_path / "m"))
    (broken / "app.py").unlink()
    result = runner.invoke(
        app, ["publish", str(broken), "--repo-id", "o/m", "--space", "--dry-run"]
    )
    assert result.exit_code == 1 and "app.py: missing" in result.output
    for script in ("ocw_metric.py", "compute_score.py"):
        (broken / script).unlink()
    (broken / "app.py").write_text("")
    assert check_space(broken) == [f"{broken}: no metric script besides app.py"]


def test_parquet_written_by_hand_without_features_is_checked_by_arrow_types(export: Path) -> None:
    """A file without the `huggingface` metadata still has its Arrow types compared."""
    path = export / "data/ocw_wordnet/validation-00000-of-00001.parquet"
    table = pq.read_table(path)
    table = table.set_column(
        table.schema.get_field_index("season"), "season", table["season"].cast(pa.int64())
    ).replace_schema_metadata(None)
    pq.write_table(table, path)
    problems = check_export(export)
    assert len(problems) == 1 and "features" in problems[0]


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/abs/data/ocw_wordnet/test-00000-of-00001.parquet", "outside the folder"),
        ("../hub_backup/data/ocw_wordnet/test-00000-of-00001.parquet", "outside the folder"),
        ("''", "empty or non-string"),
    ],
)
def test_paths_outside_the_folder_are_refused(export: Path, path: str, why: str) -> None:
    card = export / "README.md"
    card.write_text(
        card.read_text().replace(
            "path: data/ocw_wordnet/test-00000-of-00001.parquet", f"path: {path}"
        )
    )
    problems = check_export(export)
    assert any("split 'test'" in p and why in p for p in problems), problems


def test_data_files_as_a_list_of_strings(export: Path) -> None:
    """The Hub's short form: a list of paths, all in the train split."""
    card = export / "README.md"
    text = card.read_text()
    start = text.index("- config_name: ocw_wordnet\n  data_files:\n")
    end = text.index("dataset_info:")
    short = (
        "- config_name: ocw_wordnet\n  data_files:\n"
        "  - data/ocw_wordnet/train-00000-of-00001.parquet\n"
    )
    card.write_text(text[:start] + short + text[end:])
    problems = check_export(export)
    # readable: only the two other splits are now named by no config
    assert problems == [
        "data/ocw_wordnet/test-00000-of-00001.parquet: a Parquet file no config of the card names",
        "data/ocw_wordnet/validation-00000-of-00001.parquet: a Parquet file no config of the "
        "card names",
    ]
