"""The inspect-ai tasks ``ocw_grouping``, ``ocw_connections`` and ``wote``
(:mod:`ocw_hub.inspect_tasks`, the ``[inspect]`` extra): their messages are ``ocw-hub
prompts``'s (and the notebook's, byte for byte), their figures per sample and their means are
``ocw-hub parse`` + ``ocw-hub evaluate``'s on the same answers, and ``ocw-hub evaluate
LOG.eval`` gives the same figures as the predictions file of those answers. Against the
scripted server of :mod:`chat_server` on the 4 walls of ``tests/data/llm/ocw``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from ocw_fixtures import WOTE_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app

pytest.importorskip("inspect_ai", reason="needs inspect-ai (the [inspect] extra)")
pytestmark = [pytest.mark.usefixtures("local_only"), pytest.mark.inspect]

FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
runner = CliRunner()


def _rows(split: str = "test") -> list[dict[str, Any]]:
    return json.loads((FIXTURE / f"{split}.json").read_text(encoding="utf-8"))["dataset"]


def _groups(wall: dict[str, Any]) -> list[list[str]]:
    return [g["gt_words"] for g in wall["groups"].values()]


def grouping_answer(wall: dict[str, Any]) -> str:
    """c001 solved, c002 two groups right, c003 no groups at all, c004 solved (groups in
    another order)."""
    groups = _groups(wall)
    if wall["wall_id"] == "c002":
        rest = groups[2] + groups[3]
        groups = [groups[0], groups[1], rest[0:2] + rest[4:6], rest[2:4] + rest[6:8]]
    elif wall["wall_id"] == "c003":
        return "I do not know."
    elif wall["wall_id"] == "c004":
        groups = groups[::-1]
    return "\n".join(", ".join(g) for g in groups)


def connections_answer(wall: dict[str, Any]) -> str:
    """Gold connections but the 2nd of every wall; c003's 4th given in other words."""
    lines = []
    for i, group in enumerate(wall["groups"].values()):
        name = "Not it" if i == 1 else group["gt_connection"]
        if wall["wall_id"] == "c003" and i == 3:
            name = "Islands of " + group["gt_connection"]
        lines.append(", ".join(group["gt_words"]) + ". Connection: " + name)
    return "\n".join(lines)


