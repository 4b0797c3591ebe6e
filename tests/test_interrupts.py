"""Ctrl-C (SIGINT to the whole process group, as a terminal sends it) at several moments of a
command: one line, exit code 130, no traceback from the command, its threads or its worker
processes, and nothing half-written."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from signal_support import interrupted

from ocw_hub import interrupts
from ocw_hub.interrupts import INTERRUPTED_EXIT, run_interruptible
from ocw_hub.outputs import write_json

#: A traceback line of ocw_hub code that runs before the program can handle Ctrl-C: the
#: package's import (which imports nothing) and the entry module's few definitions before main().
_BEFORE_HANDLER = re.compile(r'ocw_hub[/\\](__init__|__main__)\.py", line \d+, in <module>$')


def _python_start(done: subprocess.CompletedProcess) -> bool:
    """Ctrl-C reached Python before any of ocw_hub's code could handle it: killed by SIGINT
    without a word (before the interpreter handles it), or Python's own KeyboardInterrupt
    traceback from its start-up (killed by SIGINT, or exit 1 from a failed ``site``/``runpy``),
    with no frame of ocw_hub's but the package's import."""
    if done.returncode not in (-signal.SIGINT, 1):
        return False
    lines = done.stderr.strip().splitlines()
    if not lines:
        return done.returncode == -signal.SIGINT
    ours = [line.strip() for line in lines if "ocw_hub" in line]
    return lines[-1] == "KeyboardInterrupt" and all(_BEFORE_HANDLER.search(x) for x in ours)


def _check_ending(
    done: subprocess.CompletedProcess, sent: float | None, outputs: list[Path] | None = None
) -> None:
    """Interrupted (one line, exit 130) or, before the program could handle it, Python's own
    ending. Exit 0 after the signal only when the command had finished its work before it
    (``outputs``, if given: each written before the signal; the program ignores Ctrl-C once
    the command is over, while Python's exit hooks stop the worker processes)."""
    if done.returncode == INTERRUPTED_EXIT:
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1] == "interrupted", done.stderr
    elif done.returncode == 0:
        if sent is not None and outputs is not None:
            late = [p.name for p in outputs if not p.exists() or p.stat().st_mtime > sent]
            assert outputs and not late, f"ran on after Ctrl-C ({late}):\n{done.stderr}"
    else:
        assert _python_start(done), f"exit {done.returncode}:\n{done.stderr}"


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


def _predict(data_dir: Path, out: Path, *extra: str, runs: int = 4) -> list[str]:
    args = ["predict", "--method", "embedding", "--runs", str(runs), "--no-checks", *extra]
    return [*args, "--data-dir", str(data_dir), "--out", str(out)]


def _evaluate(data_dir: Path, tmp_path: Path) -> tuple[list[str], Path]:
    """``evaluate`` of a predictions file of the fixture (written here, not by the command)."""
    rows = json.loads((data_dir / "test.json").read_text(encoding="utf-8"))["dataset"]
    walls = [
        {
            "wall_id": r["wall_id"],
            "predicted_groups": [r["words"][i::4] for i in range(4)],
            "predicted_connections": None,
        }
        for r in rows
    ]
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps(walls), encoding="utf-8")
    out = tmp_path / "results.json"
    args = ["evaluate", str(predictions), "--data-dir", str(data_dir), "--no-checks"]
    return [*args, "--out", str(out)], out


def _interrupt(command: str, data_dir: Path, tmp_path: Path, delay: float) -> None:
    """``command`` interrupted after ``delay`` seconds ends as :func:`_check_ending` says and
    leaves its output whole or absent."""
    if command == "predict":
        out = tmp_path / "runs"
        done, sent = interrupted(_predict(data_dir, out, "--jobs", "2", runs=16), delay)
        _check_ending(done, sent, [out / f"run-{s:02d}.json" for s in range(16)])
        _runs_left(out, 16)
    elif command == "evaluate":
        args, out = _evaluate(data_dir, tmp_path)
        done, sent = interrupted(args, delay)
        _check_ending(done, sent, [out])
        if done.returncode == 0 or out.exists():
            json.loads(out.read_text(encoding="utf-8"))
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    else:
        done, sent = interrupted(["--help"], delay)
        _check_ending(done, sent)


#: Moments of Ctrl-C (seconds after the start) in the first seconds, imports included: Python's
#: start, the package's and the CLI's imports, NumPy's and SciPy's, the worker processes'
#: start, the clustering. Each command may finish first on a fast machine (then its outputs
#: are older than the signal).
SWEEP = [
    *[("predict", d) for d in (0.0, 0.03, 0.1, 0.25, 0.5, 0.8, 1.1, 1.4, 1.7, 2.0)],
    *[("evaluate", d) for d in (0.0, 0.05, 0.15, 0.3, 0.5)],
    *[("--help", d) for d in (0.02, 0.08, 0.15)],
]


