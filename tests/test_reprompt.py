"""Re-prompting an invalid answer (issue 25, item 4): ``run-llm --reprompt N`` against a
scripted server, the resumed log, ``parse`` with and without re-prompts, ``evaluate`` and
``compare`` of the two."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.llm.reprompt import follow_up_text, parse_follow_up_id
from ocw_hub.llm.vote import fold_sample_lines
from ocw_hub.provenance import protocol_key, read_protocol

pytestmark = pytest.mark.usefixtures("local_only")
runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
WALLS = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]
GOLD = {w["wall_id"]: [g["gt_words"] for g in w["groups"].values()] for w in WALLS}
#: In the unparseable answers: server text that must never reach a user message.
MARK = "ZQXJ"


def _lines(groups: list[list[str]]) -> str:
    return "\n".join(", ".join(g) for g in groups)


def _swapped(groups: list[list[str]]) -> list[list[str]]:
    """Two clues swapped between the first two groups: two groups right."""
    a, b = [list(g) for g in groups[:2]]
    a[0], b[0] = b[0], a[0]
    return [a, b, *groups[2:]]


def _script() -> dict[str, list[str]]:
    """Per wall, its answer to the request and to follow-ups 1 and 2."""
    g = GOLD
    twice = {w: [[*gs[0][:3], gs[1][0]], *gs[1:]] for w, gs in g.items()}  # a clue twice
    return {
        "c001": [_lines(g["c001"])],  # valid at once
        "c002": [f"No idea {MARK}.", _lines(g["c002"])],  # unparseable, then valid
        "c003": [
            f"{MARK}\n" + _lines(g["c003"][:3]),
            _lines(twice["c003"]),
            _lines(_swapped(g["c003"])),
        ],  # 3 groups, a clue twice, valid: 2 right
        "c004": [_lines(twice["c004"]), f"{MARK} pass", f"{MARK} pass again"],
    }


def _wall_of(body: dict[str, Any]) -> str:
    first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return next(w["wall_id"] for w in WALLS if all(c in first_user for c in w["words"]))


def _answer(body: dict[str, Any]) -> str:
    asked = sum(1 for m in body["messages"] if m["role"] == "assistant")
    return _script()[_wall_of(body)][asked]


def _key(body: dict[str, Any]) -> str:
    asked = sum(1 for m in body["messages"] if m["role"] == "assistant")
    return f"{_wall_of(body)}/{asked}"


def _cli(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _data(tmp_path: Path) -> list[str]:
    return ["--data-dir", str(FIXTURE), "--cache-dir", str(tmp_path / "cache"), "--no-checks"]


def _requests(tmp_path: Path) -> Path:
    requests = tmp_path / "req.jsonl"
    _cli("prompts", *_data(tmp_path), "--task", "grouping", "--shots", "0", "--out", str(requests))
    return requests


def _run(tmp_path: Path, requests: Path, log: Path, *extra: str) -> ChatServer:
    server = ChatServer(answer=_answer, key=_key)
    try:
        _cli(
            "run-llm",
            str(requests),
            "--base-url",
            server.url,
            "--model",
            "m",
            "--out",
            str(log),
            *extra,
        )
    finally:
        server.close()
    return server


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_ids_do_not_clash_with_the_vote() -> None:
    assert parse_follow_up_id("c001#reprompt-2") == ("c001", 2)
    assert parse_follow_up_id("c001#2") is None and parse_follow_up_id("c001#reprompt-0") is None
    folded = fold_sample_lines({"c001#reprompt-1": None, "c001": None}, {"c001"})  # type: ignore[dict-item]
    assert set(folded) == {"c001#reprompt-1", "c001"}  # the vote leaves follow-ups alone


def test_reprompt_two(tmp_path: Path) -> None:
    requests, log = _requests(tmp_path), tmp_path / "log.jsonl"
    server = _run(tmp_path, requests, log, "--reprompt", "2", *_data(tmp_path))
    # hand count: round 1 re-asks c002, c003, c004; round 2 c003, c004
    assert sum(server.count.values()) == 4 + 5
    assert server.count == {
        "c001/0": 1,
        "c002/0": 1,
        "c003/0": 1,
        "c004/0": 1,
        "c002/1": 1,
        "c003/1": 1,
        "c004/1": 1,
        "c003/2": 1,
        "c004/2": 1,
    }
    ids = [line["custom_id"] for line in _read(log)]
    assert sorted(ids[:4]) == ["c001", "c002", "c003", "c004"]  # as answered; then in order
    assert ids[4:] == [
        "c002#reprompt-1",
        "c003#reprompt-1",
        "c004#reprompt-1",
        "c003#reprompt-2",
        "c004#reprompt-2",
    ]
    # the follow-up: the answer as sent, then the package's own text only
    follow_ups = [b for b in server.bodies if any(m["role"] == "assistant" for m in b["messages"])]
    for body in follow_ups:
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        assert not any(MARK in text for text in users)
        assert body["messages"][-2]["role"] == "assistant"
        asked = sum(1 for m in body["messages"] if m["role"] == "assistant")
        assert body["messages"][-2]["content"] == _script()[_wall_of(body)][asked - 1]
    last = {_key(b): b["messages"][-1]["content"] for b in follow_ups}
    assert last["c003/1"] == follow_up_text("group_count")
    assert last["c003/2"] == last["c004/1"] == follow_up_text("duplicate")
    record = json.loads((tmp_path / "log.jsonl.protocol.json").read_text())
    assert (record["reprompt"], record["follow_up_version"]) == (2, 1)

    # resume after a kill in round 2: its lines gone, a cut line left; only round 2 is sent
    full = log.read_bytes()
    kept = b"".join(full.splitlines(keepends=True)[:7])
    log.write_bytes(kept + b'{"custom_id": "c003#repro')
    again = _run(tmp_path, requests, log, "--reprompt", "2", *_data(tmp_path))
    assert again.count == {"c003/2": 1, "c004/2": 1}
    assert [line["custom_id"] for line in _read(log)] == ids
    # a re-run with everything answered sends nothing
    assert (
        sum(_run(tmp_path, requests, log, "--reprompt", "2", *_data(tmp_path)).count.values()) == 0
    )
    # another N on this log is refused
    full = log.read_bytes()
    result = runner.invoke(
        app,
        [
            "run-llm",
            str(requests),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--out",
            str(log),
        ],
    )
    assert result.exit_code != 0 and log.read_bytes() == full  # all answered: only N refuses

    _parse_and_evaluate(tmp_path, log)
    # the first answers are the predictions of a run without re-prompts: one protocol
    plain = tmp_path / "plain.jsonl"
    _run(tmp_path, requests, plain)
    _cli("parse", str(plain), *_data(tmp_path), "--out", str(tmp_path / "plain.json"))
    keys = [
        protocol_key(read_protocol(tmp_path / n) or {})
        for n in ("plain.json", "pred.first-answer.json", "pred.json")
    ]
    assert keys[0] == keys[1] != keys[2]
    plain_pred = json.loads((tmp_path / "plain.json").read_text())
    assert plain_pred == json.loads((tmp_path / "pred.first-answer.json").read_text())


def _parse_and_evaluate(tmp_path: Path, log: Path) -> None:
    data = _data(tmp_path)
    out = tmp_path / "pred.json"
    _cli("parse", str(log), *data, "--task", "grouping", "--out", str(out))
    first = tmp_path / "pred.first-answer.json"
    report = json.loads((tmp_path / "pred.json.parse.json").read_text())
    assert report["counts"]["unrecoverable"] == 1  # c004
    assert report["reprompt"]["first_answer_counts"]["unrecoverable"] == 3  # c002, c003, c004
    first_report = {w["wall_id"]: w for w in report["walls"]}
    assert first_report["c004"]["reason"] == "no_answer"  # its last answer: "ZQXJ pass again"
    assert report["reprompt"]["first_answer_unrecoverable"] == {
        "no_answer": 1,
        "group_count": 1,
        "duplicate": 1,
    }
    assert (report["reprompt"]["follow_ups"], report["reprompt"]["walls_reprompted"]) == (5, 3)
    assert report["reprompt"]["became_valid"] == 2  # c002, c003
    assert {w["wall_id"]: w["reprompts"] for w in report["walls"]} == {
        "c001": 0,
        "c002": 1,
        "c003": 2,
        "c004": 2,
    }
    scores = {}
    for name, path in (("with", out), ("first", first)):
        results = tmp_path / f"results-{name}.json"
        _cli("evaluate", str(path), *data, "--bootstrap", "0", "--out", str(results))
        scores[name] = json.loads(results.read_text())["grouping"]
    # first answers: only c001 (4 groups); with re-prompts: c001 4, c002 4, c003 2, c004 0
    assert (scores["first"]["correct_groups"], scores["first"]["full_wall"]) == (4, 1)
    assert (scores["with"]["correct_groups"], scores["with"]["full_wall"]) == (10, 2)
    protocols = [json.loads(Path(f"{p}.protocol.json").read_text()) for p in (out, first)]
    assert protocols[0]["reprompt"] == 2 and "reprompt" not in protocols[1]
    # usage: the whole log (4 first requests and 5 follow-ups), the first answers' 4 alone
    assert [(r["usage"]["requests"], r["usage"]["lines"]) for r in protocols] == [
        (9, "all"),
        (4, "first answers"),
    ]
    mixed = runner.invoke(app, ["evaluate", str(out), str(first), *data, "--bootstrap", "0"])
    assert mixed.exit_code != 0  # not runs of one protocol ...
    _cli("evaluate", str(out), str(first), *data, "--bootstrap", "0", "--as-runs")  # ... only
    scored = [str(tmp_path / "results-with.json"), str(tmp_path / "results-first.json")]
    shown = _cli("compare", *scored, "--bootstrap", "200", "--format", "json").output
    best, other = json.loads(shown)["systems"]  # ranked: with re-prompts first
    assert best["value"] > other["value"] and best["difference"] is None
    assert other["difference"] == pytest.approx(other["value"] - best["value"])
    assert 0 < other["p_value"] <= 1 and other["in_common"] == 4


def test_reprompt_zero_as_today(tmp_path: Path) -> None:
    requests = _requests(tmp_path)
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    _run(tmp_path, requests, logs[0], "--concurrency", "1")  # the lines in one order
    server = _run(tmp_path, requests, logs[1], "--concurrency", "1", "--reprompt", "0")
    assert sum(server.count.values()) == 4  # no follow-up though 3 answers are invalid

    def stable(path: Path) -> list[dict[str, Any]]:
        return [{k: v for k, v in line.items() if k != "latency_s"} for line in _read(path)]

    def record(path: Path) -> dict[str, Any]:
        found = json.loads(Path(f"{path}.protocol.json").read_text())
        return {
            k: v for k, v in found.items() if k not in ("usage", "record_sha256", "files_sha256")
        }

    assert stable(logs[0]) == stable(logs[1])
    assert record(logs[0]) == record(logs[1]) and "reprompt" not in record(logs[1])


def _line(wall_id: str, text: str, finish: str = "stop") -> dict[str, Any]:
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": finish,
    }
    return {
        "custom_id": wall_id,
        "error": None,
        "response": {"status_code": 200, "body": {"choices": [choice]}},
    }


def test_connections_and_answer_blocks() -> None:
    """Task 2 is read by the connections parser and the style's answer block: a cot answer
    with no final block, or one cut at the token limit, is re-asked; four connections are not."""
    from ocw_hub.llm.reprompt import Parsing, follow_up

    walls = {w["wall_id"]: w for w in WALLS}
    cot = Parsing(walls, "connections", "cot")
    named = "\n".join(f"Connection: {c}" for c in WALLS[0]["gt_connections"])
    assert cot.reason(_line("c001", f"Thinking.\nFinal answer:\n{named}")) is False
    assert cot.reason(_line("c001", named)) == "no_final_answer"
    paper = Parsing(walls, "connections", "paper")
    assert paper.reason(_line("c001", named)) is False
    assert paper.reason(_line("c001", named, finish="length")) == "truncated"
    request = {"custom_id": "c001", "body": {"messages": [{"role": "user", "content": "q"}]}}
    again = follow_up(request, _line("c001", named, "length"), "truncated", 1)
    assert again["custom_id"] == "c001#reprompt-1"
    assert again["body"]["messages"] == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": named},
        {"role": "user", "content": follow_up_text("truncated")},
    ]
    assert follow_up_text("not a code") == follow_up_text(None)  # never an outside word


def test_a_killed_run_resumes_without_sending_again(tmp_path: Path) -> None:
    """run-llm killed (SIGKILL) while round 2 is in flight: the re-run sends round 2 only."""
    import os
    import signal
    import subprocess
    import sys
    import time

    requests, log = _requests(tmp_path), tmp_path / "log.jsonl"
    server = ChatServer(answer=_answer, key=_key, delay=0.5)
    try:
        command = [
            sys.executable,
            "-m",
            "ocw_hub",
            "run-llm",
            str(requests),
            "--base-url",
            server.url,
            "--model",
            "m",
            "--out",
            str(log),
            "--reprompt",
            "2",
            *_data(tmp_path),
        ]
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy()
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the requests and round 1 written: round 2 sent
            if log.exists() and log.read_bytes().count(b"\n") >= 7:
                break
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert log.read_bytes().count(b"\n") == 7
        sent_before = sum(server.count.values())
        assert 7 <= sent_before <= 9  # round 2 sent or not (yet), never written
    finally:
        server.close()
    again = _run(tmp_path, requests, log, "--reprompt", "2", *_data(tmp_path))
    assert again.count == {"c003/2": 1, "c004/2": 1}  # nothing answered before is sent again
    ids = [line["custom_id"] for line in _read(log)]
    assert ids[7:] == ["c003#reprompt-2", "c004#reprompt-2"] and len(ids) == 9
