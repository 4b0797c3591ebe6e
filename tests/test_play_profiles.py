"""Generation profiles in ``ocw-hub play`` (``ocw_hub.play.generation``): the fields each
request sends under ``paper`` (what play sent before profiles: max_tokens 144, temperature
0), ``reasoning`` and ``custom``, the same in the log header, in ``evaluate``'s results and
table title; a resumed run with other fields refused. Against the scripted server of
tests/chat_server.py answered by :class:`play_support.Contestant`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from play_support import FIXTURE, Contestant, fixture_rows
from typer.testing import CliRunner

from ocw_hub.cli import app

pytestmark = pytest.mark.usefixtures("local_only")
runner = CliRunner()
DATA = ["--data-dir", str(FIXTURE), "--no-checks"]


def _play(url: str, out: Path, *extra: str) -> Any:
    args = ["play", "--base-url", url, "--model", "m", "--out", str(out), "--walls", "1"]
    return runner.invoke(app, [*args, *DATA, *extra])


def _fields(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """The body's fields but the messages and the model, in the order sent."""
    return [(k, v) for k, v in body.items() if k not in ("messages", "model")]


CASES = {
    "paper": ([], [("max_tokens", 144), ("temperature", 0)]),
    "paper seeded": (["--seed", "7"], [("max_tokens", 144), ("temperature", 0), ("seed", 7)]),
    "reasoning": (
        ["--profile", "reasoning", "--max-tokens", "800", "--reasoning-effort", "low"],
        [("max_completion_tokens", 800), ("reasoning_effort", "low")],
    ),
    "custom": (
        [
            "--profile",
            "custom",
            "--max-tokens",
            "50",
            "--temperature",
            "0.5",
            "--top-p",
            "0.9",
            "--stop",
            "END",
            "--stop",
            "STOP",
        ],
        [("max_tokens", 50), ("temperature", 0.5), ("top_p", 0.9), ("stop", ["END", "STOP"])],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_profile_sends_exactly_its_fields(chat_server, tmp_path: Path, case: str) -> None:
    options, expected = CASES[case]
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    result = _play(server.url, log, *options)
    assert result.exit_code == 0, result.output
    assert server.bodies
    for body in server.bodies:
        assert _fields(body) == expected and body["model"] == "m"
    head = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    profile = case.split()[0]
    assert head["profile"] == profile and head["generation"] == dict(expected)
    assert head["max_tokens"] == expected[0][1]
    out = tmp_path / "results.json"
    scored = runner.invoke(
        app, ["evaluate", str(log), *DATA, "--allow-missing", "--bootstrap", "0", "-o", str(out)]
    )
    assert scored.exit_code == 0, scored.output
    play_log = json.loads(out.read_text(encoding="utf-8"))["play_log"]
    assert (play_log["profile"], play_log["generation"]) == (profile, dict(expected))
    title = " ".join(scored.output.split())
    if profile == "paper":
        assert "profile paper, model m" in title
    else:
        shown = ", ".join(f"{k} {' '.join(v) if isinstance(v, list) else v}" for k, v in expected)
        assert f"profile {profile} ({shown}), model m" in title


def test_a_resumed_run_must_send_the_same_fields(chat_server, tmp_path: Path) -> None:
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    assert _play(server.url, log).exit_code == 0
    before, sent = log.read_bytes(), len(server.bodies)
    other = _play(
        server.url, log, "--profile", "custom", "--max-tokens", "144", "--temperature", "0.2"
    )
    assert other.exit_code == 1
    assert log.read_bytes() == before and len(server.bodies) == sent
    same = _play(
        server.url, log, "--profile", "custom", "--max-tokens", "144", "--temperature", "0"
    )
    assert same.exit_code == 1  # the same body, but another profile: another run
    assert log.read_bytes() == before


def test_the_paper_profile_takes_no_generation_option(chat_server, tmp_path: Path) -> None:
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    result = _play(server.url, log, "--max-tokens", "32")
    assert result.exit_code == 1
    assert not log.exists() and not server.bodies


def test_a_log_from_before_profiles_resumes_under_the_paper_profile(
    chat_server, tmp_path: Path
) -> None:
    """A header without ``profile``/``generation`` (play before profiles) is read as the
    paper's fields with its ``max_tokens`` and ``seed``: the same run resumes it, another
    profile is refused."""
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    assert _play(server.url, log, "--seed", "3").exit_code == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    del head["profile"], head["generation"]
    log.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")
    before, sent = log.read_bytes(), len(server.bodies)
    assert _play(server.url, log, "--seed", "3").exit_code == 0  # finished: nothing sent
    assert _play(server.url, log).exit_code == 1  # another seed: another run
    assert log.read_bytes() == before and len(server.bodies) == sent
