"""The loading scripts on ``datasets`` 3.x (``trust_remote_code=True``), as 3.x users run them.

Run in the second environment of ``.ci/run`` (``datasets==3.6.0``). ``datasets`` imports the
script itself here (the Hub script path), with the sibling modules it imports relatively
(copied from the script's folder or its Hub repo); the tests compare with the script as the
package imports it (:func:`ocw_hub.resources.load_script`).
Skipped under ``datasets`` >= 4, which refuses scripts (``tests/test_compat.py`` checks that
refusal and compares both eras' rows). The fixture tests read ``tests/data``; the full-scale
ones (``full_data``) read ``../shared/data``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import pytest

if not datasets.__version__.startswith("3."):
    pytest.skip("script-path tests need datasets 3.x", allow_module_level=True)

from ocw_fixtures import (  # noqa: E402
    OCW_FIXTURE,
    OCW_FIXTURE_SIZES,
    SIZES,
    WOTE_FIXTURE,
    WOTE_FIXTURE_SIZES,
    tarball,
    write_ablation,
)

from ocw_hub.resources import load_script, script_files  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]


def _load(script: str, config: str, data_dir: Path, cache_dir: Path, **kwargs):
    return datasets.load_dataset(
        str(REPO_ROOT / f"{script}.py"),
        config,
        data_dir=str(data_dir),
        trust_remote_code=True,
        cache_dir=str(cache_dir),
        **kwargs,
    )


def _sizes(dataset_dict: datasets.DatasetDict) -> dict[str, int]:
    return {split: ds.num_rows for split, ds in dataset_dict.items()}


def test_ocw_default_from_fixtures(tmp_path: Path) -> None:
    with pytest.warns(UserWarning) as caught:
        ds = _load("OCW", "default", OCW_FIXTURE, tmp_path, verification_mode="no_checks")
    messages = [str(w.message) for w in caught]
    for wall_id in ("0f1677", "654041", "b308e4"):
        assert any(wall_id in m for m in messages), (wall_id, messages)
    assert _sizes(ds) == OCW_FIXTURE_SIZES
    assert ds["test"].features == load_script("OCW").FEATURES
    wall = next(w for w in ds["validation"] if w["wall_id"] == "0f1677")
    assert wall["groups"]["group_2"]["gt_words"] == ["Seven", "8.5", "1984", "2010"]
    assert list(wall["groups"]) == ["group_1", "group_2", "group_3", "group_4"]


def test_wote_from_fixtures(tmp_path: Path) -> None:
    ds = _load("WoTe", "wote", WOTE_FIXTURE, tmp_path, verification_mode="no_checks")
    assert _sizes(ds) == WOTE_FIXTURE_SIZES
    assert ds["validation"].features == load_script("WoTe").FEATURES
    starts = {row["id"]: row["answers"]["answer_start"][0] for row in ds["validation"]}
    assert starts["Wizard-of-Task-food-903/food-903-2"] == 36  # the backslash-n join, found


@pytest.mark.filterwarnings("ignore::UserWarning")  # the other quirk walls' warnings
def test_ocw_default_full_scale(tmp_path: Path, ocw_dir: Path) -> None:
    with pytest.warns(UserWarning, match="0f1677"):
        ds = _load("OCW", "default", ocw_dir, tmp_path)
    assert _sizes(ds) == {"train": 62, "validation": 62, "test": 494}
    assert ds["test"].features == load_script("OCW").FEATURES
    wall = next(w for w in ds["validation"] if w["wall_id"] == "0f1677")
    assert "8.5" in wall["words"]


def test_wote_full_scale(tmp_path: Path, wote_dir: Path) -> None:
    ds = _load("WoTe", "wote", wote_dir, tmp_path)
    assert _sizes(ds) == {"train": 248, "validation": 169, "test": 412}
    assert ds["validation"].features == load_script("WoTe").FEATURES
    ids = [i for split in ds.values() for i in split["id"]]
    assert len(set(ids)) == 829


@pytest.mark.parametrize("kind", ["randomized", "wordnet"])
def test_ablation_configs_from_folder_and_tarball(tmp_path: Path, kind: str) -> None:
    folder = write_ablation(OCW_FIXTURE, tmp_path / "src", kind)
    for data_dir in (folder, tarball(folder, tmp_path / f"{folder.name}.tar.gz")):
        ds = _load(
            "OCW", f"ocw_{kind}", data_dir, tmp_path / "cache", verification_mode="no_checks"
        )
        assert _sizes(ds) == SIZES


def test_dataset_infos_json_checks_official_sizes(tmp_path: Path) -> None:
    """3.x reads the root dataset_infos.json: a copy of another size fails the size check."""
    folder = write_ablation(OCW_FIXTURE, tmp_path / "src", "wordnet")
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError):
        _load("OCW", "ocw_wordnet", folder, tmp_path / "cache")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("layout", ["script_and_siblings", "hub_repo"])
@pytest.mark.parametrize(
    ("script", "config", "data_dir", "sizes"),
    [
        ("OCW", "default", OCW_FIXTURE, OCW_FIXTURE_SIZES),
        ("WoTe", "wote", WOTE_FIXTURE, WOTE_FIXTURE_SIZES),
    ],
)
def test_script_loads_from_a_copy_of_its_files_alone(
    tmp_path: Path, script: str, config: str, data_dir: Path, sizes: dict[str, int], layout: str
) -> None:
    """Nothing of ocw_hub: the script and the siblings it imports alone in a folder load by
    the script's path (``datasets`` 3.x copies every sibling the script imports); a Hub repo
    for 3.x users (those files, dataset_infos.json and the card) loads by the folder."""
    folder = tmp_path / script
    folder.mkdir()
    files = list(script_files(script))
    if layout == "hub_repo":
        files += [REPO_ROOT / "dataset_infos.json", REPO_ROOT / "README.md"]
    for path in files:
        shutil.copy(path, folder / path.name)
    target = folder if layout == "hub_repo" else folder / f"{script}.py"
    ds = _load_from(target, config, data_dir, tmp_path / "c")
    assert _sizes(ds) == sizes
    assert ds["validation"].features == load_script(script).FEATURES


def test_a_sibling_missing_from_the_folder_fails(tmp_path: Path) -> None:
    folder = tmp_path / "scripts"
    folder.mkdir()
    for path in script_files("OCW"):
        if path.name != "ocw_walls.py":
            shutil.copy(path, folder / path.name)
    with pytest.raises(Exception, match="ocw_walls"):
        _load_from(folder / "OCW.py", "default", OCW_FIXTURE, tmp_path / "c")


def _load_from(script: Path, config: str, data_dir: Path, cache_dir: Path):
    return datasets.load_dataset(
        str(script),
        config,
        data_dir=str(data_dir),
        trust_remote_code=True,
        cache_dir=str(cache_dir),
        verification_mode="no_checks",
    )
