"""The one output rule of every writer: a regular file or a new path is written, anything else
is refused before any work and left as it was (device nodes and FIFOs are made under a
temporary folder, never under /dev)."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
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
    assert list((tmp_path / "runs").iterdir()) == []
