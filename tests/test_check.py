"""ocw-hub check: the viewer check of an export, every ``configs`` form ``datasets`` accepts,
and Arrow types that cast to the card's (without touching the network)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.data.export import build_export
from ocw_hub.data.hub_check import check_export, inspect_export
from ocw_hub.data.hub_files import planned_files
from ocw_hub.data.publish import ExportError, publish

#: Synthetic OCW walls with 4-character ids (as the official release): tests/data/hub_export.
HUB_OCW = Path(__file__).parent / "data" / "hub_export" / "ocw"
TEST_FILE = "data/ocw_wordnet/test-00000-of-00001.parquet"
runner = CliRunner()


@pytest.fixture(scope="module")
def clean_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An OCW export of two configs (train 2, validation 2, test 3 walls each)."""
    work = tmp_path_factory.mktemp("hub")
    sources = {"ocw_wordnet": HUB_OCW, "ocw_randomized": HUB_OCW}
    build_export(sources, work / "out", cache_dir=work / "cache", verification_mode="no_checks")
    return work / "out" / "ocw"


@pytest.fixture()
def export(clean_export: Path, tmp_path: Path) -> Path:
    """A fresh copy of a valid export, free to damage, with its files (named by content,
    ``<split>-<sha12>.parquet``) renamed ``<split>-00000-of-00001.parquet`` in the folder and
    the card, so the tests can name them; the checks do not depend on the names."""
    folder = Path(shutil.copytree(clean_export, tmp_path / "export"))
    card = folder / "README.md"
    text = card.read_text()
    for file in sorted(folder.glob("data/*/*.parquet")):
        split = file.name.rsplit("-", 1)[0]
        renamed = file.with_name(f"{split}-00000-of-00001.parquet")
        text = text.replace(
            file.relative_to(folder).as_posix(), renamed.relative_to(folder).as_posix()
        )
        file.rename(renamed)
    card.write_text(text)
    return folder


def _files(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix(): p.stat().st_size for p in folder.rglob("*") if p.is_file()
    }


def _set_configs(export: Path, configs: list[dict]) -> None:
    """Replace the card's ``configs`` (the rest of the YAML and the text kept)."""
    card = export / "README.md"
    _, header, body = card.read_text().split("---\n", 2)
    data = yaml.safe_load(header)
    data["configs"] = configs
    card.write_text(f"---\n{yaml.safe_dump(data, sort_keys=False)}---\n{body}")


def test_dry_run_lists_exactly_the_export_files(export: Path) -> None:
    args = ["publish", str(export), "--repo-id", "org/ocw", "--dry-run", "--force"]
    result = runner.invoke(app, args)  # the synthetic walls are not the official release
    assert result.exit_code == 0, result.output
    files = _files(export)
    assert len(files) == 8  # card, eval.yaml + 2 configs x 3 splits
    assert {(f.path, f.size) for f in planned_files(export)} == set(files.items())
    for path, size in files.items():
        assert path in result.output and str(size) in result.output


def test_valid_export_passes_the_viewer_check(export: Path) -> None:
    report = inspect_export(export)
    assert report.problems == [] and report.differences == [] and report.prerelease == []
    result = runner.invoke(app, ["check", str(export)])
    assert result.exit_code == 0 and "OK for the Hub viewer (8 files)" in result.output


def test_stray_py_at_root_is_refused(export: Path) -> None:
    (export / "OCW.py").write_text("# a loading script\n")
    with pytest.raises(ExportError, match=r"OCW\.py: a \.py file at the root"):
        publish(export, "org/ocw", dry_run=True)
    result = runner.invoke(app, ["publish", str(export), "--repo-id", "org/ocw", "--dry-run"])
    assert result.exit_code == 1 and "OCW.py" in result.output


def test_missing_parquet_file_is_refused(export: Path) -> None:
    (export / TEST_FILE).unlink()
    with pytest.raises(ExportError, match="config 'ocw_wordnet' split 'test': no file matches"):
        publish(export, "org/ocw", dry_run=True)


