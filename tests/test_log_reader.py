"""The one JSON Lines reader (:func:`ocw_hub.llm.log.json_records`) and its rule, the same in
``run-llm`` and ``parse``: a last line cut short by a crash (no newline at the end, not JSON) is
skipped with a warning; a bad line anywhere else is an error naming the file and the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import PredictionsError
from ocw_hub.llm.log import CutLineWarning, json_records

runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
#: The fixture's test walls.
WALLS = [w["wall_id"] for w in json.loads((FIXTURE / "test.json").read_text())["dataset"]]


def _lines(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_a_cut_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(_lines([{"a": 1}, {"a": 2}]) + '{"a": 3, "b"', encoding="utf-8")
    with pytest.warns(CutLineWarning, match=rf"{path.name}, line 3: cut short"):
        assert list(json_records(path, PredictionsError)) == [(1, {"a": 1}), (2, {"a": 2})]


def test_a_utf8_character_cut_in_two_is_a_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(_lines([{"a": 1}]).encode() + '{"t": "é'.encode()[:-1])
    with pytest.warns(CutLineWarning, match="line 2"):
        assert list(json_records(path, PredictionsError)) == [(1, {"a": 1})]


def test_a_whole_last_line_without_newline_is_read(tmp_path: Path, recwarn) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(_lines([{"a": 1}]) + '{"a": 2}', encoding="utf-8")
    assert list(json_records(path, PredictionsError)) == [(1, {"a": 1}), (2, {"a": 2})]
    assert not [w for w in recwarn if issubclass(w.category, CutLineWarning)]


def test_a_bad_line_in_the_middle_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"a": 1}\n{"a": \n{"a": 3}\n', encoding="utf-8")
    with pytest.raises(PredictionsError, match=rf"{path.name}, line 2: not valid JSON"):
        list(json_records(path, PredictionsError))


def _answers(tmp_path: Path, tail: str) -> Path:
    """{wall_id, text} answers to the fixture's test walls, all but the last, then ``tail``."""
    path = tmp_path / "answers.jsonl"
    lines = _lines([{"wall_id": w, "text": "no idea"} for w in WALLS[:-1]])
    path.write_text(lines + tail, encoding="utf-8")
    return path


def _parse(tmp_path: Path, responses: Path) -> object:
    out = tmp_path / "predictions.json"
    data = ["--data-dir", str(FIXTURE), "--cache-dir", str(tmp_path / "cache"), "--no-checks"]
    return runner.invoke(app, ["parse", str(responses), "--out", str(out), *data])


def test_parse_skips_a_cut_last_line(tmp_path: Path) -> None:
    responses = _answers(tmp_path, json.dumps({"wall_id": WALLS[-1], "text": "cut"})[:-5])
    result = _parse(tmp_path, responses)
    assert result.exit_code == 0, result.output
    assert f"warning: {responses}, line {len(WALLS)}: cut short" in " ".join(result.output.split())
    predictions = json.loads((tmp_path / "predictions.json").read_text())
    assert [p["wall_id"] for p in predictions] == WALLS[:-1]


def test_parse_refuses_a_bad_line_in_the_middle(tmp_path: Path) -> None:
    responses = _answers(tmp_path, "")
    lines = responses.read_text().splitlines(keepends=True)
    responses.write_text("".join([lines[0], "{oops\n", *lines[1:]]), encoding="utf-8")
    result = _parse(tmp_path, responses)
    assert result.exit_code == 1
    assert f"{responses}, line 2" in " ".join(result.output.split())
    assert not (tmp_path / "predictions.json").exists()
