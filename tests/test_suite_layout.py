"""Rules of the test suite itself: files a reader can take in, and the list of the files that
``.ci/run`` runs on datasets 3.6.0 naming files that exist."""

from __future__ import annotations

from pathlib import Path

from conftest import DATASETS_ERA_FILES

TESTS = Path(__file__).resolve().parent
#: A test file past this is split by topic (the limit of the sources, with some slack).
MAX_TEST_LINES = 650


def test_no_test_file_above_the_length_limit() -> None:
    long = [
        f"{path.relative_to(TESTS)} ({lines} lines)"
        for path in sorted(TESTS.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_TEST_LINES
    ]
    assert not long, f"test files above {MAX_TEST_LINES} lines:\n" + "\n".join(long)


def test_datasets_era_files_exist() -> None:
    """A renamed or removed file would silently drop its tests from the datasets 3.6.0 run."""
    missing = sorted(name for name in DATASETS_ERA_FILES if not (TESTS / name).is_file())
    assert not missing, f"DATASETS_ERA_FILES names files that do not exist: {missing}"
