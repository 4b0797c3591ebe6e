"""Text from a server or from data reaches the terminal only through ``ocw_hub.shown.inert``:
escape sequences (ANSI CSI, OSC titles and links, BEL, bidi overrides) and line breaks in a
server's error body, a model name or an id are shown as visible escapes (``\\x1b``), on the
line they belong to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, completion
from test_llm_faults import make_requests, write_requests
from typer.testing import CliRunner

from ocw_hub.cli import app

pytestmark = pytest.mark.usefixtures("local_only")
runner = CliRunner()

#: Hostile texts and the visible escape each must be shown as.
HOSTILE = {
    "clear screen": ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),
    "colours": ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
    "window title (OSC 0, BEL)": ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
    "hidden link (OSC 8)": (
        "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
        "\\x1b]8;;http://evil.example\\x1b\\click",
    ),
    "bidi override": ("abc\u202edcba", "abc\\u202edcba"),
    "line break and a fake prompt": ("boom\n$ rm -rf ~", "boom\\x0a$ rm -rf ~"),
    "C1 CSI": ("\x9b2J", "\\x9b2J"),
}

RAW = ("\x1b", "\x07", "\u202e", "\x9b")


class ScriptedServer(ChatServer):
    """Answers the request ``q1`` with ``reply`` (status, payload), the others normally."""

    def __init__(self, reply: tuple[int, Any]) -> None:
        self.reply = reply
        super().__init__()

    def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if self.key(body) == "q1":
            return self.reply[0], self.reply[1], {}
        return super()._reply(body)


@pytest.fixture
def scripted():
    servers: list[ScriptedServer] = []

    def start(reply: tuple[int, Any]) -> ScriptedServer:
        servers.append(ScriptedServer(reply))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _output(result: Any) -> str:
    """What the terminal shows: stdout and stderr interleaved (click 8.2+)."""
    return result.output


def _assert_inert(text: str, shown: str) -> None:
    assert not any(char in text for char in RAW), repr(text)
    assert shown in text, text


def _run_llm(tmp_path: Path, url: str, requests: list[dict[str, Any]], model: str = "m") -> Any:
    path = write_requests(tmp_path / "requests.jsonl", requests)
    out = tmp_path / "log.jsonl"
    return runner.invoke(
        app,
        [
            "run-llm",
            str(path),
            "--base-url",
            url,
            "--model",
            model,
            "--out",
            str(out),
            "--max-retries",
            "0",
        ],
    )


#: How a server's text reaches run-llm's failures: (status, payload with the text).
CARRIERS = {
    "500 error body": lambda text: (500, {"error": {"message": text, "type": "server_error"}}),
    "200 error object": lambda text: (200, {"error": {"message": text}}),
    "200 vLLM error object": lambda text: (200, {"object": "error", "message": text}),
    "400 TGI error string": lambda text: (400, {"error": text, "error_type": "validation"}),
}


@pytest.mark.parametrize("carrier", list(CARRIERS))
@pytest.mark.parametrize("name", list(HOSTILE))
def test_run_llm_shows_a_servers_error_text_inert(tmp_path, scripted, carrier, name):
    text, shown = HOSTILE[name]
    server = scripted(CARRIERS[carrier](text))
    result = _run_llm(tmp_path, server.url, make_requests(3))
    assert result.exit_code == 1
    output = _output(result)
    _assert_inert(output, shown)
    (failure,) = [line for line in output.splitlines() if line.startswith("  w1: ")]
    assert shown in failure  # the whole text on its own line
    logged = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert any(text in (x["error"] or {}).get("message", "") for x in logged)  # logged raw


@pytest.mark.parametrize("name", list(HOSTILE))
def test_run_llm_shows_the_stopping_error_inert(tmp_path, chat_server, name):
    """Three 4xx in a row stop the run; the server's reason is in the one error line."""
    text, shown = HOSTILE[name]
    server = chat_server(failures={f"q{i}": [401] for i in range(3)})

    def refuse(body: dict[str, Any], fault: int | str) -> tuple[int, Any, dict]:
        return 401, {"error": {"message": text, "type": "auth"}}, {}

    server._fault_reply = refuse  # type: ignore[method-assign]
    result = _run_llm(tmp_path, server.url, make_requests(3))
    assert result.exit_code == 1
    output = _output(result)
    _assert_inert(output, shown)
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and shown in errors[0]


@pytest.mark.parametrize("name", list(HOSTILE))
def test_run_llm_shows_another_models_name_inert(tmp_path, scripted, name):
    text, shown = HOSTILE[name]
    server = scripted((200, None))
    server.reply = (200, {**completion({"model": "x"}, "answer", 1), "model": text})
    result = _run_llm(tmp_path, server.url, make_requests(3))
    assert result.exit_code == 1
    _assert_inert(_output(result), repr(text))  # the message quotes the name with repr


@pytest.mark.parametrize("name", list(HOSTILE))
def test_run_llm_shows_an_id_from_the_requests_inert(tmp_path, scripted, name):
    """Ids are data (the requests file): a failed request's id is shown inert."""
    text, shown = HOSTILE[name]
    server = scripted((500, {"error": {"message": "boom"}}))
    requests = make_requests(3)
    requests[1]["custom_id"] = "w1" + text
    result = _run_llm(tmp_path, server.url, requests)
    assert result.exit_code == 1
    _assert_inert(_output(result), "w1" + shown)


def test_a_snapshot_answer_is_recorded_as_the_answered_model(tmp_path, chat_server):
    """A dated snapshot of the model asked answers: logged as answers, and the protocol record
    says which snapshot answered (the figure does not claim only the name asked)."""
    server = chat_server()
    server._reply = lambda body: (  # type: ignore[method-assign]
        200,
        {**completion(body, "answer", 1), "model": "m-2024-08-06"},
        {},
    )
    result = _run_llm(tmp_path, server.url, make_requests(2))
    assert result.exit_code == 0, _output(result)
    record = json.loads((tmp_path / "log.jsonl.protocol.json").read_text(encoding="utf-8"))
    assert (record["model"], record["answered_model"]) == ("m", "m-2024-08-06")
