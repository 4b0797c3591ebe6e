"""ocw-hub run-llm against the faults a real network and real servers bring, on scripted servers
on 127.0.0.1 (:mod:`chat_server`): each test asserts what the servers received and what the log
holds."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.llm.client import (
    CLIENT_ERRORS_TO_STOP,
    LLMServerError,
    body_digest,
    read_log,
    read_requests,
    run_requests,
    sent_body,
)
from ocw_hub.llm.responses import read_responses

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("local_only")


def make_requests(n: int) -> list[dict[str, Any]]:
    return [
        {
            "custom_id": f"w{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": "gpt-4-0314",
                "messages": [{"role": "user", "content": f"q{i}"}],
                "temperature": 0,
                "max_tokens": 144,
            },
        }
        for i in range(n)
    ]


def log_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def answered(path: Path) -> Counter[str]:
    """custom_id -> number of answer lines (status 200, no error) in the log."""
    return Counter(
        line["custom_id"]
        for line in log_lines(path)
        if line["error"] is None and line["response"]["status_code"] == 200
    )


def write_requests(path: Path, requests: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------
# A failure of one request is that request's
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        (0, "invalid_json"),
        ("not_object", "invalid_body"),
        ("no_choices", "no_choices"),
        ("error_body", "error_body"),
        ("cut", "connection_closed"),
    ],
)
def test_bad_answer_is_that_requests_failure(
    tmp_path: Path, chat_server, fault: int | str, code: str
) -> None:
    server = chat_server(failures={"q1": [fault]})
    requests = make_requests(4)
    log = tmp_path / "log.jsonl"
    summary = run_requests(requests, log, base_url=server.url, model="m", max_retries=0)
    assert [cid for cid, _ in summary.failures] == ["w1"]
    assert summary.succeeded == 3
    failed = [line for line in log_lines(log) if line["custom_id"] == "w1"]
    assert len(failed) == 1 and failed[0]["error"]["code"] == code
    assert set(read_log(log)) == {"w0", "w2", "w3"}
    responses = read_responses(log)  # parse reads the log: w1 has no answer yet
    assert responses["w1"].text is None and responses["w0"].text == "answer to q0"
    again = run_requests(requests, log, base_url=server.url, model="m", max_retries=0)
    assert (again.sent, again.succeeded) == (1, 1)
    assert server.count == {"q0": 1, "q1": 2, "q2": 1, "q3": 1}
    assert answered(log) == {f"w{i}": 1 for i in range(4)}
    assert read_responses(log)["w1"].text == "answer to q1"


def test_connection_cut_mid_body_is_retried(tmp_path: Path, chat_server) -> None:
    server = chat_server(failures={"q0": ["cut", "cut"]})
    log = tmp_path / "log.jsonl"
    summary = run_requests(make_requests(2), log, base_url=server.url, model="m", max_retries=2)
    assert (summary.succeeded, summary.failures) == (2, [])
    assert server.count == {"q0": 3, "q1": 1}
    assert answered(log) == {"w0": 1, "w1": 1} and len(log_lines(log)) == 2


def test_trickled_body_is_cut_at_the_deadline(tmp_path: Path, chat_server) -> None:
    """A 200 body of some 300 bytes, one byte every 0.05 s: every read comes well within the
    timeout, the whole answer (15 s) does not; the try is cut at the deadline and tried
    again."""
    server = chat_server(failures={"q0": ["trickle"]})
    log = tmp_path / "log.jsonl"
    summary = run_requests(
        make_requests(2), log, base_url=server.url, model="m", max_retries=1, timeout=2.0
    )
    assert (summary.succeeded, summary.failures) == (2, [])
    assert server.count == {"q0": 2, "q1": 1}
    assert answered(log) == {"w0": 1, "w1": 1} and len(log_lines(log)) == 2
    summary = run_requests(
        make_requests(3), log, base_url=server.url, model="m", max_retries=0, timeout=2.0
    )
    assert summary.failures == []  # w2 answered; and without a retry, a trickle fails:
    server.failures["q3"] = ["trickle"]
    summary = run_requests(
        make_requests(4), log, base_url=server.url, model="m", max_retries=0, timeout=2.0
    )
    assert [cid for cid, _ in summary.failures] == ["w3"]
    (line,) = [line for line in log_lines(log) if line["custom_id"] == "w3"]
    assert line["error"]["code"] == "timeout" and line["response"] is None


# --------------------------------------------------------------------------------------
# Deterministic 4xx
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_deterministic_4xx_is_not_retried_and_stops_the_run(
    tmp_path: Path, chat_server, status: int
) -> None:
    server = chat_server(failures={f"q{i}": [status] for i in range(8)})
    log = tmp_path / "log.jsonl"
    with pytest.raises(LLMServerError) as info:
        run_requests(
            make_requests(8), log, base_url=server.url, model="m", concurrency=1, max_retries=5
        )
    assert info.value.status_code == status
    assert info.value.reason.endswith(f"fake {status}")  # the server's own message
    assert sum(server.count.values()) == CLIENT_ERRORS_TO_STOP  # each sent once, then stop
    assert [line["error"]["code"] for line in log_lines(log)] == [str(status)] * 3
    assert read_log(log) == {}


def test_4xx_between_answers_does_not_stop(tmp_path: Path, chat_server) -> None:
    failing = {"q0": [400], "q1": [400], "q3": [422], "q4": [400]}
    server = chat_server(failures=failing)
    log = tmp_path / "log.jsonl"
    summary = run_requests(make_requests(6), log, base_url=server.url, model="m", concurrency=1)
    assert sorted(cid for cid, _ in summary.failures) == ["w0", "w1", "w3", "w4"]
    assert sum(server.count.values()) == 6
    assert set(read_log(log)) == {"w2", "w5"}


# --------------------------------------------------------------------------------------
# max_tokens or max_completion_tokens
# --------------------------------------------------------------------------------------


def test_switch_to_max_completion_tokens_on_the_servers_400(tmp_path: Path, chat_server) -> None:
    server = chat_server(refuse_max_tokens=True)
    requests = make_requests(5)
    log = tmp_path / "log.jsonl"
    summary = run_requests(requests[:4], log, base_url=server.url, model="m", concurrency=1)
    assert (summary.succeeded, summary.failures) == (4, [])
    assert summary.switched_max_tokens_field
    assert summary.max_tokens_field == "max_completion_tokens"
    # one request with max_tokens, refused; then every one with max_completion_tokens
    assert ["max_tokens" in body for body in server.bodies] == [True] + [False] * 4
    assert all(body["max_completion_tokens"] == 144 for body in server.bodies[1:])
    for line in log_lines(log):
        assert line["max_tokens_field"] == "max_completion_tokens"
        request = requests[int(line["custom_id"][1:])]
        assert line["body_sha256"] == body_digest(sent_body(request, "m", "max_completion_tokens"))
    # the re-run resumes (the digests match) and sends the new request with the new name
    again = run_requests(requests, log, base_url=server.url, model="m")
    assert (again.sent, again.already_done, again.succeeded) == (1, 4, 1)
    assert "max_tokens" not in server.bodies[-1] and len(server.bodies) == 6
    assert answered(log) == {f"w{i}": 1 for i in range(5)}
    assert {r.text for r in read_responses(log).values()} == {f"answer to q{i}" for i in range(5)}


# --------------------------------------------------------------------------------------
# One run per log; no empty log; lines split on \n only
# --------------------------------------------------------------------------------------


def test_unicode_line_breaks_in_answers(tmp_path: Path, chat_server) -> None:
    breaks = "a\u2028b\u2029c\x85d\x1ce\x0bf\rg"
    server = chat_server(answer=lambda body: breaks)
    log = tmp_path / "log.jsonl"
    requests = make_requests(3)
    run_requests(requests, log, base_url=server.url, model="m")
    assert "\u2028" in log.read_text(encoding="utf-8")  # written as it is
    assert len(log.read_bytes().split(b"\n")) == 4  # three lines and the end
    assert set(read_log(log)) == {"w0", "w1", "w2"}
    again = run_requests(requests, log, base_url=server.url, model="m")
    assert (again.sent, again.already_done) == (0, 3)
    assert {r.text for r in read_responses(log).values()} == {breaks}


def test_batch_conversion_in_the_docs(
    repo_root: Path, tmp_path: Path, chat_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/experiment.md's conversion for a Batch API: the model set, max_completion_tokens;
    what it writes is a requests file that a max_completion_tokens server answers at once."""
    import re

    text = (repo_root / "docs" / "experiment.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    (code,) = [b for b in blocks if b.startswith("# requests for a Batch API")]
    requests = make_requests(3)
    monkeypatch.chdir(tmp_path)
    write_requests(tmp_path / "requests.jsonl", requests)
    exec(code, {})
    converted = [
        json.loads(line) for line in (tmp_path / "batch.jsonl").read_text().split("\n")[:-1]
    ]
    assert [r["custom_id"] for r in converted] == ["w0", "w1", "w2"]
    for before, after in zip(requests, converted, strict=True):
        assert (after["method"], after["url"]) == (before["method"], before["url"])
        body = dict(before["body"], model="o4-mini", max_completion_tokens=144)
        del body["max_tokens"]
        assert after["body"] == body
    server = chat_server(refuse_max_tokens=True)
    summary = run_requests(
        read_requests(tmp_path / "batch.jsonl"),
        tmp_path / "out.jsonl",
        base_url=server.url,
        model="o4-mini",
    )
    assert (summary.succeeded, summary.switched_max_tokens_field) == (3, False)
    assert len(server.bodies) == 3


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504])
def test_passing_faults_are_retried(tmp_path: Path, chat_server, status: int) -> None:
    server = chat_server(failures={"q0": [status]})
    log = tmp_path / "log.jsonl"
    summary = run_requests(make_requests(2), log, base_url=server.url, model="m", max_retries=1)
    assert (summary.succeeded, summary.failures) == (2, [])
    assert server.count == {"q0": 2, "q1": 1}
    assert answered(log) == {"w0": 1, "w1": 1} and len(log_lines(log)) == 2


def test_retry_after_and_backoff() -> None:
    from datetime import datetime, timedelta, timezone
    from email.utils import format_datetime

    from ocw_hub.llm.transport import backoff, retry_after

    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "3"}) == 3.0
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    assert 25 <= retry_after({"retry-after": later}) <= 30
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({"retry-after": "3600"}) == 3600.0  # any length (issue 22): bounded
    assert retry_after({"retry-after": "-5"}) is None  # by retry_wait, tests/test_llm_stuck_runs
    assert retry_after({}) is None
    for tries, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (9, 8.0)]:
        assert 0.75 * ceiling <= backoff(tries) <= ceiling
