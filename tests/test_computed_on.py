"""Every figure says what it was computed on: ``reproduce``'s table and manifest carry the
source of each config and the encoder of ``embedding``; ``compare`` gives the source and each
system's protocol in every format; a play log's results have its header as their protocol;
``prompts --prompt-style cot`` under the paper profile notes its 144-token budget (and writes
what it wrote before); a data warning raised several times is shown once."""

from __future__ import annotations

import csv
import io
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from play_support import FIXTURE, fixture_rows
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.cli._common import quiet_datasets
from ocw_hub.experiment import MANIFEST, RUNS_OF
from ocw_hub.provenance import describe_protocol

pytestmark = pytest.mark.usefixtures("local_only")
runner = CliRunner()
DATA = ["--data-dir", str(FIXTURE), "--no-checks"]


def _cli(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _flat(text: str) -> str:
    """The text with its line wrapping undone (rich wraps titles)."""
    return " ".join(text.split())


def _shown(source: dict[str, Any]) -> list[str]:
    """Parts of a source label that a wrapped title keeps whole."""
    return [str(source["release"]), f"sha256 {source['sha256'][:12]}"]


def _results(tmp_path: Path, *args: str, name: str) -> dict[str, Any]:
    out = tmp_path / f"{name}.json"
    _cli("evaluate", *args, *DATA, "--out", str(out), "--bootstrap", "100")
    return json.loads(out.read_text(encoding="utf-8"))


# --- reproduce ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    out = tmp_path_factory.mktemp("reproduce") / "build"
    cache = tmp_path_factory.mktemp("cache")
    args = ["reproduce", *DATA, "--out", str(out), "--runs", "2", "--jobs", "1"]
    return out, _cli(*args, "--cache-dir", str(cache))


@pytest.mark.slow
def test_reproduce_table_and_manifest_carry_each_source(reproduced: tuple[Path, Any]) -> None:
    out, result = reproduced
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    title = _flat(result.stdout.split("full walls")[0])  # the title, above the header
    assert sorted(manifest["sources"]) == sorted({c for c, _ in RUNS_OF})
    for config, method in RUNS_OF:
        results = json.loads((out / "results" / f"{config}-{method}.json").read_text())
        assert manifest["sources"][config] == results["source"]
        assert all(part in title for part in _shown(results["source"]))
    default = manifest["sources"]["default"]
    assert default["stand_in"] is True and default["release"] == "stand-in"
    assert manifest["sources"]["ocw_randomized"]["release"] == "derived"
    embedding = json.loads((out / "results" / "default-embedding.json").read_text())
    assert embedding["protocol"]["encoder"] == "tfidf"
    assert f"TF-IDF encoder ({embedding['protocol']['model']})" in title


@pytest.mark.slow
def test_reproduce_shows_each_data_warning_once(reproduced: tuple[Path, Any]) -> None:
    shown = [line for line in reproduced[1].stderr.splitlines() if line.startswith("warning:")]
    assert shown  # the stand-in fixture warns on every load
    assert len(shown) == len(set(shown))


def test_a_warning_raised_again_is_shown_once(capsys: pytest.CaptureFixture[str]) -> None:
    with quiet_datasets():
        for _ in range(4):
            warnings.warn("the same data warning", UserWarning, stacklevel=1)
        warnings.warn("another one", UserWarning, stacklevel=1)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning")]
    assert len(lines) == 2 and "the same data warning" in lines[0]


def test_a_command_that_reads_a_split_twice_warns_once(tmp_path: Path) -> None:
    """``prompts --shots 1`` reads the test walls and the train walls (its shots), each read
    warning of every file's quirks: each warning is shown once per command, and again by the
    next command."""
    for out in ("a.jsonl", "b.jsonl"):
        result = _cli(
            "prompts", "--task", "grouping", "--shots", "1", "--out", str(tmp_path / out), *DATA
        )
        shown = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
        assert shown and len(shown) == len(set(shown))
        assert any("654041" in line for line in shown)  # the fixture's repeated clue


# --- compare --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def systems(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict[str, Any]]:
    """Two folders of runs (random, embedding) and the evaluate results of the first."""
    root = tmp_path_factory.mktemp("systems")
    folders = []
    for method in ("random", "embedding"):
        _cli("predict", "--method", method, "--runs", "1", "--out", str(root / method), *DATA)
        folders.append(str(root / method))
    return folders, _results(root, folders[0], name="random")


def _compare(folders: list[str], output_format: str) -> Any:
    return _cli("compare", *folders, *DATA, "--bootstrap", "100", "--format", output_format)


def test_compare_json_has_the_source_and_each_protocol(systems: tuple) -> None:
    folders, evaluated = systems
    table = json.loads(_compare(folders, "json").stdout)
    label = evaluated["source"]["label"]
    assert table["source"] == label
    by_system = {row["system"]: row for row in table["systems"]}
    assert {by_system[f]["protocol"]["method"] for f in folders} == {"random", "embedding"}
    assert by_system[folders[0]]["protocol"] == evaluated["protocol"]
    assert all(row["source"] == label for row in table["systems"])


def test_compare_csv_has_source_and_protocol_columns(systems: tuple) -> None:
    folders, evaluated = systems
    rows = list(csv.DictReader(io.StringIO(_compare(folders, "csv").stdout)))
    by_system = {row["system"]: row for row in rows}
    assert {row["source"] for row in rows} == {evaluated["source"]["label"]}
    assert by_system[folders[0]]["protocol"] == describe_protocol(evaluated["protocol"])


def test_compare_markdown_and_table_say_what_they_were_computed_on(systems: tuple) -> None:
    folders, evaluated = systems
    markdown = _compare(folders, "markdown").stdout.splitlines()
    assert f"source: {evaluated['source']['label']}" in [line.strip() for line in markdown]
    described = describe_protocol(evaluated["protocol"])
    assert f"protocol of {folders[0]}: {described}" in [line.strip() for line in markdown]
    title = _flat(_compare(folders, "table").stdout.split("walls in common")[0])
    assert all(part in title for part in _shown(evaluated["source"]))
    assert "method random" in title and "method embedding" in title


# --- play logs ------------------------------------------------------------------------


def _play_log(path: Path, **header: Any) -> Path:
    """A person's log of the fixture wall 46fa44, solved in 3 guesses (as the play page
    writes it), under ``header``'s rules and caps."""
    groups = [g["gt_words"] for g in fixture_rows()[0]["groups"].values()]
    head = {
        "record": "play",
        "version": 1,
        "rules": "show",
        "max_guesses": 20,
        "max_invalid": 3,
        "config": "default",
        "split": "test",
        "player": "ana",
        "player_kind": "human",
        **header,
    }
    guesses = [
        {
            "record": "guess",
            "wall_id": "46fa44",
            "turn": turn,
            "clues": groups[turn - 1],
            "invalid": None,
            "verdict": "correct",
        }
        for turn in (1, 2, 3)
    ]
    lines = [head, *guesses, {"record": "end", "wall_id": "46fa44", "reason": "solved"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def test_a_play_log_has_its_header_as_protocol(tmp_path: Path) -> None:
    ana = _play_log(tmp_path / "ana.jsonl")
    bo = _play_log(tmp_path / "bo.jsonl", player="bo", max_guesses=12)
    out = tmp_path / "ana.json"
    shown = _cli("evaluate", str(ana), *DATA, "--allow-missing", "--out", str(out)).stdout
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["protocol"] == {
        "method": "play",
        "version": 1,
        "rules": "show",
        "max_guesses": 20,
        "max_invalid": 3,
        "player": "ana",
        "player_kind": "human",
    }
    assert f"protocol: {describe_protocol(results['protocol'])}" in _flat(shown)
    assert "player ana" in describe_protocol(results["protocol"])
    other = tmp_path / "bo.json"
    _cli("evaluate", str(bo), *DATA, "--allow-missing", "--out", str(other))
    table = json.loads(
        _cli(
            "compare", str(out), str(other), *DATA, "--bootstrap", "100", "--format", "json"
        ).stdout
    )
    protocols = {row["system"]: row["protocol"] for row in table["systems"]}
    assert protocols[str(other)]["max_guesses"] == 12 and protocols[str(other)]["player"] == "bo"
    assert protocols[str(out)] == results["protocol"]


# --- prompts --prompt-style cot -------------------------------------------------------


def _prompts(out: Path, *extra: str) -> Any:
    args = ["prompts", "--task", "grouping", "--shots", "0", "--out", str(out), *DATA]
    return _cli(*args, *extra)


def test_cot_under_the_paper_profile_notes_its_budget(tmp_path: Path) -> None:
    cot = _prompts(tmp_path / "cot.jsonl", "--prompt-style", "cot")
    notes = [line for line in cot.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "--profile reasoning" in notes[0]
    bodies = [json.loads(line)["body"] for line in (tmp_path / "cot.jsonl").open()]
    assert bodies and {b["max_tokens"] for b in bodies} == {144}
    record = json.loads((tmp_path / "cot.jsonl.protocol.json").read_text())
    assert record["profile"] == "paper" and record["prompt_style"] == "cot"
    paper = _prompts(tmp_path / "paper.jsonl")  # the paper style: no note
    assert not [line for line in paper.stderr.splitlines() if line.startswith("note:")]
    reasoning = _prompts(
        tmp_path / "r.jsonl",
        "--prompt-style",
        "cot",
        "--profile",
        "reasoning",
        "--max-tokens",
        "800",
    )
    assert not [line for line in reasoning.stderr.splitlines() if line.startswith("note:")]


@pytest.mark.parametrize(
    ("header", "said", "unsaid"),
    [
        ({}, ["play: rules show, human player ana", "┃ player ┃"], ["profile", "┃ model ┃"]),
        (  # converted from inspect-ai: a model, no generation fields recorded
            {"version": 2, "player": "inspect-ai", "player_kind": "model"},
            ["play: rules show, generation not recorded, model inspect-ai", "┃ model ┃"],
            ["profile", "┃ player ┃"],
        ),
        (  # a model's log from before profiles: the paper's fields were what it sent
            {"player": "m", "player_kind": "model", "max_tokens": 144},
            ["play: rules show, profile paper, model m"],
            ["not recorded"],
        ),
    ],
)
def test_a_play_title_claims_only_what_the_log_recorded(
    tmp_path: Path, header: dict[str, Any], said: list[str], unsaid: list[str]
) -> None:
    """No profile for a person's log or for one that recorded no generation; a person is a
    player (the figures' column too), not a model."""
    log = _play_log(tmp_path / "log.jsonl", **header)
    shown = _flat(_cli("evaluate", str(log), *DATA, "--allow-missing").stdout)
    for text in said:
        assert text in shown, text
    for text in unsaid:
        assert text not in shown, text
