"""ocw-hub parse: the notebook's lenient parsing (paper mode) and the robust parser, on
hand-written model answers; the robust partition property; prompts -> fake server -> run-llm
-> parse -> evaluate end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer as FakeServer
from chat_server import last_user_message
from hypothesis import given, settings
from hypothesis import strategies as st
from llm_answers import answer_requests
from test_parsing import CONNECTIONS, EMPTY, GOLD, WORDS, lines
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.errors import PredictionsError
from ocw_hub.llm.connections import robust_connections
from ocw_hub.llm.paper_parse import paper_connections, paper_groups
from ocw_hub.llm.parsing import parse_groups
from ocw_hub.llm.responses import Response, parse_responses, read_responses

runner = CliRunner()
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"


def named(groups: list[list[str]], names: list[str], mark: str = ". Connection: ", sep="\n"):
    return sep.join(f"{', '.join(g)}{mark}{c}" for g, c in zip(groups, names, strict=True))


CONNECTION_CASES = {
    "plain": (named(GOLD, CONNECTIONS), CONNECTIONS, CONNECTIONS, set()),
    "lines reordered": (
        named(GOLD[::-1], CONNECTIONS[::-1]),
        CONNECTIONS[::-1],
        CONNECTIONS,
        {"reordered"},
    ),
    "blank lines between": (
        named(GOLD, CONNECTIONS, sep="\n\n"),
        ["Hand tools", "", "Cocktails", ""],
        CONNECTIONS,
        set(),
    ),
    "markdown and case": (
        named(GOLD, [f"{c}." for c in CONNECTIONS], ". **connection:** "),
        EMPTY,
        CONNECTIONS,
        set(),
    ),
    "bold marker": (
        named(
            [[f"**{g[0]}", *g[1:-1], f"{g[-1]}**"] for g in GOLD],
            CONNECTIONS,
            " - **Connection:** ",
        ),
        [f"** {c}" for c in CONNECTIONS],
        CONNECTIONS,
        set(),
    ),
    "no markers": ("\n".join(CONNECTIONS), EMPTY, CONNECTIONS, {"no_markers"}),
    "numbered out of order": (
        "2. Cocktails\n1. Hand tools\n4. Greek islands\n3. Monkey ___",
        EMPTY,
        CONNECTIONS,
        {"no_markers", "reordered"},
    ),
    "heading and commentary set aside": (
        "Here are the connections:\n" + named(GOLD, CONNECTIONS) + "\n\nThese were tricky.",
        ["", *CONNECTIONS[:3]],
        CONNECTIONS,
        {"set_aside"},
    ),
    "heading before numbered lines": (
        "The connections are:\n\n- Hand tools\n- Cocktails\n- Monkey ___\n- Greek islands",
        EMPTY,
        CONNECTIONS,
        {"no_markers", "set_aside"},
    ),
    "quotes and brackets kept": (
        named(GOLD, ['"Hand" tools', "Cocktails (mixed)", '"Monkey ___"', "Greek islands"]),
        ['"Hand" tools', "Cocktails (mixed)", '"Monkey ___"', "Greek islands"],
        ['"Hand" tools', "Cocktails (mixed)", '"Monkey ___"', "Greek islands"],
        set(),
    ),
    "one missing": (
        named(GOLD[1:], CONNECTIONS[1:]),
        [*CONNECTIONS[1:], ""],
        ["", *CONNECTIONS[1:]],
        {"reordered", "missing_connection"},
    ),
}


@pytest.mark.parametrize("case", list(CONNECTION_CASES))
def test_connection_answers(case: str) -> None:
    text, paper, robust, kinds = CONNECTION_CASES[case]
    assert paper_connections(text)[0] == paper
    connections, repairs = robust_connections(text, GOLD)
    assert connections == robust
    assert {r["kind"] for r in repairs} == kinds


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------

_RESERVED = re.compile(r"group|set|row|category|connection|and|clue|json", re.IGNORECASE)
CLUE = st.from_regex(r"[A-Z][a-z]{2,9}", fullmatch=True).filter(lambda w: not _RESERVED.search(w))
WALL_CLUES = st.lists(CLUE, min_size=16, max_size=16, unique_by=str.lower)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(WALL_CLUES, st.permutations(range(16)))
def test_paper_equals_robust_on_a_perfect_answer(clues: list[str], order: list[int]) -> None:
    groups = [[clues[i] for i in order[k : k + 4]] for k in range(0, 16, 4)]
    text = "\n".join(", ".join(g) for g in groups)
    paper = paper_groups(text)[0]
    robust = parse_groups(text, clues)
    assert paper == robust.groups == groups
    assert (robust.status, robust.repairs) == ("clean", [])
    connections = [f"Link {i}" for i in range(4)]
    text = named(groups, connections)
    assert paper_connections(text)[0] == robust_connections(text, groups)[0] == connections


# --------------------------------------------------------------------------------------
# Responses files
# --------------------------------------------------------------------------------------


def batch_line(wall_id: str, text: str | None, status: int = 200) -> dict[str, Any]:
    if status != 200:
        error = {"code": str(status), "message": "boom"}
        return {
            "custom_id": wall_id,
            "response": {"status_code": status, "body": {}},
            "error": error,
        }
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    return {"custom_id": wall_id, "response": {"status_code": 200, "body": body}, "error": None}


def _write(path: Path, records: list[Any]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records),
        encoding="utf-8",
    )
    return path


def test_read_responses_both_shapes(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "r.jsonl",
        [
            batch_line("a", None, status=500),
            batch_line("a", "answer a"),
            {"wall_id": "b", "text": "answer b"},
            batch_line("c", None, status=429),
            "",
            batch_line("d", None),
        ],
    )
    found = read_responses(path)
    assert {k: (v.text, v.line) for k, v in found.items()} == {
        "a": ("answer a", 2),
        "b": ("answer b", 3),
        "c": (None, 4),
        "d": ("", 6),
    }
    assert found["c"].problem == "request failed (status 429): boom"


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (["{oops"], r"r.jsonl, line 1: not valid JSON"),
        ([{"key": 1}], r"line 1: expected a batch output line"),
        ([{"wall_id": "a", "text": 3}], r"line 1 \(wall a\): field text: expected a string"),
        (
            [batch_line("a", "x"), batch_line("a", "y")],
            r"line 2: wall a already answered on line 1",
        ),
        ([{"wall_id": "a", "text": "x"}] * 2, r"line 2: wall a already answered on line 1"),
    ],
)
def test_bad_responses(tmp_path: Path, records: list[Any], message: str) -> None:
    with pytest.raises(PredictionsError, match=message):
        read_responses(_write(tmp_path / "r.jsonl", records))


def _wall(wall_id: str) -> dict[str, Any]:
    groups = {
        f"group_{i}": {"gt_words": g, "gt_connection": c}
        for i, (g, c) in enumerate(zip(GOLD, CONNECTIONS, strict=True), 1)
    }
    return {"wall_id": wall_id, "words": WORDS, "groups": groups}


def test_parse_responses_report() -> None:
    walls = [_wall("x"), _wall("y"), _wall("z"), _wall("q")]
    responses = {
        "x": Response("x", lines(*GOLD), 1),
        "y": Response("y", "Group 1: " + lines(*GOLD), 2),
        "q": Response("q", None, 3, "request failed (status 500): boom"),
    }
    predictions, report = parse_responses(responses, walls)
    assert [p["wall_id"] for p in predictions] == ["x", "y", "q"]
    assert predictions[0] == {
        "wall_id": "x",
        "predicted_groups": GOLD,
        "predicted_connections": None,
    }
    assert predictions[2]["predicted_groups"] == [EMPTY] * 4
    assert report["counts"] == {
        "clean": 2,
        "repaired": 0,
        "truncated": 0,
        "unrecoverable": 0,
        "no_response": 1,
        "missing": 1,
    }
    assert report["missing"] == ["z"]
    assert report["walls"][2]["repairs"][0] == {
        "kind": "no_response",
        "problem": "request failed (status 500): boom",
    }
    assert report["walls"][1]["text"] == "Group 1: " + lines(*GOLD)
    with pytest.raises(PredictionsError, match=r"r.jsonl: 1 responses are for walls not in"):
        parse_responses({"zz": Response("zz", "", 1)}, walls, source="r.jsonl")


# --------------------------------------------------------------------------------------
# End to end: prompts -> fake server -> run-llm -> parse -> evaluate
# --------------------------------------------------------------------------------------

TEST_WALLS = json.loads((FIXTURE / "test.json").read_text())["dataset"]
BY_ID = {w["wall_id"]: w for w in TEST_WALLS}


def _gold(wall_id: str) -> list[list[str]]:
    return [list(g["gt_words"]) for g in BY_ID[wall_id]["groups"].values()]  # a copy to edit


def grouping_answer(wall_id: str) -> str:
    """c001 gold; c002 gold with bold labels (paper mode misreads every first clue); c003
    groups 3 and 4 swap one clue (the comma clue ``1,000`` splits in paper mode); c004 no
    group right."""
    gold = _gold(wall_id)
    if wall_id == "c002":
        return lines(*gold, prefix="**Group {}:** ")
    if wall_id == "c003":
        gold[2][3], gold[3][3] = gold[3][3], gold[2][3]
    if wall_id == "c004":
        gold = [[gold[(i + k) % 4][k] for k in range(4)] for i in range(4)]
    return lines(*gold)


def connections_answer(wall_id: str) -> str:
    """c001 gold; c002 all wrong; c003 gold lines in reverse order (paper mode misaligns
    them); c004 groups 1 and 2 right, blank lines between (paper mode reads 1 of them)."""
    gold = _gold(wall_id)
    names = list(BY_ID[wall_id]["gt_connections"])
    if wall_id == "c002":
        names = ["Writers", "Colours", "Painters", "Rivers"]
    if wall_id == "c004":
        names[2:] = ["Kings", "Saints"]
    if wall_id == "c003":
        return named(gold[::-1], names[::-1])
    return named(gold, names, sep="\n\n" if wall_id == "c004" else "\n")


def which_wall(body: dict[str, Any]) -> tuple[str, str]:
    """(wall id, task) of a request, found by the wall's clues (task 1) or first gold group
    (task 2) after the in-context examples."""
    message = last_user_message(body)
    for wall_id, wall in BY_ID.items():
        if "Clues:  " + ", ".join(wall["words"]) in message:
            return wall_id, "grouping"
        if "Groups:\n" + ", ".join(_gold(wall_id)[0]) + ". Connection:" in message:
            return wall_id, "connections"
    raise AssertionError(f"unknown wall in {message!r}")


def answer(body: dict[str, Any]) -> str:
    """The fake model's answers (see grouping_answer and connections_answer)."""
    wall_id, task = which_wall(body)
    return grouping_answer(wall_id) if task == "grouping" else connections_answer(wall_id)


