"""Rules of the test suite itself: the list of the files that ``.ci/run`` runs on datasets
3.6.0 names files that exist (test files are split by topic, not by a length limit)."""

from __future__ import annotations

from pathlib import Path

from conftest import DATASETS_ERA_FILES

TESTS = Path(__file__).resolve().parent


def test_datasets_era_files_exist() -> None:
    """A renamed or removed file would silently drop its tests from the datasets 3.6.0 run."""
    missing = sorted(name for name in DATASETS_ERA_FILES if not (TESTS / name).is_file())
    assert not missing, f"DATASETS_ERA_FILES names files that do not exist: {missing}"
