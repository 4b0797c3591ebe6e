"""``load_split`` without ``data_dir``: what is already prepared in the cache, found through the
builders and the package's own records of local sources, never by reading ``datasets``' cache
folders; the official split sizes are checked there too (issue 21, item 2)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import datasets
import pytest
from ocw_fixtures import OCW_FIXTURE, WOTE_FIXTURE

import ocw_hub
from ocw_hub.data.builders import recorded_sources, script_key
from ocw_hub.data.sources import load_split, prepared_split
from ocw_hub.errors import SourceUnavailableError

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the quirk walls' notes


@pytest.fixture
def no_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The official OCW download points nowhere (as offline)."""
    from ocw_hub.resources import load_script

    for config in load_script("OCW").OCW.BUILDER_CONFIGS:
        monkeypatch.setattr(config, "url", str(tmp_path / "nowhere" / "OCW.tar.gz"))


def _prepare(source: Path, cache: Path, config: str = "default") -> None:
    ocw_hub.load_dataset(config, data_dir=source, cache_dir=cache, verification_mode="no_checks")


def test_the_one_local_source_is_found_and_its_sizes_checked(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert prepared_split("default", "test", cache) is None  # nothing prepared yet
    _prepare(OCW_FIXTURE, cache)
    assert recorded_sources("default", cache) == [str(OCW_FIXTURE.resolve())]
    with pytest.warns(UserWarning, match="using the split prepared in the cache from"):
        ds = load_split("default", "test", cache_dir=cache, verification_mode="no_checks")
    assert ds.num_rows == 6
    # prepared with no_checks, read with the default checks: the sizes are not the official
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError, match="num_examples=494"):
        load_split("default", "test", cache_dir=cache)
    assert prepared_split("wote", "test", cache) is None  # per config


def test_a_source_edited_or_removed_since_is_not_served(tmp_path: Path, no_download: None):
    cache = tmp_path / "cache"
    source = Path(shutil.copytree(OCW_FIXTURE, tmp_path / "src" / "dataset"))
    _prepare(source, cache)
    assert prepared_split("default", "test", cache, "no_checks").num_rows == 6
    test = source / "test.json"
    test.write_text(test.read_text(encoding="utf-8").replace("Glamour", "Glamor"), "utf-8")
    assert prepared_split("default", "test", cache, "no_checks") is None  # content changed
    _prepare(source, cache)
    assert "Glamor" in str(prepared_split("default", "test", cache, "no_checks").to_list())
    shutil.rmtree(source)
    assert prepared_split("default", "test", cache, "no_checks") is None
    with pytest.raises(SourceUnavailableError, match="could not be downloaded"):
        load_split("default", "test", cache_dir=cache, verification_mode="no_checks")


def test_two_local_sources_are_not_guessed(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    other = Path(shutil.copytree(OCW_FIXTURE, tmp_path / "other" / "dataset"))
    _prepare(OCW_FIXTURE, cache)
    _prepare(other, cache)
    with pytest.raises(SourceUnavailableError, match="from 2 local sources"):
        prepared_split("default", "test", cache, "no_checks")


def test_folders_planted_in_the_cache_are_not_read(tmp_path: Path) -> None:
    """A folder named like a preparation of this script (its key as a prefix) holding a bad
    ``dataset_info.json`` and an Arrow file: the glob over datasets' cache folders read it;
    the builders never look at it."""
    cache = tmp_path / "cache"
    _prepare(OCW_FIXTURE, cache)
    builder = ocw_hub.get_builder("default", data_dir=OCW_FIXTURE, cache_dir=cache)
    planted = Path(builder.cache_dir).parent / f"{script_key('default')}planted"
    planted.mkdir()
    (planted / "dataset_info.json").write_text("{not json", encoding="utf-8")
    (planted / "ocw-test.arrow").write_bytes(b"not arrow")
    ds = prepared_split("default", "test", cache, "no_checks")
    assert ds is not None and ds.num_rows == 6


_PREFILL_3X = """
    import sys, datasets, ocw_hub
    fixture, wote, cache, script = sys.argv[1:]
    # the script path (a modules-cache copy of OCW.py) and the package, both datasets 3.x
    datasets.load_dataset(script, "default", data_dir=fixture, cache_dir=cache,
                          trust_remote_code=True, verification_mode="no_checks")
    ocw_hub.load_dataset("default", data_dir=fixture, cache_dir=cache,
                         verification_mode="no_checks")
    ocw_hub.load_dataset("wote", data_dir=wote, cache_dir=cache, verification_mode="no_checks")
    print(datasets.__version__)
"""


def test_a_cache_left_by_datasets_3_breaks_nothing(
    tmp_path: Path, repo_root: Path, no_download: None
) -> None:
    """A cache (and an HF_HOME modules cache) filled by datasets 3.6 through the script path
    and through the package: this era prepares its own copy, and keeps the size check."""
    if datasets.__version__.startswith("3."):
        pytest.skip("this environment is datasets 3.x")
    python = os.environ.get("OCW_DATASETS3_PYTHON")
    if not python:
        if os.environ.get("CI"):
            pytest.fail("OCW_DATASETS3_PYTHON is not set: .ci/run must provide datasets==3.6.0")
        pytest.skip("set OCW_DATASETS3_PYTHON to a python with datasets==3.6.0 (as .ci/run does)")
    cache = tmp_path / "cache"
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run(
        [
            python,
            "-c",
            textwrap.dedent(_PREFILL_3X),
            str(OCW_FIXTURE),
            str(WOTE_FIXTURE),
            str(cache),
            str(repo_root / "OCW.py"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1].startswith("3.")
    assert list((tmp_path / "hf" / "modules").rglob("OCW.py"))  # the 3.x modules cache
    # recorded by 3.x, prepared by 3.x only: nothing of this era to serve
    assert recorded_sources("default", cache) == [str(OCW_FIXTURE.resolve())]
    assert prepared_split("default", "test", cache, "no_checks") is None
    _prepare(OCW_FIXTURE, cache)
    assert prepared_split("default", "test", cache, "no_checks").num_rows == 6
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError):
        load_split("default", "test", cache_dir=cache)
    rows = load_split("wote", "test", WOTE_FIXTURE, cache_dir=cache, verification_mode="no_checks")
    assert rows.num_rows == 5
    info = json.loads(next(iter(cache.glob("ocw_hub_sources/wote-*.json"))).read_text())
    assert info == {"config": "wote", "data_dir": str(WOTE_FIXTURE.resolve())}
