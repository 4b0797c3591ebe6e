"""A scripted OpenAI-compatible ``POST /v1/chat/completions`` server on 127.0.0.1 (never another
address), in a thread (:class:`ChatServer`) or as its own process (``python chat_server.py
--port-file P --received R``, for a server that is killed).

It answers ``"answer to " + <last user message>``, serves chosen faults first, counts what it
receives and how many requests are in flight at once.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: The 400 OpenAI answers to ``max_tokens`` for models that take only ``max_completion_tokens``.
MAX_TOKENS_REFUSED = {
    "error": {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }
}
#: 200 bodies that are no chat completion, by fault name (``not_json`` is not JSON at all).
BAD_BODIES: dict[str, Any] = {
    "not_object": [1, 2],
    "no_choices": {"choices": []},
    "error_body": {"error": {"message": "upstream provider failed", "code": 502}},
}


def last_user_message(body: dict[str, Any]) -> str:
    return body["messages"][-1]["content"]


def completion(body: dict[str, Any], text: str, number: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def echo(body: dict[str, Any]) -> str:
    return "answer to " + last_user_message(body)


class ChatServer:
    """The server in a thread.

    Args:
        answer: request body -> the completion's text.
        failures: key -> faults served (in order) before the request is answered: an HTTP
            status (429 answers carry ``retry-after-ms: 10``; 0 is a 200 whose body is not
            JSON), a name of :data:`BAD_BODIES`, ``"cut"`` (a 200 whose connection closes in
            the middle of the body) or ``"trickle"`` (a 200 body sent one byte every
            ``trickle_pause`` seconds).
        key: request body -> key of ``failures`` and ``count`` (default: last user message).
        delay: seconds each answer takes (to see requests in flight together).
        refuse_max_tokens: answer :data:`MAX_TOKENS_REFUSED` to a body with ``max_tokens``.
        received: a file to which each request's key is appended, one a line.
        choice: request body -> the whole 200 body to answer (None: the usual completion of
            ``answer``), for finish reasons, tool calls, a null message or usage.
    """

    def __init__(
        self,
        answer: Callable[[dict[str, Any]], str] = echo,
        failures: dict[str, list[int | str]] | None = None,
        key: Callable[[dict[str, Any]], str] = last_user_message,
        delay: float = 0.0,
        refuse_max_tokens: bool = False,
        received: Path | None = None,
        trickle_pause: float = 0.05,
        choice: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
    ) -> None:
        self.answer, self.key, self.delay, self.choice = answer, key, delay, choice
        self.refuse_max_tokens, self.trickle_pause = refuse_max_tokens, trickle_pause
        self.failures = {k: list(v) for k, v in (failures or {}).items()}
        self.received = None if received is None else received.open("a", encoding="utf-8")
        self.count: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.auth: list[str | None] = []
        self.active = self.max_active = 0
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _arrived(self, body: dict[str, Any], auth: str | None) -> int | str:
        """Count a request; the fault to serve, or 200."""
        key = self.key(body)
        with self.lock:
            self.bodies.append(body)
            self.auth.append(auth)
            self.count[key] += 1
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            if self.received is not None:
                self.received.write(key + "\n")
                self.received.flush()
            planned = self.failures.get(key, [])
            fault = planned.pop(0) if planned else 200
        if self.refuse_max_tokens and "max_tokens" in body:
            return 400
        return fault

    def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """The answer to a request served no fault: (status, payload, headers)."""
        whole = self.choice(body) if self.choice is not None else None
        if whole is not None:
            return 200, whole, {}
        return 200, completion(body, self.answer(body), self.count[self.key(body)]), {}

    def _fault_reply(self, body: dict[str, Any], fault: int | str) -> tuple[int, Any, dict]:
        """The answer that serves ``fault`` (a ``None`` payload is a body that is not JSON)."""
        if fault == 0:
            return 200, None, {}
        if isinstance(fault, str):  # a bad body, or a good one cut or trickled
            return (200, BAD_BODIES[fault], {}) if fault in BAD_BODIES else self._reply(body)
        if fault == 400 and self.refuse_max_tokens and "max_tokens" in body:
            return 400, MAX_TOKENS_REFUSED, {}
        headers = {"retry-after-ms": "10"} if fault == 429 else {}
        return fault, {"error": {"message": f"fake {fault}", "type": "fake", "code": None}}, headers

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                try:
                    body = json.loads(self.rfile.read(length))
                except ValueError:  # the client went away before its body
                    self.close_connection = True
                    return
                fault = server._arrived(body, self.headers.get("authorization"))
                try:
                    if server.delay:
                        time.sleep(server.delay)
                    if self.path != "/v1/chat/completions":
                        status, payload, headers = 404, {"error": {"message": "no route"}}, {}
                    elif fault == 200:
                        status, payload, headers = server._reply(body)
                    else:
                        status, payload, headers = server._fault_reply(body, fault)
                    self._send(status, payload, headers, fault)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True
                finally:
                    with server.lock:
                        server.active -= 1

            def _send(self, status: int, payload: Any, headers: dict[str, str], fault: Any) -> None:
                data = b"<html>oops</html>" if payload is None else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if fault == "cut":
                    self.wfile.write(data[: len(data) // 2])
                    self.close_connection = True
                elif fault == "trickle":
                    for i in range(len(data)):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(server.trickle_pause)
                else:
                    self.wfile.write(data)

        return Handler


def main(argv: list[str]) -> None:
    """Serve until killed; write the port to ``--port-file`` once listening."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--received", type=Path, required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args(argv)
    server = ChatServer(received=args.received, delay=args.delay)
    tmp = args.port_file.with_suffix(".tmp")
    tmp.write_text(str(server.port))
    tmp.rename(args.port_file)
    server.thread.join()


if __name__ == "__main__":
    main(sys.argv[1:])
