"""ocw-hub build: one Parquet export per dataset, read back by every ``datasets`` era, written
only where it is safe, with cards that say what each dataset is."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from export_support import HUB_DATA, _build_small, _tree, runner
from huggingface_hub import DatasetCard
from ocw_fixtures import OCW_FIXTURE, tarball, write_ablation

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.data.card import season_markdown, season_table, wote_counts_markdown
from ocw_hub.data.export import build_export
from ocw_hub.data.hub_check import check_export, inspect_export
from ocw_hub.resources import load_script

CONFIGS = ("default", "ocw_randomized", "ocw_wordnet", "wote")
EXPORT_OF = {"default": "ocw", "ocw_randomized": "ocw", "ocw_wordnet": "ocw", "wote": "wote"}


@pytest.fixture(scope="module")
def small_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``build`` of default + ocw_wordnet (synthetic walls) and wote (synthetic questions)."""
    work = tmp_path_factory.mktemp("small")
    result = _build_small(work / "hub", work / "cache")
    assert result.exit_code == 0, result.output
    return work / "hub"


# --------------------------------------------------------------------------------------------
# Layout and cards (synthetic sources: run from a plain clone)
# --------------------------------------------------------------------------------------------


def test_one_export_per_dataset(small_export: Path) -> None:
    assert sorted(p.name for p in small_export.iterdir()) == ["ocw", "wote"]
    named = re.compile(r"data/(\w+)/(\w+)-[0-9a-f]{12}\.parquet")  # <split>-<sha12>
    for export, configs in (("ocw", ["default", "ocw_wordnet"]), ("wote", ["wote"])):
        tree = _tree(small_export / export)
        assert tree[0] == "README.md" and tree[-1] == "eval.yaml"  # the leaderboard's
        tree = tree[:-1]
        found = [named.fullmatch(path) for path in tree[1:]]
        assert all(found), tree
        assert [m.groups() for m in found if m] == [
            (c, s) for c in configs for s in ("test", "train", "validation")
        ]
        for path in tree[1:]:
            sha = hashlib.sha256((small_export / export / path).read_bytes()).hexdigest()
            assert path.endswith(f"-{sha[:12]}.parquet")
    for export in ("ocw", "wote"):
        assert check_export(small_export / export) == []
    result = runner.invoke(app, ["check", str(small_export)])
    assert result.exit_code == 0, result.output
    assert "ocw: OK for the Hub viewer (8 files)" in result.output
    assert "wote: OK for the Hub viewer (5 files)" in result.output


def test_ocw_card_metadata(small_export: Path) -> None:
    card = DatasetCard.load(small_export / "ocw" / "README.md")
    data = card.data
    assert data.license == "mit" and "license_link" not in data.to_dict()
    assert data.pretty_name == "Only Connect Wall (OCW)"
    assert data.source_datasets == ["original"]
    assert data.annotations_creators == ["found"] and data.language_creators == ["found"]
    assert "paperswithcode_id" not in data.to_dict()  # none could be confirmed
    assert [c["config_name"] for c in data.configs] == ["default", "ocw_wordnet"]
    assert [c.get("default") for c in data.configs] == [True, None]
    # download_size: the bytes of each config's Parquet files
    for info in data.dataset_info:
        files = (small_export / "ocw" / "data" / info["config_name"]).glob("*.parquet")
        assert info["download_size"] == sum(f.stat().st_size for f in files) > 0
        assert info["dataset_size"] == sum(s["num_bytes"] for s in info["splits"]) > 0
    assert "This copy holds the config(s) `default`, `ocw_wordnet`" in card.text
    assert "@inproceedings{alavi-naeini2023large" in card.text
    assert "## OCW: the Only Connect Wall dataset" in card.text  # README's own section
    assert "WoTe" not in card.text and "Provenance" not in card.text  # 4-character ids


def test_ocw_card_has_the_season_table_with_parsed_dates(small_export: Path) -> None:
    text = (small_export / "ocw" / "README.md").read_text()
    assert "| 1 | 3 | 2008-09-15 | 2008-12-22 |" in text
    assert "| 2 | 4 | 2009-07-13 | 2009-09-21 |" in text
    assert "2 seasons, 7 walls." in text and "not recorded" not in text


