"""Every JSON file the package reads rejects a key given twice (never "last wins"), naming the
file, the object's id and the key: predictions, results (report), LLM requests and responses."""

from __future__ import annotations

from pathlib import Path

import pytest

from ocw_hub import jsonio
from ocw_hub.errors import OCWHubError, PredictionsError


def test_loads_names_the_key_and_the_id() -> None:
    assert jsonio.loads('{"a": 1, "b": [{"c": 2}]}') == {"a": 1, "b": [{"c": 2}]}
    with pytest.raises(jsonio.DuplicateKeyError, match="w1: key 'wall_id' given twice"):
        jsonio.loads('[{"wall_id": "w1", "x": 1, "wall_id": "w2"}]')
    with pytest.raises(jsonio.DuplicateKeyError, match="^key 'x' given twice"):
        jsonio.loads('{"x": 1, "x": 1}')  # even with equal values


def test_read_json_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text('{"id": "q1", "domain": "diy", "domain": "cooking"}')
    with pytest.raises(PredictionsError, match=r"f\.json: q1: key 'domain' given twice"):
        jsonio.read_json(path, PredictionsError)
    with pytest.raises(PredictionsError, match="is a folder"):
        jsonio.read_json(tmp_path, PredictionsError)


def test_results_file_with_a_repeated_key(tmp_path: Path) -> None:
    from ocw_hub.results import read_results

    path = tmp_path / "results.json"
    path.write_text('{"config": "default", "config": "wote"}')
    with pytest.raises(OCWHubError, match="key 'config' given twice"):
        read_results([path])


def test_response_line_with_a_repeated_key(tmp_path: Path) -> None:
    from ocw_hub.llm.responses import read_responses

    path = tmp_path / "responses.jsonl"
    path.write_text('{"wall_id": "w1", "text": "a", "text": "b"}\n')
    with pytest.raises(OCWHubError, match=r"line 1.*w1: key 'text' given twice"):
        read_responses(path)