def test_parquet_file_no_config_names_is_refused(export: Path) -> None:
    shutil.copy(export / TEST_FILE, export / "data/extra.parquet")
    assert check_export(export) == [
        "data/extra.parquet: a Parquet file no config of the card names"
    ]


def test_card_with_wrong_row_count_is_refused(export: Path) -> None:
    card = export / "README.md"
    text = card.read_text()
    assert "num_examples: 3" in text
    card.write_text(text.replace("num_examples: 3", "num_examples: 5", 1))
    problems = check_export(export)
    assert len(problems) == 1
    assert "card says 5 rows, files hold 3" in problems[0]


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
    assert "episode: missing -> int32" in problems[0]


def test_unreadable_parquet_is_refused(export: Path) -> None:
    (export / "data/ocw_wordnet/train-00000-of-00001.parquet").write_bytes(b"not parquet")
    problems = check_export(export)
    assert any("not readable as Parquet" in p for p in problems)


def test_card_without_configs_is_refused(export: Path) -> None:
    (export / "README.md").write_text("---\nlicense: mit\n---\n# no configs\n")
    assert "no `configs`" in check_export(export)[0]


def test_card_with_broken_yaml_is_one_finding(export: Path) -> None:
    (export / "README.md").write_text("---\nconfigs: [unclosed\n---\n# broken\n")
    problems = check_export(export)
    assert len(problems) == 1 and "unreadable card metadata" in problems[0]


# --------------------------------------------------------------------------------------------
# Arrow types that differ from the card
# --------------------------------------------------------------------------------------------


def _rewrite(path: Path, column: str, pa_type: pa.DataType, keep_metadata: bool = False) -> None:
    table = pq.read_table(path)
    index = table.schema.get_field_index(column)
    table = table.set_column(index, column, table[column].cast(pa_type))
    if not keep_metadata:
        table = table.replace_schema_metadata(None)
    pq.write_table(table, path)


@pytest.mark.parametrize(
    ("column", "pa_type", "change"),
    [
        ("season", pa.int64(), "season: int64 -> int32"),
        ("wall_id", pa.large_string(), "wall_id: large_string -> string"),
    ],
)
def test_types_that_cast_to_the_card_are_a_difference(
    export: Path, column: str, pa_type: pa.DataType, change: str
) -> None:
    """As ``load_dataset`` casts each file to the card's features, such a file still works in
    the viewer: a difference, reported, not a problem."""
    _rewrite(export / "data/ocw_wordnet/validation-00000-of-00001.parquet", column, pa_type)
    report = inspect_export(export)
    assert report.problems == []
    assert report.differences == [
        "data/ocw_wordnet/validation-00000-of-00001.parquet: Arrow types differ from the card's "
        f"for config 'ocw_wordnet' but cast to the card's type ({change})"
    ]
    result = runner.invoke(app, ["check", str(export)])
    assert result.exit_code == 0, result.output
    assert "note:" in result.output and "cast to the card's type" in result.output
    assert "would not work" not in result.output


def test_values_that_do_not_fit_the_card_are_a_problem(export: Path) -> None:
    path = export / "data/ocw_wordnet/test-00000-of-00001.parquet"
    table = pq.read_table(path)
    big = pa.array([2**40] * table.num_rows, pa.int64())
    table = table.set_column(table.schema.get_field_index("season"), "season", big)
    pq.write_table(table.replace_schema_metadata(None), path)
    problems = check_export(export)
    assert len(problems) == 1
    assert problems[0].startswith(
        f"{TEST_FILE}: features differ from the card's dataset_info for config 'ocw_wordnet' and "
        "do not cast to it (season: int64 -> int32; "
    )


# --------------------------------------------------------------------------------------------
# Every configs form datasets accepts
# --------------------------------------------------------------------------------------------


def _splits_of(config: str) -> list[dict]:
    return [
        {"split": s, "path": f"data/{config}/{s}-00000-of-00001.parquet"}
        for s in ("train", "validation", "test")
    ]