class Scripted:
    """``answer(body)`` for the chat server: the wall of the request, answered by plan."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def wall(self, body: dict[str, Any]) -> dict[str, Any]:
        user = body["messages"][-1]["content"]
        for wall in self.rows:  # the asked wall: its clues (grouping) or its groups (connections)
            if ("Clues:  " + ", ".join(wall["words"])) in user or all(
                ", ".join(g) + ". Connection:" in user for g in _groups(wall)
            ):
                return wall
        raise AssertionError(f"no wall asked: {body['messages'][-1]}")

    def __call__(self, body: dict[str, Any]) -> str:
        wall = self.wall(body)
        if (
            "Solved wall:" in body["messages"][-1]["content"].splitlines()[-1]
            and "Clues:" in (body["messages"][-1]["content"])
        ):
            return grouping_answer(wall)
        return connections_answer(wall)


def _eval(task: Any, url: str, tmp_path: Path, **options: Any) -> Any:
    from inspect_ai import eval as inspect_eval

    os.environ.setdefault("LOCAL_API_KEY", "none")
    (log,) = inspect_eval(
        task,
        model="openai-api/local/m",
        model_base_url=url,
        display="none",
        log_dir=str(tmp_path / "inspect-logs"),
        max_connections=2,
        **options,
    )
    assert log.status == "success", log.error
    return log


def _task(name: str, **args: Any) -> Any:
    from ocw_hub.inspect_tasks import _registry

    args.setdefault("data_dir", str(FIXTURE))
    return getattr(_registry, name)(no_checks=True, **args)


def _means(log: Any) -> dict[str, float]:
    return {s.name: s.metrics["mean"].value for s in log.results.scores}


def _evaluate(path: Path, tmp_path: Path, *args: str, data: Path = FIXTURE) -> dict[str, Any]:
    out = tmp_path / f"results-{path.stem}.json"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(path),
            "--data-dir",
            str(data),
            "--no-checks",
            "--bootstrap",
            "0",
            "--out",
            str(out),
            *args,
        ],
    )
    assert result.exit_code == 0, result.output
    return {**json.loads(out.read_text(encoding="utf-8")), "shown": result.output}


def _parsed_answers(answers: dict[str, str], task: str, tmp_path: Path, *args: str) -> Path:
    """``parse`` of ``{wall_id: text}`` answers: the predictions file."""
    key = "id" if "--config" in args else "wall_id"
    responses = tmp_path / f"answers-{task}.jsonl"
    responses.write_text(
        "".join(
            json.dumps({key: k, "text": v, "finish_reason": "stop"}) + "\n"
            for k, v in answers.items()
        ),
        encoding="utf-8",
    )
    out = tmp_path / f"predictions-{task}.json"
    data = WOTE_FIXTURE if "--config" in args else FIXTURE
    result = runner.invoke(
        app,
        [
            "parse",
            str(responses),
            "--task",
            task,
            "--data-dir",
            str(data),
            "--no-checks",
            "--out",
            str(out),
            *args,
        ],
    )
    assert result.exit_code == 0, result.output
    return out


# --------------------------------------------------------------------------------------
# The messages: prompts' and the notebook's
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "task", "shots", "style"),
    [
        ("ocw_grouping", "grouping", 3, "paper"),
        ("ocw_connections", "connections", 1, "ours"),
        ("ocw_grouping", "grouping", 0, "cot"),
        ("ocw_connections", "connections", 2, "json"),
    ],
)
def test_messages_are_those_of_prompts(
    tmp_path: Path, name: str, task: str, shots: int, style: str
) -> None:
    out = tmp_path / "requests.jsonl"
    result = runner.invoke(
        app,
        [
            "prompts",
            "--task",
            task,
            "--shots",
            str(shots),
            "--prompt-style",
            style,
            "--data-dir",
            str(FIXTURE),
            "--no-checks",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    requests = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    built = _task(name, shots=shots, style=style)
    samples = list(built.dataset)
    assert [s.id for s in samples] == [r["custom_id"] for r in requests]
    for sample, request in zip(samples, requests, strict=True):
        sent = [{"role": m.role, "content": m.content} for m in sample.input]
        assert sent == request["body"]["messages"]
    body = requests[0]["body"]
    config = built.config
    assert config.max_tokens == body["max_tokens"] == 144
    assert config.temperature == body["temperature"]
    if style == "paper":
        assert (config.top_p, config.stop_seqs) == (1.0, ["<|im_end|>"])
    if style == "json":
        assert config.response_schema.name == body["response_format"]["json_schema"]["name"]


@pytest.mark.filterwarnings("ignore::UserWarning")  # the stand-in's data quirks
def test_messages_are_the_notebooks(ocw_dir: Path) -> None:
    """The notebook's three recorded requests for wall 46fa44 (grouping K = 0, 1;
    connections K = 3): the task's messages byte for byte, its decoding the same values."""
    oracle = json.loads(
        (ocw_dir.parents[2] / "oracle" / "notebook" / "messages_examples.json").read_text()
    )
    for key, name, shots in (
        ("nb_t1_k0", "ocw_grouping", 0),
        ("nb_t1_k1", "ocw_grouping", 1),
        ("nb_t2_k3", "ocw_connections", 3),
    ):
        built = _task(name, shots=shots, data_dir=str(ocw_dir))
        expected = oracle[key]
        sample = next(s for s in built.dataset if s.id == expected["custom_id"])
        sent = [{"role": m.role, "content": m.content} for m in sample.input]
        assert sent == expected["messages"]
        kwargs, config = expected["kwargs"], built.config
        assert (config.max_tokens, config.temperature, config.top_p) == (
            kwargs["max_tokens"],
            kwargs["temperature"],
            kwargs["top_p"],
        )
        assert config.stop_seqs == [kwargs["stop"]]


