"""The loading scripts on ``datasets`` 3.x (``trust_remote_code=True``), as 3.x users run them.

Run in the second environment of ``.ci/run`` (``datasets==3.6.0``, no ocw_hub installed: a Hub
script gets only its own file). Skipped under ``datasets`` >= 4, which refuses scripts
(``tests/test_compat.py`` checks that refusal and compares both eras' rows).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import datasets
import pytest

if not datasets.__version__.startswith("3."):
    pytest.skip("script-path tests need datasets 3.x", allow_module_level=True)

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests"))

from ocw_fixtures import tarball, write_ablation  # noqa: E402


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"compat3_{name}", REPO_ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sizes(dataset_dict: datasets.DatasetDict) -> dict[str, int]:
    return {split: ds.num_rows for split, ds in dataset_dict.items()}


def test_ocw_default_full_scale(tmp_path: Path, ocw_dir: Path) -> None:
    with pytest.warns(UserWarning, match="0f1677"):
        ds = datasets.load_dataset(
            str(REPO_ROOT / "OCW.py"),
            "default",
            data_dir=str(ocw_dir),
            trust_remote_code=True,
            cache_dir=str(tmp_path),
        )
    assert _sizes(ds) == {"train": 62, "validation": 62, "test": 494}
    assert ds["test"].features == _module("OCW").FEATURES
    wall = next(w for w in ds["validation"] if w["wall_id"] == "0f1677")
    assert "8.5" in wall["words"]
    assert list(wall["groups"]) == ["group_1", "group_2", "group_3", "group_4"]


def test_wote_full_scale(tmp_path: Path, wote_dir: Path) -> None:
    ds = datasets.load_dataset(
        str(REPO_ROOT / "WoTe.py"),
        "wote",
        data_dir=str(wote_dir),
        trust_remote_code=True,
        cache_dir=str(tmp_path),
    )
    assert _sizes(ds) == {"train": 248, "validation": 169, "test": 412}
    assert ds["validation"].features == _module("WoTe").FEATURES
    ids = [i for split in ds.values() for i in split["id"]]
    assert len(set(ids)) == 829


@pytest.mark.parametrize("kind", ["randomized", "wordnet"])
def test_ablation_configs_from_folder_and_tarball(tmp_path: Path, ocw_raw: Path, kind: str) -> None:
    folder = write_ablation(ocw_raw, tmp_path / "src", kind)
    config = f"ocw_{kind}"
    for data_dir in (folder, tarball(folder, tmp_path / f"{folder.name}.tar.gz")):
        ds = datasets.load_dataset(
            str(REPO_ROOT / "OCW.py"),
            config,
            data_dir=str(data_dir),
            trust_remote_code=True,
            cache_dir=str(tmp_path / "cache"),
            verification_mode="no_checks",
        )
        assert _sizes(ds) == {"train": 3, "validation": 2, "test": 4}


def test_dataset_infos_json_checks_official_sizes(tmp_path: Path, ocw_raw: Path) -> None:
    """3.x reads the root dataset_infos.json: a copy of another size fails the size check."""
    folder = write_ablation(ocw_raw, tmp_path / "src", "wordnet")
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError):
        datasets.load_dataset(
            str(REPO_ROOT / "OCW.py"),
            "ocw_wordnet",
            data_dir=str(folder),
            trust_remote_code=True,
            cache_dir=str(tmp_path / "cache"),
        )


@pytest.mark.parametrize(
    ("script", "config", "data"), [("OCW", "default", "ocw"), ("WoTe", "wote", "wote")]
)
def test_hub_repo_layout_for_3x_users(
    tmp_path: Path, shared_data: Path, script: str, config: str, data: str
) -> None:
    """A Hub repo for 3.x users holds the script, dataset_infos.json and the card, nothing of
    ocw_hub: the script must load from such a folder alone."""
    repo = tmp_path / script
    repo.mkdir()
    for name in (f"{script}.py", "dataset_infos.json", "README.md"):
        shutil.copy(REPO_ROOT / name, repo / name)
    data_dir = shared_data / "ocw" / "dataset" if data == "ocw" else shared_data / "wote"
    ds = datasets.load_dataset(
        str(repo),
        config,
        data_dir=str(data_dir),
        trust_remote_code=True,
        cache_dir=str(tmp_path / "c"),
    )
    expected = {"ocw": (62, 62, 494), "wote": (248, 169, 412)}[data]
    assert tuple(_sizes(ds).values()) == expected
