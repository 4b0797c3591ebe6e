"""Generation profiles (issue 25): the generation fields ``prompts`` and ``run-llm`` send,
recorded in the protocol record, and runs whose fields differ refused as one protocol; ``stop``
sent as a list and a 4xx's reason shown (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import GenerationProfileError, MixedRunsError
from ocw_hub.llm.log import read_requests
from ocw_hub.llm.profiles import Generation, generation_fields, with_generation
from ocw_hub.llm.prompts import PAPER_PARAMETERS, style_fields
from ocw_hub.llm.wote import build_wote_requests
from ocw_hub.provenance import check_one_protocol, describe_protocol, protocol_key

runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
#: The fields the notebook sent besides model and messages (../shared/oracle's requests).
NOTEBOOK = {
    "max_tokens": 144,
    "temperature": 0.0,
    "top_p": 1.0,
    "n": 1,
    "stop": "<|im_end|>",
    "stream": False,
}


def _prompts(out: Path, cache: Path, *args: str):
    return runner.invoke(
        app,
        [
            "prompts",
            "--data-dir",
            str(FIXTURE),
            "--cache-dir",
            str(cache),
            "--no-checks",
            "--task",
            "grouping",
            "--shots",
            "1",
            "--out",
            str(out),
            *args,
        ],
    )


def _fields(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in ("model", "messages")}


def _record(path: Path) -> dict[str, Any]:
    return json.loads(path.with_name(path.name + ".protocol.json").read_text())


# --------------------------------------------------------------------------------------
# prompts
# --------------------------------------------------------------------------------------


def test_reasoning_profile_done_when(tmp_path: Path, cache: Path) -> None:
    out = tmp_path / "r.jsonl"
    result = _prompts(
        out, cache, "--profile", "reasoning", "--reasoning-effort", "high", "--max-tokens", "8000"
    )
    assert result.exit_code == 0, result.output
    requests = read_requests(out)
    assert len(requests) == 4
    for request in requests:
        assert _fields(request["body"]) == {
            "max_completion_tokens": 8000,
            "reasoning_effort": "high",
        }
    record = _record(out)
    assert record["profile"] == "reasoning"
    assert record["generation"] == _fields(requests[0]["body"])
    # the messages are the paper's: only the generation fields changed
    paper = tmp_path / "p.jsonl"
    assert _prompts(paper, cache).exit_code == 0
    for ours, theirs in zip(requests, read_requests(paper), strict=True):
        assert ours["body"]["messages"] == theirs["body"]["messages"]


def test_paper_profile_is_todays_default_byte_for_byte(tmp_path: Path, cache: Path) -> None:
    default, named = tmp_path / "d.jsonl", tmp_path / "n.jsonl"
    assert _prompts(default, cache).exit_code == 0
    assert _prompts(named, cache, "--profile", "paper").exit_code == 0
    assert default.read_bytes() == named.read_bytes()
    for request in read_requests(default):
        body = request["body"]
        assert list(body) == ["model", "messages", *NOTEBOOK]  # the notebook's order too
        assert _fields(body) == NOTEBOOK
    record = _record(default)
    assert (record["profile"], record["generation"]) == ("paper", NOTEBOOK)
    ours = tmp_path / "o.jsonl"
    assert _prompts(ours, cache, "--prompt-style", "ours").exit_code == 0
    assert _fields(read_requests(ours)[0]["body"]) == {"max_tokens": 144, "temperature": 0}


def test_custom_profile_sends_exactly_the_fields_given(tmp_path: Path, cache: Path) -> None:
    out = tmp_path / "c.jsonl"
    result = _prompts(
        out,
        cache,
        "--profile",
        "custom",
        "--max-tokens",
        "300",
        "--temperature",
        "0.7",
        "--top-p",
        "0.9",
        "--stop",
        "###",
        "--stop",
        "\n\n",
        "--sampling-seed",
        "7",
        "-n",
        "3",
    )
    assert result.exit_code == 0, result.output
    expected = {
        "max_tokens": 300,
        "temperature": 0.7,
        "top_p": 0.9,
        "n": 3,
        "stop": ["###", "\n\n"],
        "seed": 7,
    }
    assert all(_fields(r["body"]) == expected for r in read_requests(out))
    assert _record(out)["generation"] == expected
    assert _record(out)["seed"] == 42  # the in-context draw's seed, apart from the sampling one
    minimal = tmp_path / "m.jsonl"
    assert _prompts(minimal, cache, "--profile", "custom", "--max-tokens", "50").exit_code == 0
    assert _fields(read_requests(minimal)[0]["body"]) == {"max_tokens": 50}


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--temperature", "0.5"], "--temperature"),  # paper takes no field
        (["--max-tokens", "100"], "--max-tokens"),
        (["--reasoning-effort", "high"], "--reasoning-effort"),
        (["--profile", "reasoning"], "--max-tokens"),  # a budget is needed
        (["--profile", "reasoning", "--max-tokens", "10", "--temperature", "0"], "--temperature"),
        (["--profile", "reasoning", "--max-tokens", "10", "--stop", "x"], "--stop"),
        (["--profile", "reasoning", "--max-tokens", "10", "-n", "2"], "-n"),
        (["--profile", "reasoning", "--max-tokens", "10", "--top-p", "0.5"], "--top-p"),
        (
            ["--profile", "reasoning", "--max-tokens", "9", "--reasoning-effort", "max"],
            "--reasoning-effort",
        ),
        (["--profile", "custom", "--temperature", "0.7"], "--max-tokens"),
        (["--profile", "custom", "--max-tokens", "10", "--temperature", "3"], "--temperature"),
        (["--profile", "custom", "--max-tokens", "10", "--top-p", "0"], "--top-p"),
        (["--profile", "custom", "--max-tokens", "10", "-n", "0"], "-n"),
        (["--profile", "custom", "--max-tokens", "10", "--stop", ""], "--stop"),
        (["--profile", "fast"], "--profile"),
    ],
)
def test_invalid_combinations_are_one_line_errors(
    tmp_path: Path, cache: Path, args: list[str], option: str
) -> None:
    out = tmp_path / "x.jsonl"
    result = _prompts(out, cache, *args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith((f"error: {option} ", f"error: {option}:")), (
        result.output
    )
    assert not out.exists()


def test_library_errors_are_typed() -> None:
    with pytest.raises(GenerationProfileError) as caught:
        generation_fields(Generation("reasoning", max_tokens=5, temperature=0.0), {})
    assert caught.value.option == "--temperature"
    with pytest.raises(GenerationProfileError):
        with_generation({"body": {"model": "m", "messages": []}}, Generation("paper"))


def test_run_llm_profile_keeps_the_styles_response_format() -> None:
    schema = {"type": "json_schema", "json_schema": {"name": "wall", "schema": {}}}
    request = {
        "custom_id": "w",
        "body": {
            "model": "m",
            "messages": [],
            "max_tokens": 144,
            "temperature": 0,
            "response_format": schema,
        },
    }
    replaced = with_generation(request, Generation("reasoning", max_tokens=900))
    assert replaced["body"] == {
        "model": "m",
        "messages": [],
        "response_format": schema,
        "max_completion_tokens": 900,
    }


def test_paper_fields_of_each_style_and_wote() -> None:
    assert style_fields("paper") == {"max_tokens": 144, **PAPER_PARAMETERS} == NOTEBOOK
    row = {"id": "q1", "context": "Whisk the eggs.", "question": "What first?", "history": []}
    (paper,) = build_wote_requests([row])
    assert _fields(paper["body"]) == {"temperature": 0, "max_tokens": 256}
    (reasoning,) = build_wote_requests([row], generation=Generation("reasoning", max_tokens=900))
    assert _fields(reasoning["body"]) == {"max_completion_tokens": 900}
    assert reasoning["body"]["messages"] == paper["body"]["messages"]


# --------------------------------------------------------------------------------------
# The protocol record: every field sent counts
# --------------------------------------------------------------------------------------


def _protocol(**generation: Any) -> dict[str, Any]:
    return {
        "method": "llm",
        "task": "grouping",
        "model": "m",
        "prompt_style": "paper",
        "shots": 0,
        "seed": 42,
        "profile": "custom",
        "generation": {"max_tokens": 144, "temperature": 0.0, **generation},
    }


@pytest.mark.parametrize(
    "changed",
    [
        {"temperature": 0.7},
        {"max_tokens": 145},
        {"stop": ["x"]},
        {"top_p": 0.5},
        {"n": 2},
        {"reasoning_effort": "low"},
        {"response_format": {"type": "json_object"}},
    ],
)
def test_a_differing_sent_field_is_another_protocol(changed: dict[str, Any]) -> None:
    first, second = _protocol(), _protocol(**changed)
    assert protocol_key(first) != protocol_key(second)
    with pytest.raises(MixedRunsError):
        check_one_protocol(["a.json", "b.json"], ["a.json", "b.json"], [first, second])


def test_run_fields_do_not_split_a_protocol() -> None:
    first = {**_protocol(seed=1), "seed": 1, "usage": {"requests": 3, "cost": 0.5}}
    second = {**_protocol(seed=2), "seed": 7, "usage": {"requests": 4, "cost": None}}
    assert protocol_key(first) == protocol_key(second)
    check_one_protocol(["a.json", "b.json"], ["a.json", "b.json"], [first, second])


def test_the_profile_is_described() -> None:
    shown = describe_protocol(
        {
            **_protocol(),
            "profile": "reasoning",
            "generation": {"max_completion_tokens": 8000, "reasoning_effort": "high"},
        }
    )
    assert shown.endswith("profile reasoning (max_completion_tokens 8000, reasoning_effort high)")
    assert "profile paper" in describe_protocol({**_protocol(), "profile": "paper"})
    assert "profile" not in describe_protocol({"method": "llm", "model": "m"})


# --------------------------------------------------------------------------------------
# run-llm: what is sent
# --------------------------------------------------------------------------------------


def _paper_requests(path: Path, n: int = 3) -> Path:
    lines = [
        {
            "custom_id": f"w{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": "gpt-4-0314",
                "messages": [{"role": "user", "content": f"q{i}"}],
                **NOTEBOOK,
            },
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


WALLS = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]


class _ThinkingServer(ChatServer):
    """A reasoning model: wall 0 thinks in ``<think>`` then answers, wall 1 answers after
    ``reasoning_content`` (vLLM's reasoning parser), wall 2 only reasons, wall 3 is cut."""

    def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        clues = body["messages"][-1]["content"].rsplit("Clues:", 1)[1]
        index, wall = next(
            (i, w) for i, w in enumerate(WALLS) if all(c in clues for c in w["words"])
        )
        gold = "\n".join(", ".join(wall["groups"][k]["gt_words"]) for k in sorted(wall["groups"]))
        thought = f"{wall['words'][0]} could go with {wall['words'][1]}, but that is a red herring."
        message, finish = [
            ({"content": f"<think>{thought}\n{gold}</think>\n{gold}"}, "stop"),
            ({"content": gold, "reasoning_content": thought}, "stop"),
            ({"content": "", "reasoning_content": thought}, "stop"),
            ({"content": "", "reasoning_content": thought}, "length"),
        ][index]
        choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
        return 200, {"model": body["model"], "choices": [choice]}, {}


def test_a_batch_output_takes_its_requests_record(tmp_path: Path, cache: Path) -> None:
    """A Batch API output has no protocol record: ``parse --requests`` gives the answers the
    requests' one (profile and every field sent), after checking that every answer's id is a
    request's; the requests of other walls are refused and nothing is written."""
    from test_parse import _gold

    requests = tmp_path / "o4-mini-requests.jsonl"
    args = ("--profile", "reasoning", "--max-tokens", "25000", "--reasoning-effort", "high")
    assert _prompts(requests, cache, *args).exit_code == 0
    lines = []
    for request in read_requests(requests):
        text = "\n".join(", ".join(g) for g in _gold(request["custom_id"]))
        body = {
            "model": "o4-mini-2025-04-16",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
        }
        lines.append(
            {
                "id": "batch_req_1",
                "custom_id": request["custom_id"],
                "response": {"status_code": 200, "body": body},
                "error": None,
            }
        )
    batch = tmp_path / "o4-mini-responses.jsonl"
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    data = ["--data-dir", str(FIXTURE), "--cache-dir", str(cache), "--no-checks"]
    out = tmp_path / "o4-mini.json"
    parsed = runner.invoke(
        app, ["parse", str(batch), "--requests", str(requests), "--out", str(out), *data]
    )
    assert parsed.exit_code == 0, parsed.output
    record = _record(out)
    assert record["profile"] == "reasoning"
    assert record["generation"] == {"max_completion_tokens": 25000, "reasoning_effort": "high"}
    assert record == {
        **record,
        **{
            k: v
            for k, v in _record(requests).items()
            if k in ("profile", "generation", "task", "shots")
        },
    }
    # without --requests the answers have no record of their profile
    bare = tmp_path / "bare.json"
    assert runner.invoke(app, ["parse", str(batch), "--out", str(bare), *data]).exit_code == 0
    assert "profile" not in _record(bare)
    # requests that are not these answers' (one wall fewer): refused, nothing written
    other = tmp_path / "other-requests.jsonl"
    other.write_text("".join(requests.read_text().splitlines(keepends=True)[1:]))
    refused = tmp_path / "refused.json"
    result = runner.invoke(
        app, ["parse", str(batch), "--requests", str(other), "--out", str(refused), *data]
    )
    assert result.exit_code != 0 and not refused.exists()
