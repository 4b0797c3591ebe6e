"""Provenance of figures: the source (release, stand-in, derived, Hub revision; its SHA-256)
and the protocol recorded by the producing commands, in the results JSON, the terminal
table, the report and the export's card; and one definition of the contestants' figures
for ``ocw_randomized``."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from ocw_fixtures import OCW_FIXTURE
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.data.sources import _hub_revision, source_provenance
from ocw_hub.provenance import ProvenanceError, protocol_record, read_protocol, write_protocol
from ocw_hub.resources import load_sibling
from ocw_hub.results import read_results
from ocw_hub.scoring.predictions import expand_prediction_paths
from ocw_hub.views.plots import plot_by_season, plot_runs
from ocw_hub.views.report import build_report

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
source_digest = load_sibling("source_files").source_digest


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> tuple[Path, dict, str]:
    """2 random runs on the OCW fixture (real walls with the pre-release ids: a stand-in),
    scored: (results file, results, the table's output)."""
    root = tmp_path_factory.mktemp("stand_in")
    data = ["--data-dir", str(OCW_FIXTURE), "--cache-dir", str(cache), "--no-checks"]
    _cli("predict", "--method", "random", "--runs", "2", "--out", str(root / "random"), *data)
    out = root / "random.json"
    table = _cli("evaluate", str(root / "random"), "--out", str(out), *data)
    return out, json.loads(out.read_text()), table


def test_stand_in_source_and_protocol_in_the_json(stand_in: tuple[Path, dict, str]) -> None:
    _, results, _ = stand_in
    source = results["source"]
    assert source["release"] == "stand-in" and source["stand_in"] is True
    assert source["kind"] == "files" and source["path"] == str(OCW_FIXTURE)
    assert source["sha256"] == source_digest(OCW_FIXTURE)
    protocol = {
        "method": "random",
        "seed": 42,
        "runs": 2,
        "package_version": ocw_hub.__version__,
    }
    assert results["protocol"] == protocol
    assert [run["protocol"] for run in results["runs"]] == [protocol, protocol]
    # the record is no run
    assert [
        p.name for p in expand_prediction_paths([Path(results["runs"][0]["predictions"]).parent])
    ] == [
        "run-00.json",
        "run-01.json",
    ]


def test_stand_in_marked_in_the_table_and_the_report(stand_in: tuple[Path, dict, str]) -> None:
    path, results, table = stand_in
    flat = " ".join(table.split())
    assert "source: stand-in" in flat
    assert results["source"]["sha256"][:12] in flat
    assert "protocol: method random, seed 42, runs 2, ocw-hub" in flat
    page = build_report(read_results([path]))
    inputs = page[page.index('<table class="inputs">') : page.index("</table>")]
    assert 'data-stand-in="true"><strong>stand-in</strong>' in inputs
    assert results["source"]["sha256"][:12] in inputs
    assert "method random, seed 42, runs 2" in inputs
    assert '<th scope="col">random (stand-in)</th>' in page


def test_derived_randomized_source_and_contestants(tmp_path: Path, cache: Path) -> None:
    """ocw_randomized's contestants: per-group figures kept, whole-wall ones null, in the
    JSON (totals, seasons, walls), the table ("-") and the plots (no human full-wall bar)."""
    derived = tmp_path / "randomized"
    _cli("derive", "randomized", "--data-dir", str(OCW_FIXTURE), "--out", str(derived))
    record = json.loads((derived / "derived.json").read_text())
    assert record["from_sha256"] == source_digest(OCW_FIXTURE)
    assert record["from_release"] == "stand-in" and record["seed"] == 42
    data = ["--config", "ocw_randomized", "--data-dir", str(derived), "--cache-dir", str(cache)]
    data.append("--no-checks")
    _cli("predict", "--method", "random", "--runs", "2", "--out", str(tmp_path / "p"), *data)
    out = tmp_path / "r.json"
    table = _cli("evaluate", str(tmp_path / "p"), "--out", str(out), *data)
    results = json.loads(out.read_text())
    source = results["source"]
    assert source["release"] == "derived" and source["stand_in"] is True
    assert source["sha256"] == source_digest(derived) and source["derived"] == record

    walls = json.loads((derived / "test.json").read_text())["dataset"]
    found = [g["human_performance"]["grouping"] for w in walls for g in w["groups"].values()]
    human = results["human"]
    assert (human["full_wall"], human["full_wall_rate"]) == (None, None)
    assert human["correct_groups"] == sum(found)
    assert human["correct_groups_rate"] == sum(found) / len(found)
    for run in results["runs"]:
        for season in run["by_season"].values():
            assert season["human"]["full_wall"] is None
        assert {w["human"]["full_wall"] for w in run["per_wall"]} == {None}
    rows = {
        tuple(line.split("│")[1:3]): line.split("│")[4].strip()
        for line in table.splitlines()
        if line.count("│") == 5
    }
    rows = {(t.strip(), f.strip()): h for (t, f), h in rows.items()}
    assert rows[("grouping", "full_wall")] == "-" and rows[("grouping", "full_wall_rate")] == "-"
    assert rows[("grouping", "correct_groups")].split(" [")[0] == str(sum(found))

    files = read_results([out])
    full, correct = plot_by_season(files).figure.axes
    labels = [c.get_label() for c in full.containers if hasattr(c, "patches")]
    assert "human (contestants)" not in labels
    assert "human (contestants)" in [c.get_label() for c in correct.containers]
    marks = [line for line in plot_runs(files).figure.axes[0].lines if line.get_marker() == "_"]
    human = [m for m in marks if m.get_label() == "human (contestants)"]
    assert len(human) == 1 and len(human[0].get_xdata()) == 1  # correct groups only


def test_zero_bars_are_drawn_as_marks(stand_in: tuple[Path, dict, str]) -> None:
    path, results, _ = stand_in
    full, _ = plot_by_season(read_results([path])).figure.axes
    seasons = sorted(results["runs"][0]["by_season"], key=lambda s: (len(s), s))
    zero = [
        i
        for i, s in enumerate(seasons)
        if all(run["by_season"][s]["grouping"]["full_wall_rate"] == 0 for run in results["runs"])
    ]
    assert zero  # random grouping solves no wall of the fixture
    marks = [line for line in full.lines if line.get_gid() == "zero-mark"]
    model = [m for m in marks if m.get_color() != "#999999"]
    assert len(model) == 1
    width = 0.8 / 2
    assert list(model[0].get_xdata()) == pytest.approx([i - width / 2 for i in zero])
    assert set(model[0].get_ydata()) == {0.0} and model[0].get_clip_on() is False


def test_protocol_records_chain_and_precedence(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_text("")
    write_protocol(requests, {"method": "llm", "model": "a", "shots": 3, "pooling": None})
    raw = json.loads((tmp_path / "requests.jsonl.protocol.json").read_text())
    assert raw["files_sha256"] == {"requests.jsonl": hashlib.sha256(b"").hexdigest()}
    assert read_protocol(requests) == {
        "method": "llm",
        "model": "a",
        "shots": 3,
        "package_version": ocw_hub.__version__,
    }
    record = protocol_record({"model": "b", "parse_mode": "paper"}, inputs=[requests, None])
    assert record == {
        "method": "llm",
        "model": "b",
        "shots": 3,
        "parse_mode": "paper",
        "package_version": ocw_hub.__version__,
    }
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "run-00.json").write_text("[]")
    (folder / "run-01.json").write_text("[]")
    write_protocol(folder, {"method": "random"})
    write_protocol(folder / "run-01.json", {"method": "embedding"})
    assert read_protocol(folder / "run-00.json")["method"] == "random"  # the folder's
    assert read_protocol(folder / "run-01.json")["method"] == "embedding"  # its own first
    assert read_protocol(tmp_path / "requests.jsonl.none") is None
    assert [p.name for p in expand_prediction_paths([folder])] == ["run-00.json", "run-01.json"]
    (folder / "protocol.json").write_text("[1]")
    with pytest.raises(ProvenanceError, match=re.escape(str(folder / "protocol.json"))):
        read_protocol(folder / "run-00.json")


def test_runs_of_different_protocols_say_so(tmp_path: Path, cache: Path) -> None:
    data = ["--data-dir", str(OCW_FIXTURE), "--cache-dir", str(cache), "--no-checks"]
    for method in ("random", "embedding"):
        _cli("predict", "--method", method, "--runs", "1", "--out", str(tmp_path / method), *data)
    out = tmp_path / "r.json"
    runs = [str(tmp_path / m / "run-00.json") for m in ("random", "embedding")]
    table = _cli("evaluate", *runs, "--as-runs", "--out", str(out), *data)
    results = json.loads(out.read_text())
    assert results["protocol"] is None
    assert [r["protocol"]["method"] for r in results["runs"]] == ["random", "embedding"]
    assert "protocol: differs by run" in " ".join(table.split())


def test_hub_revision_from_the_datasets_cache_path() -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    files = [{"filename": f"/c/datasets/org___name/default/0.0.0/{commit}/name-test.arrow"}]
    assert _hub_revision(files) == commit
    assert _hub_revision([{"filename": "/c/datasets/x/default/0.0.0/abc/name-test.arrow"}]) is None


def test_export_card_says_source_and_hash(tmp_path: Path, cache: Path) -> None:
    from huggingface_hub import DatasetCard

    out = tmp_path / "hub"
    _cli(
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
    )
    text = DatasetCard.load(out / "ocw" / "README.md").text
    section = text[text.index("## Built from") :]
    row = next(line for line in section.splitlines() if line.startswith("| `default` |"))
    assert row == f"| `default` | stand-in | `{source_digest(OCW_FIXTURE)}` |"


def test_evaluate_never_writes_over_the_records_it_reads(
    stand_in: tuple[Path, dict, str], cache: Path
) -> None:
    """The protocol record of the runs scored is an input of evaluate: --out on it is refused."""
    results, _, _ = stand_in
    record = results.parent / "random" / "protocol.json"
    before = record.read_bytes()
    data = ["--data-dir", str(OCW_FIXTURE), "--cache-dir", str(cache), "--no-checks"]
    run = str(record.parent / "run-00.json")
    result = runner.invoke(app, ["evaluate", run, "--out", str(record), *data])
    assert result.exit_code == 1 and "--out" in result.output
    assert record.read_bytes() == before


_UNVERIFIED = "release-shaped data, not verified as the official release"


@pytest.mark.parametrize(
    ("config", "split", "ids", "release"),
    [
        ("default", "test", [f"{i:04x}" for i in range(494)], _UNVERIFIED),
        (
            "default",
            "test",
            [f"{i:04x}" for i in range(7)],
            f"{_UNVERIFIED} (7 of the official split's 494 walls)",
        ),
        ("default", "train", [f"{i:04x}" for i in range(62)], _UNVERIFIED),
        ("default", "test", [f"{i:06x}" for i in range(7)], "stand-in"),  # ids say so first
        ("wote", "test", [f"c{i}/q" for i in range(412)], _UNVERIFIED),
        (
            "wote",
            "test",
            [f"c{i}/q" for i in range(20)],
            f"{_UNVERIFIED} (20 of the official split's 412 questions)",
        ),
        ("default", None, [f"{i:04x}" for i in range(7)], _UNVERIFIED),  # split unknown
    ],
)
def test_release_shaped_ids_never_make_the_official_release(
    config: str, split: str | None, ids: list[str], release: str
) -> None:
    """Ids in the release's form, of the official split's size or not, are not the official
    release: nothing recorded or shipped says the content is (the cache holds no download)."""
    source = source_provenance(config, None, ids, split=split)
    assert source["release"] == release and "verified" not in source
    assert source["label"].startswith(release)


def test_one_run_of_a_folder_says_so() -> None:
    """The folder's record says how many runs were made; a results dict of fewer shows both."""
    from ocw_hub.provenance import describe_protocol, results_protocol

    record = {"method": "random", "seed": 42, "runs": 4}
    one = results_protocol({"run": "run-01", "protocol": record})
    assert isinstance(one, dict) and describe_protocol(one) == "method random, seed 42, runs 1 of 4"
    assert results_protocol({"n_runs": 4, "protocol": record}) == record
    assert results_protocol({"n_runs": 2, "protocol": record}) == {**record, "runs": "2 of 4"}
    assert results_protocol({"run": "x", "protocol": {"method": "llm"}}) == {"method": "llm"}