@pytest.mark.parametrize(
    "wordnet",
    [
        pytest.param({"data_dir": "data/ocw_wordnet"}, id="data_dir"),
        pytest.param(
            {
                "data_files": [
                    {"split": s, "path": f"data/ocw_wordnet/{s}-*.parquet"}
                    for s in ("train", "validation", "test")
                ]
            },
            id="glob-per-split",
        ),
        pytest.param(
            {
                "data_files": [
                    {"split": "train", "path": ["data/ocw_wordnet/train-00000-of-00001.parquet"]},
                    {"split": "validation", "path": "data/ocw_wordnet/validation-*"},
                    {"split": "test", "path": ["data/ocw_wordnet/test-0000*.parquet"]},
                ]
            },
            id="path-as-list",
        ),
        pytest.param(
            {
                "data_dir": "data",
                "data_files": [
                    {"split": s, "path": f"ocw_wordnet/{s}-00000-of-00001.parquet"}
                    for s in ("train", "validation", "test")
                ],
            },
            id="data_dir-and-data_files",
        ),
    ],
)
def test_every_configs_form_datasets_accepts(export: Path, wordnet: dict) -> None:
    _set_configs(
        export,
        [
            {"config_name": "ocw_wordnet", **wordnet},
            {"config_name": "ocw_randomized", "data_files": _splits_of("ocw_randomized")},
        ],
    )
    assert check_export(export) == []


def test_data_files_as_a_string_or_a_list_name_the_train_split(export: Path) -> None:
    """The short forms: one path or a list of paths, all in the ``train`` split (as the card
    says the config has three splits, the row count of ``train`` then differs)."""
    for short in (
        "data/ocw_wordnet/train-00000-of-00001.parquet",
        ["data/ocw_wordnet/train-00000-of-00001.parquet"],
    ):
        _set_configs(
            export,
            [
                {"config_name": "ocw_wordnet", "data_files": short},
                {"config_name": "ocw_randomized", "data_files": _splits_of("ocw_randomized")},
            ],
        )
        assert check_export(export) == [
            f"{TEST_FILE}: a Parquet file no config of the card names",
            "data/ocw_wordnet/validation-00000-of-00001.parquet: a Parquet file no config of "
            "the card names",
        ]


def test_glob_over_every_split_counts_the_rows_of_all_files(export: Path) -> None:
    _set_configs(
        export,
        [
            {
                "config_name": "ocw_wordnet",
                "data_files": [{"split": "train", "path": "data/ocw_wordnet/*.parquet"}],
            },
            {"config_name": "ocw_randomized", "data_files": _splits_of("ocw_randomized")},
        ],
    )
    assert check_export(export) == [
        "config 'ocw_wordnet' split 'train': card says 2 rows, files hold 7"
    ]


def test_malformed_data_files_entry_is_one_finding(export: Path) -> None:
    _set_configs(export, [{"config_name": "ocw_wordnet", "data_files": [{"split": "train"}]}])
    problems = check_export(export)
    assert len(problems) == 1 and "unreadable card metadata" in problems[0]
    assert "Expected data_files in YAML to be either a string or a list" in problems[0]


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
    card.write_text(card.read_text().replace(f"path: {TEST_FILE}", f"path: {path}"))
    problems = check_export(export)
    assert any("split 'test'" in p and why in p for p in problems), problems


def test_data_dir_outside_the_folder_is_refused(export: Path) -> None:
    _set_configs(export, [{"config_name": "ocw_wordnet", "data_dir": "../elsewhere"}])
    problems = check_export(export)
    assert problems[0] == (
        "config 'ocw_wordnet': data_dir '../elsewhere' is a path outside the folder (the Hub "
        "resolves paths inside the repository only)"
    )


def test_pattern_the_glob_refuses_is_a_finding(export: Path) -> None:
    card = export / "README.md"
    card.write_text(card.read_text().replace(f"path: {TEST_FILE}", "path: data/**.parquet"))
    problems = check_export(export)
    assert problems[0] == (
        "config 'ocw_wordnet' split 'test': ['data/**.parquet']: Invalid pattern: '**' can only "
        "be an entire path component"
    )
