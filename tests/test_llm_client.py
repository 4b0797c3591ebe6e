"""ocw-hub run-llm against a scripted chat-completions server on 127.0.0.1 (never another
address; :mod:`chat_server`): retries, the log, resuming, bad request files, the command."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, echo, last_user_message  # noqa: F401 (imported from here too)
from typer.testing import CliRunner

from ocw_hub.llm.client import (
    DUMMY_API_KEY,
    LLMInputError,
    LLMServerError,
    body_digest,
    read_log,
    read_requests,
    run_requests,
    sent_body,
)

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("local_only")
#: The scripted server under its former name (other tests and benchmarks import it).
FakeServer = ChatServer


def make_requests(n: int, model: str = "gpt-3.5-turbo") -> list[dict[str, Any]]:
    return [
        {
            "custom_id": f"w{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": model,
                "messages": [
                    {"role": "system", "content": "Solve it."},
                    {"role": "user", "content": f"q{i}"},
                ],
                "temperature": 0,
                "max_tokens": 144,
            },
        }
        for i in range(n)
    ]


def log_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------------------
# Sending, retries, the log
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_retries_then_batch_output_log(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo, failures={"q1": [500], "q2": [429, 429], "q4": [503]})
    requests = make_requests(6)
    log = tmp_path / "log.jsonl"
    summary = run_requests(
        requests, log, base_url=server.url, model="served-model", concurrency=3, max_retries=3
    )
    assert (summary.total, summary.sent, summary.succeeded, summary.already_done) == (6, 6, 6, 0)
    assert summary.failures == []
    # one request each, plus one per injected failure
    assert server.count == {"q0": 1, "q1": 2, "q2": 3, "q3": 1, "q4": 2, "q5": 1}
    lines = log_lines(log)
    assert sorted(line["custom_id"] for line in lines) == [f"w{i}" for i in range(6)]
    for line in lines:
        number = line["custom_id"][1:]
        assert line["error"] is None and line["response"]["status_code"] == 200
        body = line["response"]["body"]
        assert body["choices"][0]["message"]["content"] == f"answer to q{number}"
        assert body["model"] == "served-model"
        request = requests[int(number)]
        assert line["body_sha256"] == body_digest(sent_body(request, "served-model"))
    # the body is sent as written, with the model replaced
    sent = server.bodies[0]
    assert sent["model"] == "served-model"
    assert (sent["temperature"], sent["max_tokens"]) == (0, 144)
    assert sent["messages"][0] == {"role": "system", "content": "Solve it."}
    assert set(read_log(log)) == {f"w{i}" for i in range(6)}
    assert server.auth[0] == f"Bearer {DUMMY_API_KEY}"


def test_concurrency_is_bounded(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo, delay=0.1)
    run_requests(
        make_requests(8), tmp_path / "log.jsonl", base_url=server.url, model="m", concurrency=2
    )
    assert server.max_active == 2
    assert sum(server.count.values()) == 8


def test_rerun_sends_only_missing(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo)
    requests = make_requests(6)
    log = tmp_path / "log.jsonl"
    first = run_requests(requests[:2], log, base_url=server.url, model="m")
    assert (first.sent, first.already_done) == (2, 0)
    second = run_requests(requests, log, base_url=server.url, model="m")
    assert (second.sent, second.already_done, second.total) == (4, 2, 6)
    assert server.count == {f"q{i}": 1 for i in range(6)}
    third = run_requests(requests, log, base_url=server.url, model="m")
    assert (third.sent, third.already_done) == (0, 6)
    assert sum(server.count.values()) == 6
    assert len(log_lines(log)) == 6


def test_failed_request_logged_then_sent_again(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo, failures={"q1": [400]})
    requests = make_requests(3)
    log = tmp_path / "log.jsonl"
    summary = run_requests(requests, log, base_url=server.url, model="m", max_retries=2)
    assert summary.succeeded == 2
    assert summary.failures == [("w1", "400: fake 400")]  # 400 is not retried
    failed = [line for line in log_lines(log) if line["custom_id"] == "w1"]
    assert failed[0]["error"] == {"code": "400", "message": "fake 400"}
    assert failed[0]["response"]["status_code"] == 400
    again = run_requests(requests, log, base_url=server.url, model="m")
    assert (again.sent, again.succeeded, again.failures) == (1, 1, [])
    assert server.count == {"q0": 1, "q1": 2, "q2": 1}
    assert set(read_log(log)) == {"w0", "w1", "w2"}


def test_answer_that_is_not_json_is_a_failure(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo, failures={"q0": [0]})
    log = tmp_path / "log.jsonl"
    summary = run_requests(make_requests(2), log, base_url=server.url, model="m")
    assert summary.failures == [("w0", "invalid_json: the answer is not JSON: '<html>oops</html>'")]
    assert set(read_log(log)) == {"w1"}
    again = run_requests(make_requests(2), log, base_url=server.url, model="m")
    assert (again.sent, again.succeeded) == (1, 1)


def test_retries_exhausted_is_a_failure_not_a_crash(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo, failures={"q0": [429, 429, 429]})
    summary = run_requests(
        make_requests(2), tmp_path / "log.jsonl", base_url=server.url, model="m", max_retries=1
    )
    assert summary.failures == [("w0", "429: fake 429")]
    assert server.count["q0"] == 2  # the first try and one retry


def test_line_cut_by_a_crash_is_sent_again(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo)
    requests = make_requests(3)
    log = tmp_path / "log.jsonl"
    run_requests(requests[:2], log, base_url=server.url, model="m")
    text = log.read_text()
    cut = text.rindex('"response"')
    log.write_text(text[:cut])  # the second line cut short, no newline
    summary = run_requests(requests, log, base_url=server.url, model="m")
    assert summary.dropped_partial_line
    assert summary.sent == 2 and summary.already_done == 1
    assert len(log_lines(log)) == 3  # every line whole again


def test_log_of_other_requests_is_refused(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo)
    log = tmp_path / "log.jsonl"
    run_requests(make_requests(2), log, base_url=server.url, model="m")
    with pytest.raises(LLMInputError, match="another request body"):
        run_requests(make_requests(2), log, base_url=server.url, model="other-model")
    other = make_requests(1)
    other[0]["custom_id"] = "zz"
    with pytest.raises(LLMInputError, match=r"custom_ids that are not in the requests \(w0, w1\)"):
        run_requests(other, log, base_url=server.url, model="m")
    assert sum(server.count.values()) == 2


def test_api_key_from_environment(
    tmp_path: Path, chat_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    server = chat_server(echo)
    run_requests(make_requests(1), tmp_path / "log.jsonl", base_url=server.url, model="m")
    assert server.auth == ["Bearer sk-test-123"]


def test_unreachable_server(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    log = tmp_path / "log.jsonl"
    with pytest.raises(LLMServerError, match="cannot connect") as info:
        run_requests(make_requests(3), log, base_url=url, model="m", max_retries=0)
    assert info.value.base_url == url and info.value.status_code is None
    assert not log.exists()


def test_unknown_model_is_fatal(tmp_path: Path, chat_server) -> None:
    server = chat_server(echo, failures={f"q{i}": [404] for i in range(5)})
    with pytest.raises(LLMServerError, match="answered 404 for model 'nope'") as info:
        run_requests(make_requests(5), tmp_path / "log.jsonl", base_url=server.url, model="nope")
    assert info.value.status_code == 404


# --------------------------------------------------------------------------------------
# Bad request files
# --------------------------------------------------------------------------------------


def _write(path: Path, lines: list[Any]) -> Path:
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["{not json"], r"line 1: not valid JSON"),
        ([[1, 2]], r"line 1: expected a JSON object"),
        ([{"body": {"messages": [{"role": "user", "content": "x"}]}}], "line 1: field custom_id"),
        ([{"custom_id": "a", "body": {}}], r"line 1 \(a\): field body.messages"),
        ([{"custom_id": "a", "body": {"messages": ["hi"]}}], "each message needs role"),
        (
            [{"custom_id": "a", "url": "/v1/embeddings", "body": {"messages": []}}],
            "field url: expected /v1/chat/completions",
        ),
        ([], "no requests"),
    ],
)
def test_malformed_requests(tmp_path: Path, lines: list[Any], message: str) -> None:
    with pytest.raises(LLMInputError, match=message):
        read_requests(_write(tmp_path / "req.jsonl", lines))


def test_duplicate_custom_id_names_both_lines(tmp_path: Path) -> None:
    requests = make_requests(2)
    path = _write(tmp_path / "req.jsonl", [requests[0], "", requests[1], requests[0]])
    with pytest.raises(LLMInputError, match=r"line 4: custom_id 'w0' already on line 1"):
        read_requests(path)


def test_malformed_log_line(tmp_path: Path) -> None:
    log = _write(tmp_path / "log.jsonl", [{"custom_id": "w0"}, "[garbage", {"custom_id": "w1"}])
    with pytest.raises(LLMInputError, match=r"log.jsonl, line 2: not valid JSON"):
        read_log(log)


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------