@pytest.mark.slow
@pytest.mark.parametrize(("command", "delay"), SWEEP)
def test_ctrl_c_at_any_moment_of_the_first_seconds(
    tmp_path: Path, ocw_fixture_dir: Path, command: str, delay: float
) -> None:
    _interrupt(command, ocw_fixture_dir, tmp_path, delay)


@pytest.mark.parametrize(("command", "delay"), [("predict", 0.4), ("evaluate", 0.1)])
def test_ctrl_c_in_the_first_second_is_exit_130(
    tmp_path: Path, ocw_fixture_dir: Path, command: str, delay: float
) -> None:
    """The quick version of the sweep above, in the default suite."""
    _interrupt(command, ocw_fixture_dir, tmp_path, delay)


@pytest.fixture
def sigint_restored() -> Iterator[None]:
    """SIGINT handled as Python does by default in a foreground program, whatever this process
    was started with (ignored in a background job), and its handler put back after the test
    (run_interruptible ignores SIGINT once the command is over)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(1000):  # the handler runs between two bytecodes
        pass


def test_a_swallowed_ctrl_c_still_ends_the_command_130(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sigint_restored: None
) -> None:
    """Library code that catches the interrupt (an ``except ImportError`` around an import
    whose C extension failed with it) cannot let the command run on: nothing is written
    after it, and the exit code is 130."""
    out = tmp_path / "out.json"

    def command() -> None:
        try:
            _ctrl_c()
        except BaseException:
            pass
        write_json(out, {"done": True})

    with pytest.raises(SystemExit) as exit_:
        run_interruptible(command)
    assert exit_.value.code == INTERRUPTED_EXIT
    assert capsys.readouterr().err.strip() == "interrupted"
    assert not list(tmp_path.iterdir())
    write_json(out, {"after": "the command"})  # in this process, outside a command: written
    assert out.exists()


def test_ctrl_c_as_a_temporary_file_is_made_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sigint_restored: None
) -> None:
    """Ctrl-C just after the temporary copy of an output is created: it is removed."""
    import tempfile

    made = tempfile.mkstemp

    def mkstemp(*args: object, **kwargs: object) -> tuple[int, str]:
        result = made(*args, **kwargs)  # type: ignore[call-overload]
        _ctrl_c()
        return result

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    with pytest.raises(SystemExit):
        run_interruptible(lambda: write_json(tmp_path / "out.json", {"done": True}))
    assert not list(tmp_path.iterdir())


def test_ctrl_c_ignored_at_the_start_stays_ignored(sigint_restored: None) -> None:
    """A background job (SIGINT ignored by its shell) is not ended by the terminal's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def command() -> str:
        _ctrl_c()
        return "done"

    assert run_interruptible(command) == "done"


def test_ctrl_c_while_held_is_raised_at_the_end(sigint_restored: None) -> None:
    steps = []

    def command() -> None:
        with interrupts.held():
            _ctrl_c()
            steps.append("after the signal")
        steps.append("after the block")

    with pytest.raises(SystemExit):
        run_interruptible(command)
    assert steps == ["after the signal"]


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.5, 0.9, 1.5, 3.0])
def test_ctrl_c_during_predict(tmp_path: Path, ocw_fixture_dir: Path, delay: float) -> None:
    out = tmp_path / "runs"
    done, sent = interrupted(_predict(ocw_fixture_dir, out, "--jobs", "2"), delay)
    _check_ending(done, sent, [out / f"run-{s:02d}.json" for s in range(4)])
    left = _runs_left(out, 4)
    assert done.returncode == 130 or left  # exit 0: every run written


@pytest.mark.slow
@pytest.mark.full_data
@pytest.mark.parametrize("delay", [4.0, 8.0])
def test_ctrl_c_while_clustering(tmp_path: Path, ocw_dir: Path, delay: float) -> None:
    """494 walls x 16 runs: still clustering at these moments, on any machine."""
    out = tmp_path / "runs"
    args = ["predict", "--method", "embedding", "--jobs", "2", "--no-checks", "--out", str(out)]
    done, sent = interrupted([*args, "--data-dir", str(ocw_dir)], delay)
    assert done.returncode == INTERRUPTED_EXIT
    _check_ending(done, sent)
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("delay", [2.0, 5.0])
def test_reproduce_interrupted_then_run_again(
    tmp_path: Path, ocw_fixture_dir: Path, delay: float
) -> None:
    out = tmp_path / "build"
    args = ["reproduce", "--data-dir", str(ocw_fixture_dir), "--out", str(out), "--runs", "2"]
    args += ["--no-checks", "--cache-dir", str(tmp_path / "cache")]
    done, sent = interrupted(args, delay)
    _check_ending(done, sent, [out / "reproduce.json"])
    again, _ = interrupted(args, 600)  # the same command, into the same folder
    assert again.returncode == 0, again.stderr
    manifest = json.loads((out / "reproduce.json").read_text(encoding="utf-8"))
    assert manifest["complete"] is True
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp") or p.name == ".ocw-hub.lock"]
