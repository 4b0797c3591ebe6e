"""A law over the real data: every gold connection of every split, named word for word in
each answer layout read (``Connection:`` lines, numbered, bulleted, labelled, plain, JSON;
with and without a heading and trailing commentary), scores exact match 1.0 through
``parse`` and full points through the connection round of the play protocol. 50 of the 2,472 gold
connections start or end with a quote (``"New" US States``), which the parser once
stripped; a heading line (``Here are the connections:``) once shifted every group by one."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from play_support import FIXTURE

import ocw_hub
from ocw_hub.data.sources import load_rows
from ocw_hub.llm.connections import robust_connections
from ocw_hub.llm.prompts import gold_groups
from ocw_hub.llm.responses import Response, parse_responses
from ocw_hub.play.conversation import connection_groups
from ocw_hub.play.scoring import score_play_log
from ocw_hub.play.turns import WallPlay, take_answer

SPLITS = ("train", "validation", "test")
HEADER = {
    "record": "play",
    "version": 2,
    "rules": "show",
    "max_guesses": 20,
    "max_invalid": 3,
    "config": "default",
    "player": "m",
    "player_kind": "model",
}


def _listed(groups: list[list[str]], names: list[str], line: str) -> str:
    return "\n".join(
        line.format(i=i, clues=", ".join(g), name=n)
        for i, (g, n) in enumerate(zip(groups, names, strict=True), 1)
    )


#: Each layout: the answer's body from the groups (as asked) and their connections.
LAYOUTS = {
    "paper": lambda g, n: _listed(g, n, "{clues}. Connection: {name}"),
    "paper, lines reversed": lambda g, n: _listed(g[::-1], n[::-1], "{clues}. Connection: {name}"),
    "connection lines": lambda g, n: _listed(g, n, "Connection: {name}"),
    "numbered connection lines": lambda g, n: _listed(g, n, "Connection {i}: {name}"),
    "bold marks": lambda g, n: _listed(g, n, "**{clues}** - **Connection:** {name}"),
    "numbered, with clues": lambda g, n: _listed(g, n, "{i}. {clues} - Connection: {name}"),
    "numbered": lambda g, n: _listed(g, n, "{i}. {name}"),
    "bulleted": lambda g, n: _listed(g, n, "- {name}"),
    "starred": lambda g, n: _listed(g, n, "* {name}"),
    "group labels": lambda g, n: _listed(g, n, "Group {i}: {name}"),
    "plain lines": lambda g, n: "\n".join(n),
    "json list": lambda g, n: json.dumps(n, ensure_ascii=False),
}
HEADINGS = (
    "",
    "Here are the connections:\n",
    "The connections are:\n\n",
    "## Connections\n",
    "**Connections:**\n",
)
COMMENTARY = (
    "",
    "\n\nThese were tricky; let me know if you want an explanation.",
    "\n\nNote: the second group was the hardest.",
)
ANSWERS = [
    (layout, heading, tail) for layout in LAYOUTS for heading in HEADINGS for tail in COMMENTARY
]


def _answer(index: int, groups: list[list[str]], names: list[str]) -> str:
    layout, heading, tail = ANSWERS[index]
    return heading + LAYOUTS[layout](groups, names) + tail


def _rows(folder: Path) -> dict[str, list[dict[str, Any]]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            s: load_rows("default", s, folder, verification_mode="no_checks").rows for s in SPLITS
        }


def _gold(wall: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    groups = gold_groups(wall)
    return [list(g["gt_words"]) for g in groups], [g["gt_connection"] for g in groups]


#: How each prompt style's answer holds the answer text (``cot``: after ``Final answer:``).
STYLES = {
    "paper": lambda answer: answer,
    "cot": lambda answer: "The first group is tools.\nFinal answer:\n" + answer,
    "cot, on the marker's line": lambda answer: "Thinking done.\n**Final answer:** " + answer,
}


def _parse_law(rows: list[dict[str, Any]]) -> None:
    """Every wall answered in every layout of every style: exact match 1.0 through ``parse``
    (robust mode; paper mode too on the paper's own layout, which it reads as the paper
    did)."""
    named, references, answers = [], [], []

    def parse(texts: dict[str, str], mode: str, style: str, what: Any) -> None:
        responses = {wall_id: Response(wall_id, text, 1) for wall_id, text in texts.items()}
        predictions, _ = parse_responses(
            responses, rows, task="connections", mode=mode, style=style.split(",")[0]
        )
        named.extend(p["predicted_connections"] for p in predictions)
        references.extend(_gold(w)[1] for w in rows)
        answers.extend([(mode, style, what)] * len(rows))

    for index, (layout, heading, tail) in enumerate(ANSWERS):
        texts = {str(w["wall_id"]): _answer(index, *_gold(w)) for w in rows}
        for style, frame in STYLES.items():  # cot: each layout once, as its prompt asks
            if style == "paper" or not (heading or tail):
                parse({k: frame(v) for k, v in texts.items()}, "robust", style, ANSWERS[index])
        if layout == "paper" and not heading:
            parse(texts, "paper", "paper", ANSWERS[index])
    objects = {str(w["wall_id"]): json.dumps({"connections": _gold(w)[1]}) for w in rows}
    parse(objects, "robust", "json", "object")
    metric = ocw_hub.load_metric("connections")
    scores = metric.compute(predictions=named, references=references, return_per_item=True)
    items = scores["per_item"]
    wrong = [a for a, item in zip(answers, items, strict=True) if item["exact_match"] < 1]
    assert not wrong, (len(wrong), wrong[:3])


def _at_connection_round(wall: dict[str, Any], split: str) -> tuple[WallPlay, list[Any]]:
    """The wall played to its connection round, its groups found in reverse gold order, and
    the records of its guesses."""
    play = WallPlay(wall, {**HEADER, "split": split})
    records = []
    for group in _gold(wall)[0][:0:-1]:
        records += take_answer(play, ", ".join(group), "stop", {})
    assert play.wants_connections
    return play, records


def _play_law(rows: list[dict[str, Any]], split: str, log: Path) -> None:
    """Every layout through the connection round of every wall (with the headings and tails
    in turn); then one log, an answer per wall in turn, scored as ``evaluate`` scores it: 10
    points a wall."""
    records: list[dict[str, Any]] = [{**HEADER, "split": split}]
    for number, wall in enumerate(rows):
        played, guesses = _at_connection_round(wall, split)
        asked = connection_groups(played.state)
        by_clues = {tuple(g): n for g, n in zip(*_gold(wall), strict=True)}
        names = [by_clues[tuple(g)] for g in asked]
        assert names != _gold(wall)[1]  # asked in another order than gold's
        for offset in range(len(LAYOUTS)):  # each layout, headings and tails in turn
            frames = len(HEADINGS) * len(COMMENTARY)
            index = offset * frames + (number + offset) % frames
            made = take_answer(copy.copy(played), _answer(index, asked, names), "stop", {})
            assert made[0]["answers"] == names, ANSWERS[index]
        records += guesses
        records += take_answer(played, _answer(number % len(ANSWERS), asked, names), "stop", {})
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    play = score_play_log(log, rows, "default")["play"]
    assert (play["connections_right"], play["points"]) == (4 * len(rows), 10 * len(rows))


def _quoted(rows: dict[str, list[dict[str, Any]]]) -> int:
    return sum(
        n[:1] in "\"'" or n[-1:] in "\"'"
        for split in rows.values()
        for w in split
        for n in _gold(w)[1]
    )


@pytest.mark.slow
@pytest.mark.parametrize("split", SPLITS)
def test_every_gold_connection_scores_in_every_layout(split: str, ocw_dir: Path, tmp_path) -> None:
    rows = _rows(ocw_dir)
    assert _quoted(rows) == 50  # the connections a stripped quote once cost
    _parse_law(rows[split])
    _play_law(rows[split], split, tmp_path / "play.jsonl")


def test_every_fixture_connection_scores_in_every_layout(tmp_path: Path) -> None:
    rows = _rows(FIXTURE)
    for split in SPLITS:
        _parse_law(rows[split])
        _play_law(rows[split], split, tmp_path / f"{split}.jsonl")


@pytest.mark.parametrize(
    "name",
    [
        '"New" US States',
        '"R"',
        '"Good ___!"',
        'Terms from "Go"',
        "Blond(e)s",
        "Domestic staff at Blandings (P.G. Wodehouse)",
        "-k/-que variation",
        "___ monkey",
    ],
)
def test_a_connection_keeps_its_quotes_and_brackets(name: str) -> None:
    groups = [[f"{w}{i}" for i in range(4)] for w in ("Alpha", "Beta", "Gamma", "Delta")]
    names = [name, "Cocktails", "Hand tools", "Rivers"]
    for index in range(len(ANSWERS)):
        assert robust_connections(_answer(index, groups, names), groups)[0] == names
