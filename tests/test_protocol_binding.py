"""Issue 22: protocol records are bound to the files they describe (``files_sha256``,
``record_sha256``) and checked when read: a run copied into another folder, a run changed
after its record, or a hand-edited record is a one-line ProtocolMismatchError, never a record
printed as true; a record without digests (written before) is labelled ``unverified``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from ocw_fixtures import OCW_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.provenance import (
    ProtocolMismatchError,
    describe_protocol,
    protocol_record,
    read_protocol,
    rebind_protocol,
    write_protocol,
)

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Two folders of 2 random runs each (seeds 1 and 2) on the OCW fixture; the data options."""
    root = tmp_path_factory.mktemp("bound")
    data = ["--data-dir", str(OCW_FIXTURE), "--cache-dir", str(root / "cache"), "--no-checks"]
    for seed in (1, 2):
        out = root / f"seed{seed}"
        args = ["predict", "--method", "random", "--runs", "2", "--seed", str(seed)]
        result = runner.invoke(app, [*args, "--out", str(out), *data])
        assert result.exit_code == 0, result.output
    return root, data


def _copy_in_new_name(a: Path, b: Path) -> None:
    shutil.copy(a / "run-00.json", b / "run-02.json")  # a random run of another protocol


def _copy_over(a: Path, b: Path) -> None:
    shutil.copy(a / "run-00.json", b / "run-00.json")  # same name, other content


def _edit_record(a: Path, b: Path) -> None:
    record = json.loads((b / "protocol.json").read_text())
    record["model"] = "all-MiniLM-L6-v2"  # a hand-edited claim
    (b / "protocol.json").write_text(json.dumps(record))


def _edit_record_and_drop_its_digest(a: Path, b: Path) -> None:
    record = json.loads((b / "protocol.json").read_text())
    record["method"] = "embedding"
    del record["record_sha256"]
    (b / "protocol.json").write_text(json.dumps(record))


def _edit_a_run(a: Path, b: Path) -> None:
    runs = json.loads((b / "run-01.json").read_text())
    runs[0]["predicted_groups"] = runs[1]["predicted_groups"]
    (b / "run-01.json").write_text(json.dumps(runs))


def _record_of_another_folder(a: Path, b: Path) -> None:
    shutil.copy(a / "protocol.json", b / "protocol.json")


TAMPERINGS: list[Callable[[Path, Path], None]] = [
    _copy_in_new_name,
    _copy_over,
    _edit_record,
    _edit_record_and_drop_its_digest,
    _edit_a_run,
    _record_of_another_folder,
]


@pytest.mark.parametrize("tamper", TAMPERINGS, ids=lambda f: f.__name__.strip("_"))
def test_a_record_that_does_not_describe_its_runs_is_refused(
    folders: tuple[Path, list[str]], tmp_path: Path, tamper: Callable[[Path, Path], None]
) -> None:
    root, data = folders
    b = tmp_path / "b"
    shutil.copytree(root / "seed2", b)
    assert read_protocol(b / "run-00.json") is not None  # whole, it reads
    tamper(root / "seed1", b)
    with pytest.raises(ProtocolMismatchError):
        for run in sorted(b.glob("run-*.json")):
            read_protocol(run)
    result = runner.invoke(app, ["evaluate", str(b), "--out", str(tmp_path / "r.json"), *data])
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, ProtocolMismatchError)  # a line, not a traceback
    assert not (tmp_path / "r.json").exists()


def test_a_whole_folder_copied_elsewhere_still_reads(
    folders: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """The digests are of content and names, not of paths: a folder moved whole is fine."""
    root, data = folders
    shutil.copytree(root / "seed1", tmp_path / "moved")
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["evaluate", str(tmp_path / "moved"), "--out", str(out), *data])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["protocol"]["seed"] == 1


@pytest.mark.parametrize(
    "change",
    [
        lambda log: log.write_text(log.read_text() + '{"custom_id": "x", "text": "y"}\n'),
        lambda log: log.write_text(log.read_text().replace("a", "b")),
        lambda log: log.with_name(log.name + ".protocol.json").write_text(
            log.with_name(log.name + ".protocol.json").read_text().replace('"m1"', '"m2"')
        ),
    ],
    ids=["line appended", "text changed", "model edited in the record"],
)
def test_records_beside_a_file_are_bound_to_it(tmp_path: Path, change: Callable) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"custom_id": "a", "text": "an answer"}\n')
    write_protocol(log, {"method": "llm", "model": "m1"})
    assert read_protocol(log)["model"] == "m1"
    change(log)
    with pytest.raises(ProtocolMismatchError):
        read_protocol(log)
    with pytest.raises(ProtocolMismatchError):  # nor copied into the next command's record
        protocol_record({"parse_mode": "robust"}, inputs=[log])


def test_a_record_without_digests_is_labelled_unverified(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "run-00.json").write_text("[]")
    (folder / "protocol.json").write_text(json.dumps({"method": "random", "seed": 3}))
    record = read_protocol(folder / "run-00.json")
    assert record is not None and record["method"] == "random" and "unverified" in record
    assert "unverified" in describe_protocol(record)
    write_protocol(folder, {"method": "random", "seed": 3})
    assert "unverified" not in read_protocol(folder / "run-00.json")


def test_a_deliberate_edit_is_bound_anew(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_text('{"custom_id": "a", "body": {}}\n')
    write_protocol(requests, {"method": "llm", "model": "m1", "shots": 1})
    requests.write_text('{"custom_id": "a", "body": {"n": 3}}\n')
    with pytest.raises(ProtocolMismatchError):
        read_protocol(requests)
    rebind_protocol(requests)
    assert read_protocol(requests) == {
        k: v for k, v in protocol_record({"method": "llm", "model": "m1", "shots": 1}).items()
    }
