"""ocw-hub prompts: the paper's few-shot requests, exact text, example draw, JSONL shape."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.llm.log import read_requests
from ocw_hub.llm.prompts import (
    PromptError,
    build_requests,
    format_example,
    make_request,
    requests_jsonl,
    sample_examples,
)

runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"


def make_wall(wall_id: str, groups: list[tuple[list[str], str]], words: list[str] | None = None):
    """A wall row as the builders yield it (human scores are irrelevant to prompts)."""
    return {
        "wall_id": wall_id,
        "season": 1,
        "episode": 1,
        "words": words or [c for g, _ in groups for c in g],
        "gt_connections": [c for _, c in groups],
        "groups": {
            f"group_{i}": {
                "group_id": f"{wall_id}_0{i}",
                "gt_words": g,
                "gt_connection": c,
                "human_performance": {"grouping": 1, "connection": 1},
            }
            for i, (g, c) in enumerate(groups, 1)
        },
        "overall_human_performance": {"grouping": [1] * 4, "connections": [1] * 4},
    }


WALL = make_wall(
    "w1",
    [
        (["Hammer", "Wrench", "Chisel", "Pliers"], "Hand tools"),
        (["Mojito", "Negroni", "Daiquiri", "Sidecar"], "Cocktails"),
        (["Puzzle", "Business", "Nuts", "Suit"], "Monkey ___"),
        (["Crete", "Rhodes", "Corfu", "Kos"], "Greek islands"),
    ],
    words=[
        "Nuts",
        "Crete",
        "Hammer",
        "Mojito",
        "Kos",
        "Suit",
        "Wrench",
        "Negroni",
        "Rhodes",
        "Puzzle",
        "Chisel",
        "Daiquiri",
        "Business",
        "Corfu",
        "Pliers",
        "Sidecar",
    ],
)
EXAMPLE = make_wall(
    "e1",
    [
        (["Brie", "Feta", "Edam", "Gouda"], "Cheeses"),
        (["Tango", "Waltz", "Salsa", "Samba"], "Dances"),
        (["Foxtrot", "Hotel", "Kilo", "Lima"], "NATO alphabet"),
        (["Paris", "Rome", "Oslo", "Bern"], "European capitals"),
    ],
)

ROUND = (
    "You are playing the Connecting Wall, round 3 of the BBC quiz show Only Connect. A wall "
    "holds 16 clues (words or phrases) that form exactly four groups of four, each group "
    "sharing one connection. Walls are built to mislead: they hold red herrings, clues that "
    "seem to belong to more than one group, yet only one split uses every clue exactly once."
)
GROUPING_SYSTEM = (
    ROUND + "\n\nSolve the wall. Answer with the four groups only: one group per line, the "
    "four clues of a group separated by commas, each clue written exactly as given. Do not "
    "name the connections and do not add anything else."
)
GROUPING_USER = """\
Solved walls, one group per line with its connection:

Example 1
Brie, Feta, Edam, Gouda. Connection: Cheeses
Tango, Waltz, Salsa, Samba. Connection: Dances
Foxtrot, Hotel, Kilo, Lima. Connection: NATO alphabet
Paris, Rome, Oslo, Bern. Connection: European capitals

Clues: Nuts, Crete, Hammer, Mojito, Kos, Suit, Wrench, Negroni, Rhodes, Puzzle, Chisel, \
Daiquiri, Business, Corfu, Pliers, Sidecar

Solve this wall."""
CONNECTIONS_USER = """\
Solved walls, one group per line with its connection:

Example 1
Brie, Feta, Edam, Gouda. Connection: Cheeses
Tango, Waltz, Salsa, Samba. Connection: Dances
Foxtrot, Hotel, Kilo, Lima. Connection: NATO alphabet
Paris, Rome, Oslo, Bern. Connection: European capitals

Groups:
Hammer, Wrench, Chisel, Pliers. Connection:
Mojito, Negroni, Daiquiri, Sidecar. Connection:
Puzzle, Business, Nuts, Suit. Connection:
Crete, Rhodes, Corfu, Kos. Connection:

