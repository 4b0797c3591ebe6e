"""What an LLM record means, from the server's answer to ``run-llm``'s log and ``parse``'s
report: every ``finish_reason`` mapped (only ``stop`` is a complete answer, ``length`` a cut
one), ``content`` as a list of parts, a 200 body carrying an error and no choices, and the
model that answered. The answers are served by scripted servers on 127.0.0.1 in the shapes
of OpenAI, vLLM, TGI, SGLang and Ollama."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, completion
from ocw_fixtures import OCW_FIXTURE

from ocw_hub.llm.responses import parse_responses, read_responses, same_model
from ocw_hub.llm.wote import parse_wote_answer
from ocw_hub.resources import load_sibling

pytestmark = pytest.mark.usefixtures("local_only")

Shape = Callable[[dict[str, Any]], dict[str, Any]]


class ShapedServer(ChatServer):
    """A scripted server whose every 200 answer is ``shape(request body)``."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        super().__init__()

    def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        return 200, self.shape(body), {}


@pytest.fixture
def shaped() -> Iterator[Callable[[Shape], ShapedServer]]:
    servers: list[ShapedServer] = []

    def start(shape: Shape) -> ShapedServer:
        servers.append(ShapedServer(shape))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _completion(body: dict[str, Any], **choice: Any) -> dict[str, Any]:
    """A chat completion to ``body`` (:func:`chat_server.completion`) with its first choice
    updated (``finish_reason``, ``message``)."""
    payload = completion(body, "answer to " + body["messages"][-1]["content"], 1)
    payload["choices"][0].update(choice)
    return payload


def _only_q1(shape: Shape) -> Shape:
    """``shape`` for the request ``q1``, a plain answer for the others."""
    return lambda body: (
        shape(body) if body["messages"][-1]["content"] == "q1" else _completion(body)
    )


# --------------------------------------------------------------------------------------
# finish_reason
# --------------------------------------------------------------------------------------

#: finish_reasons that end an answer before it is complete, as servers send them.
INCOMPLETE = ["abort", "error", "content_filter", "tool_calls", "function_call", "eos", 7]


def _walls() -> list[dict[str, Any]]:
    ocw_walls = load_sibling("ocw_walls")
    return ocw_walls.read_walls(OCW_FIXTURE / "test.json", "test")


def _solution(wall: dict[str, Any]) -> str:
    groups = [wall["groups"][f"group_{i}"]["gt_words"] for i in range(1, 5)]
    return "\n".join(", ".join(g) for g in groups)


def _log_line(wall_id: str, body: Any, status: int = 200, error: Any = None) -> dict[str, Any]:
    return {"custom_id": wall_id, "response": {"status_code": status, "body": body}, "error": error}


def _choice_body(content: Any, finish: Any = "stop", model: str = "m") -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {"model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def _parse(
    tmp_path: Path, lines: list[dict[str, Any]], task: str = "grouping", mode: str = "robust"
):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    walls = _walls()
    predictions, report = parse_responses(read_responses(path), walls, task=task, mode=mode)
    return {p["wall_id"]: p for p in predictions}, {w["wall_id"]: w for w in report["walls"]}


@pytest.mark.parametrize("mode", ["robust", "paper"])
@pytest.mark.parametrize("finish", INCOMPLETE)
def test_parse_never_reads_an_incomplete_answer_as_clean(tmp_path, finish, mode):
    """A whole, right solution that ended with ``abort`` (an answer of another producer, an
    older run): unrecoverable, reason ``incomplete``, empty groups; its text kept."""
    first, second = _walls()[:2]
    lines = [
        _log_line(first["wall_id"], _choice_body(_solution(first), finish)),
        _log_line(second["wall_id"], _choice_body(_solution(second))),
    ]
    predictions, walls = _parse(tmp_path, lines, mode=mode)
    entry = walls[first["wall_id"]]
    assert (entry["status"], entry["reason"]) == ("unrecoverable", "incomplete")
    assert repr(finish) in entry["detail"] and entry["text"] == _solution(first)
    assert predictions[first["wall_id"]]["predicted_groups"] == [[""] * 4] * 4
    assert walls[second["wall_id"]]["status"] == "clean"


