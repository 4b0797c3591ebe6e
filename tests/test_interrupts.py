"""Ctrl-C (SIGINT to the whole process group, as a terminal sends it) at several moments of a
command: one line, exit code 130, no traceback from the command, its threads or its worker
processes, and nothing half-written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ocw_hub.interrupts import INTERRUPTED_EXIT

SRC = Path(__file__).resolve().parents[1] / "src"


def _interrupted(args: list[str], delay: float) -> subprocess.CompletedProcess:
    """``python -m ocw_hub ARGS`` in a session of its own, SIGINT to its group after ``delay``
    seconds (if still running)."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "ocw_hub", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _check_ending(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == INTERRUPTED_EXIT:
        assert done.stderr.strip().splitlines()[-1] == "interrupted"
    else:
        assert done.returncode == 0, done.stderr


def _runs_left(folder: Path, runs: int) -> list[str]:
    """The run files in a predictions folder: none, or every run whole (the protocol record,
    written after them, may be there too)."""
    if not folder.exists():
        return []
    names = sorted(p.name for p in folder.iterdir() if p.name != "protocol.json")
    assert names in ([], [f"run-{s:02d}.json" for s in range(runs)]), names
    for name in names:
        json.loads((folder / name).read_text(encoding="utf-8"))
    return names


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.5, 0.9, 1.5, 3.0])
def test_ctrl_c_during_predict(tmp_path: Path, ocw_fixture_dir: Path, delay: float) -> None:
    out = tmp_path / "runs"
    args = ["predict", "--method", "embedding", "--runs", "4", "--jobs", "2", "--no-checks"]
    done = _interrupted([*args, "--data-dir", str(ocw_fixture_dir), "--out", str(out)], delay)
    _check_ending(done)
    left = _runs_left(out, 4)
    assert (done.returncode == 0) == bool(left)


def test_ctrl_c_in_the_first_second_is_exit_130(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    """Python starts and imports for longer than this delay: the command is interrupted (the
    interpreter's own start, before the first module of ocw_hub runs, is out of reach)."""
    out = tmp_path / "runs"
    args = ["predict", "--method", "embedding", "--runs", "4", "--no-checks", "--out", str(out)]
    done = _interrupted([*args, "--data-dir", str(ocw_fixture_dir)], 0.5)
    assert done.returncode == INTERRUPTED_EXIT and not out.exists()


@pytest.mark.slow
@pytest.mark.full_data
@pytest.mark.parametrize("delay", [4.0, 8.0])
def test_ctrl_c_while_clustering(tmp_path: Path, ocw_dir: Path, delay: float) -> None:
    """494 walls x 16 runs: still clustering at these moments, on any machine."""
    out = tmp_path / "runs"
    args = ["predict", "--method", "embedding", "--jobs", "2", "--no-checks", "--out", str(out)]
    done = _interrupted([*args, "--data-dir", str(ocw_dir)], delay)
    assert done.returncode == INTERRUPTED_EXIT
    _check_ending(done)
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("delay", [2.0, 5.0])
def test_reproduce_interrupted_then_run_again(
    tmp_path: Path, ocw_fixture_dir: Path, delay: float
) -> None:
    out = tmp_path / "build"
    args = ["reproduce", "--data-dir", str(ocw_fixture_dir), "--out", str(out), "--runs", "2"]
    args += ["--no-checks", "--cache-dir", str(tmp_path / "cache")]
    done = _interrupted(args, delay)
    _check_ending(done)
    again = _interrupted(args, 600)  # the same command, into the same folder
    assert again.returncode == 0, again.stderr
    manifest = json.loads((out / "reproduce.json").read_text(encoding="utf-8"))
    assert manifest["complete"] is True
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp") or p.name == ".ocw-hub.lock"]