def _wall_of(body: dict[str, Any]) -> str:
    return which_wall(body)[0]


def _cli(*args: str, cache: Path | None = None, code: int = 0) -> Any:
    """``ocw-hub ARGS``, with the LLM fixture walls as its data when ``cache`` is given; it
    must exit with ``code`` (also used by the other LLM command tests)."""
    data = ["--data-dir", str(FIXTURE), "--cache-dir", str(cache), "--no-checks"] if cache else []
    result = runner.invoke(app, [*args, *data])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> dict[str, Path]:
    """Both tasks' requests (prompts) answered by the scripted server, as a batch output."""
    folder = tmp_path_factory.mktemp("e2e")
    server = FakeServer(answer, key=_wall_of)
    try:
        out = {}
        for task in ("grouping", "connections"):
            requests = folder / f"{task}-requests.jsonl"
            _cli(
                "prompts",
                "--task",
                task,
                "--shots",
                "1",
                "--model",
                "fake",
                "--out",
                str(requests),
                cache=cache,
            )
            out[task] = folder / f"{task}-responses.jsonl"
            answer_requests(requests, out[task], server.url)
        assert server.count == {"c001": 2, "c002": 2, "c003": 2, "c004": 2}
    finally:
        server.close()
    return out


@pytest.mark.parametrize(
    ("mode", "full_wall", "correct_groups", "clean"),
    [("robust", 2, 4 + 4 + 2 + 0, 4), ("paper", 1, 4 + 0 + 1 + 0, 3)],
)
def test_end_to_end_grouping(
    tmp_path: Path,
    logs: dict[str, Path],
    cache: Path,
    mode: str,
    full_wall: int,
    correct_groups: int,
    clean: int,
) -> None:
    predictions = tmp_path / "predictions.json"
    result = _cli(
        "parse", str(logs["grouping"]), "--mode", mode, "--out", str(predictions), cache=cache
    )
    assert "4 predictions written" in result.output
    report = json.loads((tmp_path / "predictions.json.parse.json").read_text())
    assert report["counts"]["clean"] == clean and report["counts"]["missing"] == 0
    assert report["walls"][1]["text"] == grouping_answer("c002")
    results_path = tmp_path / "results.json"
    _cli("evaluate", str(predictions), "--out", str(results_path), cache=cache)
    results = json.loads(results_path.read_text())
    assert results["grouping"]["full_wall"] == full_wall
    assert results["grouping"]["correct_groups"] == correct_groups
    assert results["grouping"]["correct_groups_rate"] == correct_groups / 16
    assert "connections" not in results or results["connections"] is None
    # the protocol recorded by prompts, the answers' producer (tests/llm_answers.py) and parse
    protocol = dict(results["protocol"])
    assert protocol.pop("usage")["requests"] == 4  # the producer's usage (tests/test_usage.py)
    assert protocol == {
        "method": "llm",
        "task": "grouping",
        "model": "fake",
        "prompt_style": "paper",
        "shots": 1,
        "seed": 42,
        "profile": "paper",
        "generation": {
            "max_tokens": 144,
            "temperature": 0.0,
            "top_p": 1.0,
            "n": 1,
            "stop": "<|im_end|>",
            "stream": False,
        },  # the requests' record
        "parse_mode": mode,
        "package_version": ocw_hub.__version__,
    }


