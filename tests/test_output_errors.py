"""Every filesystem error on an output is one line, before any work: a read-only folder (as an
unprivileged user: root writes anywhere), ``/proc``, a path under a file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
FIXTURES = Path(__file__).parent / "data"
NOBODY = 65534

#: Run as an unprivileged user: the modules the commands import are imported first (the
#: interpreter's own folder may be closed to that user), then the ids are dropped.
AS_NOBODY = f"""
import os, sys
import fileinput, fractions, multiprocessing.synchronize
import datasets, pyarrow.parquet, k_means_constrained
import importlib.readers, importlib.resources.readers  # package data (prompt styles)
import rich.console, rich.markup, rich.progress, rich.table, rich.text  # imported on first print
import ocw_hub.cli, ocw_hub.outputs, ocw_hub.experiment, ocw_hub.scoring.runs
import ocw_hub.baselines.protocol, ocw_hub.llm.responses, ocw_hub.llm.prompts
import ocw_hub.views.report, ocw_hub.views.report_data, ocw_hub.data.randomize
import ocw_hub.data.export, ocw_hub.data.sources, ocw_hub.resources, ocw_hub.cli._errors
from ocw_hub.cli import COMMANDS, load_command
for name in COMMANDS:  # each command's module is imported when it runs: import them all now
    load_command(name)
if os.getuid() == 0:
    os.setgroups([]); os.setgid({NOBODY}); os.setuid({NOBODY})
from ocw_hub.__main__ import main
sys.argv = ["ocw-hub", *sys.argv[1:]]
main()
"""


def _commands(inputs: Path, data: Path, out_file: Path, out_dir: Path) -> dict[str, list[str]]:
    predictions = inputs / "p.json"
    predictions.write_text("[]")
    responses = inputs / "responses.jsonl"
    responses.write_text("")
    requests = inputs / "requests.jsonl"
    requests.write_text("")
    d = ["--data-dir", str(data), "--no-checks"]
    return {
        "evaluate": ["evaluate", str(predictions), *d, "--out", str(out_file)],
        "parse": ["parse", str(responses), *d, "--out", str(out_file)],
        "report": ["report", str(FIXTURES / "report" / "model-a.json"), "--out", str(out_file)],
        "play-page": ["play-page", *d, "--out", str(out_file)],
        "prompts": ["prompts", "--task", "grouping", "--shots", "0", *d, "--out", str(out_file)],
        "predict": ["predict", "--method", "random", "--runs", "1", *d, "--out", str(out_dir)],
        "reproduce": ["reproduce", *d, "--out", str(out_dir)],
        "build": ["build", "--config", "default", *d, "--out", str(out_dir)],
        "derive": ["derive", "randomized", "--data-dir", str(data), "--out", str(out_dir)],
    }


COMMANDS = ("evaluate", "parse", "report", "prompts", "predict", "reproduce")
COMMANDS += ("build", "derive", "play-page")


def _run(args: list[str], home: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "HOME": str(home),
        "HF_HOME": str(home / "hf"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "MPLCONFIGDIR": str(home / "matplotlib"),
    }
    return subprocess.run(
        [sys.executable, "-c", AS_NOBODY, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=300,
    )


def _one_line(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "--out" in errors[0], done.stderr


@pytest.fixture()
def places(ocw_fixture_dir: Path) -> Iterator[dict[str, Path]]:
    """Folders an unprivileged user can reach (pytest's own are private to root): a home to
    write, a read-only folder, inputs."""
    root = Path(tempfile.mkdtemp(prefix="ocw-hub-outputs-"))
    root.chmod(0o755)
    home = root / "home"
    home.mkdir()
    home.chmod(0o777)
    closed = root / "closed"
    (closed / "folder").mkdir(parents=True)
    for folder in (closed / "folder", closed):
        folder.chmod(0o555)
    inputs = root / "inputs"
    inputs.mkdir()
    private = root / "private"  # a folder this user may not even enter
    private.mkdir(mode=0o700)
    try:
        yield {
            "home": home,
            "closed": closed,
            "private": private,
            "inputs": inputs,
            "data": ocw_fixture_dir,
        }
    finally:
        for folder in (closed, closed / "folder"):
            folder.chmod(0o755)
        shutil.rmtree(root)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["read-only", "private", "proc"])
@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_that_cannot_be_written_is_one_line(
    places: dict[str, Path], command: str, where: str
) -> None:
    if where == "read-only":
        out_file, out_dir = places["closed"] / "out.json", places["closed"] / "folder"
    elif where == "private":
        out_file, out_dir = places["private"] / "out.json", places["private"] / "folder"
    else:
        out_file, out_dir = Path("/proc/ocw-hub-out.json"), Path("/proc/ocw-hub-out")
    args = _commands(places["inputs"], places["data"], out_file, out_dir)[command]
    done = _run(args, places["home"])
    _one_line(done)
    assert sorted(p.name for p in places["closed"].iterdir()) == ["folder"]
    assert list((places["closed"] / "folder").iterdir()) == []
