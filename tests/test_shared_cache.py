"""One ``HF_HOME`` shared by a datasets 5.x and a datasets 3.6 environment (a lab machine):
each era prepares and reads its own copy, so data prepared by one never breaks the other.
Also the Python API's message when the official download fails, and the routing of a Hub repo
id to ``datasets.load_dataset``.

``.ci/run`` sets ``OCW_DATASETS3_PYTHON`` (datasets==3.6.0) and ``OCW_NEWEST_PYTHON`` (the newest
datasets) to its two interpreters; the cross-era test runs both eras on one cache folder, from
whichever environment the suite runs in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import datasets
import pytest

import ocw_hub
from ocw_hub.data.builders import datasets_era, script_key
from ocw_hub.errors import SourceUnavailableError

_PREPARE = """
    import json, sys
    import ocw_hub
    ds = ocw_hub.load_dataset(
        "default", "test", data_dir=sys.argv[1], cache_dir=sys.argv[2],
        verification_mode="no_checks",
    )
    import datasets
    print(json.dumps({"era": datasets.__version__, "ids": list(ds["wall_id"])}))
"""


def _other_python() -> str:
    """The interpreter of the other era: datasets 3.6 from the newest era, and back."""
    variable = (
        "OCW_NEWEST_PYTHON" if datasets.__version__.startswith("3.") else "OCW_DATASETS3_PYTHON"
    )
    python = os.environ.get(variable)
    if not python:
        if os.environ.get("CI") or os.environ.get("OCW_HUB_REQUIRE_FULL_DATA") == "1":
            pytest.fail(f"{variable} is not set: .ci/run must provide both environments")
        pytest.skip(f"set {variable} to the other era's python (as .ci/run does)")
    return python


def _prepare(python: str, data_dir: Path, cache: Path) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run(
        [python, "-c", textwrap.dedent(_PREPARE), str(data_dir), str(cache)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_one_cache_shared_by_two_eras(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    other = _other_python()
    cache = tmp_path / "shared_cache"
    # this era, then the other, then this one again, all on the same cache folder
    first = _prepare(sys.executable, ocw_fixture_dir, cache)
    second = _prepare(other, ocw_fixture_dir, cache)
    third = _prepare(sys.executable, ocw_fixture_dir, cache)
    assert first["era"] != second["era"], "the two environments must be of different eras"
    assert first["ids"] == second["ids"] == third["ids"]
    # two preparations, one per era: their cache keys differ
    prepared = {p.parent.name for p in cache.rglob("dataset_info.json")}
    assert len(prepared) == 2, prepared


def test_cache_key_names_the_era() -> None:
    assert datasets_era() == f"datasets{datasets.__version__.split('.')[0]}"
    builder = ocw_hub.get_builder("default")
    assert Path(builder.cache_dir).name == script_key("default") + "download"


def test_failed_download_names_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The API says what to do, like the CLI: give a local copy as data_dir."""
    from ocw_hub.resources import load_script

    for config in load_script("OCW").OCW.BUILDER_CONFIGS:
        monkeypatch.setattr(config, "url", str(tmp_path / "nowhere" / "OCW.tar.gz"))
    with pytest.raises(SourceUnavailableError, match=r"could not be downloaded.*data_dir=DIR"):
        ocw_hub.load_dataset("default", cache_dir=tmp_path / "c")
    with pytest.raises(SourceUnavailableError, match="data_dir .*nope: no such file or folder"):
        ocw_hub.load_dataset("wote", data_dir=tmp_path / "nope", cache_dir=tmp_path / "c")


def test_repo_id_goes_to_the_hub_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--data-dir ORG/NAME`` (no such local path) reads a published export with
    ``datasets.load_dataset`` (offline from its cache); a failure names the repo id."""
    from ocw_hub.data import sources

    calls = []

    def fake_load_dataset(path: str, name: str, **kwargs: object) -> str:
        calls.append((path, name, kwargs["split"]))
        raise ConnectionError("offline")

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    assert sources.looks_like_repo_id("someone/ocw") and not sources.looks_like_repo_id("a/b/c")
    with pytest.raises(SourceUnavailableError, match="cannot read someone/ocw"):
        sources.load_split("ocw", "test", "someone/ocw")
    assert calls == [("someone/ocw", "default", "test")]


def test_a_mistyped_local_path_is_no_repo_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``build/hubb`` beside a ``build`` folder is a local path that does not exist (an error at
    once), not a repo id the Hub is asked for (retries over the network, then an error)."""
    from typer.testing import CliRunner

    from ocw_hub.cli import app
    from ocw_hub.data import sources

    calls = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: calls.append(a))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "build" / "hub").mkdir(parents=True)
    assert not sources.looks_like_repo_id("build/hubb")
    assert sources.find_source("ocw", "build/hubb").kind == "files"
    assert sources.looks_like_repo_id("TaatiTeam/OCW")
    preds = tmp_path / "preds.json"
    preds.write_text("[]", encoding="utf-8")
    result = CliRunner().invoke(app, ["evaluate", str(preds), "--data-dir", "build/hubb"])
    assert result.exit_code == 1 and calls == []