def test_season_table_of_the_stand_in_has_no_dates(tmp_path: Path) -> None:
    seasons = season_table("default", OCW_FIXTURE, tmp_path)
    assert seasons is not None
    assert [(s.season, s.num_walls) for s in seasons] == [(1, 8), (2, 2), (3, 1), (13, 1), (15, 1)]
    assert all(s.start_date is None and s.end_date is None for s in seasons)
    text = season_markdown(seasons)
    assert "| 13 | 1 | not recorded | not recorded |" in text
    assert "5 seasons, 13 walls." in text and "null in this copy's source files" in text


def test_season_table_from_a_tarball(tmp_path: Path) -> None:
    """The builder's own extraction is reused for an archive source."""
    source = tmp_path / "dataset"
    shutil.copytree(HUB_DATA / "ocw", source)
    archive = tarball(source, tmp_path / "OCW.tar.gz")
    ocw_hub.load_dataset(
        "default", data_dir=archive, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    seasons = season_table("default", archive, tmp_path / "c")
    assert [(s.season, s.num_walls, str(s.start_date)) for s in seasons or []] == [
        (1, 3, "2008-09-15"),
        (2, 4, "2009-07-13"),
    ]


def test_wote_card_metadata_and_citation(small_export: Path) -> None:
    card = DatasetCard.load(small_export / "wote" / "README.md")
    data = card.data
    assert data.license == "other"
    assert data.license_name == "wote-no-licence-stated"
    assert data.license_link == "https://github.com/grill-lab/WoTe"
    assert "state no licence" in data.license_details
    assert data.source_datasets == ["extended|other-wizard-of-tasks"]
    assert data.annotations_creators == ["crowdsourced", "expert-generated"]
    assert data.language_creators == ["crowdsourced", "found"]
    assert data.task_ids == ["extractive-qa"]
    assert [c["config_name"] for c in data.configs] == ["wote"]
    assert data.configs[0]["default"] is True  # the only config
    assert "{GRILLBot} In Practice: Lessons and Tradeoffs Deploying Large Language Models" in (
        card.text
    )
    assert "Fischer, Sophie and Gemmell, Carlos and Tecklenburg, Niklas and Mackie, Iain" in (
        card.text
    )
    assert "@inproceedings{choi-etal-2022-wizard" in card.text  # with Wizard of Tasks
    assert "Only Connect" not in card.text
    assert (
        "The upstream README states 826 questions and splits of train 248, validation 167, "
        "test 412. The files of this copy, kept as released, hold 8 rows (train 3, "
        "validation 2, test 3)" in card.text
    )


def _wote_row(conversation: str, question_id: str, question: str, **other: str) -> dict:
    return {
        "id": f"{conversation}/{question_id}",
        "conversation_id": conversation,
        "question_id": question_id,
        "question": question,
        "extracted_answer": other.get("answer", "an inch a week"),
        "history": [{"role": "student", "text": "Hi"}],
        "intent_answer": other.get("intent", "answer_question_recipe_steps"),
    }


def test_wote_counts_relate_the_readme_to_the_rows() -> None:
    """Two rows of one conversation repeat the same question and answer under another
    question id (the shape measured in the release's validation split)."""
    rows = {
        "train": [_wote_row("c1", "c1-1", "How long?"), _wote_row("c1", "c1-2", "Why?")],
        "validation": [
            _wote_row("c2", "c2-5", "How often?", intent="answer_question_external_fact"),
            _wote_row("c2", "c3-6", "How often?"),
            _wote_row("c3", "c2-5", "How often?", answer="water daily"),
            _wote_row("c3", "c3-6", "How often?", answer="water daily", intent="x"),
        ],
        "test": [_wote_row("c4", "c4-1", "How long?", answer="an hour")],
    }
    text = wote_counts_markdown(rows)
    assert "hold 7 rows (train 2, validation 4, test 1)" in text
    assert "they hold 3 distinct `question` strings" in text
    assert (
        "2 rows repeat an earlier row of the same conversation (same `question`, "
        "`extracted_answer` and `history`) under another `question_id`: conversation `c2` "
        "(validation): question ids `c2-5`, `c3-6` (they differ in `intent_answer`, "
        "`question_id`); conversation `c3` (validation): question ids `c2-5`, `c3-6` (they "
        "differ in `intent_answer`, `question_id`). Counting each repeated row once gives 5 rows "
        "(train 2, validation 2, test 1)." in text
    )
    assert "Measured:" not in text  # none of the README's counts equals these


def test_wote_counts_say_which_readme_counts_match() -> None:
    questions = [f"Question {i}?" for i in range(826)]
    rows = {
        "train": [_wote_row(f"t{i}", f"t{i}-1", questions[i]) for i in range(248)],
        "validation": [_wote_row(f"v{i}", f"v{i}-1", questions[248 + i]) for i in range(166)]
        + [_wote_row("v0", "v0-2", questions[248]), _wote_row("v0", "v0-3", questions[248])]
        + [_wote_row("w", "w-1", "Question 0?")],
        "test": [_wote_row(f"s{i}", f"s{i}-1", questions[414 + i]) for i in range(412)],
    }
    text = wote_counts_markdown(rows)
    assert "hold 829 rows (train 248, validation 169, test 412)" in text
    assert "Counting each repeated row once gives 827 rows (train 248, validation 167, " in text
    assert (
        "Measured: the README's 826 questions equal the distinct `question` strings; its train, "
        "validation, test sizes equal the rows with each repeated row counted once. This copy "
        "keeps every row as released." in text
    )


def test_stand_in_export_carries_a_provenance_notice(tmp_path: Path) -> None:
    """The shared fixture holds real walls with the pre-release 6-character ids."""
    build_export(
        {"default": OCW_FIXTURE}, tmp_path / "hub", tmp_path / "c", verification_mode="no_checks"
    )
    text = (tmp_path / "hub" / "ocw" / "README.md").read_text()
    notice = text.split("# Only Connect Wall (OCW)\n\n", 1)[1].split("\n\n", 1)[0]
    assert notice.startswith("> **Provenance: not the official OCW release.** The walls of")
    assert "`default` carry the 6-character wall ids of the pre-release export" in notice
    assert inspect_export(tmp_path / "hub" / "ocw").prerelease == ["default"]


# --------------------------------------------------------------------------------------------
# Every datasets era reads what build writes
# --------------------------------------------------------------------------------------------


def _parquet_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.parquet"))


def test_files_carry_features_in_the_notation_3x_reads(small_export: Path) -> None:
    for file in _parquet_files(small_export):
        metadata = pq.read_schema(file).metadata[b"huggingface"].decode()
        assert '"List"' not in metadata and '"Sequence"' in metadata, file
        features = json.loads(metadata)["info"]["features"]
        if "history" in features:
            assert isinstance(features["history"], list)  # a list of structs: [struct]
            assert features["answers"]["text"]["_type"] == "Sequence"
    for export in ("ocw", "wote"):
        yaml_text = (small_export / export / "README.md").read_text().split("\n---\n")[0]
        assert "sequence: string" in yaml_text and "list: string" not in yaml_text


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("config", "source"), [("default", "ocw"), ("wote", "wote")])
def test_every_reader_of_this_version(
    small_export: Path, tmp_path: Path, config: str, source: str
) -> None:
    """load_dataset(folder, config), load_dataset("parquet", data_files=...) and
    Dataset.from_parquet all give the builder's rows and Arrow types."""
    folder = small_export / EXPORT_OF[config]
    built = ocw_hub.load_dataset(
        config, data_dir=HUB_DATA / source, cache_dir=tmp_path / "b", verification_mode="no_checks"
    )
    by_folder = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "f"))
    for split in ("train", "validation", "test"):
        (file,) = (str(f) for f in (folder / "data" / config).glob(f"{split}-*.parquet"))
        by_files = datasets.load_dataset("parquet", data_files=file, cache_dir=str(tmp_path))
        from_parquet = datasets.Dataset.from_parquet(file, cache_dir=str(tmp_path / "p"))
        for dataset in (by_folder[split], by_files["train"], from_parquet):
            assert dataset.to_list() == built[split].to_list()
            assert dataset.features.arrow_schema == built[split].features.arrow_schema


