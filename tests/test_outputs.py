"""The one output rule of every writer: a regular file or a new path is written, anything else
is refused before any work and left as it was (device nodes and FIFOs are made under a
temporary folder, never under /dev)."""

from __future__ import annotations

import json
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import OutputPathError
from ocw_hub.outputs import check_output_file, exclusive, write_text_atomic


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _device(path: Path) -> Path:
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # the null device's numbers
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


def _socket(path: Path) -> Path:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()
    return path


def _symlink(path: Path) -> Path:
    (path.parent / "target").write_text("keep")
    path.symlink_to(path.parent / "target")
    return path


KINDS: dict[str, Callable[[Path], Path]] = {
    "fifo": _fifo,
    "device": _device,
    "socket": _socket,
    "symlink": _symlink,
}


def _mode(path: Path) -> int:
    return path.lstat().st_mode


@pytest.mark.parametrize("kind", KINDS)
def test_non_regular_outputs_are_refused_and_kept(tmp_path: Path, kind: str) -> None:
    out = KINDS[kind](tmp_path / "out")
    before = _mode(out)
    with pytest.raises(OutputPathError):
        check_output_file(out)
    with pytest.raises(OutputPathError):
        write_text_atomic(out, "x")
    assert _mode(out) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_evaluate_refuses_before_scoring(tmp_path: Path, kind: str, ocw_fixture_dir: Path) -> None:
    out = KINDS[kind](tmp_path / "results.json")
    predictions = tmp_path / "p.json"
    predictions.write_text("[]")
    result = CliRunner().invoke(
        app, ["evaluate", str(predictions), "--data-dir", str(ocw_fixture_dir), "--out", str(out)]
    )
    assert result.exit_code == 1 and "--out" in result.output
    assert not stat.S_ISREG(_mode(out))


