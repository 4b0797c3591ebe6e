"""Text from a server or from data reaches the terminal only through ``ocw_hub.shown.inert``:
escape sequences (ANSI CSI, OSC titles and links, BEL, bidi overrides) and line breaks in a
server's error body, a model name or an id are shown as visible escapes (``\\x1b``), on the
line they belong to."""

from __future__ import annotations

from typing import Any

import pytest
from chat_server import ChatServer
from typer.testing import CliRunner

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


#: How a server's text reaches run-llm's failures: (status, payload with the text).
CARRIERS = {
    "500 error body": lambda text: (500, {"error": {"message": text, "type": "server_error"}}),
    "200 error object": lambda text: (200, {"error": {"message": text}}),
    "200 vLLM error object": lambda text: (200, {"object": "error", "message": text}),
    "400 TGI error string": lambda text: (400, {"error": text, "error_type": "validation"}),
}
