"""The inspect-ai task ``ocw_play`` (:mod:`ocw_hub.inspect_tasks.ocw_play`, the ``[inspect]``
extra) against the scripted contestant of :mod:`play_support` on the 6 fixture test walls,
by the show's and the NYT's rules: the same conversations as ``ocw-hub play`` (the same
requests, the same records), and its metrics equal to ``ocw-hub evaluate`` of the play log
written from its own log. Against the real local server of CI (``llm_server``) on 2 walls.

Counted by hand from the plans (:mod:`play_support`): under show, 4 of 6 walls solved, groups
found 4+2+0+4+4+4 = 18, points 10+3+0+4+4+4 = 25; under nyt 18 groups too (the frozen wall
has found 2 groups when its 4th mistake comes).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from play_support import FIXTURE, Contestant, fixture_rows

pytest.importorskip("inspect_ai", reason="needs inspect-ai (the [inspect] extra)")
pytestmark = [pytest.mark.usefixtures("local_only"), pytest.mark.inspect]


def _inspect(
    url: str, model: str, tmp_path: Path, generate: dict[str, Any] | None = None, **task_args: Any
) -> Any:
    """The one eval log of ``ocw_play`` on ``url`` (``generate``: inspect's generate config)."""
    from inspect_ai import eval as inspect_eval

    from ocw_hub.inspect_tasks.ocw_play import ocw_play

    os.environ.setdefault("LOCAL_API_KEY", "none")
    task = ocw_play(data_dir=str(task_args.pop("data_dir", FIXTURE)), **task_args)
    (log,) = inspect_eval(
        task,
        model=f"openai-api/local/{model}",
        model_base_url=url,
        log_dir=str(tmp_path / "inspect-logs"),
        display="none",
        max_connections=2,
        **(generate or {}),
    )
    assert log.status == "success", log.error
    return log


def _figure_means(log: Any) -> dict[str, float]:
    """inspect's ``mean`` of each figure (a score per figure, named after it)."""
    return {s.name: s.metrics["mean"].value for s in log.results.scores}


def _evaluated(log: Any, tmp_path: Path, rows: list[dict[str, Any]]) -> dict[str, Any]:
    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval
    from ocw_hub.play.scoring import score_play_log

    path = play_log_from_eval(log.location, tmp_path / "from-inspect.jsonl")
    return score_play_log(path, rows, "default")


@pytest.mark.parametrize("rules_name", ["show", "nyt"])
def test_inspect_task_equals_evaluate(chat_server, tmp_path: Path, rules_name: str) -> None:
    rows = fixture_rows()
    server = chat_server(answer=Contestant(rows))
    log = _inspect(server.url, "m", tmp_path, rules_name=rules_name, no_checks=True)
    means = _figure_means(log)
    scored = _evaluated(log, tmp_path, rows)
    play = scored["play"]
    assert play["n_played"] == 6
    assert play["groups_found"] == 18  # hand count (module docstring)
    if rules_name == "show":
        assert (play["walls_solved"], play["points"]) == (4, 25)
    from ocw_hub.inspect_tasks.ocw_play import FIGURES, SHOW_FIGURES

    assert set(means) == set(SHOW_FIGURES if rules_name == "show" else FIGURES)
    assert means["groups_found"] == pytest.approx(18 / 6)
    for figure in means:
        assert means[figure] == pytest.approx(play[f"{figure}_mean"], abs=1e-12), figure
    # the same conversations as ocw-hub play: every request a system, user, (assistant, user)*
    for body in server.bodies:
        roles = [m["role"] for m in body["messages"]]
        assert roles[:2] == ["system", "user"]
        assert roles[2:] == ["assistant", "user"] * ((len(roles) - 2) // 2)


def test_inspect_log_and_play_log_agree(chat_server, tmp_path: Path) -> None:
    """``ocw-hub play`` and the inspect task, given the same answers, make the same records
    (the optional fields aside: usage, finish_reason)."""
    from typer.testing import CliRunner

    from ocw_hub.cli import app

    rows = fixture_rows()
    server = chat_server(answer=Contestant(rows))
    log = _inspect(server.url, "m", tmp_path, no_checks=True)
    ours = tmp_path / "play.jsonl"
    args = ["play", "--base-url", server.url, "--model", "m", "--out", str(ours)]
    result = CliRunner().invoke(app, [*args, "--data-dir", str(FIXTURE), "--no-checks"])
    assert result.exit_code == 0, result.output
    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval

    theirs = play_log_from_eval(log.location, tmp_path / "inspect.jsonl")

    def core(path: Path) -> list[tuple[Any, ...]]:
        lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
        keep = ("record", "wall_id", "turn", "clues", "invalid", "verdict", "answers", "reason")
        return sorted(tuple(json.dumps(r.get(k)) for k in keep) for r in lines)

    assert core(ours) == core(theirs)


@pytest.mark.llm_server
def test_inspect_task_on_the_real_server(tmp_path: Path) -> None:
    url, model = os.environ.get("OCW_HUB_LLM_BASE_URL"), os.environ.get("OCW_HUB_LLM_MODEL")
    if not url or not model:
        if os.environ.get("OCW_HUB_REQUIRE_LLM"):
            pytest.fail("OCW_HUB_REQUIRE_LLM is set but OCW_HUB_LLM_BASE_URL/MODEL are not")
        pytest.skip(
            "needs a running OpenAI-compatible server: set OCW_HUB_LLM_BASE_URL and "
            "OCW_HUB_LLM_MODEL"
        )
    rows = fixture_rows()[:2]
    log = _inspect(url, model, tmp_path, rules_name="show", no_checks=True, walls=2)
    scored = _evaluated(log, tmp_path, rows)
    means = _figure_means(log)
    assert scored["play"]["n_played"] == 2
    for figure, value in means.items():
        assert value == pytest.approx(scored["play"][f"{figure}_mean"], abs=1e-12), figure


@pytest.mark.parametrize(
    ("generate", "said"),
    [
        ({"temperature": 0.7}, "generation temperature 0.7"),
        ({}, "generation not set (the server defaults)"),
    ],
)
def test_a_converted_log_is_titled_by_what_inspect_recorded(
    chat_server, tmp_path: Path, generate: dict[str, Any], said: str
) -> None:
    """The play log written from an inspect log holds the generation fields the eval ran with
    (none claimed that it did not record: no ``profile paper``), and evaluate's title says them."""
    from typer.testing import CliRunner

    from ocw_hub.cli import app
    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval

    rows = fixture_rows()
    server = chat_server(answer=Contestant(rows))
    log = _inspect(server.url, "m", tmp_path, generate, no_checks=True, walls=1)
    path = play_log_from_eval(log.location, tmp_path / "from-inspect.jsonl")
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert header["generation"] == generate and header["model"] == "openai-api/local/m"
    if generate:
        assert all(b.get("temperature") == 0.7 for b in server.bodies)
    shown = CliRunner().invoke(
        app, ["evaluate", str(path), "--data-dir", str(FIXTURE), "--no-checks", "--allow-missing"]
    )
    assert shown.exit_code == 0, shown.output
    title = " ".join(shown.stdout.split())
    assert f"play: rules show, {said}, model inspect-ai" in title
    assert "profile" not in title