@pytest.mark.parametrize(("mode", "exact"), [("robust", 4 + 0 + 4 + 2), ("paper", 4 + 0 + 0 + 1)])
def test_end_to_end_connections(
    tmp_path: Path, logs: dict[str, Path], cache: Path, mode: str, exact: int
) -> None:
    predictions = tmp_path / "predictions.json"
    _cli(
        "parse",
        str(logs["connections"]),
        "--task",
        "connections",
        "--mode",
        mode,
        "--out",
        str(predictions),
        cache=cache,
    )
    results_path = tmp_path / "results.json"
    _cli("evaluate", str(predictions), "--out", str(results_path), cache=cache)
    results = json.loads(results_path.read_text())
    assert results["connections"]["exact_match"] == exact / 16


def test_parse_command_errors(tmp_path: Path, logs: dict[str, Path], cache: Path) -> None:
    out = tmp_path / "p.json"
    result = runner.invoke(
        app, ["parse", str(logs["grouping"]), "--mode", "loose", "--out", str(out)]
    )
    assert result.exit_code == 1 and "--mode loose: expected one of paper, robust" in result.output
    result = runner.invoke(
        app,
        [
            "parse",
            str(logs["grouping"]),
            "--out",
            str(logs["grouping"]),
            "--data-dir",
            str(FIXTURE),
            "--cache-dir",
            str(cache),
            "--no-checks",
        ],
    )
    assert result.exit_code == 1 and "is an input of this command" in result.output
    result = runner.invoke(
        app,
        [
            "parse",
            str(logs["grouping"]),
            "--split",
            "train",
            "--out",
            str(out),
            "--data-dir",
            str(FIXTURE),
            "--cache-dir",
            str(cache),
            "--no-checks",
        ],
    )
    assert result.exit_code == 1 and "4 responses are for walls not in this split" in result.output
    assert not out.exists()