Name the four connections."""


def test_grouping_request_golden() -> None:
    request = make_request(WALL, "grouping", [EXAMPLE], model="m", style="ours")
    assert request == {
        "custom_id": "w1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {
            "model": "m",
            "messages": [
                {"role": "system", "content": GROUPING_SYSTEM},
                {"role": "user", "content": GROUPING_USER},
            ],
            "temperature": 0,
            "max_tokens": 144,
        },
    }


def test_connections_request_golden() -> None:
    body = make_request(WALL, "connections", [EXAMPLE], model="m", style="ours")["body"]
    system, user = body["messages"]
    assert system["role"] == "system" and system["content"].startswith(ROUND + "\n\n")
    assert system["content"].endswith('then ". Connection: " and the connection.')
    assert user == {"role": "user", "content": CONNECTIONS_USER}
    assert (body["temperature"], body["max_tokens"]) == (0, 144)


def test_zero_shot_has_no_example_block() -> None:
    user = make_request(WALL, "grouping", [], style="ours")["body"]["messages"][1]["content"]
    assert user == GROUPING_USER.split("\n\n", 2)[-1]
    assert user.startswith("Clues: Nuts, Crete, Hammer") and "Example" not in user


def test_example_lines_are_gold_groups_in_order() -> None:
    assert format_example(EXAMPLE).splitlines() == [
        "Brie, Feta, Edam, Gouda. Connection: Cheeses",
        "Tango, Waltz, Salsa, Samba. Connection: Dances",
        "Foxtrot, Hotel, Kilo, Lima. Connection: NATO alphabet",
        "Paris, Rome, Oslo, Bern. Connection: European capitals",
    ]


def _train(n: int) -> list[dict]:
    return [
        make_wall(
            f"t{i:02d}", [([f"c{i}_{g}_{k}" for k in range(4)], f"x{i}{g}") for g in range(4)]
        )
        for i in range(n)
    ]


def _example_ids(request: dict) -> list[str]:
    """Train wall ids shown in a request's examples, in order (clue c7_0_0 -> wall t07)."""
    user = request["body"]["messages"][1]["content"]
    blocks = [b for b in user.split("\n\n") if re.match(r"Example \d+\n", b)]
    return [f"t{int(b.splitlines()[1].split('_')[0][1:]):02d}" for b in blocks]


@pytest.mark.parametrize(
    ("shots", "expected"),
    [
        (0, []),
        (1, [40]),
        (3, [40, 7, 1]),
        (5, [40, 7, 1, 47, 17]),
        (10, [40, 7, 1, 47, 17, 15, 14, 8, 58, 6]),
    ],
)
def test_examples_are_random_42_sample(shots: int, expected: list[int]) -> None:
    train = _train(62)  # the official train size
    assert sample_examples(train, shots) == random.Random(42).sample(train, shots)
    requests = build_requests([WALL, EXAMPLE], train, task="grouping", shots=shots)
    # indices pinned: on 62 walls the K examples are the first K of the 10-example draw
    assert _example_ids(requests[0]) == [f"t{i:02d}" for i in expected]
    assert _example_ids(requests[1]) == _example_ids(requests[0])  # same for every wall


def test_other_seed_other_examples() -> None:
    train = _train(62)
    requests = build_requests([WALL], train, task="connections", shots=3, seed=7)
    drawn = random.Random(7).sample(train, 3)
    assert _example_ids(requests[0]) == [w["wall_id"] for w in drawn]
    assert _example_ids(requests[0]) != ["t40", "t07", "t01"]


def test_bad_inputs() -> None:
    with pytest.raises(PromptError, match="5 in-context examples asked, but the train split has 3"):
        build_requests([WALL], _train(3), task="grouping", shots=5)
    with pytest.raises(PromptError, match="unknown task 'solve'"):
        build_requests([WALL], _train(3), task="solve", shots=0)
    with pytest.raises(PromptError, match="wall 'w1': field words: expected 16 clues"):
        make_request({**WALL, "words": WALL["words"][:15]}, "grouping", [])


def test_jsonl_round_trip(tmp_path: Path) -> None:
    requests = build_requests([WALL, EXAMPLE], _train(5), task="grouping", shots=3)
    path = tmp_path / "requests.jsonl"
    path.write_text(requests_jsonl(requests), encoding="utf-8")
    assert read_requests(path) == requests
    assert [json.loads(line) for line in path.read_text().splitlines()] == requests
    assert path.read_text().count("\n") == 2


# --------------------------------------------------------------------------------------
# The paper's wording (the default)
# --------------------------------------------------------------------------------------

