"""``load_rows`` on raw source files: the scripts' stdlib-only sibling modules read and
validate them without importing ``datasets``, with the builders' rows, format errors and
split-size check (issue 21, item 8)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import datasets
import pytest
from ocw_fixtures import OCW_FIXTURE, WOTE_FIXTURE, tarball, write_ablation

import ocw_hub
from ocw_hub.data.sources import load_rows

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the quirk walls' notes

HUB_DATA = Path(__file__).parent / "data" / "hub_export"
SPLITS = ("train", "validation", "test")


def _same_rows(config: str, source: Path, cache: Path, mode: str | None = "no_checks") -> int:
    """Assert that load_rows gives the builder's rows (values, key order) for every split;
    returns how many rows were compared."""
    built = ocw_hub.load_dataset(config, data_dir=source, cache_dir=cache, verification_mode=mode)
    compared = 0
    for split in SPLITS:
        rows, cache_files = load_rows(config, split, source, verification_mode=mode)
        expected = built[split].to_list()
        assert rows == expected, (config, split)
        assert [list(r) for r in rows] == [list(r) for r in expected]  # fields in one order
        assert cache_files == []  # read from the files, not from Arrow
        compared += len(rows)
    return compared


@pytest.mark.parametrize(
    ("config", "source"),
    [
        ("default", OCW_FIXTURE),
        ("default", HUB_DATA / "ocw"),
        ("wote", WOTE_FIXTURE),
        ("wote", HUB_DATA / "wote"),
    ],
)
def test_rows_equal_the_builders_on_the_fixtures(config: str, source: Path, tmp_path: Path):
    assert _same_rows(config, source, tmp_path) > 0


@pytest.mark.parametrize(
    ("config", "kind"), [("ocw_randomized", "randomized"), ("ocw_wordnet", "wordnet")]
)
def test_rows_equal_the_builders_on_the_ablations(config: str, kind: str, tmp_path: Path):
    source = write_ablation(OCW_FIXTURE, tmp_path / "src", kind)
    assert _same_rows(config, source, tmp_path / "cache") == 9


def test_rows_equal_the_builders_on_the_real_data(
    ocw_dir: Path, wote_dir: Path, tmp_path: Path
) -> None:
    """The 618 walls and 829 questions, with the official split-size check."""
    assert _same_rows("default", ocw_dir, tmp_path, mode=None) == 618
    assert _same_rows("wote", wote_dir, tmp_path, mode=None) == 829


def test_a_tarball_goes_through_the_builder(tmp_path: Path) -> None:
    archive = tarball(OCW_FIXTURE, tmp_path / "OCW.tar.gz")
    rows, cache_files = load_rows(
        "default", "test", archive, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    assert len(rows) == 6 and cache_files  # prepared in the cache, read from its Arrow file
    assert rows == load_rows("default", "test", OCW_FIXTURE, verification_mode="no_checks").rows


def test_split_sizes_are_checked_as_the_builder_does(tmp_path: Path) -> None:
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError) as raw:
        load_rows("default", "test", OCW_FIXTURE)
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError) as built:
        ocw_hub.load_dataset("default", "test", data_dir=OCW_FIXTURE, cache_dir=tmp_path)
    sizes = re.compile(r"SplitInfo\(name='(\w+)'.*?num_examples=(\d+)")
    assert sizes.findall(str(raw.value)) == sizes.findall(str(built.value))
    assert ("test", "494") in sizes.findall(str(raw.value))
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError):
        load_rows("wote", "validation", WOTE_FIXTURE, verification_mode="basic_checks")


@pytest.mark.parametrize(("config", "source"), [("default", OCW_FIXTURE), ("wote", WOTE_FIXTURE)])
def test_format_errors_are_the_builders(config: str, source: Path, tmp_path: Path) -> None:
    broken = Path(shutil.copytree(source, tmp_path / "broken"))
    test = broken / "test.json"
    document = json.loads(test.read_text(encoding="utf-8"))
    if config == "default":
        document["dataset"][1]["groups"]["group_3"]["gt_words"] = ["only", "three", "clues"]
    else:
        del document[2]["question"]
    test.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ValueError) as raw:  # the split read (OCW reads no other in full)
        load_rows(config, "test", broken, verification_mode="no_checks")
    with pytest.raises(ValueError) as built:
        ocw_hub.load_dataset(
            config, data_dir=broken, cache_dir=tmp_path / "c", verification_mode="no_checks"
        )
    assert type(raw.value) is type(built.value) and type(raw.value).__name__.endswith("FormatError")
    assert str(raw.value) == str(built.value)


_EVALUATE = """
    import json, sys
    from ocw_hub.cli import app
    try:
        app(sys.argv[1:])
    except SystemExit as done:
        code = done.code
    loaded = sorted(m for m in sys.modules if m.split(".")[0] == "datasets")
    print(json.dumps({"code": code, "datasets": loaded}))
"""


@pytest.mark.parametrize(("config", "source"), [("default", OCW_FIXTURE), ("wote", WOTE_FIXTURE)])
def test_evaluate_on_raw_files_imports_no_datasets(
    config: str, source: Path, tmp_path: Path
) -> None:
    rows = load_rows(config, "test", source, verification_mode="no_checks").rows
    if config == "wote":
        predictions = [{"id": r["id"], "prediction_text": r["answers"]["text"][0]} for r in rows]
    else:
        predictions = [
            {
                "wall_id": r["wall_id"],
                "predicted_groups": [g["gt_words"] for g in r["groups"].values()],
                "predicted_connections": r["gt_connections"],
            }
            for r in rows
        ]
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(predictions), encoding="utf-8")
    args = ["evaluate", str(path), "--config", config, "--data-dir", str(source), "--no-checks"]
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "OCW_HUB_CACHE": str(tmp_path / "o")}
    env.pop("HF_DATASETS_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_EVALUATE), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=tmp_path,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] in (0, None), done.stdout + done.stderr[-2000:]
    assert result["datasets"] == []
    assert not (tmp_path / "hf").exists()  # nothing prepared in a datasets cache