def test_regular_file_and_new_path_are_written(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text("before")
    write_text_atomic(check_output_file(old), "after")
    write_text_atomic(check_output_file(tmp_path / "new" / "x.json"), "new")
    assert old.read_text() == "after" and (tmp_path / "new" / "x.json").read_text() == "new"


def test_read_only_file_is_never_replaced(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    """A file without write bits (a release file, say) is refused even as root, where the
    atomic rename would replace it regardless of its mode."""
    kept = tmp_path / "validation.json"
    kept.write_text("[]")
    kept.chmod(0o444)
    with pytest.raises(OutputPathError):
        check_output_file(kept)
    predictions = tmp_path / "p.json"
    predictions.write_text("[]")
    result = CliRunner().invoke(
        app, ["evaluate", str(predictions), "--data-dir", str(ocw_fixture_dir), "--out", str(kept)]
    )
    assert result.exit_code == 1 and "--out" in result.output
    assert kept.read_text() == "[]" and stat.S_IMODE(kept.stat().st_mode) == 0o444


def test_unwritable_place_is_refused_before_work(tmp_path: Path) -> None:
    with pytest.raises(OutputPathError):
        check_output_file("/proc/ocw-hub-results.json")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputPathError):
        check_output_file(tmp_path / "file" / "x.json")


def test_one_writer_per_folder(tmp_path: Path) -> None:
    with exclusive(tmp_path / "runs"):
        with pytest.raises(OutputPathError):
            with exclusive(tmp_path / "runs"):
                pass
    with exclusive(tmp_path / "runs"):  # released, and the lock file gone
        pass
    assert not (tmp_path / "runs").exists()  # made by the call and left empty: removed
    (tmp_path / "kept").mkdir()
    with exclusive(tmp_path / "kept"):
        pass
    assert list((tmp_path / "kept").iterdir()) == []


FIXTURES = Path(__file__).parent / "data"


def _writer_args(tmp_path: Path, data: Path, out: Path) -> dict[str, list[str]]:
    """Every command that writes, with ``out`` as its output (file or folder)."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    predictions = inputs / "p.json"
    predictions.write_text("[]")
    responses = inputs / "responses.jsonl"
    responses.write_text("")
    requests = inputs / "requests.jsonl"
    requests.write_text("")
    d = ["--data-dir", str(data), "--no-checks"]
    o = ["--out", str(out)]
    return {
        "evaluate": ["evaluate", str(predictions), *d, *o],
        "parse": ["parse", str(responses), *d, *o],
        "report": ["report", str(FIXTURES / "report" / "model-a.json"), *o],
        "prompts": ["prompts", "--task", "grouping", "--shots", "0", *d, *o],
        "predict": ["predict", "--method", "random", "--runs", "1", *d, *o],
        "reproduce": ["reproduce", *d, *o],
        "build": ["build", "--config", "default", *d, *o],
        "derive": ["derive", "randomized", "--data-dir", str(data), *o],
    }


WRITERS = ("evaluate", "parse", "report", "prompts", "predict", "reproduce")
WRITERS += ("build", "derive")


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("command", WRITERS)
def test_every_writer_refuses_a_fifo_or_device(
    tmp_path: Path, kind: str, command: str, ocw_fixture_dir: Path
) -> None:
    out = KINDS[kind](tmp_path / "out")
    before = out.lstat()
    args = _writer_args(tmp_path, ocw_fixture_dir, out)[command]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    after = out.lstat()
    assert (after.st_mode, after.st_rdev, after.st_ino) == (
        before.st_mode,
        before.st_rdev,
        before.st_ino,
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs", "out"]


def test_a_second_predict_into_a_held_folder_is_refused(
    tmp_path: Path, ocw_fixture_dir: Path
) -> None:
    """Two ``predict`` into one folder never mix their runs: the second is refused."""
    folder = tmp_path / "runs"
    args = ["predict", "--method", "random", "--runs", "2", "--no-checks"]
    args += ["--data-dir", str(ocw_fixture_dir), "--out", str(folder)]
    with exclusive(folder):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1 and "--out" in result.output
        assert sorted(p.name for p in folder.iterdir()) == [".ocw-hub.lock"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in folder.iterdir())
    assert written == ["protocol.json", "run-00.json", "run-01.json"]


def test_stderr_to_a_pipe_holds_messages_only(tmp_path: Path) -> None:
    """No progress bar when stderr is no terminal: rich's transient bar left a blank line
    before the first message of a log or a pipe."""
    import subprocess
    import sys

    from ocw_fixtures import OCW_FIXTURE

    preds = tmp_path / "preds.json"
    preds.write_text(
        json.dumps([{"wall_id": "x", "predicted_groups": None, "predicted_connections": None}]),
        encoding="utf-8",
    )
    args = ["evaluate", str(preds), "--data-dir", str(OCW_FIXTURE), "--no-checks"]
    done = subprocess.run([sys.executable, "-m", "ocw_hub", *args], capture_output=True, text=True)
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and lines and all(line.strip() for line in lines), lines
    assert lines[0].startswith("warning:") and lines[-1].startswith("error:")


# -- CSV cells and YAML text (issue 30, item 8) ----------------------------------------------


def test_a_csv_cell_that_a_spreadsheet_reads_as_a_formula_is_text() -> None:
    from ocw_hub.outputs import csv_cell

    for cell in ("=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx", "-0.5 [-0.6, -0.4]", "-"):
        assert csv_cell(cell) == "'" + cell
    for cell in ("-0.5", "+1e-3", "-.25", "0.5", "x=1", "", "3"):
        assert csv_cell(cell) == cell


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(max_size=8), min_size=1, max_size=4), min_size=1, max_size=4))
def test_csv_text_reads_back_each_cell_escaped(rows: list[list[str]]) -> None:
    import csv
    import io

    from ocw_hub.outputs import csv_cell, csv_text

    back = list(csv.reader(io.StringIO(csv_text(rows), newline="")))
    assert back == [[csv_cell(c) for c in row] for row in rows]


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_yaml_text_reads_back_as_written(data: object) -> None:
    """PyYAML with allow_unicode wrote a NEL (U+0085) raw in a quoted text and read it back
    as a space."""
    import yaml

    from ocw_hub.outputs import yaml_text

    assert yaml.safe_load(yaml_text(data)) == data
    assert yaml.safe_load(yaml_text(data, literal_blocks=True)) == data