def test_an_incomplete_answer_then_its_answer_on_a_re_run(tmp_path):
    wall = _walls()[0]
    lines = [
        _log_line(wall["wall_id"], _choice_body("Santa, Satan", "abort")),
        _log_line(wall["wall_id"], _choice_body(_solution(wall))),
    ]
    _, walls = _parse(tmp_path, lines)
    assert walls[wall["wall_id"]]["status"] == "clean"


@pytest.mark.parametrize("finish", ["abort", "error", "content_filter", "unknown"])
def test_a_wote_span_that_ended_early_is_not_clean(finish):
    """The issue's case: ``"Preheat the oven to 35"`` from an aborted answer."""
    parsed = parse_wote_answer("Preheat the oven to 35", finish)
    assert (parsed.status, parsed.reason, parsed.prediction_text) == (
        "unrecoverable",
        "incomplete",
        "",
    )
    assert parse_wote_answer("Preheat the oven to 350", "stop").status == "clean"


def test_a_plain_line_with_an_incomplete_finish_reason(tmp_path):
    first, second = _walls()[:2]
    lines = [
        {"wall_id": first["wall_id"], "text": _solution(first), "finish_reason": "abort"},
        {"wall_id": second["wall_id"], "text": _solution(second)},
    ]
    _, walls = _parse(tmp_path, lines)
    assert walls[first["wall_id"]]["reason"] == "incomplete"
    assert walls[second["wall_id"]]["status"] == "clean"


# --------------------------------------------------------------------------------------
# content as a list of parts
# --------------------------------------------------------------------------------------


def _parts(text: str) -> dict[str, list[Any]]:
    """The same text as content parts, in the shapes servers send."""
    half = len(text) // 2
    return {
        "one text part": [{"type": "text", "text": text}],
        "two text parts": [
            {"type": "text", "text": text[:half]},
            {"type": "text", "text": text[half:]},
        ],
        "an image part between": [
            {"type": "text", "text": text[:half]},
            {"type": "image_url", "image_url": {"url": "data:,"}},
            {"type": "text", "text": text[half:]},
        ],
        "parts without a type": [{"text": text}],
    }


@pytest.mark.parametrize("shape", list(_parts("x")))
def test_content_parts_are_the_answers_text_in_parse(tmp_path, shape):
    wall = _walls()[0]
    content = _parts(_solution(wall))[shape]
    predictions, walls = _parse(tmp_path, [_log_line(wall["wall_id"], _choice_body(content))])
    assert walls[wall["wall_id"]]["status"] == "clean"
    assert walls[wall["wall_id"]]["text"] == _solution(wall)
    gold = {frozenset(wall["groups"][f"group_{i}"]["gt_words"]) for i in range(1, 5)}
    assert {frozenset(g) for g in predictions[wall["wall_id"]]["predicted_groups"]} == gold


BAD_CONTENT = {
    "a number": 5,
    "an object": {"text": "x"},
    "a string in the list": ["x"],
    "a text part without text": [{"type": "text", "text": None}],
}


# --------------------------------------------------------------------------------------
# A 200 body with an error and no choices; an error's own message
# --------------------------------------------------------------------------------------

#: 200 bodies with no choices, by producer, and the message the user must see.
ERROR_BODIES = {
    "OpenAI-style error object": (
        {"error": {"message": "The server had an error", "type": "server_error"}},
        "The server had an error",
    ),
    "vLLM's 200 error object": (
        {
            "object": "error",
            "message": "prompt is too long",
            "type": "BadRequestError",
            "code": 400,
        },
        "prompt is too long",
    ),
    "TGI's error string": (
        {"error": "Input validation error", "error_type": "validation"},
        "Input validation error",
    ),
    "a proxy's detail": ({"error": {"detail": "upstream timed out"}}, "upstream timed out"),
    "empty choices and an error": (
        {"choices": [], "error": {"message": "overloaded"}},
        "overloaded",
    ),
}


