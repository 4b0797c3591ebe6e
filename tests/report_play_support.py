"""Play results for the report's tests (``tests/test_report_play*.py``): the 6 fixture test
walls played turn by turn by :class:`play_support.Contestant` through the rules engine, as the
inspect task ``ocw_play`` plays them (:func:`play_support.write_play_log`), under ``show`` and
``nyt``; a person's log as the play page writes it (:func:`write_human_log`); a one-shot run
of the random baseline on the same walls; each scored by ``ocw-hub evaluate``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from play_support import FIXTURE, fixture_rows, write_play_log
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.play.log import gold_groups

DATA = ["--data-dir", str(FIXTURE), "--no-checks"]
runner = CliRunner()


def cli(*args: str) -> None:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def write_human_log(path: Path, rows: list[dict[str, Any]], config: str = "default") -> None:
    """A person ("ana", rules show): the even walls solved in 3 gold guesses with the first
    two connections named right; the odd ones one wrong guess, then given up."""
    head = {
        "record": "play",
        "version": 1,
        "rules": "show",
        "max_guesses": 20,
        "max_invalid": 3,
        "config": config,
        "split": "test",
        "player": "ana",
        "player_kind": "human",
    }
    lines: list[dict[str, Any]] = [head]
    for index, wall in enumerate(rows):
        wall_id, groups = wall["wall_id"], gold_groups(wall)
        guess = {"record": "guess", "wall_id": wall_id, "invalid": None}
        if index % 2:
            wrong = [g[0] for g in groups]  # one clue of each group: never a group
            lines.append({**guess, "turn": 1, "clues": wrong, "verdict": "incorrect"})
            lines.append({"record": "end", "wall_id": wall_id, "reason": "gave_up"})
            continue
        for turn in (1, 2, 3):
            lines.append({**guess, "turn": turn, "clues": groups[turn - 1], "verdict": "correct"})
        named = {", ".join(g["gt_words"]): g["gt_connection"] for g in wall["groups"].values()}
        answers = [named[", ".join(g)] if i < 2 else "no idea" for i, g in enumerate(groups)]
        lines.append(
            {"record": "connections", "wall_id": wall_id, "groups": groups, "answers": answers}
        )
        lines.append({"record": "end", "wall_id": wall_id, "reason": "solved"})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")


def randomized_rows() -> list[dict[str, Any]]:
    """The fixture's ``ocw_randomized`` test walls (rebuilt from groups of different walls)."""
    import warnings

    from ocw_hub.data.sources import load_rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_rows("ocw_randomized", "test", FIXTURE, verification_mode="no_checks").rows


def play_results(folder: Path, config: str = "default") -> dict[str, Path]:
    """Results files of ``config``'s fixture test walls by name: ``play-show`` and
    ``play-nyt`` (model ``m`` against the scripted contestant), ``play-ana`` (a person's log),
    ``oneshot`` (the random baseline, 2 runs); the play results with 95 % bootstrap intervals
    (100 resamples)."""
    rows = fixture_rows() if config == "default" else randomized_rows()
    data = [*DATA, "--config", config]
    logs = {}
    for rules in ("show", "nyt"):
        logs[f"play-{rules}"] = write_play_log(folder / f"play-{rules}.jsonl", rows, rules, config)
    logs["play-ana"] = folder / "play-ana.jsonl"
    write_human_log(logs["play-ana"], rows, config)
    out = {}
    for name, log in logs.items():
        out[name] = folder / f"{name}.json"
        cli("evaluate", str(log), *data, "--out", str(out[name]), "--bootstrap", "100")
    predictions = folder / "random"
    cli("predict", "-m", "random", "--runs", "2", "--out", str(predictions), *data)
    out["oneshot"] = folder / "oneshot.json"
    cli("evaluate", str(predictions), *data, "--out", str(out["oneshot"]))
    return out
