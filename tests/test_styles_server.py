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
from pathlib import Path

import pytest
from test_llm_server import (
    CAPPED,
    MAX_TOKENS,
    SHOTS,
    _data,
    _ocw,
    data_dirs,  # noqa: F401  (a fixture)
    server,  # noqa: F401  (a fixture)
)

from ocw_hub.llm.answer_blocks import after_marker, json_block
from ocw_hub.llm.styles import load_style

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
