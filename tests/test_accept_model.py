"""``--accept-model NAME`` (run-llm and play): a ``--model`` that is an alias (TGI's ``tgi``,
an Azure deployment, a LiteLLM alias) is answered under the model's own name; the names
accepted are recorded (the log's protocol record, the play log's header) and ``parse`` reads
them from the record. Without it such answers are failures (``other_model``). On a scripted
server (:mod:`chat_server`) that answers under another name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from play_support import FIXTURE as PLAY_FIXTURE
from play_support import Contestant, fixture_rows
from test_llm_faults import log_lines, make_requests
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.llm.client import run_requests
from ocw_hub.llm.transport import same_model

pytestmark = pytest.mark.usefixtures("local_only")
runner = CliRunner()

#: (--model as sent, the name the server answers under): TGI, Azure, LiteLLM.
ALIASES = [
    ("tgi", "meta-llama/Llama-3.1-8B-Instruct"),
    ("my-gpt4o-deployment", "gpt-4o-2024-08-06"),
    ("team-default", "anthropic/claude-3-5-sonnet"),
]


class AliasServer(ChatServer):
    """A scripted server whose completions name ``served`` as their model."""

    def __init__(self, served: str, **kwargs: Any) -> None:
        self.served = served
        super().__init__(**kwargs)

    def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        status, payload, headers = super()._reply(body)
        return status, {**payload, "model": self.served}, headers


@pytest.fixture
def alias_server():
    servers: list[AliasServer] = []

    def start(served: str, **kwargs: Any) -> AliasServer:
        servers.append(AliasServer(served, **kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize(("alias", "served"), ALIASES)
def test_same_model_with_accepted_names(alias: str, served: str) -> None:
    assert not same_model(alias, served)
    assert same_model(alias, served, [served])
    assert not same_model(alias, "some-other-model", [served])


@pytest.mark.parametrize(("alias", "served"), ALIASES)
def test_run_requests_accepts_the_names_given(
    tmp_path: Path, alias_server, alias: str, served: str
) -> None:
    server = alias_server(served)
    log = tmp_path / "log.jsonl"
    refused = run_requests(make_requests(3), log, base_url=server.url, model=alias)
    assert refused.succeeded == 0 and len(refused.failures) == 3
    assert {line["error"]["code"] for line in log_lines(log)} == {"other_model"}
    accepted = run_requests(
        make_requests(3), log, base_url=server.url, model=alias, accept_models=[served]
    )
    assert accepted.succeeded == 3 and not accepted.failures


@pytest.mark.parametrize(("alias", "served"), ALIASES[:1])
def test_play_accepts_the_names_given(
    tmp_path: Path, alias_server, alias: str, served: str
) -> None:
    server = alias_server(served, answer=Contestant(fixture_rows()))
    data = ["--data-dir", str(PLAY_FIXTURE), "--no-checks", "--walls", "2"]
    args = ["play", "--base-url", server.url, "--model", alias, "--rules", "nyt", *data]
    refused = runner.invoke(app, [*args, "--out", str(tmp_path / "a.jsonl")])
    assert refused.exit_code != 0
    assert "other_model" in refused.output or served in refused.output, refused.output
    log = tmp_path / "b.jsonl"
    result = runner.invoke(app, [*args, "--out", str(log), "--accept-model", served])
    assert result.exit_code == 0, result.output
    head = json.loads(log.read_text(encoding="utf-8").split("\n", 1)[0])
    assert (head["model"], head["accepted_models"]) == (alias, [served])


@pytest.mark.parametrize(("alias", "served"), ALIASES[:1])
def test_a_play_log_is_resumed_only_with_the_names_it_was_played_with(
    tmp_path: Path, alias_server, alias: str, served: str
) -> None:
    """The play log's header is written once: a resumed run that accepts other names would
    make it untrue, so it is refused and the log is left as it was."""
    server = alias_server(served, answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    args = [
        "play",
        "--base-url",
        server.url,
        "--model",
        alias,
        "--rules",
        "nyt",
        "--out",
        str(log),
        "--data-dir",
        str(PLAY_FIXTURE),
        "--no-checks",
    ]
    first = runner.invoke(app, [*args, "--walls", "1", "--accept-model", served])
    assert first.exit_code == 0, first.output
    before = log.read_bytes()
    for others in ([], ["--accept-model", served, "--accept-model", "another-name"]):
        refused = runner.invoke(app, [*args, "--walls", "1", *others])
        assert refused.exit_code == 1 and log.read_bytes() == before
    same = runner.invoke(app, [*args, "--walls", "1", "--accept-model", served])
    assert same.exit_code == 0 and log.read_bytes() == before  # nothing left to play


def test_help_names_the_option() -> None:
    result = runner.invoke(app, ["play", "--help"], terminal_width=200)
    assert "--accept-model" in result.output