PAPER_SYSTEM_START = (
    "You are currently competing in Round 3: Connecting Wall on the quiz show Only Connect. "
)
PAPER_ONE_SHOT = """\
Example solved wall(s):

Example 1
Brie, Feta, Edam, Gouda. Connection: Cheeses
Tango, Waltz, Salsa, Samba. Connection: Dances
Foxtrot, Hotel, Kilo, Lima. Connection: NATO alphabet
Paris, Rome, Oslo, Bern. Connection: European capitals

Clues:  Nuts, Crete, Hammer, Mojito, Kos, Suit, Wrench, Negroni, Rhodes, Puzzle, Chisel, \
Daiquiri, Business, Corfu, Pliers, Sidecar

Solved wall:"""


def test_paper_style_by_hand() -> None:
    one = make_request(WALL, "grouping", [EXAMPLE], model="m")
    assert one["body"]["messages"][1]["content"] == PAPER_ONE_SHOT
    assert one["body"]["messages"][0]["content"].startswith(PAPER_SYSTEM_START)
    params = {k: v for k, v in one["body"].items() if k not in ("model", "messages")}
    assert params == {
        "max_tokens": 144,
        "temperature": 0.0,
        "top_p": 1.0,
        "n": 1,
        "stop": "<|im_end|>",
        "stream": False,
    }
    zero = make_request(WALL, "grouping", [])["body"]["messages"][1]["content"]
    assert zero == "Example solved wall(s):\n\n\n\n" + PAPER_ONE_SHOT.split("\n\n", 2)[2]
    connections = make_request(WALL, "connections", [])["body"]["messages"][1]["content"]
    assert connections == (
        "Example solved wall(s):\n\n\n\nGroups:\n"
        + "\n".join(f"{', '.join(g)}. Connection:" for g in WALL_GROUPS)
        + "\n\nSolved wall:"
    )
    with pytest.raises(PromptError, match="unknown prompt style 'mine'"):
        make_request(WALL, "grouping", [], style="mine")


WALL_GROUPS = [g["gt_words"] for g in WALL["groups"].values()]


@pytest.mark.parametrize("shots", [0, 1, 3, 5, 10])
def test_paper_template_for_every_k(shots: int) -> None:
    test = json.loads((FIXTURE / "test.json").read_text())["dataset"]
    train = _train(62)
    drawn = random.Random(42).sample(train, shots)
    for task in ("grouping", "connections"):
        for wall, request in zip(
            test, build_requests(test, train, task=task, shots=shots), strict=True
        ):
            user = request["body"]["messages"][1]["content"]
            header, rest = user.split("\n\n", 1)
            assert header == "Example solved wall(s):" and user.endswith("\n\nSolved wall:")
            block = "\n\n".join(f"Example {i}\n{format_example(w)}" for i, w in enumerate(drawn, 1))
            question = rest.removeprefix(block + "\n\n").removesuffix("\n\nSolved wall:")
            if task == "grouping":
                assert question == "Clues:  " + ", ".join(wall["words"])
            else:
                assert question.startswith("Groups:\n") and question.count("\n") == 4


def test_a_train_wall_is_never_its_own_example() -> None:
    train = _train(11)
    requests = build_requests(train, train, task="grouping", shots=10)
    for wall, request in zip(train, requests, strict=True):
        others = [w for w in train if w["wall_id"] != wall["wall_id"]]
        expected = [w["wall_id"] for w in random.Random(42).sample(others, 10)]
        assert _example_ids(request) == expected
        assert wall["wall_id"] not in expected
    # a wall outside the pool gets the draw from the whole pool
    outside = build_requests([WALL], train, task="grouping", shots=10)[0]
    assert _example_ids(outside) == [w["wall_id"] for w in random.Random(42).sample(train, 10)]
    with pytest.raises(PromptError, match="has only 10 walls besides wall t00"):
        build_requests(train, train, task="grouping", shots=11)


