"""``--accept-model NAME`` (run-llm): a ``--model`` that is an alias (TGI's ``tgi``, an Azure
deployment, a LiteLLM alias) is answered under the model's own name; the names accepted are
recorded (the log's protocol record) and ``parse`` reads them from the record. Without it
such answers are failures (``other_model``). On a scripted server (:mod:`chat_server`) that
answers under another name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from test_llm_faults import log_lines, make_requests, run_llm, write_requests
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.llm.client import run_requests
from ocw_hub.llm.responses import read_responses
from ocw_hub.llm.transport import same_model
from ocw_hub.provenance import read_protocol

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


@pytest.mark.parametrize(("alias", "served"), ALIASES)
def test_run_llm_records_them_and_parse_reads_them(
    tmp_path: Path, alias_server, alias: str, served: str
) -> None:
    server = alias_server(served)
    requests = write_requests(tmp_path / "req.jsonl", make_requests(3))
    out = tmp_path / "out.jsonl"
    base = ["--base-url", server.url, "--model", alias, "--out", str(out)]
    without = runner.invoke(app, ["run-llm", str(requests), *base])
    assert without.exit_code == 1 and server.count["q0"] == 1
    result = runner.invoke(app, ["run-llm", str(requests), *base, "--accept-model", served])
    assert result.exit_code == 0, result.output
    record = read_protocol(out)
    assert record is not None
    assert (record["model"], record["accepted_models"]) == (alias, [served])
    answers = read_responses(out)
    assert {k: (r.text, r.problem) for k, r in answers.items()} == {
        f"w{i}": (f"answer to q{i}", None) for i in range(3)
    }


def test_without_the_option_nothing_is_recorded(tmp_path: Path, alias_server) -> None:
    server = alias_server("m")  # answers as the model asked
    requests = write_requests(tmp_path / "req.jsonl", make_requests(2))
    out = tmp_path / "out.jsonl"
    assert run_llm(requests, out, [server.url]).exit_code == 0
    record = read_protocol(out)
    assert record is not None and "accepted_models" not in record


def test_help_names_the_option() -> None:
    for command in ("run-llm",):
        result = runner.invoke(app, [command, "--help"], terminal_width=200)
        assert "--accept-model" in result.output


@pytest.mark.parametrize(("alias", "served"), ALIASES[:1])
def test_a_resumed_run_llm_log_keeps_the_names_its_answers_were_accepted_under(
    tmp_path: Path, alias_server, alias: str, served: str
) -> None:
    """The record is rewritten by every run: a re-run without the option (nothing left to
    send, or more requests) keeps the names of the first run, whose answers ``parse`` still
    reads as the model's; the re-run itself accepts only the names it is given."""
    server = alias_server(served)
    requests = write_requests(tmp_path / "req.jsonl", make_requests(2))
    out = tmp_path / "out.jsonl"
    base = ["--base-url", server.url, "--model", alias, "--out", str(out)]
    first = runner.invoke(app, ["run-llm", str(requests), *base, "--accept-model", served])
    assert first.exit_code == 0, first.output
    write_requests(requests, make_requests(3))
    again = runner.invoke(app, ["run-llm", str(requests), *base])
    assert again.exit_code == 1  # w2 answered under the name this run does not accept
    record = read_protocol(out)
    assert record is not None and record["accepted_models"] == [served]
    answers = read_responses(out)
    assert {k: r.problem is None for k, r in answers.items()} == {
        "w0": True,
        "w1": True,
        "w2": False,
    }
    assert log_lines(out)[-1]["error"]["code"] == "other_model"