# --------------------------------------------------------------------------------------
# The figures: parse + evaluate's
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "task"), [("ocw_grouping", "grouping"), ("ocw_connections", "connections")]
)
def test_figures_are_those_of_parse_and_evaluate(
    chat_server: Any, tmp_path: Path, name: str, task: str
) -> None:
    rows = _rows()
    server = chat_server(answer=Scripted(rows))
    log = _eval(_task(name, shots=1), server.url, tmp_path)
    sent = server.bodies[0]
    assert (sent["max_tokens"], sent["temperature"], sent["top_p"]) == (144, 0.0, 1.0)
    assert sent["stop"] == ["<|im_end|>"]
    answer = grouping_answer if task == "grouping" else connections_answer
    predictions = _parsed_answers({w["wall_id"]: answer(w) for w in rows}, task, tmp_path)
    from_file = _evaluate(predictions, tmp_path)
    from_log = _evaluate(Path(log.location), tmp_path)
    means = _means(log)
    for figure, value in means.items():
        assert from_file[task][figure] == pytest.approx(value, abs=1e-12), figure
        assert from_log[task][figure] == pytest.approx(value, abs=1e-12), figure
    if task == "grouping":  # by hand: 2 of 4 walls solved; 4 + 2 + 0 + 4 of 16 groups
        assert (means["full_wall_rate"], means["correct_groups_rate"]) == (0.5, 10 / 16)
    else:  # 2 of 4 right on 3 walls, 3 of 4 on c003 ... exact match 1 + 1 + 0.5 + 1 of 4
        assert means["exact_match"] == pytest.approx((0.75 * 3 + 0.5) / 4)
    per_wall = {w["wall_id"]: w[task] for w in from_log["per_wall"]}
    for sample in log.samples:
        scored = sample.scores["ocw_figures"].value
        for figure, value in scored.items():
            if figure in per_wall[sample.id]:
                assert per_wall[sample.id][figure] == pytest.approx(value, abs=1e-12)
    assert from_log["protocol"]["framework"] == "inspect-ai"
    assert "scored:" not in from_log["shown"]


def test_compare_reads_an_inspect_log_beside_a_predictions_file(
    chat_server: Any, tmp_path: Path
) -> None:
    """``compare LOG.eval PREDICTIONS``: the log is scored as ``evaluate`` scores it (its full-wall
    rate the log's own), the predictions file of the same answers ties with it."""
    rows = _rows()
    server = chat_server(answer=Scripted(rows))
    log = _eval(_task("ocw_grouping", shots=1), server.url, tmp_path)
    answers = {w["wall_id"]: grouping_answer(w) for w in rows}
    predictions = _parsed_answers(answers, "grouping", tmp_path)
    args = ["compare", log.location, str(predictions), "--by", "full_wall_rate"]
    options = ["--data-dir", str(FIXTURE), "--no-checks", "--format", "json"]
    result = runner.invoke(app, [*args, *options])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    values = {row["system"]: row["value"] for row in table["systems"]}
    assert values[log.location] == values[str(predictions)] == _means(log)["full_wall_rate"]


def _completion(body: dict[str, Any], message: Any, finish: str, usage: Any = "default") -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if usage == "default"
        else usage,
    }


def test_answers_that_are_no_guess(chat_server: Any, tmp_path: Path) -> None:
    """An answer cut at the token limit (c001, the gold groups!), one stopped by the content
    filter (c002), a tool call with no content (c003), a null message (c004): each a sample
    with no guess, scored as wrong, asked once; usage null is an answer as any other."""
    rows = _rows()
    script = Scripted(rows)

    def choice(body: dict[str, Any]) -> dict[str, Any] | None:
        wall = script.wall(body)
        text = grouping_answer(wall)
        if wall["wall_id"] == "c001":
            return _completion(body, {"role": "assistant", "content": text}, "length", None)
        if wall["wall_id"] == "c002":
            return _completion(body, {"role": "assistant", "content": text}, "content_filter")
        if wall["wall_id"] == "c003":
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": "solve", "arguments": "{}"},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            return _completion(body, message, "tool_calls")
        return _completion(body, None, "stop")

    server = chat_server(answer=script, choice=choice)
    log = _eval(_task("ocw_grouping"), server.url, tmp_path)
    status = {s.id: s.scores["ocw_figures"].metadata["status"] for s in log.samples}
    assert status["c001"] == status["c002"] == status["c003"] == "unrecoverable"
    assert status["c004"] in ("unrecoverable", "no_response")
    assert _means(log)["correct_groups_rate"] == 0.0
    assert sorted(server.count.values()) == [1, 1, 1, 1]  # no retry
    scored = _evaluate(Path(log.location), tmp_path)
    assert scored["grouping"]["correct_groups"] == 0


def test_epochs_each_a_run_and_the_vote(chat_server: Any, tmp_path: Path) -> None:
    rows = _rows()
    server = chat_server(answer=Scripted(rows))
    log = _eval(_task("ocw_grouping", epochs=2, vote=True), server.url, tmp_path)
    assert len(log.samples) == 8 and log.eval.config.epochs == 2
    assert _means(log)["full_wall_rate"] == 0.5  # the vote of two equal answers
    scored = _evaluate(Path(log.location), tmp_path)
    assert scored["n_runs"] == 2
    assert [r["run"].rsplit(" ", 2)[1:] for r in scored["runs"]] == [["epoch", "1"], ["epoch", "2"]]
    assert scored["mean"]["grouping"]["full_wall_rate"] == 0.5
    assert scored["std"]["grouping"]["full_wall_rate"] == 0.0