def test_parse_warns_about_walls_without_response(tmp_path: Path, cache: Path) -> None:
    responses = _write(tmp_path / "r.jsonl", [{"wall_id": "c001", "text": grouping_answer("c001")}])
    out = tmp_path / "p.json"
    result = _cli("parse", str(responses), "--out", str(out), cache=cache)
    assert "3 walls of default/test have no response (c002, c003, c004)" in result.output
    assert [p["wall_id"] for p in json.loads(out.read_text())] == ["c001"]


@pytest.mark.filterwarnings("ignore::UserWarning")  # the data quirks the builder reports
def test_full_scale_gold_answers(ocw_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The 494 walls of the stand-in test split answered with their gold groups, one line
    each: robust mode reads every wall back exactly (the clues holding commas, ``8.5``, the
    walls with a repeated clue); paper mode splits the clues that hold a comma."""
    from ocw_hub.data.sources import load_split
    from ocw_hub.llm.prompts import build_requests

    cache = tmp_path_factory.mktemp("full")
    test = load_split("default", "test", ocw_dir, cache_dir=cache).to_list()
    train = load_split("default", "train", ocw_dir, cache_dir=cache).to_list()
    requests = build_requests(test, train, task="grouping", shots=3)
    assert len(requests) == 494
    assert (
        "Example 1\n" + ", ".join(train[40]["groups"]["group_1"]["gt_words"])
        in (requests[0]["body"]["messages"][1]["content"])
    )
    misread = []
    for wall in test:
        gold = [g["gt_words"] for g in wall["groups"].values()]
        text = lines(*gold)
        result = parse_groups(text, wall["words"])
        assert (result.groups, result.status) == (gold, "clean"), wall["wall_id"]
        if paper_groups(text)[0] != gold:
            misread.append(wall["wall_id"])
    with_comma = [w["wall_id"] for w in test if any("," in c for c in w["words"])]
    assert misread == with_comma


def test_an_empty_responses_file_is_an_error(tmp_path: Path) -> None:
    from ocw_hub.errors import PredictionsError
    from ocw_hub.llm.responses import read_responses

    path = tmp_path / "responses.jsonl"
    path.write_text("\n")
    with pytest.raises(PredictionsError, match="holds no responses"):
        read_responses(path)


def _choice_line(wall_id: str, content: str, **extra: Any) -> dict[str, Any]:
    finish = extra.pop("finish_reason", "stop")
    message = {"role": "assistant", "content": content, **extra}
    body = {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    return {"custom_id": wall_id, "response": {"status_code": 200, "body": body}, "error": None}


def test_reasoning_truncation_and_line_breaks(tmp_path: Path) -> None:
    answer = lines(*GOLD)
    path = _write(
        tmp_path / "r.jsonl",
        [
            _choice_line("a", "", reasoning_content="Hammer goes with Wrench"),
            _choice_line("b", answer + "\nThe red\u2028herring", finish_reason="length"),
            _choice_line("c", lines(*GOLD[:3]) + "\nCrete, Rho", finish_reason="length"),
            _choice_line("d", "<think>Nuts\u2028Kos</think>" + answer),
            _choice_line("e", "<think>Nuts, Kos, " + answer),
        ],
    )
    responses = read_responses(path)
    assert responses["b"].text.endswith("red\u2028herring")
    walls = [_wall(w) for w in "abcde"]
    predictions, report = parse_responses(responses, walls)
    assert [(w["status"], w["reason"]) for w in report["walls"]] == [
        ("unrecoverable", "reasoning_only"),
        ("unrecoverable", "truncated"),
        ("unrecoverable", "truncated"),
        ("repaired", None),
        ("unrecoverable", "unclosed_reasoning"),
    ]
    assert report["unrecoverable"] == {
        "reasoning_only": 1,
        "truncated": 2,
        "unclosed_reasoning": 1,
    }
    assert predictions[1]["predicted_groups"] == [EMPTY] * 4
    assert [w["reasoning"] for w in report["walls"]][:2] == ["Hammer goes with Wrench", None]
    predictions, report = parse_responses(responses, walls, allow_truncated=True)
    assert report["counts"]["truncated"] == 2 and report["allow_truncated"] is True
    assert predictions[1]["predicted_groups"] == GOLD
    assert predictions[2]["predicted_groups"][3] == ["Crete", "Kos", "Rhodes", "Corfu"]
    assert report["walls"][2]["repairs"][-1]["kind"] == "completed"