@pytest.mark.filterwarnings("ignore::UserWarning")  # the data quirks the builder reports
def test_oracle_requests_byte_for_byte(
    ocw_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The notebook's three recorded requests for the first test wall (grouping K = 0, 1;
    connections K = 3) equal our default prompts output."""
    oracle = json.loads(
        (ocw_dir.parents[2] / "oracle" / "notebook" / "messages_examples.json").read_text()
    )
    cache = tmp_path_factory.mktemp("oracle")
    tmp = tmp_path_factory.mktemp("oracle-out")
    for name, task, shots in (
        ("nb_t1_k0", "grouping", 0),
        ("nb_t1_k1", "grouping", 1),
        ("nb_t2_k3", "connections", 3),
    ):
        out = tmp / f"{name}.jsonl"
        result = runner.invoke(
            app,
            [
                "prompts",
                "--data-dir",
                str(ocw_dir),
                "--cache-dir",
                str(cache),
                "--task",
                task,
                "--shots",
                str(shots),
                "--model",
                "gpt-4-0314",
                "--out",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        first = json.loads(out.read_text(encoding="utf-8").split("\n", 1)[0])
        expected = oracle[name]
        assert first["custom_id"] == expected["custom_id"] == "46fa44"
        assert first["body"]["messages"] == expected["messages"]
        recorded = {k: v for k, v in expected["kwargs"].items() if k != "deployment_id"}
        sent = {k: v for k, v in first["body"].items() if k != "messages"}
        assert json.dumps(sent, sort_keys=True) == json.dumps(recorded, sort_keys=True)


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------


def _prompts(*args: str, cache: Path):
    return runner.invoke(
        app,
        ["prompts", "--data-dir", str(FIXTURE), "--cache-dir", str(cache), "--no-checks", *args],
    )


def test_prompts_command(tmp_path: Path, cache: Path) -> None:
    out = tmp_path / "req.jsonl"
    result = _prompts("--task", "grouping", "--shots", "3", "--out", str(out), cache=cache)
    assert result.exit_code == 0, result.output
    requests = read_requests(out)
    test = json.loads((FIXTURE / "test.json").read_text())["dataset"]
    train = json.loads((FIXTURE / "train.json").read_text())["dataset"]
    assert [r["custom_id"] for r in requests] == [w["wall_id"] for w in test]
    assert requests[0]["body"]["model"] == "gpt-3.5-turbo"
    assert requests[0]["body"]["messages"][0]["content"].startswith(PAPER_SYSTEM_START)
    # Random(42).sample of the 3 train walls: indices [2, 0, 1]
    drawn = [train[i] for i in (2, 0, 1)]
    user = requests[2]["body"]["messages"][1]["content"]
    examples = "\n\n".join(f"Example {i}\n{format_example(w)}" for i, w in enumerate(drawn, 1))
    assert examples in user
    assert user.endswith("Clues:  " + ", ".join(test[2]["words"]) + "\n\nSolved wall:")
    assert "1,000" in user  # the clue with a comma is written as is


def test_prompts_connections_zero_shot_on_train(tmp_path: Path, cache: Path) -> None:
    out = tmp_path / "req.jsonl"
    result = _prompts(
        "--task",
        "connections",
        "--shots",
        "0",
        "--split",
        "train",
        "--model",
        "my-model",
        "--out",
        str(out),
        cache=cache,
    )
    assert result.exit_code == 0, result.output
    requests = read_requests(out)
    assert [r["custom_id"] for r in requests] == ["a001", "a002", "a003"]
    assert requests[0]["body"]["model"] == "my-model"
    assert requests[0]["body"]["messages"][1]["content"].startswith(
        "Example solved wall(s):\n\n\n\nGroups:\nThames, Fleet, Effra, Tyburn. Connection:\n"
    )


def test_prompts_bad_options(tmp_path: Path, cache: Path) -> None:
    out = tmp_path / "req.jsonl"
    result = _prompts("--task", "solve", "--shots", "0", "--out", str(out), cache=cache)
    assert result.exit_code == 1 and "--task solve: expected one of grouping, connections" in (
        result.output
    )
    result = _prompts("--task", "grouping", "--shots", "5", "--out", str(out), cache=cache)
    assert result.exit_code == 1
    assert "5 in-context examples asked, but the train split has 3 walls" in result.output
    assert not out.exists()
    result = _prompts(
        "--task", "grouping", "--shots", "0", "--out", str(FIXTURE / "test.json"), cache=cache
    )
    assert result.exit_code == 1 and "lies inside the input folder" in result.output
    result = _prompts(
        "--task", "grouping", "--shots", "0", "--config", "wote", "--out", str(out), cache=cache
    )
    assert result.exit_code == 1 and "--config wote" in result.output