def test_reprompt_asks_again_while_an_answer_is_unrecoverable(
    chat_server: Any, tmp_path: Path
) -> None:
    """``-T reprompt=2``: c003's "I do not know." is followed by the package's follow-up text
    (its answer kept in the conversation), answered with the gold groups: the last answer is
    scored; the other walls are asked once."""
    from ocw_hub.inspect_tasks.ocw.ocw import PROTOCOL_KEY
    from ocw_hub.llm.follow_up import follow_up_text

    rows = _rows()
    script = Scripted(rows)
    asked_again = follow_up_text("no_answer")

    def answer(body: dict[str, Any]) -> str:
        if body["messages"][-1]["content"] == asked_again:
            wall = script.wall({"messages": body["messages"][:-2]})
            return "\n".join(", ".join(g) for g in _groups(wall))
        return script(body)

    server = chat_server(answer=answer, key=lambda body: str(len(body["messages"])))
    log = _eval(_task("ocw_grouping", reprompt=2), server.url, tmp_path)
    assert len(server.bodies) == 5
    follow_up = [b for b in server.bodies if b["messages"][-1]["content"] == asked_again]
    assert len(follow_up) == 1
    assert follow_up[0]["messages"][-2] == {"role": "assistant", "content": "I do not know."}
    meta = {s.id: s.metadata for s in log.samples}
    assert meta["c003"]["first_status"] == "unrecoverable" and meta["c003"]["follow_ups"] == 1
    assert meta["c001"]["follow_ups"] == 0
    assert _means(log)["full_wall_rate"] == 0.75  # c003 solved at its follow-up
    assert log.eval.metadata[PROTOCOL_KEY]["reprompt"] == 2
    assert _evaluate(Path(log.location), tmp_path)["grouping"]["full_wall"] == 3
    without = _eval(_task("ocw_grouping"), server.url, tmp_path / "without")
    assert _means(without)["full_wall_rate"] == 0.5


def test_limit_and_sample_id(chat_server: Any, tmp_path: Path) -> None:
    """A log of part of the split is scored on its own walls and says so; the leaderboard
    refuses it."""
    rows = _rows()
    server = chat_server(answer=Scripted(rows))
    first = _eval(_task("ocw_grouping"), server.url, tmp_path / "a", limit=2)
    assert [s.id for s in first.samples] == ["c001", "c002"]
    one = _eval(_task("ocw_grouping"), server.url, tmp_path / "b", sample_id="c002")
    assert [s.id for s in one.samples] == ["c002"]
    scored = _evaluate(Path(one.location), tmp_path)
    assert scored["n_walls"] == 1 and scored["part"] == {
        "n": 1,
        "of": 4,
        "label": scored["part"]["label"],
    }
    assert "scored: 1 of the split's 4 walls" in scored["shown"]
    assert scored["grouping"]["correct_groups"] == 2
    both = _evaluate(Path(first.location), tmp_path)
    assert both["grouping"]["full_wall"] == 1 and both["n_walls"] == 2
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(one.location),
            "--data-dir",
            str(FIXTURE),
            "--no-checks",
            "--eval-results",
            str(tmp_path / "board"),
            "--model-id",
            "org/model",
            "--dataset-id",
            "org/ocw",
        ],
    )
    assert result.exit_code != 0 and "whole split" in result.output
    assert not (tmp_path / "board" / ".eval_results").exists()


def test_a_log_of_another_split_is_refused(chat_server: Any, tmp_path: Path) -> None:
    rows = _rows()
    server = chat_server(answer=Scripted(rows))
    log = _eval(_task("ocw_grouping"), server.url, tmp_path, limit=1)
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(log.location),
            "--data-dir",
            str(FIXTURE),
            "--no-checks",
            "--split",
            "validation",
        ],
    )
    assert result.exit_code != 0
    assert "give --config default --split test" in " ".join(result.output.split())


