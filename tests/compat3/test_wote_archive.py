"""The loading scripts on ``datasets`` 3.x as a user runs them (``load_dataset("WoTe.py", ...,
trust_remote_code=True)``): a WoTe archive loads like its folder, and ``OCW.py`` refuses the
main release for an ablation config (its own ``OCWSourceError``: the script cannot import the
package). The package API on both eras: ``tests/test_sources.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest

if not datasets.__version__.startswith("3."):
    pytest.skip("script-path tests need datasets 3.x", allow_module_level=True)

from ocw_fixtures import OCW_FIXTURE, WOTE_FIXTURE, WOTE_FIXTURE_SIZES, tarball  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the OCW fixture's quirk walls


def _load(script: str, config: str, data_dir: Path, cache_dir: Path):
    return datasets.load_dataset(
        str(REPO_ROOT / f"{script}.py"),
        config,
        data_dir=str(data_dir),
        trust_remote_code=True,
        cache_dir=str(cache_dir),
        verification_mode="no_checks",
    )


def test_wote_tarball_through_the_script(tmp_path: Path) -> None:
    archive = tarball(WOTE_FIXTURE, tmp_path / "WoTe.tar.gz")
    from_archive = _load("WoTe", "wote", archive, tmp_path / "a")
    from_folder = _load("WoTe", "wote", WOTE_FIXTURE, tmp_path / "b")
    assert {s: ds.num_rows for s, ds in from_archive.items()} == WOTE_FIXTURE_SIZES
    for split in WOTE_FIXTURE_SIZES:
        assert from_archive[split]["id"] == from_folder[split]["id"]


def test_main_release_refused_for_wordnet_through_the_script(tmp_path: Path) -> None:
    folder = tmp_path / "dataset"
    folder.mkdir()
    walls = []
    for split in ("train", "validation", "test"):
        shutil.copy(OCW_FIXTURE / f"{split}.json", folder)
        walls += json.loads((folder / f"{split}.json").read_text(encoding="utf-8"))["dataset"]
    (folder / "OCW.json").write_text(json.dumps({"dataset": walls}), encoding="utf-8")
    with pytest.raises(ValueError) as info:
        _load("OCW", "ocw_wordnet", folder, tmp_path / "cache")
    assert type(info.value).__name__ == "OCWSourceError"
    assert "ocw_wordnet" in str(info.value) and str(folder) in str(info.value)
    assert list((tmp_path / "cache").rglob("*.arrow")) == []
