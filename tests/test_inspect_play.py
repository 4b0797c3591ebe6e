"""The inspect-ai task ``ocw_play`` (:mod:`ocw_hub.inspect_tasks.ocw_play`, the ``[inspect]``
extra) against the scripted contestant of :mod:`play_support` on the 6 fixture test walls,
by the show's and the NYT's rules: the records of the rules engine, and its metrics equal to
``ocw-hub evaluate`` of the play log written from its own log; the answers that are no guess,
reasoning never sent back, the model that answered, epochs. Against the real local server of
CI (``llm_server``) on 2 walls under each rule set.

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
    # every request a system, user, (assistant, user)*
    for body in server.bodies:
        roles = [m["role"] for m in body["messages"]]
        assert roles[:2] == ["system", "user"]
        assert roles[2:] == ["assistant", "user"] * ((len(roles) - 2) // 2)


def test_inspect_log_is_the_rules_engines_log(chat_server, tmp_path: Path) -> None:
    """The inspect task and the rules engine driven directly (:func:`write_play_log`), given
    the same answers, make the same records (the optional fields aside: usage, model)."""
    from play_support import write_play_log

    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval

    rows = fixture_rows()
    server = chat_server(answer=Contestant(rows))
    log = _inspect(server.url, "m", tmp_path, no_checks=True)
    ours = write_play_log(tmp_path / "play.jsonl", rows)
    theirs = play_log_from_eval(log.location, tmp_path / "inspect.jsonl")
    assert core(ours) == core(theirs)


def core(path: Path) -> list[tuple[Any, ...]]:
    """A play log's records, as the rules make them, in a fixed order."""
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
    keep = ("record", "wall_id", "turn", "clues", "invalid", "verdict", "answers", "reason")
    return sorted(tuple(json.dumps(r.get(k)) for k in keep) for r in lines)


@pytest.mark.llm_server
@pytest.mark.parametrize("rules_name", ["show", "nyt"])
def test_inspect_task_on_the_real_server(tmp_path: Path, rules_name: str) -> None:
    """The real server of ``.ci/run`` (``transformers serve``, a small model; see
    tests/test_llm_server.py): 2 walls with small caps played to their end, every answer a
    guess record with its text, and the task's means those of ``evaluate``."""
    url, model = os.environ.get("OCW_HUB_LLM_BASE_URL"), os.environ.get("OCW_HUB_LLM_MODEL")
    if not url or not model:
        if os.environ.get("OCW_HUB_REQUIRE_LLM"):
            pytest.fail("OCW_HUB_REQUIRE_LLM is set but OCW_HUB_LLM_BASE_URL/MODEL are not")
        pytest.skip(
            "needs a running OpenAI-compatible server: set OCW_HUB_LLM_BASE_URL and "
            "OCW_HUB_LLM_MODEL"
        )
    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval

    rows = fixture_rows()[:2]
    generate = {"max_tokens": 32, "temperature": 0.0}
    caps = {"walls": 2, "max_guesses": 6, "max_invalid": 2}
    log = _inspect(url, model, tmp_path, generate, rules_name=rules_name, no_checks=True, **caps)
    path = play_log_from_eval(log.location, tmp_path / "play.jsonl")
    records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert sum(r["record"] == "end" for r in records) == 2
    guesses = [r for r in records if r["record"] == "guess"]
    assert guesses and all(isinstance(r["text"], str) for r in guesses)
    rounds = sum(r["record"] == "connections" for r in records)
    assert rounds == (2 if rules_name == "show" else 0)
    scored = _evaluated(log, tmp_path, rows)
    play = scored["play"]
    assert play["n_played"] == 2 and play["guesses"] + play["invalid"] == len(guesses)
    for figure, value in _figure_means(log).items():
        assert value == pytest.approx(play[f"{figure}_mean"], abs=1e-12), figure


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
    assert f"play: rules show, {said}, model openai-api/local/m, answered by m" in title
    assert "profile" not in title


def _completion(body: dict[str, Any], message: Any, finish: str, **extra: Any) -> dict[str, Any]:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": extra.get("model", body["model"]),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": extra.get("usage", usage),
    }


def _first_turn(body: dict[str, Any]) -> bool:
    return not any(m["role"] == "assistant" for m in body["messages"])


def test_reasoning_is_never_sent_back(chat_server, tmp_path: Path) -> None:
    """Every answer opens with a ``<think>`` block in ``content`` and carries a
    ``reasoning_content`` field (vLLM's): later turns send the answers without either, and
    the walls are played as without them (18 groups, module docstring)."""
    rows = fixture_rows()
    contestant = Contestant(rows)

    def choice(body: dict[str, Any]) -> dict[str, Any]:
        text = "<think>secret plan</think>\n" + contestant(body)
        message = {"role": "assistant", "content": text, "reasoning_content": "hidden field"}
        return _completion(body, message, "stop")

    server = chat_server(answer=contestant, choice=choice)
    log = _inspect(server.url, "m", tmp_path, no_checks=True)
    later = [m for b in server.bodies for m in b["messages"] if m["role"] == "assistant"]
    assert later and all(isinstance(m["content"], str) for m in later)
    sent = json.dumps(server.bodies)
    assert "secret plan" not in sent and "hidden field" not in sent and "think>" not in sent
    assert _evaluated(log, tmp_path, rows)["play"]["groups_found"] == 18