_READ_IN_3X = r"""
import glob, json, sys, datasets
datasets.disable_progress_bars()
out, cache = sys.argv[1], sys.argv[2]
result = {"version": datasets.__version__}
for export, config in (("ocw", "default"), ("wote", "wote")):
    folder = f"{out}/{export}"
    (file,) = glob.glob(f"{folder}/data/{config}/train-*.parquet")
    readers = {
        "folder": datasets.load_dataset(folder, config, split="train", cache_dir=cache),
        "parquet": datasets.load_dataset("parquet", data_files=file, split="train",
                                         cache_dir=cache),
        "from_parquet": datasets.Dataset.from_parquet(file, cache_dir=cache),
    }
    result[config] = {
        name: {"rows": ds.to_list(), "schema": str(ds.data.schema.remove_metadata())}
        for name, ds in readers.items()
    }
print(json.dumps(result))
"""


def test_datasets_3_reads_an_export_written_here(small_export: Path, tmp_path: Path) -> None:
    """The export written by this environment (5.x in CI) read by datasets 3.6.0 in the
    environment ``OCW_DATASETS3_PYTHON`` names (set by .ci/run), with all three readers."""
    if datasets.__version__.startswith("3."):
        pytest.skip("this environment is datasets 3.x: test_every_reader_of_this_version")
    python = os.environ.get("OCW_DATASETS3_PYTHON")
    if not python:
        if os.environ.get("CI"):
            pytest.fail("OCW_DATASETS3_PYTHON is not set: .ci/run must provide datasets==3.6.0")
        pytest.skip("set OCW_DATASETS3_PYTHON to a python with datasets==3.6.0 (as .ci/run does)")
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [python, "-c", _READ_IN_3X, str(small_export), str(tmp_path / "c3")],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["version"].startswith("3.")
    for export, config in (("ocw", "default"), ("wote", "wote")):
        folder = small_export / export
        here = datasets.load_dataset(str(folder), config, split="train", cache_dir=str(tmp_path))
        for reader in ("folder", "parquet", "from_parquet"):
            assert seen[config][reader]["rows"] == here.to_list(), (config, reader)
            assert seen[config][reader]["schema"] == str(here.data.schema.remove_metadata())


