"""ocw_hub.load_dataset / get_builder: the builders through the Python API on every datasets
version. Most tests read the fixtures of ``tests/data``; the full-scale ones (``ocw_dir``,
``wote_dir``) need ``../shared/data``."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest
from ocw_fixtures import OCW_FIXTURE_SIZES, write_ablation

import ocw_hub
from ocw_hub.resources import load_script

OCW_SIZES = {"train": 62, "validation": 62, "test": 494}
WOTE_SIZES = {"train": 248, "validation": 169, "test": 412}


def _sizes(dataset_dict: datasets.DatasetDict) -> dict[str, int]:
    return {split: ds.num_rows for split, ds in dataset_dict.items()}


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_default_and_wote_full_scale(tmp_path: Path, ocw_dir: Path, wote_dir: Path) -> None:
    ocw = ocw_hub.load_dataset("default", data_dir=ocw_dir, cache_dir=tmp_path)
    wote = ocw_hub.load_dataset("wote", data_dir=wote_dir, cache_dir=tmp_path)
    assert _sizes(ocw) == OCW_SIZES
    assert _sizes(wote) == WOTE_SIZES
    assert ocw["test"].features == load_script("OCW").FEATURES
    assert wote["test"].features == load_script("WoTe").FEATURES
    # the upstream evaluation code reads wall["groups"].values(): 4 groups of 4 clues
    wall = ocw["test"][0]
    assert [len(g["gt_words"]) for g in wall["groups"].values()] == [4, 4, 4, 4]


@pytest.mark.parametrize("kind", ["randomized", "wordnet"])
def test_ablation_configs_from_fixtures(tmp_path: Path, ocw_fixture_dir: Path, kind: str) -> None:
    folder = write_ablation(ocw_fixture_dir, tmp_path / "src", kind)
    split = ocw_hub.load_dataset(
        f"ocw_{kind}",
        split="test",
        data_dir=folder,
        cache_dir=tmp_path / "cache",
        verification_mode="no_checks",  # a fixture of 3/2/4 walls, not the official 62/62/494
    )
    assert isinstance(split, datasets.Dataset)
    assert split.num_rows == 4
    prefix = "r" if kind == "randomized" else "w"
    assert all(w.startswith(prefix) for w in split["wall_id"])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_second_call_is_served_from_the_cache(
    tmp_path: Path, ocw_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def load() -> datasets.Dataset:
        return ocw_hub.load_dataset(
            "default",
            split="test",
            data_dir=ocw_fixture_dir,
            cache_dir=tmp_path,
            verification_mode="no_checks",
        )

    first = load()
    assert first.num_rows == OCW_FIXTURE_SIZES["test"]

    def no_generation(*args: object, **kwargs: object) -> None:
        raise AssertionError("the second call re-generated the split")

    builder_cls = load_script("OCW").OCW
    monkeypatch.setattr(builder_cls, "_generate_examples", no_generation)
    monkeypatch.setattr(builder_cls, "_split_generators", no_generation)
    second = load()
    assert second.to_list() == first.to_list()
    assert second.cache_files[0]["filename"] == first.cache_files[0]["filename"]


def test_get_builder_for_a_custom_cache_dir(tmp_path: Path, wote_fixture_dir: Path) -> None:
    builder = ocw_hub.get_builder("wote", data_dir=wote_fixture_dir, cache_dir=tmp_path / "c")
    assert builder.info.splits["validation"].num_examples == 169  # official, to check against
    builder.download_and_prepare(verification_mode="no_checks")
    assert Path(builder.cache_dir).is_relative_to(tmp_path / "c")
    assert builder.info.splits["validation"].num_examples == 3  # as prepared
    assert builder.as_dataset(split="validation").num_rows == 3


def test_cache_is_keyed_on_data_dir(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    a = write_ablation(ocw_fixture_dir, tmp_path / "a", "wordnet", seed=1)
    b = write_ablation(ocw_fixture_dir, tmp_path / "b", "wordnet", seed=2)
    ids_a = ocw_hub.load_dataset(
        "ocw_wordnet", "test", a, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )["wall_id"]
    ids_b = ocw_hub.load_dataset(
        "ocw_wordnet", "test", b, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )["wall_id"]
    assert ids_a != ids_b


def test_official_split_sizes_are_checked(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    """On every datasets version, as datasets 3.x does for the script: a copy whose sizes are
    not the official ones (here 3/2/4 walls) is refused unless checks are off."""
    folder = write_ablation(ocw_fixture_dir, tmp_path / "src", "wordnet")
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError, match="num_examples=62"):
        ocw_hub.load_dataset("ocw_wordnet", data_dir=folder, cache_dir=tmp_path / "c")
    assert not list((tmp_path / "c").rglob("*.arrow"))
    assert ocw_hub.official_splits("wote")["validation"].num_examples == 169


def test_unknown_config_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown config 'ocw_easy'.*default"):
        ocw_hub.load_dataset("ocw_easy")


def test_upstream_config_name_ocw_is_default() -> None:
    from ocw_hub.configs import config_spec

    assert config_spec("ocw") is config_spec("default")


def test_edited_source_is_rebuilt_not_served_stale(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    """datasets keys a local data_dir on its path; ocw_hub adds the files' content hash."""
    import json
    import os

    folder = write_ablation(ocw_fixture_dir, tmp_path / "src", "wordnet")
    first = ocw_hub.load_dataset(
        "ocw_wordnet", "train", folder, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    assert first.num_rows == 3
    train = folder / "easy_train_wordnet.json"
    payload = json.loads(train.read_text())
    payload["dataset"] = payload["dataset"][:1]
    train.write_text(json.dumps(payload))
    os.utime(train, ns=(train.stat().st_atime_ns, train.stat().st_mtime_ns + 10**9))
    second = ocw_hub.load_dataset(
        "ocw_wordnet", "train", folder, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    assert second.num_rows == 1
    payload["dataset"][0]["words"] = payload["dataset"][0]["words"][:15]
    train.write_text(json.dumps(payload))
    with pytest.raises(ValueError, match="easy_train_wordnet.json.*words"):
        ocw_hub.load_dataset(
            "ocw_wordnet", "train", folder, cache_dir=tmp_path / "c", verification_mode="no_checks"
        )


def test_season_table_in_the_package_namespace(ocw_fixture_dir: Path) -> None:
    seasons = ocw_hub.season_table("default", ocw_fixture_dir)
    assert sum(s.num_walls for s in seasons) == 13  # 4 + 3 + 6 fixture walls
    assert seasons[0].season == 1 and seasons[0].start_date is None
