"""``ocw-hub play`` and ``evaluate`` of its log against the real OpenAI-compatible server that
``.ci/run`` starts (``transformers serve``, SmolLM2-135M-Instruct; see
``tests/test_llm_server.py`` for ``OCW_HUB_LLM_BASE_URL`` and ``OCW_HUB_LLM_MODEL``).

Two fixture walls under each rule set, with small caps so the run stays short. The model's
quality does not matter: every wall played to its end, every answer a guess record, and the
figures of ``evaluate`` the replay's.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app

pytestmark = pytest.mark.llm_server

FIXTURE = Path(__file__).parent / "data" / "ocw" / "dataset"
DATA = ["--data-dir", str(FIXTURE), "--no-checks"]
runner = CliRunner()


@pytest.fixture(scope="module")
def server() -> tuple[str, str]:
    """(base URL, model name) of the running server."""
    base_url, model = os.environ.get("OCW_HUB_LLM_BASE_URL"), os.environ.get("OCW_HUB_LLM_MODEL")
    if not base_url or not model:
        reason = "needs a running OpenAI-compatible server: set OCW_HUB_LLM_BASE_URL and _MODEL"
        if os.environ.get("OCW_HUB_REQUIRE_LLM") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return base_url, model


@pytest.mark.parametrize("rules", ["show", "nyt"])
def test_play_against_the_real_server(server: tuple[str, str], rules: str, tmp_path: Path) -> None:
    base_url, model = server
    log = tmp_path / f"{rules}.jsonl"
    caps = ["--walls", "2", "--max-guesses", "6", "--max-invalid", "2"]
    caps += ["--profile", "custom", "--max-tokens", "32", "--temperature", "0"]
    command = ["play", "--base-url", base_url, "--model", model, "--out", str(log)]
    result = runner.invoke(app, [*command, "--rules", rules, *caps, *DATA])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    ends = [r for r in records if r["record"] == "end"]
    assert len(ends) == 2
    guesses = [r for r in records if r["record"] == "guess"]
    assert all(isinstance(r["text"], str) for r in guesses)
    rounds = [r for r in records if r["record"] == "connections"]
    assert len(rounds) == (2 if rules == "show" else 0)
    out = tmp_path / "results.json"
    scored = runner.invoke(
        app, ["evaluate", str(log), *DATA, "--allow-missing", "--bootstrap", "0", "-o", str(out)]
    )
    assert scored.exit_code == 0, scored.output
    play = json.loads(out.read_text(encoding="utf-8"))["play"]
    assert play["n_played"] == 2
    assert play["guesses"] + play["invalid"] == len(guesses)
    assert play["wrong_guesses"] == sum(r["verdict"] in ("incorrect", "one_away") for r in guesses)