def test_check_reports_the_4x_notation_and_never_crashes(small_export: Path, tmp_path: Path):
    """A file written with 4.x+ metadata (``List``): a finding on every version, with the
    reason, not a traceback (datasets 3.x cannot parse it)."""
    folder = Path(shutil.copytree(small_export / "ocw", tmp_path / "ocw"))
    (path,) = (folder / "data" / "default").glob("train-*.parquet")
    table = pq.read_table(path)
    metadata = json.loads(table.schema.metadata[b"huggingface"])
    metadata["info"]["features"]["words"] = {
        "feature": {"dtype": "string", "_type": "Value"},
        "_type": "List",
    }
    pq.write_table(table.replace_schema_metadata({"huggingface": json.dumps(metadata)}), path)
    problems = check_export(folder)
    assert len(problems) == 1
    assert problems[0].startswith(f"data/default/{path.name}: its `huggingface`")
    assert "`List` notation of datasets 4+, which datasets 3.x cannot read" in problems[0]
    result = runner.invoke(app, ["check", str(folder)])
    assert result.exit_code == 1 and "Feature type 'List' not found" in result.output
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------------------------
# The real data (../shared/data): full-scale exports
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory, ocw_dir: Path, ocw_raw: Path, wote_dir: Path):
    work = tmp_path_factory.mktemp("sources")
    return {
        "default": ocw_dir,
        "ocw_randomized": tarball(
            write_ablation(ocw_raw, work, "randomized"), work / "OCW_randomized.tar.gz"
        ),
        "ocw_wordnet": write_ablation(ocw_raw, work, "wordnet"),
        "wote": wote_dir,
    }


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory, sources: dict) -> tuple[Path, Path, str]:
    """One `ocw-hub build` of all four configs (the ablations from small fixtures)."""
    work = tmp_path_factory.mktemp("export")
    out, cache = work / "hub", work / "cache"
    result = runner.invoke(
        app,
        [
            "build",
            "--data-dir",
            f"default={sources['default']}",
            "--data-dir",
            f"ocw_randomized={sources['ocw_randomized']}",
            "--data-dir",
            f"ocw_wordnet={sources['ocw_wordnet']}",
            "--data-dir",
            f"wote={sources['wote']}",
            "--out",
            str(out),
            "--cache-dir",
            str(cache),
            "--no-checks",
        ],
    )
    assert result.exit_code == 0, result.output
    return out, cache, result.output


