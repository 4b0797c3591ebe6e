"""Where a config's rows come from (``ocw_hub.data.sources`` and the builders' one split finder).

* a WoTe archive (a ``.tar.gz`` or ``.zip`` of ``train/validation/test.json``, in a folder or
  not) loads like the folder it was made from, through :func:`ocw_hub.load_dataset` and
  :func:`ocw_hub.data.sources.load_split` (the script path on ``datasets`` 3.x:
  ``tests/compat3/test_wote_archive.py``);
* an ablation config (``ocw_randomized``, ``ocw_wordnet``) refuses the main OCW release as its
  source (:class:`ocw_hub.WrongSourceError`, naming the config and the source), whether told by
  the known test split of the stand-in or by the release's all-walls file ``OCW.json``; its
  own copies still load.

The suite runs on ``datasets`` 5.x and 3.6.0 (``.ci/run``), so both eras are covered.
"""

from __future__ import annotations

import json
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from ocw_fixtures import (
    OCW_FIXTURE,
    OCW_FIXTURE_SIZES,
    SIZES,
    WOTE_FIXTURE,
    WOTE_FIXTURE_SIZES,
    tarball,
    write_ablation,
)
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.data.sources import Source, find_source, load_split
from ocw_hub.resources import load_script

NO_CHECKS = "no_checks"  # the fixtures are smaller than the releases
#: The fixture's quirk walls (numeric clue, repeated clues) warn on every build.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _sizes(dataset_dict) -> dict[str, int]:
    return {split: ds.num_rows for split, ds in dataset_dict.items()}


def _ids(dataset_dict, key: str) -> dict[str, list[str]]:
    return {split: ds[key] for split, ds in dataset_dict.items()}


def _flat_tarball(folder: Path, out: Path) -> Path:
    """A ``.tar.gz`` holding the folder's files at its top level (no folder inside)."""
    with tarfile.open(out, "w:gz") as tar:
        for file in sorted(folder.glob("*.json")):
            tar.add(file, arcname=file.name)
    return out


def _zip(folder: Path, out: Path) -> Path:
    with zipfile.ZipFile(out, "w") as zipped:
        for file in sorted(folder.glob("*.json")):
            zipped.write(file, f"{folder.name}/{file.name}")
    return out


ARCHIVES = {
    "tar.gz with a folder": lambda folder, tmp: tarball(folder, tmp / "WoTe.tar.gz"),
    "tar.gz, files at the top": lambda folder, tmp: _flat_tarball(folder, tmp / "wote.tar.gz"),
    "zip with a folder": lambda folder, tmp: _zip(folder, tmp / "wote.zip"),
}


# --- WoTe archives ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wote_from_folder(tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("wote-folder-cache")
    return ocw_hub.load_dataset(
        "wote", data_dir=WOTE_FIXTURE, cache_dir=cache, verification_mode=NO_CHECKS
    )


@pytest.mark.parametrize("kind", list(ARCHIVES))
def test_wote_archive_loads_like_its_folder(kind: str, tmp_path: Path, wote_from_folder) -> None:
    archive = ARCHIVES[kind](WOTE_FIXTURE, tmp_path)
    built = ocw_hub.load_dataset(
        "wote", data_dir=archive, cache_dir=tmp_path / "cache", verification_mode=NO_CHECKS
    )
    assert _sizes(built) == WOTE_FIXTURE_SIZES
    assert _ids(built, "id") == _ids(wote_from_folder, "id")
    assert built["test"].to_list() == wote_from_folder["test"].to_list()


def test_wote_archive_through_load_split(tmp_path: Path, wote_from_folder) -> None:
    archive = tarball(WOTE_FIXTURE, tmp_path / "WoTe.tar.gz")
    test = load_split(
        "wote", "test", archive, cache_dir=tmp_path / "cache", verification_mode=NO_CHECKS
    )
    assert test["id"] == wote_from_folder["test"]["id"]
    assert test.num_rows == WOTE_FIXTURE_SIZES["test"]


def test_one_finder_tells_every_kind_of_source(tmp_path: Path, wote_from_folder) -> None:
    from ocw_hub.data.export import build_export

    archive = tarball(WOTE_FIXTURE, tmp_path / "WoTe.tar.gz")
    out = tmp_path / "hub"
    build_export({"wote": archive}, out, cache_dir=tmp_path / "cache", verification_mode=NO_CHECKS)
    assert find_source("wote", None) == Source("cache", None)
    assert find_source("wote", WOTE_FIXTURE) == Source("files", str(WOTE_FIXTURE))
    assert find_source("wote", archive) == Source("files", str(archive))
    assert find_source("wote", out) == find_source("wote", out / "wote")
    assert find_source("wote", out) == Source("export", str(out / "wote"))
    assert find_source("wote", "org/wote-export") == Source("hub", "org/wote-export")
    test = load_split("wote", "test", out, cache_dir=tmp_path / "cache")
    assert test["id"] == wote_from_folder["test"]["id"]


def test_wote_archive_missing_a_split_names_the_archive(tmp_path: Path) -> None:
    folder = tmp_path / "wote"
    folder.mkdir()
    for split in ("train", "validation"):
        shutil.copy(WOTE_FIXTURE / f"{split}.json", folder)
    archive = tarball(folder, tmp_path / "WoTe.tar.gz")
    error = load_script("WoTe").WoTeFormatError
    with pytest.raises(error) as info:
        ocw_hub.load_dataset("wote", data_dir=archive, cache_dir=tmp_path / "cache")
    assert str(archive) in str(info.value)
    assert list((tmp_path / "cache").rglob("*.arrow")) == []


# --- the main release refused by the ablation configs ----------------------------------------


