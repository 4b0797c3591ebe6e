"""Memory on huge inputs: every JSON Lines file (requests, response logs, play logs) is read one
bounded line at a time, and a line over the cap (``MAX_LINE_BYTES``; small here) is a one-line
error naming the file and the line, never read whole; a predictions file over
``MAX_PREDICTIONS_BYTES`` is refused before it is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_answers import make_requests
from typer.testing import CliRunner

from ocw_hub.errors import PredictionsError
from ocw_hub.llm.log import json_records
from ocw_hub.scoring.predictions import read_predictions

runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
WALLS = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]
CAP = 2000


def _answer(wall_id: str, text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    body = {"model": "m", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    return {"custom_id": wall_id, "response": {"status_code": 200, "body": body}, "error": None}


def _file(path: Path, records: list[Any], end: str = "\n") -> Path:
    text = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + end
    path.write_text(text, encoding="utf-8")
    return path


#: (the file's lines, the line over the cap): response logs, plain answers, requests.
HUGE = {
    "a long answer in the middle": (
        [_answer("a", "x"), _answer("b", "y" * 5000), _answer("c", "z")],
        2,
    ),
    "one line, no newline (the 1 GiB case)": ([_answer("a", "y" * 5000)], 1),
    "a plain {wall_id, text} answer": (
        [{"wall_id": "a", "text": "t"}] * 3 + [{"wall_id": "b", "text": "é" * 3000}],
        4,
    ),
    "a request": (make_requests(2) + [{**make_requests(1)[0], "pad": "p" * 4000}], 3),
    "not JSON at all": (["{" * 10_000], 1),
}


@pytest.mark.parametrize("name", list(HUGE))
def test_a_line_over_the_cap_is_a_one_line_error(tmp_path: Path, name: str) -> None:
    records, line = HUGE[name]
    end = "" if "no newline" in name else "\n"
    path = _file(tmp_path / "log.jsonl", records, end)
    with pytest.raises(PredictionsError) as caught:
        list(json_records(path, PredictionsError, max_line_bytes=CAP))
    message = str(caught.value)
    assert message.startswith(f"{path}, line {line}: ") and "\n" not in message
    assert f"{CAP} bytes" in message


def test_lines_up_to_the_cap_are_read(tmp_path: Path) -> None:
    line = json.dumps({"t": "x" * (CAP - 10)})
    record = json.loads(line)
    path = _file(tmp_path / "log.jsonl", [line[:-1] + " " * (CAP - len(line)) + "}"] * 2)
    assert [n for n, _ in json_records(path, PredictionsError, max_line_bytes=CAP)] == [1, 2]
    assert next(json_records(path, PredictionsError, max_line_bytes=CAP))[1] == record


@pytest.mark.parametrize("config", ["default", "wote"])
def test_a_predictions_file_over_the_cap_is_refused_before_it_is_read(
    tmp_path: Path, config: str
) -> None:
    path = tmp_path / "predictions.json"
    key = "id" if config == "wote" else "wall_id"
    path.write_text(json.dumps([{key: "a", "pad": "x" * 3000}]), encoding="utf-8")
    with pytest.raises(PredictionsError) as caught:
        read_predictions(path, config, max_bytes=CAP)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and str(CAP) in message and "\n" not in message
