"""Every ``finish_reason`` mapped: ``stop`` and TGI's older names of it (``eos_token``,
``stop_sequence``) are complete answers, ``length`` a cut one, anything else no answer; an
answer that states none is read as complete and counted in the parse report
(``finish_reason_not_reported``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.llm.answer_text import NOT_REPORTED, completion_problem, incomplete
from ocw_hub.llm.wote import parse_wote_answer

runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
WALLS = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]


def _solution(wall: dict[str, Any]) -> str:
    return "\n".join(", ".join(g["gt_words"]) for g in wall["groups"].values())


def _body(text: str, finish: Any) -> dict[str, Any]:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}}
    if finish != "absent":
        choice["finish_reason"] = finish
    return {"model": "m", "choices": [choice]}


@pytest.mark.parametrize("finish", ["stop", "eos_token", "stop_sequence", None, "absent"])
def test_complete_answers(finish: Any) -> None:
    assert incomplete(None if finish == "absent" else finish) is None
    assert completion_problem(_body("Paris", finish)) is None
    parsed = parse_wote_answer("Preheat the oven", None if finish == "absent" else finish)
    assert (parsed.status, parsed.prediction_text) == ("clean", "Preheat the oven")


@pytest.mark.parametrize("finish", ["abort", "error", "content_filter", "eos", "EOS_TOKEN", 3])
def test_other_reasons_are_no_answer(finish: Any) -> None:
    problem = completion_problem(_body("Paris", finish))
    assert problem is not None and problem[0] == "incomplete"
    assert parse_wote_answer("Preheat the oven", finish).reason == "incomplete"


def _line(wall_id: str, finish: Any, text: str) -> dict[str, Any]:
    body = _body(text, finish)
    return {"custom_id": wall_id, "response": {"status_code": 200, "body": body}, "error": None}


@pytest.mark.parametrize(
    ("finishes", "not_reported"),
    [
        (["eos_token", "stop_sequence", "stop"], 0),  # TGI before mid-2024, and OpenAI's
        (["absent", None, "stop"], 2),  # a proxy that drops it, a null
        (["absent", "absent", "absent"], 3),
    ],
)
def test_parse_reads_them_as_complete_and_counts_the_unstated(
    tmp_path: Path, finishes: list[Any], not_reported: int
) -> None:
    walls = WALLS[: len(finishes)]
    lines = [_line(w["wall_id"], f, _solution(w)) for w, f in zip(walls, finishes, strict=True)]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "predictions.json"
    data = ["--data-dir", str(FIXTURE), "--cache-dir", str(tmp_path / "cache"), "--no-checks"]
    result = runner.invoke(app, ["parse", str(log), "--out", str(out), *data])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "predictions.json.parse.json").read_text(encoding="utf-8"))
    assert report["counts"]["clean"] == len(walls)
    assert report[NOT_REPORTED] == not_reported


def test_plain_answers_without_a_reason_are_counted(tmp_path: Path) -> None:
    log = tmp_path / "answers.jsonl"
    lines = [{"wall_id": w["wall_id"], "text": _solution(w)} for w in WALLS[:2]]
    log.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "p.json"
    data = ["--data-dir", str(FIXTURE), "--cache-dir", str(tmp_path / "cache"), "--no-checks"]
    result = runner.invoke(app, ["parse", str(log), "--out", str(out), *data])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "p.json.parse.json").read_text())[NOT_REPORTED] == 2