def _with_all_walls_file(source: Path, out: Path) -> Path:
    """A copy of a release folder with its all-walls file ``OCW.json`` (every wall of its
    splits), as the release tarball ``OCW.tar.gz`` holds it."""
    out.mkdir(parents=True)
    walls = []
    for split in ("train", "validation", "test"):
        shutil.copy(source / f"{split}.json", out)
        walls += json.loads((source / f"{split}.json").read_text(encoding="utf-8"))["dataset"]
    document = {"season_to_walls_map": {}, "dataset": walls}
    (out / "OCW.json").write_text(json.dumps(document), encoding="utf-8")
    return out


@pytest.mark.parametrize("config", ["ocw_wordnet", "ocw_randomized"])
def test_main_release_is_refused_by_an_ablation(config: str, ocw_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with pytest.raises(ocw_hub.WrongSourceError) as info:
        ocw_hub.load_dataset(config, data_dir=ocw_dir, cache_dir=cache)
    assert (info.value.config, info.value.data_dir) == (config, str(ocw_dir))
    assert config in str(info.value) and str(ocw_dir.resolve()) in str(info.value)
    assert list(cache.rglob("*.arrow")) == []  # nothing prepared under the ablation's name


def test_main_release_without_its_all_walls_file_is_refused(ocw_dir: Path, tmp_path: Path) -> None:
    """The stand-in's test split is known: a copy of its three split files is refused too."""
    folder = tmp_path / "dataset"
    folder.mkdir()
    for split in ("train", "validation", "test"):
        shutil.copy(ocw_dir / f"{split}.json", folder / f"{split}.json")
    with pytest.raises(ocw_hub.WrongSourceError):
        ocw_hub.load_dataset("ocw_wordnet", data_dir=folder, cache_dir=tmp_path / "cache")


@pytest.mark.parametrize("config", ["ocw_wordnet", "ocw_randomized"])
def test_release_with_its_all_walls_file_is_refused(config: str, tmp_path: Path) -> None:
    """A release unknown here (the fixture walls) is told by ``OCW.json``, in a folder or in
    its tarball; as ``default`` it loads."""
    folder = _with_all_walls_file(OCW_FIXTURE, tmp_path / "dataset")
    archive = tarball(folder, tmp_path / "OCW.tar.gz")
    for source in (folder, archive):
        with pytest.raises(ocw_hub.WrongSourceError) as info:
            ocw_hub.load_dataset(
                config, data_dir=source, cache_dir=tmp_path / "cache", verification_mode=NO_CHECKS
            )
        assert info.value.data_dir == str(source) and str(source) in str(info.value)
    built = ocw_hub.load_dataset(
        "default", data_dir=archive, cache_dir=tmp_path / "cache", verification_mode=NO_CHECKS
    )
    assert _sizes(built) == OCW_FIXTURE_SIZES


@pytest.mark.parametrize("kind", ["randomized", "wordnet"])
def test_ablation_copies_still_load(kind: str, tmp_path: Path) -> None:
    folder = write_ablation(OCW_FIXTURE, tmp_path / "src", kind)
    built = ocw_hub.load_dataset(
        f"ocw_{kind}", data_dir=folder, cache_dir=tmp_path / "cache", verification_mode=NO_CHECKS
    )
    assert _sizes(built) == SIZES


def test_rebuilt_test_split_beside_the_release_file_loads(tmp_path: Path) -> None:
    """A release folder whose ``test.json`` was replaced by rebuilt walls (its ``OCW.json``
    kept) is an ocw_randomized copy: its test walls are not the release's."""
    folder = _with_all_walls_file(OCW_FIXTURE, tmp_path / "dataset")
    rebuilt = write_ablation(OCW_FIXTURE, tmp_path / "ablation", "randomized")
    shutil.copy(rebuilt / "test.json", folder / "test.json")
    built = ocw_hub.load_dataset(
        "ocw_randomized", data_dir=folder, cache_dir=tmp_path / "cache", verification_mode=NO_CHECKS
    )
    expected = json.loads((rebuilt / "test.json").read_text(encoding="utf-8"))["dataset"]
    assert built["test"]["wall_id"] == [wall["wall_id"] for wall in expected]


def test_evaluate_refuses_the_main_release_as_an_ablation(tmp_path: Path) -> None:
    folder = _with_all_walls_file(OCW_FIXTURE, tmp_path / "dataset")
    predictions = tmp_path / "predictions.json"
    predictions.write_text("[]", encoding="utf-8")
    out = tmp_path / "results.json"
    args = ["evaluate", str(predictions), "--config", "ocw_wordnet", "--data-dir", str(folder)]
    result = CliRunner().invoke(app, [*args, "--no-checks", "--out", str(out)])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "ocw_wordnet" in errors[0], result.output
    assert not out.exists()


@pytest.mark.parametrize("config", ["ocw_wordnet", "ocw_randomized"])
def test_raw_rows_refuse_the_main_release_as_the_builder_does(config: str, tmp_path: Path) -> None:
    """``load_rows`` reads a raw folder without ``datasets`` and refuses the main release for an
    ablation config with the builder's reason (the same evidence)."""
    from ocw_hub.data.sources import load_rows

    folder = _with_all_walls_file(OCW_FIXTURE, tmp_path / "dataset")
    with pytest.raises(ocw_hub.WrongSourceError) as raw:
        load_rows(config, "test", folder, verification_mode=NO_CHECKS)
    with pytest.raises(ocw_hub.WrongSourceError) as built:
        load_split(config, "test", folder, cache_dir=tmp_path / "c", verification_mode=NO_CHECKS)
    assert (raw.value.config, raw.value.data_dir) == (config, str(folder))
    assert str(raw.value).split(";")[0] == str(built.value).split(";")[0]  # the same evidence
    assert len(load_rows("default", "test", folder, verification_mode=NO_CHECKS).rows) == 6
