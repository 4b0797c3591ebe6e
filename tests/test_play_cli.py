"""``ocw-hub play`` end to end against a scripted OpenAI-compatible server on 127.0.0.1
(:mod:`chat_server`, answered by :class:`play_support.Contestant`) on the 6 fixture test
walls, with ``--rules show`` and ``--rules nyt``; a killed run resumed; ``evaluate`` and
``show --play`` of the log. The figures are counted by hand from the contestant's plans:

* 46fa44 ``perfect``: a near miss (3 clues of group 1 + 1 of group 2), then 3 gold groups:
  4 guesses, 1 wrong (free under show; one away under nyt), solved, 4 connections: 10 points;
* 740d45 ``frozen``: 2 gold groups, then wrong guesses: show freezes at the 3rd lost life
  (5 guesses, 3 wrong), nyt at the 4th mistake (6 guesses); 1 connection right: 3 points;
* cb4d9e ``refusal``: 3 invalid answers freeze it: 0 groups, 0 points;
* the 3 others ``plain``: 3 gold guesses, solved, every connection wrong: 4 points each.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from play_support import FIXTURE, Contestant, fixture_rows
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import PlayLogError
from ocw_hub.play.scoring import human_play, score_play_log

pytestmark = pytest.mark.usefixtures("local_only")
runner = CliRunner()
DATA = ["--data-dir", str(FIXTURE), "--no-checks"]


def _play(url: str, out: Path, rules: str = "show", *extra: str) -> Any:
    args = ["play", "--base-url", url, "--model", "m", "--out", str(out), "--rules", rules]
    return runner.invoke(app, [*args, *DATA, *extra])


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _evaluate(log: Path, tmp_path: Path) -> tuple[dict[str, Any], str]:
    out = tmp_path / f"{log.stem}-results.json"
    result = runner.invoke(app, ["evaluate", str(log), *DATA, "-o", str(out), "--bootstrap", "100"])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8")), result.output


def _ends(records: list[dict[str, Any]]) -> dict[str, str]:
    return {r["wall_id"]: r["reason"] for r in records if r["record"] == "end"}


def test_show_rules_end_to_end(chat_server, tmp_path: Path) -> None:
    rows = fixture_rows()
    server = chat_server(answer=Contestant(rows))
    log = tmp_path / "play.jsonl"
    result = _play(server.url, log)
    assert result.exit_code == 0, result.output
    records = _records(log)
    head = records[0]
    assert head["record"] == "play" and head["rules"] == "show" and head["max_guesses"] == 20
    assert head["player_kind"] == "model" and head["split"] == "test"
    assert _ends(records) == {
        "46fa44": "solved",
        "740d45": "frozen_lives",
        "cb4d9e": "frozen_invalid",
        "0436ff": "solved",
        "654041": "solved",
        "b308e4": "solved",
    }
    assert sum(r["record"] == "connections" for r in records) == 6
    # one request per answer: 4 + 5 + 3 + 3 * 3 turns and 6 connection rounds
    assert len(server.bodies) == 21 + 6
    for body in server.bodies:  # server text only ever in assistant messages
        roles = [m["role"] for m in body["messages"]]
        assert roles[:2] == ["system", "user"]
        assert roles[2:] == ["assistant", "user"] * ((len(roles) - 2) // 2)
        assert not any("[red]" in m["content"] for m in body["messages"] if m["role"] == "user")

    results, table = _evaluate(log, tmp_path)
    play = results["play"]
    expected = {
        "groups_found": 4 + 2 + 0 + 3 * 4,
        "walls_solved": 4,
        "guesses": 4 + 5 + 0 + 3 * 3,
        "wrong_guesses": 1 + 3,
        "lives_lost": 3,
        "invalid": 3,
        "frozen": 2,
        "connections_right": 4 + 1,
        "points": 10 + 3 + 0 + 3 * 4,
    }
    assert {k: play[k] for k in expected} == expected
    assert play["points_mean"] == pytest.approx(25 / 6)
    assert play["lives_lost_distribution"] == {"0": 5, "3": 1}
    per_wall = {w["wall_id"]: w for w in results["per_wall"]}
    assert per_wall["46fa44"]["play"]["points"] == 10
    assert per_wall["740d45"]["play"]["points"] == 3
    assert per_wall["46fa44"]["grouping"]["ami"] == 1.0
    assert results["grouping"]["full_wall"] == 4
    assert results["connections"]["exact_match"] == pytest.approx((1 + 0.25) / 6)
    # the contestants, from human_performance, and group by group
    found = {
        w["wall_id"]: [g["human_performance"]["grouping"] for g in w["groups"].values()]
        for w in rows
    }
    assert results["human"]["play"]["groups_found"] == sum(map(sum, found.values()))
    agreement = play["agreement"]
    assert agreement["both"] + agreement["model_only"] == 18
    assert agreement["both"] + agreement["contestants_only"] == sum(map(sum, found.values()))
    assert sum(agreement.values()) == 24
    assert "points (0-10 a wall)" in table and "25 (4.17" in table


def test_nyt_rules_end_to_end(chat_server, tmp_path: Path) -> None:
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "nyt.jsonl"
    result = _play(server.url, log, "nyt")
    assert result.exit_code == 0, result.output
    records = _records(log)
    assert records[0]["max_guesses"] == 7
    assert not any(r["record"] == "connections" for r in records)
    first = next(r for r in records if r.get("wall_id") == "46fa44")
    assert first["verdict"] == "one_away"
    assert sum(r.get("verdict") == "one_away" for r in records) == 1
    assert _ends(records)["740d45"] == "frozen_lives"
    play = _evaluate(log, tmp_path)[0]["play"]
    expected = {
        "groups_found": 18,
        "walls_solved": 4,
        "guesses": 4 + 6 + 0 + 9,
        "wrong_guesses": 5,
        "lives_lost": 5,
        "invalid": 3,
        "frozen": 2,
        "points": None,
        "connections_right": None,
    }
    assert {k: play[k] for k in expected} == expected


def test_a_killed_run_resumed_gives_the_uninterrupted_log(chat_server, tmp_path: Path) -> None:
    server = chat_server(answer=Contestant(fixture_rows()), delay=0.3)
    full = tmp_path / "full.jsonl"
    assert _play(server.url, full).exit_code == 0
    sent_full = len(server.bodies)
    killed = tmp_path / "killed.jsonl"
    command = [sys.executable, "-m", "ocw_hub", "play", "--base-url", server.url, "--model", "m"]
    process = subprocess.Popen(
        [*command, "--out", str(killed), "--rules", "show", *DATA],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the first round written (header + 6 guesses)
        if killed.exists() and killed.read_bytes().count(b"\n") >= 7:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert killed.read_bytes().count(b"\n") < full.read_bytes().count(b"\n")
    assert _play(server.url, killed).exit_code == 0
    assert killed.read_bytes() == full.read_bytes()
    # at most the round cut by the kill was sent twice
    assert sent_full <= len(server.bodies) - sent_full <= sent_full + 6
    before = len(server.bodies)
    again = _play(server.url, killed)
    assert again.exit_code == 0 and "0 walls finished by this run, 6 before" in again.output
    assert len(server.bodies) == before  # a finished wall is never sent again


def test_a_log_of_another_run_is_not_resumed(chat_server, tmp_path: Path) -> None:
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    assert _play(server.url, log, "show", "--walls", "2").exit_code == 0
    result = _play(server.url, log, "nyt", "--walls", "2")
    assert result.exit_code != 0 and "rules" in result.output
    assert len(_records(log)) == 1 + 4 + 5 + 2 * 2


def test_the_replay_is_checked(chat_server, tmp_path: Path) -> None:
    rows = fixture_rows()
    server = chat_server(answer=Contestant(rows))
    log = tmp_path / "play.jsonl"
    assert _play(server.url, log).exit_code == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines) if '"verdict": "correct"' in line)
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(
        "\n".join(
            [
                *lines[:number],
                lines[number].replace('"correct"', '"incorrect"'),
                *lines[number + 1 :],
            ]
        )
        + "\n",  # noqa: E501
        encoding="utf-8",
    )
    wall_id = json.loads(lines[number])["wall_id"]
    with pytest.raises(PlayLogError, match=f"line {number + 1} \\(wall {wall_id}\\)"):
        score_play_log(tampered, rows, "default")
    # the state after a guess, recorded by play, is the replay's: a lie about it is an error
    record = json.loads(lines[number])
    assert record["state"]["guesses"] == record["turn"] and record["state"]["ended"] is None
    record["state"]["lives_lost"] += 1
    tampered.write_text(
        "\n".join([*lines[:number], json.dumps(record), *lines[number + 1 :]]) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(PlayLogError, match=f"line {number + 1} \\(wall {wall_id}\\)"):
        score_play_log(tampered, rows, "default")
    unfinished = tmp_path / "unfinished.jsonl"
    unfinished.write_text(
        "\n".join(l for l in lines if '"end"' not in l or "46fa44" not in l) + "\n",  # noqa: E741
        encoding="utf-8",
    )
    with pytest.raises(PlayLogError, match="46fa44 is unfinished"):
        score_play_log(unfinished, rows, "default")
    results = score_play_log(unfinished, rows, "default", allow_missing=True)
    assert results["play"]["n_played"] == 5 and results["n_missing"] == 1


def test_show_play_replays_a_wall(chat_server, tmp_path: Path) -> None:
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    assert _play(server.url, log).exit_code == 0
    result = runner.invoke(app, ["show", "740d45", "--play", str(log), *DATA])
    assert result.exit_code == 0, result.output
    turns = [line for line in result.output.splitlines() if "correct" in line]
    assert len(turns) == 5
    lives = [line.strip(" │").split("│")[-1].strip() for line in turns]
    assert lives == ["-", "3", "2", "1", "0"]
    refused = runner.invoke(app, ["show", "cb4d9e", "--play", str(log), *DATA])
    assert refused.output.count("(refusal)") == 3 and "\x1b" not in refused.output


def test_a_server_that_is_gone_leaves_its_walls_to_the_other(chat_server, tmp_path: Path) -> None:
    rows = fixture_rows()
    alive, gone = chat_server(answer=Contestant(rows)), chat_server(answer=Contestant(rows))
    gone_url = gone.url
    gone.close()
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert _play(alive.url, one).exit_code == 0
    result = _play(alive.url, two, "show", "--base-url", gone_url, "--max-retries", "1")
    assert result.exit_code == 0, result.output
    assert _records(two)[1:] == _records(one)[1:]  # the header names both servers


def test_a_failed_request_leaves_its_wall_for_a_re_run(chat_server, tmp_path: Path) -> None:
    from ocw_hub.play.conversation import opening
    from ocw_hub.play.rules import new_wall

    rows = fixture_rows()
    wall = rows[1]
    first = opening(wall, new_wall("show", [g["gt_words"] for g in wall["groups"].values()]))

    def key(body: dict[str, Any]) -> str:
        return f"{body['messages'][1]['content']}#{len(body['messages'])}"

    turn_3 = f"{first[1]['content']}#6"  # the wall's third answer (two answers before it)
    server = chat_server(answer=Contestant(rows), key=key, failures={turn_3: [400]})
    log = tmp_path / "play.jsonl"
    failed = _play(server.url, log)
    assert failed.exit_code == 1 and "1 walls left unfinished" in failed.output
    assert wall["wall_id"] not in _ends(_records(log)) and len(_ends(_records(log))) == 5
    resumed = _play(server.url, log)
    assert resumed.exit_code == 0 and "1 walls finished by this run, 5 before" in resumed.output
    full = tmp_path / "full.jsonl"
    assert _play(server.url, full).exit_code == 0
    ours, theirs = _evaluate(log, tmp_path)[0], _evaluate(full, tmp_path)[0]
    assert ours["play"] == theirs["play"] and ours["grouping"] == theirs["grouping"]


def test_a_server_error_keeps_the_answers_of_its_round(chat_server, tmp_path: Path) -> None:
    from ocw_hub.play.conversation import opening
    from ocw_hub.play.rules import new_wall

    rows = fixture_rows()

    def key(body: dict[str, Any]) -> str:
        return f"{body['messages'][1]['content']}#{len(body['messages'])}"

    def first_turn(wall: dict[str, Any]) -> str:
        state = new_wall("show", [g["gt_words"] for g in wall["groups"].values()])
        return f"{opening(wall, state)[1]['content']}#2"

    failures: dict[str, list[int | str]] = {first_turn(w): [400] for w in rows[3:]}
    server = chat_server(answer=Contestant(rows), key=key, failures=failures)
    log = tmp_path / "play.jsonl"
    stopped = _play(server.url, log, "show", "--concurrency", "1")
    assert stopped.exit_code != 0 and "400" in stopped.output
    kept = _records(log)[1:]  # the 3 walls answered before the 3 refusals in a row
    assert [r["wall_id"] for r in kept] == [w["wall_id"] for w in rows[:3]]
    assert _play(server.url, log).exit_code == 0
    full = tmp_path / "full.jsonl"
    assert _play(server.url, full).exit_code == 0
    assert _evaluate(log, tmp_path)[0]["play"] == _evaluate(full, tmp_path)[0]["play"]


def test_a_hand_written_human_log_is_scored(tmp_path: Path) -> None:
    """A log as the play page writes it: clues as a person's page spells them (matched as
    ``parse`` matches them), no answer text, a wall given up."""
    rows = fixture_rows()
    wall, other = rows[0], rows[1]  # 46fa44, 740d45
    groups = [g["gt_words"] for g in wall["groups"].values()]
    head = {
        "record": "play",
        "version": 1,
        "rules": "show",
        "max_guesses": 20,
        "max_invalid": 3,
        "config": "default",
        "split": "test",
        "player": "ana",
        "player_kind": "human",
    }

    def guess(wall_id: str, turn: int, clues: list[str], verdict: str) -> dict[str, Any]:
        return {
            "record": "guess",
            "wall_id": wall_id,
            "turn": turn,
            "clues": clues,
            "invalid": None,
            "verdict": verdict,
        }

    lines = [
        head,
        guess("46fa44", 1, [c.upper() for c in groups[3]], "correct"),
        guess("46fa44", 2, [f" {c.lower()} " for c in groups[0]], "correct"),
        guess("740d45", 1, list(other["words"][:4]), "incorrect"),
        guess("46fa44", 3, groups[2], "correct"),
        {
            "record": "connections",
            "wall_id": "46fa44",
            "groups": [groups[i] for i in (3, 0, 2, 1)],
            "answers": ["Quarks", "made from rubber", "Nick", "Prison slang"],
        },
        {"record": "end", "wall_id": "46fa44", "reason": "solved"},
        {"record": "end", "wall_id": "740d45", "reason": "gave_up"},
    ]
    log = tmp_path / "human.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    results = score_play_log(log, rows, "default", allow_missing=True)
    played = {w["wall_id"]: w["play"] for w in results["per_wall"]}
    assert played["46fa44"]["groups_found"] == 4 and played["46fa44"]["guesses"] == 3
    assert played["46fa44"]["connections_right"] == 3  # "Nick" is not "Called Nick"
    assert played["46fa44"]["points"] == 4 + 3
    assert played["740d45"]["end"] == "gave_up" and played["740d45"]["groups_found"] == 0
    assert played["740d45"]["points"] == 0  # no connection round: none named
    assert results["play"]["n_played"] == 2 and results["play"]["points"] == 7
    # a session of 2 walls is compared on its 2 walls, with the contestants' on the same two
    assert results["play"]["points_mean"] == 7 / 2
    assert played["740d45"]["frozen"] == 1 and results["play"]["frozen"] == 1  # given up
    by_id = {w["wall_id"]: w for w in rows}
    theirs = [human_play(by_id[i]) for i in ("46fa44", "740d45")]
    human = results["human"]["play"]
    assert human["n_walls"] == 2
    assert human["groups_found"] == sum(t["groups_found"] for t in theirs)
    assert human["points_mean"] == sum(t["points"] for t in theirs) / 2
    assert sum(results["play"]["agreement"].values()) == 2 * 4


#: Files given as --out by mistake, each without a last newline: never cut, never replaced.
NOT_LOGS = {"v.csv": b"wall_id,score\n46fa44,1\n740d45,0", "v.txt": b"single line no newline"}


@pytest.mark.parametrize("name", sorted(NOT_LOGS))
def test_a_file_that_is_no_log_is_left_as_it_was(chat_server, tmp_path: Path, name: str) -> None:
    server = chat_server(answer=Contestant(fixture_rows()))
    out = tmp_path / name
    out.write_bytes(NOT_LOGS[name])
    assert _play(server.url, out, "show", "--walls", "1").exit_code == 1
    assert out.read_bytes() == NOT_LOGS[name] and server.bodies == []


def test_a_header_cut_by_a_crash_starts_the_log_again(chat_server, tmp_path: Path) -> None:
    server = chat_server(answer=Contestant(fixture_rows()))
    log, full = tmp_path / "cut.jsonl", tmp_path / "full.jsonl"
    assert _play(server.url, full, "show", "--walls", "1").exit_code == 0
    log.write_bytes(full.read_bytes()[:40])  # the header, cut before its newline
    assert _play(server.url, log, "show", "--walls", "1").exit_code == 0
    assert log.read_bytes() == full.read_bytes()


@pytest.mark.parametrize("mode", ["content_filter_400", "context_400", "finish_content_filter"])
def test_an_answer_never_given_is_counted_not_waited_for(tmp_path: Path, mode: str) -> None:
    """A request refused for itself (Azure's content filter, a conversation past the model's
    context) or an answer ended by the content filter fails alike when sent again: it is an
    answer with no guess, which the rules count (3 freeze the wall), not a wall left
    unfinished for every re-run."""
    from chat_server import ChatServer, completion

    class Refusing(ChatServer):
        def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
            if mode == "finish_content_filter":
                payload = completion(body, "", 1)
                payload["choices"][0]["finish_reason"] = "content_filter"
                return 200, payload, {}
            code = "content_filter" if mode == "content_filter_400" else "context_length_exceeded"
            return 400, {"error": {"code": code, "message": f"refused: {code}"}}, {}

    server = Refusing()
    try:
        log = tmp_path / "play.jsonl"
        result = _play(server.url, log, "show", "--walls", "1")
        assert result.exit_code == 0, result.output
    finally:
        server.close()
    records = _records(log)[1:]
    guesses = [r for r in records if r["record"] == "guess"]
    assert [g["verdict"] for g in guesses] == ["invalid"] * 3
    assert {g["finish_reason"] for g in guesses} == {
        "content_filter" if mode == "finish_content_filter" else "request_failed"
    }
    assert _ends(records) == {fixture_rows()[0]["wall_id"]: "frozen_invalid"}


def test_an_answer_too_long_to_log_is_that_requests_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer whose log line could pass the readers' cap is not logged: it failed the log
    for every later read (resume, evaluate, parse). play counts it as an answer with no
    guess."""
    from chat_server import ChatServer

    from ocw_hub.llm import transport

    monkeypatch.setattr(transport, "MAX_ANSWER_CHARS", 2000)
    server = ChatServer(answer=lambda body: "x" * 3000)
    try:
        log = tmp_path / "play.jsonl"
        assert _play(server.url, log, "show", "--walls", "1").exit_code == 0
        guesses = [r for r in _records(log) if r["record"] == "guess"]
        assert [g["finish_reason"] for g in guesses] == ["request_failed"] * 3
    finally:
        server.close()


def test_a_log_with_no_wall_played_is_started_again(chat_server, tmp_path: Path) -> None:
    """A run whose first round failed (a mistyped --model, a server not up) leaves a header
    alone; a run with other settings starts the log again instead of refusing it."""
    server = chat_server(answer=Contestant(fixture_rows()))
    log = tmp_path / "play.jsonl"
    gone = "http://127.0.0.1:9/v1"  # the discard port: nothing listens
    first = runner.invoke(
        app,
        [
            "play",
            "--base-url",
            gone,
            "--model",
            "typo",
            "--out",
            str(log),
            "--max-retries",
            "0",
            "--walls",
            "1",
            *DATA,
        ],
    )
    assert first.exit_code == 1 and [r["record"] for r in _records(log)] == ["play"]
    again = _play(server.url, log, "show", "--walls", "1")
    assert again.exit_code == 0, again.output
    records = _records(log)
    assert records[0]["model"] == "m" and _ends(records)