#: The first answer of each of 5 walls (fixture order) and the record it makes: cut (the
#: gold group, but cut), stopped by the content filter, a tool call, a null message: no guess;
#: usage null: an answer as any other (the plain wall's gold group, right).
FIRST_ANSWERS = ["length", "content_filter", "tool_calls", "null_message", "null_usage"]


def test_answers_that_are_no_guess(chat_server, tmp_path: Path) -> None:
    rows = fixture_rows()
    contestant = Contestant(rows, plans={})  # every wall plain: the first answer is gold
    kind_of = {", ".join(r["words"]): k for r, k in zip(rows, FIRST_ANSWERS, strict=False)}

    def choice(body: dict[str, Any]) -> dict[str, Any] | None:
        clues = body["messages"][1]["content"].split("Clues: ", 1)[1].split("\n\n", 1)[0]
        kind = kind_of.get(clues) if _first_turn(body) else None
        text = {"role": "assistant", "content": contestant(body)}
        if kind in ("length", "content_filter"):
            return _completion(body, text, kind)
        if kind == "tool_calls":
            call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            return _completion(
                body, {"role": "assistant", "content": None, "tool_calls": [call]}, kind
            )
        if kind == "null_message":
            return _completion(body, None, "stop")
        if kind == "null_usage":
            return _completion(body, text, "stop", usage=None)
        return None

    server = chat_server(answer=contestant, choice=choice)
    log = _inspect(server.url, "m", tmp_path, {"time_limit": 120}, no_checks=True)
    path = tmp_path / "play.jsonl"
    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval

    records = [
        json.loads(x) for x in play_log_from_eval(log.location, path).read_text().split("\n")[1:-1]
    ]
    first = {r["wall_id"]: r for r in records if r["record"] == "guess" and r["turn"] == 1}
    got = [
        (first[str(r["wall_id"])]["verdict"], first[str(r["wall_id"])]["invalid"]) for r in rows[:5]
    ]
    assert got[:3] == [("invalid", "truncated"), ("invalid", "refusal"), ("invalid", "unparseable")]
    assert got[3][0] == "invalid" and got[4] == ("correct", None)
    firsts = [b for b in server.bodies if _first_turn(b)]
    assert len(firsts) == len(rows)  # each first answer asked for once: no retry, no tool loop
    assert sum(r["record"] == "end" for r in records) == len(rows)  # every wall played out


def test_the_model_that_answered_is_recorded_and_shown(chat_server, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ocw_hub.cli import app
    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval

    contestant = Contestant(fixture_rows())

    def choice(body: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "assistant", "content": contestant(body)}
        return _completion(body, message, "stop", model="served-name")

    server = chat_server(answer=contestant, choice=choice)
    log = _inspect(server.url, "alias", tmp_path, no_checks=True, walls=2)
    path = play_log_from_eval(log.location, tmp_path / "play.jsonl")
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["player"] == lines[0]["model"] == "openai-api/local/alias"
    assert lines[0]["answered_by"] == ["served-name"]
    assert {r.get("model") for r in lines[1:] if r["record"] != "end"} == {"served-name"}
    shown = CliRunner().invoke(
        app, ["evaluate", str(path), "--data-dir", str(FIXTURE), "--no-checks", "--allow-missing"]
    )
    assert shown.exit_code == 0, shown.output
    assert "model openai-api/local/alias, answered by served-name" in " ".join(shown.stdout.split())


def test_each_epoch_is_a_play_log_of_its_own(chat_server, tmp_path: Path) -> None:
    """A log of 2 epochs is no one play log (each wall twice): the epoch is chosen, and each
    epoch's log is scored by evaluate as a run of its own."""
    from ocw_hub.inspect_tasks.ocw_play import play_log_from_eval

    rows = fixture_rows()
    server = chat_server(answer=Contestant(rows))
    log = _inspect(server.url, "m", tmp_path, {"epochs": 2}, no_checks=True)
    with pytest.raises(ValueError, match="2 epochs"):
        play_log_from_eval(log.location, tmp_path / "both.jsonl")
    assert not (tmp_path / "both.jsonl").exists()
    for epoch in (1, 2):
        path = play_log_from_eval(log.location, tmp_path / f"e{epoch}.jsonl", epoch=epoch)
        play = _evaluated_path(path, rows)["play"]
        assert play["n_played"] == 6 and play["groups_found"] == 18
    with pytest.raises(ValueError, match="epoch 3"):
        play_log_from_eval(log.location, tmp_path / "e3.jsonl", epoch=3)


def _evaluated_path(path: Path, rows: list[dict[str, Any]]) -> dict[str, Any]:
    from ocw_hub.play.scoring import score_play_log

    return score_play_log(path, rows, "default")
