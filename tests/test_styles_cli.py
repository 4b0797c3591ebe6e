"""The prompt styles through the commands: ``prompts --list-styles``, ``--prompt-style cot|json``
and ``--response-format``, and ``prompts -> run-llm -> parse -> evaluate`` end to end against
the scripted server (tests/chat_server.py) for ``cot`` and ``json``: ``parse`` takes the style
from the protocol record, and the figures are those of the hand-written answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import last_user_message
from llm_answers import answer_requests
from test_parse import BY_ID, _cli, _gold
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.llm.styles import STYLE_NAMES, load_style
from ocw_hub.provenance import describe_protocol

runner = CliRunner()


def test_list_styles_prints_one_line_per_style_without_other_options() -> None:
    result = runner.invoke(app, ["prompts", "--list-styles"])
    assert result.exit_code == 0, result.output
    shown = result.output.strip().split("\n")
    assert [line.split(": ", 1)[0] for line in shown] == list(STYLE_NAMES)
    assert shown[2] == f"cot: {load_style('cot').description}"


def test_response_format_is_only_for_json(tmp_path: Path, cache: Path) -> None:
    out = tmp_path / "r.jsonl"
    base = ["prompts", "--task", "grouping", "--shots", "0", "--out", str(out)]
    result = _cli(
        *base, "--prompt-style", "cot", "--response-format", "prompt", cache=cache, code=1
    )
    assert "--response-format prompt: only for a style answered in JSON" in result.output
    result = _cli(*base, "--prompt-style", "json", "--response-format", "xml", cache=cache, code=1)
    assert "--response-format xml: expected one of schema, prompt" in result.output
    assert not out.exists()
    _cli(*base, "--prompt-style", "json", "--response-format", "prompt", cache=cache)
    record = json.loads((tmp_path / "r.jsonl.protocol.json").read_text())
    assert (record["prompt_style"], record["response_format"]) == ("json", "prompt")


# --------------------------------------------------------------------------------------
# End to end against the scripted server
# --------------------------------------------------------------------------------------


def _lines(groups: list[list[str]]) -> str:
    return "\n".join(", ".join(g) for g in groups)


def _rotated(groups: list[list[str]]) -> list[list[str]]:
    """A partition sharing no group with ``groups``."""
    return [[groups[(i + k) % 4][k] for k in range(4)] for i in range(4)]


def _named(groups: list[list[str]], names: list[str]) -> str:
    return "\n".join(f"{', '.join(g)}. Connection: {c}" for g, c in zip(groups, names, strict=True))


def which_wall(body: dict[str, Any]) -> tuple[str, str]:
    """(wall id, task) of a request of our styles (``Clues: `` with one space)."""
    message = last_user_message(body)
    for wall_id, wall in BY_ID.items():
        if "\nClues: " + ", ".join(wall["words"]) + "\n" in message:
            return wall_id, "grouping"
        if "Groups:\n" + ", ".join(_gold(wall_id)[0]) + ". Connection:" in message:
            return wall_id, "connections"
    raise AssertionError(f"unknown wall in {message!r}")


def cot_answer(body: dict[str, Any]) -> str:
    """Grouping: c001 gold after the marker; c002 gold in the reasoning, no marker; c003 the
    gold in the reasoning, a wrong partition after the marker; c004 gold after a bold marker.
    Connections: c001 gold; c002 no marker; c003 wrong names in the reasoning, gold after the
    marker; c004 two of four right."""
    wall_id, task = which_wall(body)
    gold, names = _gold(wall_id), list(BY_ID[wall_id]["gt_connections"])
    if task == "grouping":
        answers = {
            "c001": f"Step 1: look for themes.\nFinal answer:\n{_lines(gold)}",
            "c002": f"I think the groups are:\n{_lines(gold)}",
            "c003": f"Maybe:\n{_lines(gold)}\nNo.\nFinal answer:\n{_lines(_rotated(gold))}",
            "c004": f"Thinking.\n\n**Final answer:**\n{_lines(gold)}",
        }
        return answers[wall_id]
    wrong = ["Writers", "Colours", "Painters", "Rivers"]
    answers = {
        "c001": f"Hmm.\nFinal answer:\n{_named(gold, names)}",
        "c002": _named(gold, names),
        "c003": f"{_named(gold, wrong)}\nFinal answer:\n{_named(gold, names)}",
        "c004": f"Final answer:\n{_named(gold, [*names[:2], 'Kings', 'Saints'])}",
    }
    return answers[wall_id]


def json_answer(body: dict[str, Any]) -> str:
    """Grouping: c001 gold; c002 cut JSON; c003 gold in a code fence; c004 three groups.
    Connections: c001 gold; c002 not JSON; c003 gold; c004 two of four right."""
    wall_id, task = which_wall(body)
    gold, names = _gold(wall_id), list(BY_ID[wall_id]["gt_connections"])
    if task == "grouping":
        answers = {
            "c001": json.dumps({"groups": gold}),
            "c002": json.dumps({"groups": gold})[:40],
            "c003": "```json\n" + json.dumps({"groups": gold}) + "\n```",
            "c004": json.dumps({"groups": gold[:3]}),
        }
        return answers[wall_id]
    answers = {
        "c001": json.dumps({"connections": names}),
        "c002": "The connections are rivers.",
        "c003": json.dumps({"connections": names}),
        "c004": json.dumps({"connections": [*names[:2], "Kings", "Saints"]}),
    }
    return answers[wall_id]


def _run(folder: Path, server: Any, task: str, style: list[str], cache: Path) -> Path:
    requests, responses = folder / f"{task}-req.jsonl", folder / f"{task}-resp.jsonl"
    _cli(
        "prompts",
        "--task",
        task,
        "--shots",
        "1",
        *style,
        "--model",
        "fake",
        "--out",
        str(requests),
        cache=cache,
    )
    return answer_requests(requests, responses, server.url)


def _parse_and_score(folder: Path, responses: Path, task: str, cache: Path) -> tuple[dict, dict]:
    predictions = folder / f"{task}-predictions.json"
    _cli("parse", str(responses), "--task", task, "--out", str(predictions), cache=cache)
    report = json.loads(predictions.with_name(predictions.name + ".parse.json").read_text())
    results_path = folder / f"{task}-results.json"
    _cli("evaluate", str(predictions), "--out", str(results_path), cache=cache)
    return report, json.loads(results_path.read_text())


def test_cot_end_to_end(tmp_path: Path, cache: Path, chat_server: Any) -> None:
    server = chat_server(cot_answer, key=lambda body: "/".join(which_wall(body)))
    responses = _run(tmp_path, server, "grouping", ["--prompt-style", "cot"], cache)
    report, results = _parse_and_score(tmp_path, responses, "grouping", cache)
    assert report["prompt_style"] == "cot"
    assert report["unrecoverable"] == {"no_final_answer": 1}
    assert [w["status"] for w in report["walls"]] == ["clean", "unrecoverable", "clean", "clean"]
    assert results["grouping"]["full_wall"] == 2
    assert results["grouping"]["correct_groups"] == 4 + 0 + 0 + 4
    protocol = dict(results["protocol"])
    assert protocol.pop("usage")["requests"] == 4  # run-llm's (tests/test_usage.py)
    assert protocol == {
        "method": "llm",
        "task": "grouping",
        "model": "fake",
        "prompt_style": "cot",
        "shots": 1,
        "seed": 42,
        "parse_mode": "robust",
        "package_version": ocw_hub.__version__,
        "profile": "paper",
        "generation": {"max_tokens": 144, "temperature": 0},
    }
    responses = _run(tmp_path, server, "connections", ["--prompt-style", "cot"], cache)
    report, results = _parse_and_score(tmp_path, responses, "connections", cache)
    assert report["unrecoverable"] == {"no_final_answer": 1}
    assert results["connections"]["exact_match"] == (4 + 0 + 4 + 2) / 16
    assert all("response_format" not in body for body in server.bodies)


@pytest.mark.parametrize("response_format", ["schema", "prompt"])
def test_json_end_to_end(
    tmp_path: Path, cache: Path, chat_server: Any, response_format: str
) -> None:
    server = chat_server(json_answer, key=lambda body: "/".join(which_wall(body)))
    style = ["--prompt-style", "json", "--response-format", response_format]
    responses = _run(tmp_path, server, "grouping", style, cache)
    report, results = _parse_and_score(tmp_path, responses, "grouping", cache)
    assert report["unrecoverable"] == {"invalid_json": 1, "schema_mismatch": 1}
    assert report["repairs"] == {"code_fence": 1}
    assert results["grouping"]["full_wall"] == 2
    assert results["grouping"]["correct_groups"] == 4 + 0 + 4 + 0
    assert results["protocol"]["prompt_style"] == "json"
    assert results["protocol"]["response_format"] == response_format
    shown = describe_protocol(results["protocol"])  # the line of table titles and the report
    assert f"prompt style json, response format {response_format}, shots 1" in shown
    responses = _run(tmp_path, server, "connections", style, cache)
    report, results = _parse_and_score(tmp_path, responses, "connections", cache)
    assert report["unrecoverable"] == {"invalid_json": 1}
    assert results["connections"]["exact_match"] == (4 + 0 + 4 + 2) / 16
    sent = [body.get("response_format") for body in server.bodies]
    if response_format == "schema":
        schemas = [s["json_schema"]["schema"] for s in sent]
        assert (
            schemas
            == [load_style("json").schemas["grouping"]] * 4
            + [load_style("json").schemas["connections"]] * 4
        )
    else:
        assert sent == [None] * 8
        assert all("JSON schema: {" in last_user_message(b) for b in server.bodies)


def test_parse_takes_the_style_from_the_record_and_refuses_another(
    tmp_path: Path, cache: Path, chat_server: Any
) -> None:
    server = chat_server(cot_answer, key=lambda body: "/".join(which_wall(body)))
    responses = _run(tmp_path, server, "grouping", ["--prompt-style", "cot"], cache)
    out = tmp_path / "p.json"
    result = _cli(
        "parse", str(responses), "--prompt-style", "ours", "--out", str(out), cache=cache, code=1
    )
    assert "--prompt-style ours" in result.output and "style cot" in result.output
    result = _cli(
        "parse", str(responses), "--mode", "paper", "--out", str(out), cache=cache, code=1
    )
    assert "--mode paper" in result.output and not out.exists()
    # without a record (a hand-made file) the style is an option, recorded by parse
    plain = tmp_path / "plain.jsonl"
    plain.write_text(responses.read_text())
    _cli("parse", str(plain), "--prompt-style", "cot", "--out", str(out), cache=cache)
    report = json.loads((tmp_path / "p.json.parse.json").read_text())
    assert report["prompt_style"] == "cot" and report["unrecoverable"] == {"no_final_answer": 1}
    assert json.loads((tmp_path / "p.json.protocol.json").read_text())["prompt_style"] == "cot"
    _cli("parse", str(plain), "--out", str(out), cache=cache)  # read as paper: the reasoning
    report = json.loads((tmp_path / "p.json.parse.json").read_text())
    assert report["prompt_style"] == "paper" and "no_final_answer" not in report["unrecoverable"]