@pytest.mark.parametrize("name", list(ERROR_BODIES))
def test_a_200_error_body_is_that_walls_failure_with_its_message(tmp_path, name):
    body, message = ERROR_BODIES[name]
    first, second = _walls()[:2]
    lines = [
        _log_line(first["wall_id"], body),
        _log_line(second["wall_id"], _choice_body(_solution(second))),
    ]
    _, walls = _parse(tmp_path, lines)
    assert walls[first["wall_id"]]["status"] == "no_response"
    assert message in walls[first["wall_id"]]["repairs"][0]["problem"]
    assert walls[second["wall_id"]]["status"] == "clean"


@pytest.mark.parametrize(
    ("error", "body", "message"),
    [
        (
            {"code": "400", "message": None},
            {"error": {"message": "context length exceeded"}},
            "context length exceeded",
        ),
        (None, {"error": {"message": "bad model"}}, "bad model"),
        ({"code": "500"}, "<html>oops</html>", "error code 500"),
    ],
)
def test_a_failed_line_shows_the_servers_own_message(tmp_path, error, body, message):
    wall = _walls()[0]
    _, walls = _parse(tmp_path, [_log_line(wall["wall_id"], body, status=400, error=error)])
    assert message in walls[wall["wall_id"]]["repairs"][0]["problem"]
    assert "None" not in walls[wall["wall_id"]]["repairs"][0]["problem"]


# --------------------------------------------------------------------------------------
# The model that answered
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "answered", "same"),
    [
        ("gpt-4o", "gpt-4o", True),
        ("gpt-4o", "gpt-4o-2024-08-06", True),  # OpenAI's dated snapshot
        ("gpt-4", "gpt-4-0613", True),
        ("llama3", "llama3:latest", True),  # Ollama's default tag
        ("m", None, True),  # names no model
        ("gpt-4o", "gpt-4o-mini", False),
        ("gpt-4o", "some-other-model", False),
        ("tgi", "meta-llama/Llama-3.1-8B-Instruct", False),  # TGI answers with its model id
        ("llama3", "llama3:70b", False),
        ("m", 5, False),
    ],
)
def test_same_model(asked, answered, same):
    assert same_model(asked, answered) is same


@pytest.mark.parametrize("answered", ["some-other-model", "gpt-4o-mini", 5])
def test_parse_refuses_an_answer_of_another_model_than_its_record_names(tmp_path, answered):
    """A log of another producer or an older run, beside the record run-llm writes: an answer
    whose completion names another model than the record is that wall's failure; a dated
    snapshot of it is an answer."""
    first, second, third = _walls()[:3]
    lines = [
        _log_line(first["wall_id"], _choice_body(_solution(first), model=answered)),
        _log_line(second["wall_id"], _choice_body(_solution(second), model="gpt-4o-2024-08-06")),
        _log_line(third["wall_id"], _choice_body(_solution(third), model="gpt-4o")),
    ]
    record = tmp_path / "log.jsonl.protocol.json"
    record.write_text(json.dumps({"model": "gpt-4o"}), encoding="utf-8")
    _, walls = _parse(tmp_path, lines)
    assert walls[first["wall_id"]]["status"] == "no_response"
    assert repr(answered) in walls[first["wall_id"]]["repairs"][0]["problem"]
    assert [walls[w["wall_id"]]["status"] for w in (second, third)] == ["clean", "clean"]
    record.unlink()  # no record: no model to check against
    _, walls = _parse(tmp_path, lines)
    assert walls[first["wall_id"]]["status"] == "clean"
