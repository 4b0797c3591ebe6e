"""Two exports in one ``datasets`` cache give their own rows (issue 21): an export's card names
its Parquet files by their content digest, so plain ``datasets.load_dataset(folder)`` (which
keys a local folder's cache on the folder name and the card, huggingface/datasets#2956) and the
package never serve one export's rows for another's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from ocw_hub.data.export import build_export
from ocw_hub.data.hub_check import check_export
from ocw_hub.data.sources import load_split

HUB_DATA = Path(__file__).parent / "data" / "hub_export"
EDITED = "Waters"  # the edited connection (was "Rivers", same length: same sizes in the card)


def _edited_source(tmp_path: Path) -> Path:
    """The synthetic OCW source with one connection renamed in the test split."""
    source = Path(shutil.copytree(HUB_DATA / "ocw", tmp_path / "edited_source" / "ocw"))
    test = source / "test.json"
    text = test.read_text(encoding="utf-8")
    assert text.count('"Rivers"') == 2  # gt_connections and the group's gt_connection
    test.write_text(text.replace('"Rivers"', f'"{EDITED}"'), encoding="utf-8")
    return source


def _connections(rows: list[dict]) -> list[str]:
    return [c for row in rows for c in row["gt_connections"]]


@pytest.fixture(scope="module")
def two_exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(first, second)``: the ``ocw`` exports of the synthetic walls and of a copy with one
    connection edited; both folders are named ``ocw`` and hold the same split sizes."""
    work = tmp_path_factory.mktemp("two_exports")
    sources = {"first": HUB_DATA / "ocw", "second": _edited_source(work)}
    for name, source in sources.items():
        build_export(
            {"default": source},
            work / name,
            cache_dir=work / "build_cache",
            verification_mode="no_checks",
        )
    return work / "first" / "ocw", work / "second" / "ocw"


def test_the_exports_differ_only_in_the_edited_connection(two_exports: tuple[Path, Path]):
    first, second = two_exports
    assert first.name == second.name == "ocw"
    for export in two_exports:
        assert check_export(export) == []  # the Hub viewer reads each
    cards = [DatasetCard.load(e / "README.md").data for e in two_exports]
    sizes = [[s["num_examples"] for s in c.dataset_info["splits"]] for c in cards]
    assert sizes[0] == sizes[1]
    files = [{f["split"]: f["path"] for f in c.configs[0]["data_files"]} for c in cards]
    assert files[0]["train"] == files[1]["train"]  # same content, same name
    assert files[0]["test"] != files[1]["test"]  # the edited split is named anew


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_plain_datasets_reads_each_export_from_one_cache(
    two_exports: tuple[Path, Path], tmp_path: Path
) -> None:
    first, second = two_exports
    cache = str(tmp_path / "cache")
    one = datasets.load_dataset(str(first), "default", split="test", cache_dir=cache)
    two = datasets.load_dataset(str(second), "default", split="test", cache_dir=cache)
    assert EDITED not in _connections(one.to_list())
    assert _connections(two.to_list()).count(EDITED) == 1
    again = datasets.load_dataset(str(first), split="test", cache_dir=cache)  # the default
    assert again.to_list() == one.to_list()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_package_reads_each_export_from_one_cache(
    two_exports: tuple[Path, Path], tmp_path: Path
) -> None:
    first, second = two_exports
    cache = tmp_path / "cache"
    one = load_split("default", "test", first, cache_dir=cache, verification_mode="no_checks")
    two = load_split("default", "test", second, cache_dir=cache, verification_mode="no_checks")
    assert EDITED not in _connections(one.to_list())
    assert _connections(two.to_list()).count(EDITED) == 1


_READ_IN_3X = r"""
import json, sys, datasets
datasets.disable_progress_bars()
cache = sys.argv[1]
rows = [datasets.load_dataset(folder, "default", split="test", cache_dir=cache).to_list()
        for folder in sys.argv[2:]]
print(json.dumps({"version": datasets.__version__, "rows": rows}))
"""


def test_datasets_3_reads_each_export_from_one_cache(
    two_exports: tuple[Path, Path], tmp_path: Path
) -> None:
    """The same on datasets 3.6.0 (the environment ``OCW_DATASETS3_PYTHON`` names)."""
    if datasets.__version__.startswith("3."):
        pytest.skip("this environment is datasets 3.x: the plain-datasets test above")
    python = os.environ.get("OCW_DATASETS3_PYTHON")
    if not python:
        if os.environ.get("CI"):
            pytest.fail("OCW_DATASETS3_PYTHON is not set: .ci/run must provide datasets==3.6.0")
        pytest.skip("set OCW_DATASETS3_PYTHON to a python with datasets==3.6.0 (as .ci/run does)")
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    first, second = (str(e) for e in two_exports)
    done = subprocess.run(
        [python, "-c", _READ_IN_3X, str(tmp_path / "cache3"), first, second, first],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["version"].startswith("3.")
    one, two, again = seen["rows"]
    assert EDITED not in _connections(one) and again == one
    assert _connections(two).count(EDITED) == 1
