"""Self-consistency (``parse --vote``, ``ocw_hub.llm.vote``): the tie rule and partition
equality by hand, and ``prompts -> run-llm -> parse --vote -> evaluate`` against a scripted
server answering n = 3 choices, each sample's figures and the vote's hand-counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, completion
from llm_answers import answer_requests
from test_parse import BY_ID, _cli, _gold, which_wall
from test_parsing import CONNECTIONS, GOLD
from typer.testing import CliRunner

from ocw_hub.llm.responses import ParsedWall
from ocw_hub.llm.usage import cost_line
from ocw_hub.llm.vote import first_most_common, partition_key, vote_connections, vote_groups
from ocw_hub.provenance import describe_protocol, rebind_protocol

runner = CliRunner()


def _rotated(groups: list[list[str]]) -> list[list[str]]:
    """A partition sharing no group with ``groups``."""
    return [[groups[(i + k) % 4][k] for k in range(4)] for i in range(4)]


def _sample(groups: list[list[str]] | None, status: str = "clean") -> ParsedWall:
    empty = [[""] * 4 for _ in range(4)]
    return ParsedWall("w", groups if groups is not None else empty, None, status=status)


def test_partitions_are_equal_in_any_order_of_groups_and_clues() -> None:
    shuffled = [list(reversed(g)) for g in reversed(GOLD)]
    assert partition_key(shuffled) == partition_key(GOLD) != partition_key(_rotated(GOLD))


def test_the_vote_is_the_most_frequent_and_ties_go_to_the_first() -> None:
    assert first_most_common(["b", None, "a", "a", "b"]) == (0, 2)  # tie: b is seen first
    assert first_most_common([None, "a", "b", "b"]) == (2, 2)
    assert first_most_common([None, None]) is None
    shuffled = [list(reversed(g)) for g in GOLD]
    wrong = _rotated(GOLD)
    vote = vote_groups(
        "w",
        [
            _sample(wrong),
            _sample(GOLD),
            _sample(None, "unrecoverable"),
            _sample(shuffled, "repaired"),
        ],
    )
    assert vote.groups == GOLD and vote.status == "clean"
    assert vote.repairs == [{"kind": "vote", "samples": 4, "valid": 3, "votes": 2}]
    tie = vote_groups("w", [_sample(wrong), _sample(GOLD)])
    assert tie.groups == wrong
    none = vote_groups("w", [_sample(None, "unrecoverable"), _sample(None, "no_response")])
    assert (none.status, none.reason, none.groups) == (
        "unrecoverable",
        "no_valid_sample",
        [[""] * 4] * 4,
    )


def test_the_connections_vote_is_per_group() -> None:
    def sample(names: list[str], status: str = "clean") -> ParsedWall:
        return ParsedWall("w", None, names, status=status)

    votes = vote_connections(
        "w",
        [
            sample(["Tools", "Drinks", "", "Isles"]),
            sample(["hand tools.", "Cocktails", "", "Greek islands"]),
            sample(["Hand Tools", "Cocktails", "", "Islands"]),
            sample(["Tools", "Tools", "Tools", "Tools"], "unrecoverable"),
        ],
    )
    # group 1: "hand tools" 2 votes (written as its first sample did), group 2: Cocktails 2,
    # group 3: nobody, group 4: three different names, the first wins
    assert votes.connections == ["hand tools.", "Cocktails", "", "Isles"]
    assert votes.repairs == [{"kind": "vote", "samples": 4, "valid": 3, "votes": 0}]
    assert CONNECTIONS[0].casefold() == "hand tools"


# --------------------------------------------------------------------------------------
# End to end
# --------------------------------------------------------------------------------------


def _lines(groups: list[list[str]]) -> str:
    return "\n".join(", ".join(g) for g in groups)


#: Per wall, its 3 samples: G gold, R rotated (no group right), X no partition.
PLAN = {"c001": "GGR", "c002": "RGX", "c003": "XXG", "c004": "XXX"}


def sample_answer(wall_id: str, kind: str, task: str = "grouping") -> str:
    """Task 1: G the gold partition, R a rotated one, X none. Task 2: G the gold connections,
    R wrong ones, X an empty answer (no connection: a refusal's line would be read as one)."""
    gold = _gold(wall_id)
    if task == "connections":
        names = {"G": list(BY_ID[wall_id]["gt_connections"]), "R": ["W", "X", "Y", "Z"]}
        if kind == "X":
            return ""
        named = zip(gold, names[kind], strict=True)
        return "\n".join(f"{', '.join(g)}. Connection: {c}" for g, c in named)
    return {"G": _lines(gold), "R": _lines(_rotated(gold)), "X": "I cannot solve this."}[kind]


class SamplingServer(ChatServer):
    """Answers ``n`` choices (the body's ``n``), choice i as :data:`PLAN` says; a body with a
    ``seed`` s gets the one choice PLAN gives sample s."""

    def _reply(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        wall_id, task = which_wall(body)
        payload = completion(body, "", 1)
        if "seed" in body:
            text = sample_answer(wall_id, PLAN[wall_id][body["seed"] - 1], task)
            payload["choices"][0]["message"]["content"] = text
            return 200, payload, {}
        payload["choices"] = [
            {
                "index": i,
                "message": {"role": "assistant", "content": sample_answer(wall_id, k, task)},
                "finish_reason": "stop",
            }
            for i, k in enumerate(PLAN[wall_id][: body.get("n", 1)])
        ]
        return 200, payload, {}


def _full_wall(path: Path, tmp: Path, cache: Path) -> Any:
    out = tmp / (path.name + ".results.json")
    _cli("evaluate", str(path), "--out", str(out), cache=cache)
    return json.loads(out.read_text())


def _sampled_responses(tmp_path: Path, cache: Path, task: str, repeat: bool = False) -> Path:
    """prompts, then n = 3 in every body (as the generation profiles' -n 3 sends it), or with
    ``repeat`` 3 requests per wall ``WALL#1`` … ``WALL#3`` with seeds 1 … 3; run-llm against
    :class:`SamplingServer`."""
    requests = tmp_path / f"{task}-req.jsonl"
    _cli("prompts", "--task", task, "--shots", "1", "--out", str(requests), cache=cache)
    lines = [json.loads(line) for line in requests.read_text().splitlines()]
    for line in lines:
        line["body"]["n"] = 3
    if repeat:
        lines = [
            {
                **line,
                "custom_id": f"{line['custom_id']}#{i}",
                "body": {**line["body"], "n": 1, "seed": i},
            }
            for line in lines
            for i in (1, 2, 3)
        ]
    requests.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rebind_protocol(requests)  # edited on purpose: its record is bound to it anew (issue 22)
    server = SamplingServer(key=lambda body: f"{which_wall(body)[0]}#{body.get('seed')}")
    try:
        responses = tmp_path / f"{task}-resp.jsonl"
        answer_requests(requests, responses, server.url)
    finally:
        server.close()
    return responses


@pytest.mark.parametrize("repeat", [False, True], ids=["n choices", "K requests"])
def test_vote_end_to_end(tmp_path: Path, cache: Path, repeat: bool) -> None:
    responses = _sampled_responses(tmp_path, cache, "grouping", repeat)
    out = tmp_path / "vote.json"
    result = _cli("parse", str(responses), "--vote", "--out", str(out), cache=cache)
    assert "samples per wall (the vote's)" in result.output
    report = json.loads((tmp_path / "vote.json.parse.json").read_text())
    assert report["vote"]["samples"] == 3
    assert report["unrecoverable"] == {"no_valid_sample": 1}
    assert [w["repairs"][0]["votes"] for w in report["walls"]] == [2, 1, 1, 0]
    # the vote: c001 G (2 of 3), c002 R (tie R/G, R first), c003 G, c004 none
    assert _full_wall(out, tmp_path, cache)["grouping"]["full_wall"] == 2
    samples = [tmp_path / f"vote.sample-{i}.json" for i in (1, 2, 3)]
    assert report["vote"]["files"] == [str(p) for p in samples]
    by_hand = [sum(PLAN[w][i] == "G" for w in sorted(BY_ID)) for i in range(3)]
    assert by_hand == [1, 2, 1]
    for path, expected in zip(samples, by_hand, strict=True):
        assert _full_wall(path, tmp_path, cache)["grouping"]["full_wall"] == expected
    together = tmp_path / "samples.json"
    _cli("evaluate", *map(str, samples), "--out", str(together), cache=cache)
    scored = json.loads(together.read_text())  # runs of one protocol: scored together
    assert [run["grouping"]["full_wall"] for run in scored["runs"]] == by_hand
    # the samples of one log: its requests counted once (4 bodies with n 3, or 12 with n 1)
    sent = len(responses.read_text().splitlines())
    assert sent == (12 if repeat else 4)
    assert (cost_line(scored) or "").startswith(f"{sent} requests;")
    record = json.loads((tmp_path / "vote.json.protocol.json").read_text())
    assert (record["aggregate"], record["samples"]) == ("vote", 3)
    assert "parse mode robust, aggregate vote, samples 3" in describe_protocol(record)


def test_connections_vote_end_to_end(tmp_path: Path, cache: Path) -> None:
    """Per group the most frequent connection: c001 G (2 of 3), c002 R (tie R/G, R first),
    c003 G (X gives none), c004 none: exact match 8 of 16; the samples 4, 8 and 4."""
    responses = _sampled_responses(tmp_path, cache, "connections")
    out = tmp_path / "vote.json"
    _cli("parse", str(responses), "--task", "connections", "--vote", "--out", str(out), cache=cache)
    scored = _full_wall(out, tmp_path, cache)
    assert scored["connections"]["exact_match"] == 8 / 16
    by_hand = [4 * sum(PLAN[w][i] == "G" for w in sorted(BY_ID)) / 16 for i in range(3)]
    for i, expected in enumerate(by_hand, 1):
        sample = _full_wall(tmp_path / f"vote.sample-{i}.json", tmp_path, cache)
        assert sample["connections"]["exact_match"] == expected


def test_vote_is_refused_in_paper_mode(tmp_path: Path, cache: Path) -> None:
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps({"wall_id": "c001", "text": _lines(GOLD)}) + "\n")
    result = _cli(
        "parse",
        str(responses),
        "--vote",
        "--mode",
        "paper",
        "--out",
        str(tmp_path / "p.json"),
        cache=cache,
        code=1,
    )
    assert "--vote: OCW answers in robust mode only" in result.output


def test_repeated_requests_fold_into_one_wall_in_number_order() -> None:
    from ocw_hub.llm.responses import Response
    from ocw_hub.llm.vote import fold_sample_lines, sample_responses

    given = {
        "w#10": Response("w#10", "ten", 1, finish_reason="stop"),
        "w#2": Response("w#2", None, 2, problem="request failed (status 500): fake 500"),
        "w#1": Response("w#1", "one", 3, finish_reason="length"),
        "x#1": Response("x#1", "not a wall of the split", 4),
        "v": Response("v", "plain", 5),
    }
    folded = fold_sample_lines(given, {"w", "v"})
    assert sorted(folded) == ["v", "w", "x#1"] and folded["v"] is given["v"]
    assert folded["w"].samples == [
        ("one", "length", None),
        (None, None, None),
        ("ten", "stop", None),
    ]
    texts = [(r.text, r.finish_reason) for r in sample_responses(folded["w"]) if r is not None]
    assert texts == [("one", "length"), (None, None), ("ten", "stop")]