def test_wote_figures_are_those_of_parse_and_evaluate(chat_server: Any, tmp_path: Path) -> None:
    from ocw_hub.data.sources import load_rows

    rows = load_rows("wote", "test", WOTE_FIXTURE, verification_mode="no_checks").rows
    by_question = {r["question"]: r for r in rows}

    def answer(body: dict[str, Any]) -> str:
        question = body["messages"][-1]["content"].rsplit("Question: ", 1)[1]
        row = by_question[question]
        gold = row["answers"]["text"][0]
        return gold if row is rows[0] else f"Answer: {gold} and more words"

    server = chat_server(answer=answer)
    log = _eval(_task("wote", data_dir=str(WOTE_FIXTURE)), server.url, tmp_path)
    assert sorted(str(s.id) for s in log.samples) == sorted(str(r["id"]) for r in rows)
    answers = {
        str(r["id"]): answer({"messages": [{"content": "Question: " + r["question"]}]})
        for r in rows
    }
    predictions = _parsed_answers(answers, "grouping", tmp_path, "--config", "wote")
    args = ("--config", "wote")
    from_file = _evaluate(predictions, tmp_path, *args, data=WOTE_FIXTURE)
    from_log = _evaluate(Path(log.location), tmp_path, *args, data=WOTE_FIXTURE)
    means = _means(log)
    assert 0 < means["f1"] < 100
    for figure in ("exact_match", "f1"):
        assert from_file["spans"][figure] == pytest.approx(means[figure], abs=1e-9)
        assert from_log["spans"][figure] == pytest.approx(means[figure], abs=1e-9)


# --------------------------------------------------------------------------------------
# The Hub route: .eval_results entries from a whole-split log
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ocw_grouping", "wote"])
def test_eval_results_from_a_whole_split_log(chat_server: Any, tmp_path: Path, name: str) -> None:
    """``evaluate LOG.eval --eval-results``: one entry per figure of the log, each the log's
    own mean, ``evaluation_framework: inspect-ai``, notes naming inspect-ai, the task and the
    model; the entries name the export's eval.yaml task ids and pass ``check``."""
    import yaml

    from ocw_hub.data import eval_results as er
    from ocw_hub.data.leaderboard import FRAMEWORK, board_tasks

    config, data = ("wote", WOTE_FIXTURE) if name == "wote" else ("default", FIXTURE)
    if name == "wote":
        server = chat_server(answer=lambda body: "Answer: the first step and more words")
    else:
        server = chat_server(answer=Scripted(_rows()))
    log = _eval(_task(name, data_dir=str(data)), server.url, tmp_path)
    means = _means(log)
    model = tmp_path / "model"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(log.location),
            "--config",
            config,
            "--data-dir",
            str(data),
            "--no-checks",
            "--bootstrap",
            "100",
            "--eval-results",
            str(model),
            "--model-id",
            "org/model",
            "--dataset-id",
            "org/ocw",
        ],
    )
    assert result.exit_code == 0, result.output
    board = [t for t in board_tasks([config]) if t.inspect_task == f"ocw_hub/{name}"]
    files = sorted(p.name for p in (model / ".eval_results").iterdir())
    assert files == sorted(f"{t.id}.yaml" for t in board)
    inspect_version = log.eval.packages["inspect_ai"]
    for task in board:
        (entry,) = yaml.safe_load((model / ".eval_results" / f"{task.id}.yaml").read_text())
        assert entry["dataset"] == {"id": "org/ocw", "task_id": task.id}
        assert entry["value"] == pytest.approx(means[task.figure], abs=1e-12), task.id
        assert entry["evaluation_framework"] == FRAMEWORK == "inspect-ai"
        notes = entry["notes"]
        assert notes.startswith("ocw-hub ") and "evaluate of org/model" in notes
        assert f"run with inspect-ai {inspect_version}: task ocw_hub/{name}" in notes, notes
        assert "model openai-api/local/m" in notes
    if name == "ocw_grouping":  # not trivial: 2 of the 4 walls solved
        assert means["full_wall_rate"] == 0.5
    assert er.eval_results_problems(model, {t.id for t in board_tasks([config])}) == []


def test_eval_results_refuse_a_log_of_part_of_the_split(chat_server: Any, tmp_path: Path) -> None:
    server = chat_server(answer=Scripted(_rows()))
    log = _eval(_task("ocw_grouping"), server.url, tmp_path, limit=3)
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(log.location),
            "--data-dir",
            str(FIXTURE),
            "--no-checks",
            "--eval-results",
            str(tmp_path / "model"),
            "--model-id",
            "org/model",
            "--dataset-id",
            "org/ocw",
        ],
    )
    assert result.exit_code != 0
    assert "a leaderboard entry is a figure of the whole split" in " ".join(result.output.split())
    assert "answers 3 of its 4" in " ".join(result.output.split())
    assert not (tmp_path / "model" / ".eval_results").exists()
