"""The ``cot`` and ``json`` prompt styles end to end against the real local server (``.ci/run``
starts ``transformers serve`` on SmolLM2-135M-Instruct; skipped without one, see
tests/test_llm_server.py): ``prompts --prompt-style ... --profile custom --max-tokens N ->
run-llm -> parse -> evaluate``, with run-llm's token totals checked against the log.

``transformers serve`` refuses a ``response_format`` field, so the ``json`` run writes its
schema in the prompt (``--response-format prompt``). The model's quality does not matter:
each wall's parse outcome is checked against its raw answer (a cot answer without a
``Final answer:`` line is ``no_final_answer``, one with it is read; a json answer that
``json.loads`` refuses is ``invalid_json``), and the figures are recomputed by hand.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_llm_server import (
    CAPPED,
    MAX_TOKENS,
    N_WALLS,
    SHOTS,
    _check_figures,
    _check_usage,
    _data,
    _ocw,
    _parse_and_evaluate,
    _walls,
    data_dirs,  # noqa: F401  (a fixture)
    server,  # noqa: F401  (a fixture)
)

from ocw_hub.llm.answer_blocks import after_marker, json_block
from ocw_hub.llm.styles import load_style
from ocw_hub.provenance import read_protocol

pytestmark = pytest.mark.llm_server

STYLES = {
    "cot": ["--prompt-style", "cot"],
    "json": ["--prompt-style", "json", "--response-format", "prompt"],
}


def _requests(style: str, dirs: dict[str, Path], tmp_path: Path) -> list[str]:
    """``ocw-hub prompts`` for task 1 in ``style``, capped at :data:`MAX_TOKENS` by
    ``--profile custom --max-tokens`` (:data:`CAPPED`); the ids."""
    path = tmp_path / "requests.jsonl"
    _ocw(
        "prompts",
        "--shots",
        SHOTS,
        *STYLES[style],
        *CAPPED,
        "--out",
        path,
        *_data("grouping", dirs, tmp_path),
    )
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        assert {k: v for k, v in line["body"].items() if k not in ("model", "messages")} == {
            "max_tokens": MAX_TOKENS,
            "temperature": 0.0,
        }
    return [line["custom_id"] for line in lines]


def _expected_reason(style: str, text: str, finish: str) -> str | None:
    """The reason the style's answer block gives for no answer, from the raw text, or None
    when a block is there to parse."""
    if finish == "length":
        return "truncated"
    if style == "cot":
        return None if after_marker(text, "Final answer:") is not None else "no_final_answer"
    return json_block(text, load_style("json").schemas["grouping"]).reason


@pytest.mark.parametrize("style", list(STYLES))
def test_a_style_run_end_to_end(
    style: str,
    server: tuple[str, str],  # noqa: F811
    data_dirs: dict[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    base_url, model = server
    asked = _requests(style, data_dirs, tmp_path)
    assert len(asked) == N_WALLS
    responses = tmp_path / "responses.jsonl"
    _ocw(
        "run-llm",
        tmp_path / "requests.jsonl",
        "--base-url",
        base_url,
        "--model",
        model,
        "--out",
        responses,
        "--concurrency",
        "1",
        "--timeout",
        "600",
        "--max-retries",
        "1",
    )
    log = [json.loads(line) for line in responses.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["custom_id"] for r in log) == sorted(asked)
    choices: dict[str, Any] = {r["custom_id"]: r["response"]["body"]["choices"][0] for r in log}
    _check_usage(responses, log)
    record = read_protocol(responses)
    assert record is not None and record["profile"] == "custom"
    assert record["generation"] == {"max_tokens": MAX_TOKENS, "temperature": 0.0}

    predictions, report, results = _parse_and_evaluate(responses, "grouping", data_dirs, tmp_path)
    assert report["prompt_style"] == style and results["protocol"]["prompt_style"] == style
    statuses = Counter(entry["status"] for entry in report["walls"])
    assert {k: v for k, v in report["counts"].items() if v} == dict(statuses)
    for entry in report["walls"]:
        choice = choices[entry["wall_id"]]
        text = choice["message"]["content"]
        assert entry["text"] == text
        expected = _expected_reason(style, text, choice["finish_reason"])
        if expected is not None:
            assert (entry["status"], entry["reason"]) == ("unrecoverable", expected)
        else:
            assert entry["reason"] not in ("no_final_answer", "invalid_json", "truncated")
    _check_figures("grouping", predictions, results, _walls(data_dirs))
