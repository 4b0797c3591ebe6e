"""Cost and latency of a run from its response log (issue 25, item 5): token totals equal the
sum of the servers' ``usage`` fields, latency percentiles, the cost, and where they are shown
(run-llm's protocol record, the parse report, the evaluate table)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, last_user_message
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import OCWHubError
from ocw_hub.llm.usage import (
    NOT_REPORTED,
    cost_line,
    latency_percentiles,
    parse_price,
    usage_line,
    usage_of,
    usage_over,
    usage_wall_id,
)

runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
WALLS = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]


def _answer(usage: dict[str, Any] | None, status: int = 200, latency: float | None = None):
    body: dict[str, Any] = {
        "choices": [{"message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}]
    }
    if usage is not None:
        body["usage"] = usage
    line = {"custom_id": "w", "response": {"status_code": status, "body": body}, "error": None}
    if latency is not None:
        line["latency_s"] = latency
    return line


def test_hand_made_records() -> None:
    lines = [
        _answer(
            {
                "prompt_tokens": 100,
                "completion_tokens": 40,
                "completion_tokens_details": {"reasoning_tokens": 30},
            },
            latency=1.0,
        ),
        _answer({"prompt_tokens": 120, "completion_tokens": 5}, latency=3.0),
        _answer(None),  # the server omitted usage
        {"custom_id": "w", "response": None, "error": {"code": "timeout", "message": "t"}},
        _answer(
            {
                "prompt_tokens": 7,
                "completion_tokens": 2,
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
            status=400,
        ),
    ]
    usage = usage_of(lines, price=(2.0, 8.0))
    assert (usage["requests"], usage["answered"], usage["usage_reported"]) == (5, 3, 3)
    assert usage["prompt_tokens"] == 227 and usage["completion_tokens"] == 47
    assert usage["reasoning_tokens"] == 30 and usage["total_tokens"] == 274
    assert usage["cost"] == pytest.approx(227 * 2 / 1e6 + 47 * 8 / 1e6)
    assert usage["latency_s"]["timed"] == 2 and usage["latency_s"]["p50"] == 2.0


def test_not_reported() -> None:
    usage = usage_of([_answer(None), _answer({"prompt_tokens": 3})], price=(1.0, 1.0))
    assert usage["prompt_tokens"] == 3
    assert usage["completion_tokens"] is None and usage["reasoning_tokens"] is None
    assert usage["cost"] is None and usage["latency_s"] is None  # no completion count, untimed
    line = usage_line(usage)
    assert f"out {NOT_REPORTED}" in line and f"latency {NOT_REPORTED}" in line
    assert "usage reported for 1 of 2 requests" in line


def test_latency_percentiles_known_values() -> None:
    found = latency_percentiles([float(v) for v in range(10, 0, -1)])  # 1..10, any order
    assert found == pytest.approx(
        {"p50": 5.5, "p90": 9.1, "p95": 9.55, "p99": 9.91, "mean": 5.5, "max": 10.0, "timed": 10}
    )
    assert latency_percentiles([]) is None


@pytest.mark.parametrize("text", ["2.5", "a,b", "1,2,3", "-1,2", "nan,1", ""])
def test_bad_price(text: str) -> None:
    with pytest.raises(OCWHubError):
        parse_price(text)


def test_price() -> None:
    assert parse_price("2.5,10") == (2.5, 10.0)


# --------------------------------------------------------------------------------------
# A scripted server: run-llm, parse, evaluate
# --------------------------------------------------------------------------------------


def _gold(wall: dict[str, Any]) -> str:
    groups = [wall["groups"][k]["gt_words"] for k in sorted(wall["groups"])]
    return "\n".join(", ".join(g) for g in groups)


def _wall_of(body: dict[str, Any]) -> dict[str, Any]:
    clues = last_user_message(body).rsplit("Clues:", 1)[1]
    return next(w for w in WALLS if all(c in clues for c in w["words"]))


class _CountingServer(ChatServer):
    """Answers the first two walls with their gold groups, the others with a wrong split;
    each answer's usage differs (and the last wall's answer reports none)."""

    def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        wall = _wall_of(body)
        index = WALLS.index(wall)
        text = (
            _gold(wall)
            if index < 2
            else "\n".join(", ".join(wall["words"][i : i + 4]) for i in range(0, 16, 4))
        )
        payload = {
            "id": "c",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
        }
        if index < len(WALLS) - 1:
            payload["usage"] = {
                "prompt_tokens": 1000 + 17 * index,
                "completion_tokens": 60 + 5 * index,
                "total_tokens": 1060 + 22 * index,
                "completion_tokens_details": {"reasoning_tokens": 10 * index},
            }
        return 200, payload, {}


def _cli(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_cost_line_over_runs() -> None:
    def run(cost: float | None, full: int, groups: int) -> dict[str, Any]:
        usage = {
            "requests": 2,
            "prompt_tokens": 10,
            "completion_tokens": 4,
            "reasoning_tokens": None,
            "cost": cost,
            "latency_s": None,
        }
        return {
            "protocol": {"usage": usage},
            "grouping": {"full_wall": full, "correct_groups": groups},
        }

    line = cost_line({"runs": [run(0.3, 1, 5), run(0.5, 3, 11)]})
    assert line is not None
    assert "4 requests" in line and "tokens in 20, out 8" in line
    assert "per solved wall 0.2000" in line and "per correct group 0.0500" in line
    assert "per solved" not in (cost_line({"runs": [run(None, 1, 5), run(0.5, 3, 11)]}) or "")
    assert cost_line({"runs": [run(0.3, 1, 5), {"protocol": None}]}) is None
    assert cost_line({"protocol": None}) is None


def test_batch_output_parse_price(tmp_path: Path) -> None:
    """A Batch API output file (no run-llm record, no latency): parse counts its usage and
    prices it with --price-per-mtok; evaluate shows the cost per solved wall."""
    cache = tmp_path / "cache"
    data = ["--data-dir", str(FIXTURE), "--cache-dir", str(cache), "--no-checks"]
    lines = []
    for i, wall in enumerate(WALLS):
        body = {
            "model": "o4-mini-2025-04-16",
            "usage": {
                "prompt_tokens": 500 + i,
                "completion_tokens": 2000 * (i + 1),
                "completion_tokens_details": {"reasoning_tokens": 1900 * (i + 1)},
            },
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": _gold(wall)},
                }
            ],
        }
        lines.append(
            {
                "id": f"batch_req_{i}",
                "custom_id": wall["wall_id"],
                "response": {"status_code": 200, "request_id": "r", "body": body},
                "error": None,
            }
        )
    responses = tmp_path / "batch-output.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    predictions = tmp_path / "pred.json"
    _cli("parse", str(responses), *data, "--out", str(predictions), "--price-per-mtok", "1.1,4.4")
    usage = json.loads((tmp_path / "pred.json.parse.json").read_text())["usage"]
    prompt, completion = sum(500 + i for i in range(4)), sum(2000 * (i + 1) for i in range(4))
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (prompt, completion)
    assert usage["reasoning_tokens"] == sum(1900 * (i + 1) for i in range(4))
    assert usage["latency_s"] is None
    cost = prompt * 1.1 / 1e6 + completion * 4.4 / 1e6
    assert usage["cost"] == pytest.approx(cost)
    shown = _cli("evaluate", str(predictions), *data, "--bootstrap", "0")
    text = " ".join(shown.output.split())
    assert f"per solved wall {cost / 4:.4f}" in text and f"latency {NOT_REPORTED}" in text


def test_usage_by_wall_ids() -> None:
    """Follow-ups (``#reprompt-k``) and samples (``#i``) are billed to their wall."""
    assert usage_wall_id("c001#reprompt-2") == usage_wall_id("c001#3") == "c001"
    assert usage_wall_id("c001") == "c001" and usage_wall_id("c#x") == "c#x"
    assert usage_wall_id(None) is None
    usage = {"prompt_tokens": 10, "completion_tokens": 2}
    lines = [
        {**_answer(usage, latency=1.0), "custom_id": "a#0"},
        {**_answer(usage, latency=3.0), "custom_id": "a#1"},
        {**_answer(None), "custom_id": "a#reprompt-1"},
        {**_answer({"prompt_tokens": 5, "completion_tokens": 1}), "custom_id": "b"},
    ]
    record = usage_of(lines, price=(1.0, 10.0))
    assert set(record["by_wall"]) == {"a", "b"}
    a = record["by_wall"]["a"]
    assert (a["requests"], a["usage_reported"], a["prompt_tokens"]) == (3, 2, 20)
    assert a["latency_s"] == [1.0, 3.0] and a["cost"] == pytest.approx(60 / 1e6)
    only_a = usage_over(record, ["a", "not logged"])
    assert only_a is not None and only_a["cost"] == pytest.approx(60 / 1e6)
    assert only_a["latency_s"]["p50"] == 2.0 and only_a["requests"] == 3
    assert usage_over({k: v for k, v in record.items() if k != "by_wall"}, ["a"]) is None
    assert usage_of([{"response": None}])["by_wall"] is None  # a line naming no wall


def _slice_cost(prompt: list[int], completion: list[int]) -> float:
    return sum(prompt) * 3 / 1e6 + sum(completion) * 15 / 1e6


@pytest.mark.usefixtures("local_only")
def test_compare_names_the_interval_method(tmp_path: Path) -> None:
    """compare's JSON gives the figure's own interval method, its other formats name it."""
    data = ["--data-dir", str(FIXTURE), "--cache-dir", str(tmp_path / "c"), "--no-checks"]
    predictions = tmp_path / "pred.json"
    walls = [
        {
            "wall_id": w["wall_id"],
            "predicted_connections": None,
            "predicted_groups": [w["words"][i : i + 4] for i in range(0, 16, 4)],
        }
        for w in WALLS
    ]
    predictions.write_text(json.dumps(walls), encoding="utf-8")
    for figure, method in (("full_wall_rate", "clopper-pearson"), ("ami", "percentile")):
        args = ["compare", str(predictions), str(predictions), *data, "--by", figure]
        table = json.loads(_cli(*args, "--format", "json").output)
        assert table["bootstrap"]["method"] == method
        shown = _cli(*args, "--format", "markdown").output
        assert f"95 % intervals: {method}" in shown
