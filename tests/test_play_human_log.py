"""A play log as the play page writes it, scored by ``evaluate``'s code (kept from the tests
of the retired ``ocw-hub play`` command)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from play_support import fixture_rows

from ocw_hub.play.scoring import human_play, score_play_log


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
