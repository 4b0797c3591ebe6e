"""Issue 22: a ``--cache-dir`` or ``HF_HOME`` ocw-hub cannot write to is one line naming the
path (cli/_errors.py maps the file system's errors about a named path once), not a
``PermissionError`` / ``NotADirectoryError`` traceback, and nothing is written.

Tests here may run as root, where ``chmod`` cannot make a folder read-only: that case is
skipped as root, and the same failure is made by real conditions that bite as root too — a
file where the cache folder, or a folder above it, is expected, and a path in sysfs
(``/sys``, which refuses new folders even to root with ``EPERM``, a ``PermissionError``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from ocw_fixtures import OCW_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _read_only(tmp: Path) -> Path:
    folder = tmp / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    return folder / "cache"


def _a_file(tmp: Path) -> Path:
    (tmp / "file").write_text("")
    return tmp / "file"


def _under_a_file(tmp: Path) -> Path:
    return _a_file(tmp) / "cache"


def _in_sysfs(tmp: Path) -> Path:
    return Path("/sys/ocw-hub-test-cache")


CASES = [
    pytest.param(_read_only, marks=pytest.mark.skipif(IS_ROOT, reason="root: chmod does not bite")),
    _a_file,
    _under_a_file,
    pytest.param(
        _in_sysfs,
        marks=pytest.mark.skipif(
            not Path("/sys/kernel").is_dir() or Path("/sys/ocw-hub-test-cache").exists(),
            reason="no sysfs",
        ),
    ),
]


def _one_error_line(output: str, path: Path) -> None:
    lines = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and str(path) in lines[0], output
    assert "Traceback" not in output


@pytest.mark.parametrize("make", CASES, ids=lambda f: f.__name__.strip("_"))
def test_an_unwritable_cache_dir_is_one_line(tmp_path: Path, make: Callable) -> None:
    cache = make(tmp_path)
    out = tmp_path / "out"
    args = [
        "build",
        "-c",
        "default",
        "--data-dir",
        str(OCW_FIXTURE),
        "--out",
        str(out),
        "--cache-dir",
        str(cache),
        "--no-checks",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    _one_error_line(result.output, cache)
    assert not out.exists()


@pytest.mark.parametrize("make", CASES, ids=lambda f: f.__name__.strip("_"))
def test_an_unwritable_hf_home_is_one_line(tmp_path: Path, make: Callable) -> None:
    """HF_HOME is read when ``datasets`` is imported: a fresh process."""
    home = make(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "HF_HOME": str(home), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    env.pop("HF_DATASETS_CACHE", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ocw_hub",
            "build",
            "-c",
            "default",
            "--data-dir",
            str(OCW_FIXTURE),
            "--out",
            str(out),
            "--no-checks",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    _one_error_line(done.stderr, home)
    assert not out.exists()