def test_export_layout_and_summary_table(export: tuple[Path, Path, str]) -> None:
    out, _, output = export
    named = [re.sub(r"-[0-9a-f]{12}\.parquet$", "-<sha12>.parquet", p) for p in _tree(out / "ocw")]
    assert named == ["README.md"] + [
        f"data/{c}/{s}-<sha12>.parquet"
        for c in ("default", "ocw_randomized", "ocw_wordnet")
        for s in ("test", "train", "validation")
    ] + ["eval.yaml"]
    assert len(_tree(out / "wote")) == 5
    assert not list(out.rglob("*.py"))
    for config, split, rows in (("default", "test", 494), ("wote", "validation", 169)):
        assert re.search(rf"{config}\s*│\s*{split}\s*│\s*{rows}\s*│", output)
    # WoTe answers located in the context, per split (as measured by the builder's tests)
    for split, rows, located in (("train", 248, 229), ("validation", 169, 154), ("test", 412, 376)):
        assert re.search(rf"wote\s*│\s*{split}\s*│\s*{rows}\s*│\s*{located}\s*│", output)
    # data warnings of the real walls are reported once, as one-line notes
    assert "0f1677" in output and "654041" in output and "b308e4" in output
    # the stand-in's pre-release wall ids are flagged; the fixtures' ids are not 6 long
    assert "config 'default': the wall ids are the 6-character pre-release ones" in output
    assert "config 'ocw_wordnet': the wall ids" not in output


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("config", CONFIGS)
def test_round_trip_equals_the_builder(
    export: tuple[Path, Path, str], sources: dict, config: str, tmp_path: Path
) -> None:
    out, cache, _ = export
    exported = datasets.load_dataset(str(out / EXPORT_OF[config]), config, cache_dir=str(tmp_path))
    built = ocw_hub.load_dataset(
        config, data_dir=sources[config], cache_dir=cache, verification_mode="no_checks"
    )
    assert list(exported) == ["train", "validation", "test"]
    for split in built:
        assert exported[split].features.arrow_schema == built[split].features.arrow_schema
        if not datasets.__version__.startswith("3."):  # 3.x spells Sequence(struct) its own way
            assert exported[split].features == built[split].features
        assert exported[split].to_list() == built[split].to_list()
    script = "WoTe" if config == "wote" else "OCW"
    assert exported["train"].features.arrow_schema == load_script(script).FEATURES.arrow_schema


def test_real_cards(export: tuple[Path, Path, str]) -> None:
    out, _, _ = export
    ocw = DatasetCard.load(out / "ocw" / "README.md")
    assert [c["config_name"] for c in ocw.data.configs] == [
        "default",
        "ocw_randomized",
        "ocw_wordnet",
    ]
    assert ocw.data.license == "mit"
    sizes = {
        (i["config_name"], s["name"]): s["num_examples"]
        for i in ocw.data.dataset_info
        for s in i["splits"]
    }
    assert sizes[("default", "test")] == 494 and sizes[("ocw_wordnet", "test")] == 4
    assert "> **Provenance: not the official OCW release.** The walls of `default`" in ocw.text
    assert "15 seasons, 618 walls." in ocw.text
    assert "| 12 | 74 | not recorded | not recorded |" in ocw.text
    assert "For developers" not in ocw.text and "shared/data" not in ocw.text
    wote = DatasetCard.load(out / "wote" / "README.md")
    assert wote.data.license == "other" and wote.data.configs[0]["config_name"] == "wote"
    # the README's counts against the measured rows (see ../shared/data/README.md)
    assert "hold 829 rows (train 248, validation 169, test 412)" in wote.text
    assert "they hold 826 distinct `question` strings" in wote.text
    assert (
        "conversation `Wizard-of-Task-diy-63` (validation): question ids `diy-63-5`, "
        "`diy-64-6` (they differ in `intent_answer`, `question_id`)" in wote.text
    )
    assert "Counting each repeated row once gives 827 rows (train 248, validation 167, " in (
        wote.text
    )
    assert "Measured: the README's 826 questions equal the distinct `question` strings; its " in (
        wote.text
    )
    assert check_export(out / "ocw") == [] and check_export(out / "wote") == []
    assert inspect_export(out / "ocw").prerelease == ["default"]
