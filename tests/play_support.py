"""A scripted contestant for the play protocol's tests (``ocw_play``): answers the chat server
(:mod:`chat_server`) by reading the conversation, each wall following a plan by wall id.

Plans (``PLANS``): ``perfect`` (a near miss first, then three gold groups; connections as
the data names them), ``frozen`` (two gold groups, then wrong guesses; one connection right),
``refusal`` (refuses every turn; no connection right), ``plain`` (three gold groups; every
connection wrong). The answer depends only on the conversation, so a resumed run gets the
answers an uninterrupted one gets.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from ocw_hub.data.sources import load_rows
from ocw_hub.play.log import gold_groups

FIXTURE = Path(__file__).resolve().parent / "data" / "ocw" / "dataset"
#: The plan of each fixture test wall (walls not named play ``plain``).
PLANS = {"46fa44": "perfect", "740d45": "frozen", "cb4d9e": "refusal"}


def fixture_rows(split: str = "test", folder: Path = FIXTURE) -> list[dict[str, Any]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_rows("default", split, folder, verification_mode="no_checks").rows


class Contestant:
    """``answer(body) -> text`` for :class:`chat_server.ChatServer`."""

    def __init__(self, rows: list[dict[str, Any]], plans: dict[str, str] | None = None) -> None:
        self.by_clues = {", ".join(r["words"]): r for r in rows}
        self.plans = PLANS if plans is None else plans

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body["messages"]
        clues = messages[1]["content"].split("Clues: ", 1)[1].split("\n\n", 1)[0]
        wall = self.by_clues[clues]
        groups = gold_groups(wall)
        plan = self.plans.get(wall["wall_id"], "plain")
        turn = sum(m["role"] == "assistant" for m in messages)
        if "Connection:" in messages[-1]["content"]:
            return self._connections(wall, messages[-1]["content"], plan)
        if plan == "refusal":
            return "I cannot help with that. [red]\x1b[31mno[/red]"
        if plan == "perfect":
            if turn == 0:  # three clues of group 1, one of group 2: one away under nyt
                return ", ".join([*groups[0][:3], groups[1][0]])
            return "Group: " + ", ".join(groups[turn - 1])
        if plan == "frozen" and turn >= 2:  # wrong guesses, each another (2 + 2 clues)
            i, j = [(0, 0), (1, 1), (2, 2), (0, 2), (2, 0), (1, 1)][min(turn - 2, 5)]
            return ", ".join([*groups[2][i : i + 2], *groups[3][j : j + 2]])
        return ", ".join(groups[turn])

    def _connections(self, wall: dict[str, Any], asked: str, plan: str) -> str:
        by_group = {", ".join(g["gt_words"]): g["gt_connection"] for g in wall["groups"].values()}
        asked_lines = [line for line in asked.splitlines() if line.endswith(". Connection:")]
        lines = []
        for number, line in enumerate(asked_lines):
            gold = by_group[line.removesuffix(". Connection:")]
            right = plan == "perfect" or (plan == "frozen" and number == 0)
            lines.append(f"{line} {gold if right else 'no idea'}")
        return "\n".join(lines)


def write_play_log(
    path: Path,
    rows: list[dict[str, Any]],
    rules_name: str = "show",
    config: str = "default",
    model: str = "m",
) -> Path:
    """The play log of ``rows`` played by the :class:`Contestant` turn by turn through the
    package's rules engine, as the inspect task ``ocw_play`` plays them (its solver's loop
    without a server): the header ``play_log_from_eval`` writes, then each wall's records."""
    import json

    from ocw_hub.play import rules
    from ocw_hub.play.log import VERSION
    from ocw_hub.play.turns import WallPlay, take_answer

    header = {
        "record": "play",
        "version": VERSION,
        "rules": rules_name,
        "max_guesses": rules.default_max_guesses(rules_name),
        "max_invalid": rules.DEFAULT_MAX_INVALID,
        "config": config,
        "split": "test",
        "player": model,
        "player_kind": "model",
        "model": model,
        "generation": {},
    }
    contestant = Contestant(rows)
    lines: list[dict[str, Any]] = [header]
    for row in rows:
        wall = WallPlay(row, header)
        while not wall.done:
            text = contestant({"messages": wall.messages, "model": model})
            lines += take_answer(wall, text, "stop", {})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def human_log(path: Path, lines: list[dict[str, Any]]) -> Path:
    """A person's version-1 show log at ``path`` (player: its stem) holding ``lines``."""
    head = {
        "record": "play",
        "version": 1,
        "rules": "show",
        "max_guesses": 20,
        "max_invalid": 3,
        "config": "default",
        "split": "test",
        "player": path.stem,
        "player_kind": "human",
    }
    path.write_text("".join(json.dumps(r) + "\n" for r in [head, *lines]), encoding="utf-8")
    return path
