"""Issue 22, stuck runs: a 4xx about one request alone (its prompt too long for the model's
context, as vLLM, OpenAI, TGI, SGLang, llama.cpp answer it) is that request's failure: it never
counts toward "three 4xx in a row stop the run" and a re-run does not send it again unless
``--retry-failed``; errors about the run (401, 403, 404, a bad field) still stop it. A server's
``Retry-After`` over 60 s is honoured up to the deadline of a try (``--timeout``). On the
scripted server (:mod:`chat_server`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from test_llm_faults import log_lines, make_requests

from ocw_hub.llm.client import LLMServerError, read_log, run_requests
from ocw_hub.llm.transport import retry_wait

pytestmark = pytest.mark.usefixtures("local_only")

#: (status, the server's body) of real context-length errors, by server.
CONTEXT_ERRORS: dict[str, tuple[int, Any]] = {
    "openai": (
        400,
        {
            "error": {
                "message": "This model's maximum context length is 8192 tokens. "
                "However, your messages resulted in 9120 tokens.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
    "vllm": (
        400,
        {
            "object": "error",
            "message": "This model's maximum context length is 4096 "
            "tokens. However, you requested 5012 tokens (4868 in the messages, 144 in "
            "the completion).",
            "type": "BadRequestError",
            "code": 400,
        },
    ),
    "vllm-new": (
        400,
        {
            "object": "error",
            "message": "The decoder prompt (length 5012) is "
            "longer than the maximum model length of 4096.",
            "code": 400,
        },
    ),
    "tgi": (
        422,
        {
            "error": "Input validation error: `inputs` tokens + `max_new_tokens` must be "
            "<= 4096. Given: 5012 `inputs` tokens and 144 `max_new_tokens`",
            "error_type": "validation",
        },
    ),
    "llama.cpp": (
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
            }
        },
    ),
}
#: (status, the server's body) of real content-policy refusals of one prompt.
POLICY_ERRORS: dict[str, tuple[int, Any]] = {
    "azure": (
        400,
        {
            "error": {
                "message": "The response was filtered due to the prompt "
                "triggering Azure OpenAI's content management policy. Please "
                "modify your prompt and retry.",
                "type": None,
                "param": "prompt",
                "code": "content_filter",
                "status": 400,
                "innererror": {
                    "code": "ResponsibleAIPolicyViolation",
                    "content_filter_result": {"hate": {"filtered": True, "severity": "high"}},
                },
            }
        },
    ),
    "openai": (
        400,
        {
            "error": {
                "message": "Invalid prompt: your prompt was flagged as "
                "potentially violating our usage policy. Please try again with a "
                "different prompt.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_prompt",
            }
        },
    ),
    "azure-inner-only": (
        400,
        {
            "error": {
                "message": "Request blocked.",
                "code": "400",
                "innererror": {"code": "ResponsibleAIPolicyViolation"},
            }
        },
    ),
}


class ScriptedServer(ChatServer):
    """A :class:`ChatServer` whose planned faults may be ``(status, body, headers)``."""

    def _fault_reply(self, body: dict[str, Any], fault: Any) -> tuple[int, Any, dict]:
        if isinstance(fault, tuple):
            return fault
        return super()._fault_reply(body, fault)


@pytest.fixture
def scripted():
    servers: list[ScriptedServer] = []

    def start(**kwargs: Any) -> ScriptedServer:
        servers.append(ScriptedServer(**kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize("server_name", sorted(CONTEXT_ERRORS) + sorted(POLICY_ERRORS))
def test_too_long_or_refused_prompts_are_their_requests_failures(
    tmp_path: Path, scripted, server_name: str
) -> None:
    status, body = {**CONTEXT_ERRORS, **POLICY_ERRORS}[server_name]
    too_long = {f"q{i}" for i in (0, 1, 2, 3, 5)}  # five in a row: more than three
    server = scripted(failures={k: [(status, body, {})] * 3 for k in too_long})
    log = tmp_path / "log.jsonl"
    summary = run_requests(make_requests(8), log, base_url=server.url, model="m", concurrency=1)
    assert sorted(cid for cid, _ in summary.failures) == sorted(f"w{k[1:]}" for k in too_long)
    assert summary.request_failures == 5  # as logged: what run-llm's last line counts
    assert set(read_log(log)) == {"w4", "w6", "w7"}  # the run went on past them
    assert all(server.count[k] == 1 for k in too_long)  # never retried
    failed = [line for line in log_lines(log) if line["error"]]
    assert {line["error"]["scope"] for line in failed} == {"request"}
    assert all(line["error"]["code"] == str(status) for line in failed)
    # a re-run sends none of them again ...
    again = run_requests(make_requests(8), log, base_url=server.url, model="m", concurrency=1)
    assert (again.sent, len(again.failed_for_good)) == (0, 5)
    assert all(server.count[k] == 1 for k in too_long)
    # ... unless asked: they fail alike, once each
    asked = run_requests(
        make_requests(8), log, base_url=server.url, model="m", concurrency=1, retry_failed=True
    )
    assert (asked.sent, len(asked.failures), asked.failed_for_good) == (5, 5, [])
    assert all(server.count[k] == 2 for k in too_long)


#: (status, body) of errors about the run (the key, the model, a field every request sends).
RUN_ERRORS: list[tuple[int, Any]] = [
    (401, {"error": {"message": "Incorrect API key provided"}}),
    (403, {"error": {"message": "forbidden"}}),
    (404, {"error": {"message": "The model `m` does not exist", "code": "model_not_found"}}),
    (400, {"error": {"message": "Unrecognized request argument supplied: frequency"}}),
    (422, {"detail": [{"loc": ["body", "stop"], "msg": "value is not a valid list"}]}),
    # broad wordings of a request-level error, but about a field every request carries
    (
        400,
        {
            "error": {
                "message": "max_tokens is too large: 100000. This model supports at "
                "most 4096 completion tokens, whereas you provided 100000.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "invalid_value",
            }
        },
    ),  # OpenAI
    (
        400,
        {
            "object": "error",
            "message": "max_tokens exceeds the limit of the model (8192)",
            "type": "BadRequestError",
            "code": 400,
        },
    ),  # vLLM-like
    (
        422,
        {
            "error": "Input validation error: `max_new_tokens` must be <= 2048. Given: 4096",
            "error_type": "validation",
        },
    ),  # TGI
    (
        400,
        {
            "error": {
                "message": "Unsupported value: 'temperature' does not support 0.0 "
                "with this model; the prompt is too long to say more.",
                "code": "unsupported_value",
            }
        },
    ),  # a run-level code wins
    (
        400,
        {
            "error": {
                "code": "DeploymentNotFound",
                "message": "The API deployment for this resource does not exist.",
            }
        },
    ),  # Azure
    (400, {"error": {"message": "The model name is too long", "code": None}}),
]


@pytest.mark.parametrize(("status", "body"), RUN_ERRORS)
def test_errors_about_the_run_still_stop_it(
    tmp_path: Path, scripted, status: int, body: Any
) -> None:
    server = scripted(failures={f"q{i}": [(status, body, {})] for i in range(8)})
    with pytest.raises(LLMServerError) as info:
        run_requests(
            make_requests(8), tmp_path / "l.jsonl", base_url=server.url, model="m", concurrency=1
        )
    assert info.value.status_code == status
    assert sum(server.count.values()) == 3


@pytest.mark.parametrize(
    ("asked", "deadline", "waited", "cut"),
    [
        (120.0, 600.0, 120.0, False),
        (3600.0, 600.0, 600.0, True),
        (0.25, 600.0, 0.25, False),
        (61.0, 60.0, 60.0, True),
    ],
)
def test_retry_after_is_honoured_up_to_the_deadline(
    asked: float, deadline: float, waited: float, cut: bool
) -> None:
    wait, why = retry_wait(asked, 1, deadline)
    assert wait == waited and (why is not None) is cut


def test_a_long_retry_after_is_waited_for_on_the_wire(tmp_path: Path, scripted) -> None:
    """The server asks 120 s; the deadline of a try is 1.5 s: the client waits 1.5 s (not its
    own 0.5 s backoff), and the failure says why it did not wait 120 s."""
    busy = (429, {"error": {"message": "rate limited"}}, {"retry-after": "120"})
    server = scripted(failures={"q0": [busy, busy]})
    log = tmp_path / "log.jsonl"
    start = time.monotonic()
    summary = run_requests(
        make_requests(1), log, base_url=server.url, model="m", max_retries=1, timeout=1.5
    )
    elapsed = time.monotonic() - start
    assert server.count["q0"] == 2 and 1.4 <= elapsed < 10
    (line,) = log_lines(log)
    assert line["error"]["code"] == "429" and "120 s" in line["error"]["message"]
    assert summary.failures and json.dumps(line)  # logged as a failure, whole
