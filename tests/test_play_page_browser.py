"""The play page played in headless Chromium (Debian's ``chromium`` driven by Playwright, the
network off, as ``tests/test_report_browser.py``): clicks on tiles, a right group locking, wrong
guesses free before two groups and a life each after, a wall frozen by its lives, one frozen by
the clock (Playwright's fake clock), one given up, a wall with a clue twice, the connection
round, the downloaded play log checked against the play log's contract (ocw_hub.play.log) with the
verdicts worked out by hand, then replayed through the rules engine and scored by
``ocw-hub evaluate``. The first wall, solved, with its connection round, is kept as a
screenshot in ``build/play-page-screenshot.png`` to look at (``build/`` is git-ignored).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import REPO_ROOT, _require_browser, offline_page
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.cli._common import load_split_rows
from ocw_hub.play.log import VERSION
from ocw_hub.views.play_page import build_play_page

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::UserWarning")]
runner = CliRunner()
SCREENSHOT = REPO_ROOT / "build" / "play-page-screenshot.png"
VERDICTS = ("correct", "incorrect", "one_away", "invalid")
END_REASONS = ("solved", "frozen_lives", "frozen_guesses", "frozen_invalid", "gave_up", "time")


class Player:
    """One page open in Chromium, played through clicks; errors and requests recorded."""

    def __init__(self, page: Any, url: str) -> None:
        self.page, self.url = page, url

    def start(self) -> None:
        self.page.click("#start")
        self.page.wait_for_selector("#grid button.tile")

    def guess(self, clues: list[str]) -> str:
        """Click the tiles of ``clues`` (distinct tiles, not found yet); the verdict shown."""
        free = self.page.eval_on_selector_all(
            "#grid button.tile:not(.found)",
            "bs => bs.map(b => [Number(b.dataset.tile), b.textContent])",
        )
        tiles: list[int] = []
        for clue in clues:
            tiles.append(next(i for i, text in free if text == clue and i not in tiles))
        turn = int(self.page.get_attribute("#message", "data-turn") or 0)
        for tile in tiles:
            self.page.click(f'#grid button[data-tile="{tile}"]')
        self.page.wait_for_function(
            f"document.getElementById('message').dataset.turn === '{turn + 1}'"
        )
        return str(self.page.get_attribute("#message", "data-verdict"))

    def lives(self) -> int | None:
        if self.page.is_hidden("#lives"):
            return None
        return int(str(self.page.get_attribute("#lives", "data-lives")))

    def found(self) -> list[list[str]]:
        """The locked groups as the grid shows them (by colour class), in the order found."""
        tiles = self.page.eval_on_selector_all(
            "#grid button.found", "bs => bs.map(b => [b.className, b.textContent])"
        )
        groups: dict[str, list[str]] = {}
        for cls, text in tiles:
            groups.setdefault(next(c for c in cls.split() if c[0] == "g"), []).append(text)
        return [groups[k] for k in sorted(groups)]

    def resolved(self) -> list[list[str]]:
        """The wall's groups as the page shows them when it is over."""
        self.page.wait_for_selector("#connections:not([hidden]) #connection-list li")
        return list(
            self.page.eval_on_selector_all(
                "#connection-list li .clues",
                "ss => ss.map(s => [...s.querySelectorAll('.clue')].map(c => c.textContent))",
            )
        )

    def name_connections(self, answers: list[str]) -> None:
        inputs = self.page.query_selector_all("#connection-list input")
        assert len(inputs) == 4
        for field, answer in zip(inputs, answers, strict=True):
            field.fill(answer)
        self.page.click("#submit-connections")

    def download(self, folder: Path) -> Path:
        with self.page.expect_download() as info:
            self.page.click("#download")
        target = folder / info.value.suggested_filename
        info.value.save_as(target)
        return target


def play(html: Path, script: Any, folder: Path, clock: bool = False) -> tuple[Path, dict]:
    """Open ``html`` offline, run ``script(player)``; the downloaded log and what was seen."""
    url = html.resolve().as_uri()
    seen: dict[str, Any] = {"errors": [], "blocked": []}
    with offline_page(url, seen, accept_downloads=True) as page:
        if clock:
            page.clock.install()
        page.goto(url, wait_until="load")
        player = Player(page, url)
        script(player)
        log = player.download(folder)
    return log, seen


def check_log(path: Path, walls: dict[str, dict[str, Any]]) -> tuple[dict, dict[str, list]]:
    """The play log's contract (ocw_hub.play.log): header, then per wall its guesses,
    at most one connections record and one end record, clues of the wall still in play."""
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and all(lines[:-1])  # "\n"-terminated, no blank line
    header, *records = [json.loads(line) for line in lines[:-1]]
    assert header["record"] == "play" and header["version"] == VERSION == 2
    assert header["rules"] in ("show", "nyt") and header["player_kind"] == "human"
    for key in ("max_guesses", "max_invalid"):
        assert type(header[key]) is int and header[key] >= 1
    for key in ("config", "split", "player"):
        assert isinstance(header[key], str)
    by_wall: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_wall.setdefault(record["wall_id"], []).append(record)
    order = [r["wall_id"] for r in records]
    assert order == sorted(order, key=order.index)  # each wall's records in one block
    for wall_id, rs in by_wall.items():
        clues = Counter(walls[wall_id]["words"])
        *guesses, end = rs
        assert end["record"] == "end" and end["reason"] in END_REASONS
        if guesses and guesses[-1]["record"] == "connections":
            connections = guesses.pop()
            assert header["rules"] == "show"
            assert len(connections["groups"]) == 4 and len(connections["answers"]) == 4
            assert all(isinstance(a, str) for a in connections["answers"])
            assert Counter(c for g in connections["groups"] for c in g) == clues
        in_play = Counter(clues)
        for turn, g in enumerate(guesses, 1):
            assert g["record"] == "guess" and g["turn"] == turn
            assert g["invalid"] in (None, "already guessed")
            assert (g["verdict"] == "invalid") == (g["invalid"] is not None)
            assert g["verdict"] in VERDICTS and len(g["clues"]) == 4
            assert not Counter(g["clues"]) - in_play, g  # 4 clues of the wall still in play
            if g["verdict"] == "correct":
                in_play -= Counter(g["clues"])
    return header, by_wall


def _groups(row: dict[str, Any]) -> list[list[str]]:
    return [list(g["gt_words"]) for g in row["groups"].values()]


def _same_groups(a: list[list[str]], b: list[list[str]]) -> bool:
    return sorted(sorted(g) for g in a) == sorted(sorted(g) for g in b)


def _wrong(groups: list[list[str]], skip: int = 0) -> list[str]:
    """Two clues of each of two groups not found yet (groups ``skip`` and on)."""
    return groups[skip][:2] + groups[skip + 1][:2]


def replay_and_score(log: Path, rows: dict[str, dict], found: dict[str, int]) -> None:
    """The log replayed through the package's play log reader and rules: the same verdicts
    and ends (the reader raises otherwise) and the groups found expected."""
    from ocw_hub.play import log as play_log

    read = play_log.read_play_log(log)
    assert list(read.walls) == list(found)
    for wall_id, records in read.walls.items():
        state, _ = play_log.replay(log, records, play_log.start_state(read.header, rows[wall_id]))
        assert len(state.found) == found[wall_id], wall_id


@pytest.fixture(scope="module")
def test_rows(ocw_fixture_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    cache = tmp_path_factory.mktemp("cache")
    rows = load_split_rows("default", "test", ocw_fixture_dir, cache_dir=cache, no_checks=True)
    return {r["wall_id"]: r for r in rows}


def test_show_walls_played_in_chromium(
    tmp_path: Path, ocw_fixture_dir: Path, test_rows: dict[str, dict]
) -> None:
    _require_browser()
    html = tmp_path / "wall.html"
    done = runner.invoke(
        app,
        [
            "play-page",
            "--data-dir",
            str(ocw_fixture_dir),
            "--no-checks",
            "--walls",
            "5",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--out",
            str(html),
        ],
    )
    assert done.exit_code == 0, done.output
    ids = ["46fa44", "740d45", "cb4d9e", "0436ff", "654041"]
    g = {w: _groups(test_rows[w]) for w in ids}
    shown: dict[str, Any] = {}

    def script(p: Player) -> None:
        p.start()  # 46fa44: a free wrong guess, two groups, a life lost, the third: solved
        w = g["46fa44"]
        shown["free"] = (p.guess(_wrong(w)), p.lives())
        shown["first"] = (p.guess(w[0]), p.lives(), p.found())
        shown["free_after_one"] = (p.guess(_wrong(w, 1)), p.lives())
        shown["second"] = (p.guess(w[1]), p.lives())
        shown["life"] = (p.guess(_wrong(w, 2)), p.lives())
        shown["third"] = (p.guess(w[2]), p.found())
        shown["solved"] = p.resolved()
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        p.page.screenshot(path=str(SCREENSHOT), full_page=True)  # to look at, as the report's
        p.name_connections([test_rows["46fa44"]["gt_connections"][0], "no idea", "", "Quarks"])
        p.start()  # 740d45: two groups, then three lives lost: frozen
        w = g["740d45"]
        p.guess(w[1])
        p.guess(w[0])
        shown["frozen"] = [p.guess(_wrong(w, 2)) for _ in range(3)]
        shown["frozen_lives"] = p.lives()
        shown["frozen_groups"] = p.resolved()
        p.name_connections(["", "", "", ""])
        p.start()  # cb4d9e: the clock runs out before any guess
        p.page.clock.fast_forward("02:31")
        shown["time"] = p.resolved()
        shown["clock"] = p.page.text_content("#clock")
        p.name_connections(["a", "b", "c", "d"])
        p.start()  # 0436ff: one group, then given up
        p.guess(g["0436ff"][3])
        p.page.click("#give-up")
        shown["gave_up"] = p.resolved()
        p.name_connections(["", "", "", ""])
        p.start()  # 654041: a group holding a clue twice (Bask)
        w = g["654041"]
        bask = next(i for i, group in enumerate(w) if group.count("Bask") == 2)
        shown["bask"] = p.guess(w[bask])
        p.guess(w[(bask + 1) % 4])
        p.guess(w[(bask + 2) % 4])
        shown["bask_groups"] = p.resolved()
        p.name_connections(["", "", "", ""])
        shown["finished"] = p.page.is_hidden("#start")
        p.page.fill("#player", "tester one")

    log, seen = play(html, script, tmp_path, clock=True)
    assert seen["errors"] == [] and seen["blocked"] == []
    w = g["46fa44"]
    assert shown["free"] == ("incorrect", None)  # free before two groups: no lives shown
    assert shown["first"] == ("correct", None, [w[0]])  # locked on the grid
    assert shown["free_after_one"] == ("incorrect", None)
    assert shown["second"] == ("correct", 3)
    assert shown["life"] == ("incorrect", 2)
    assert shown["third"][0] == "correct" and _same_groups(shown["third"][1], w)  # 4th by itself
    assert _same_groups(shown["solved"], w)
    assert shown["frozen"] == ["incorrect"] * 3 and shown["frozen_lives"] == 0
    for key, wall in (("frozen_groups", "740d45"), ("time", "cb4d9e"), ("gave_up", "0436ff")):
        assert _same_groups(shown[key], g[wall]), key  # the groups not found, from the digests
    assert shown["clock"] == "0:00" and shown["bask"] == "correct" and shown["finished"]
    assert SCREENSHOT.stat().st_size > 10_000

    header, walls = check_log(log, test_rows)
    assert (header["rules"], header["player"], header["config"], header["split"]) == (
        "show",
        "tester one",
        "default",
        "test",
    )
    assert list(walls) == ids
    verdicts = {w: [r["verdict"] for r in rs if r["record"] == "guess"] for w, rs in walls.items()}
    assert verdicts == {
        "46fa44": ["incorrect", "correct", "incorrect", "correct", "incorrect", "correct"],
        "740d45": ["correct", "correct", "incorrect", "incorrect", "incorrect"],
        "cb4d9e": [],
        "0436ff": ["correct"],
        "654041": ["correct"] * 3,
    }
    ends = {w: rs[-1]["reason"] for w, rs in walls.items()}
    assert ends == {
        "46fa44": "solved",
        "740d45": "frozen_lives",
        "cb4d9e": "time",
        "0436ff": "gave_up",
        "654041": "solved",
    }
    answers = walls["46fa44"][-2]["answers"]
    assert answers == [test_rows["46fa44"]["gt_connections"][0], "no idea", "", "Quarks"]
    assert walls["46fa44"][-2]["groups"][:3] == [w[0], w[1], w[2]]  # in the order found
    found = {"46fa44": 4, "740d45": 2, "cb4d9e": 0, "0436ff": 1, "654041": 4}
    replay_and_score(log, test_rows, found)
    # scored by `ocw-hub evaluate` as a model's log; b308e4, not played, with --allow-missing
    results = tmp_path / "results.json"
    done = runner.invoke(
        app,
        [
            "evaluate",
            str(log),
            "--data-dir",
            str(ocw_fixture_dir),
            "--no-checks",
            "--allow-missing",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--out",
            str(results),
        ],
    )
    assert done.exit_code == 0, done.output
    scored = {w["wall_id"]: w["play"] for w in json.loads(results.read_text())["per_wall"]}
    assert {w: p["groups_found"] for w, p in scored.items() if p["played"]} == found
    assert not scored["b308e4"]["played"]
    # 46fa44: the 1st and 4th connections typed as the data spells them, 2 right: 4 + 2 points
    lives = {w: (p["lives_lost"], p["points"]) for w, p in scored.items() if p["played"]}
    assert lives == {
        "46fa44": (1, 6),
        "740d45": (3, 2),
        "cb4d9e": (0, 0),
        "0436ff": (0, 1),
        "654041": (0, 4),
    }


def test_nyt_wall_played_in_chromium(tmp_path: Path, test_rows: dict[str, dict]) -> None:
    """Under nyt: lives from the first guess, "one away", no connection round. The wall's first
    group holds clues whose code-point order is not their UTF-16 order (``ﬀ`` U+FB00 before
    ``😀`` U+1F600, whose first UTF-16 unit is U+D83D): the page sorts them as Python does."""
    _require_browser()
    row = json.loads(json.dumps(test_rows["46fa44"]))
    first = row["groups"]["group_1"]["gt_words"]
    swap = dict(zip(first, ["ﬀ", "😀", "Zebra", "a"], strict=True))
    row["words"] = [swap.get(c, c) for c in row["words"]]
    row["groups"]["group_1"]["gt_words"] = [swap[c] for c in first]
    html = tmp_path / "nyt.html"
    html.write_text(
        build_play_page([row], config="default", split="test", rules="nyt", clock=False),
        encoding="utf-8",
    )
    g = _groups(row)
    shown: dict[str, Any] = {}

    def script(p: Player) -> None:
        p.start()
        shown["lives0"] = p.lives()
        shown["one_away"] = (p.guess(g[0][:3] + g[1][:1]), p.lives())
        shown["wrong"] = (p.guess(_wrong(g)), p.lives())
        shown["right"] = (p.guess(g[0]), p.lives())
        shown["end"] = [p.guess(_wrong(g, 1)), p.guess(g[1][2:] + g[2][2:])]
        shown["groups"] = p.resolved()
        shown["no_round"] = p.page.query_selector_all("#connection-list input") == []

    log, seen = play(html, script, tmp_path)
    assert seen["errors"] == [] and seen["blocked"] == []
    assert shown["lives0"] == 4
    assert shown["one_away"] == ("one_away", 3) and shown["wrong"] == ("incorrect", 2)
    assert shown["right"] == ("correct", 2) and shown["end"] == ["incorrect", "incorrect"]
    assert _same_groups(shown["groups"], g) and shown["no_round"]
    header, walls = check_log(log, {"46fa44": row})
    assert header["rules"] == "nyt" and header["max_guesses"] == 7
    records = walls["46fa44"]
    assert [r["record"] for r in records] == ["guess"] * 5 + ["end"]
    assert records[-1]["reason"] == "frozen_lives"
    replay_and_score(log, {"46fa44": row}, {"46fa44": 1})


def test_guess_cap_freezes_the_wall(tmp_path: Path, test_rows: dict[str, dict]) -> None:
    """``--max-guesses 3``: the third guess freezes the wall whatever it was (here a free wrong
    guess after one group), as the rules engine does; the connection round follows."""
    _require_browser()
    row = test_rows["cb4d9e"]
    html = tmp_path / "capped.html"
    page = build_play_page([row], config="default", split="test", clock=False, max_guesses=3)
    html.write_text(page, encoding="utf-8")
    g = _groups(row)
    shown: dict[str, Any] = {}

    def script(p: Player) -> None:
        p.start()
        shown["verdicts"] = [p.guess(_wrong(g)), p.guess(g[2]), p.guess(_wrong(g))]
        shown["ended"] = p.page.get_attribute("#message", "data-ended")
        shown["lives"] = p.lives()
        shown["groups"] = p.resolved()
        p.name_connections([""] * 4)

    log, seen = play(html, script, tmp_path)
    assert seen["errors"] == [] and seen["blocked"] == []
    assert shown["verdicts"] == ["incorrect", "correct", "incorrect"]
    assert shown["ended"] == "frozen_guesses" and shown["lives"] is None
    assert _same_groups(shown["groups"], g)
    header, walls = check_log(log, {"cb4d9e": row})
    assert header["max_guesses"] == 3 and walls["cb4d9e"][-1]["reason"] == "frozen_guesses"
    replay_and_score(log, {"cb4d9e": row}, {"cb4d9e": 1})


#: Move sequences played on the page and through the engine: per wall, the guesses as
#: ("g", i) the gold group i, a key of ``_W`` (four (group, clue) pairs: a wrong guess), or
#: "give up" (last); repeats, one away and every way a wall ends by the rules among them.
_W = {
    "A": ((0, 0), (0, 1), (1, 0), (1, 1)),  # 2 + 2: wrong
    "A'": ((1, 1), (1, 0), (0, 1), (0, 0)),  # A again, clicked in another order
    "N": ((0, 0), (0, 1), (0, 2), (1, 0)),  # 3 + 1: one away under nyt
    "B": ((2, 0), (2, 1), (3, 0), (3, 1)),
    "C": ((2, 2), (2, 3), (3, 2), (3, 3)),
}
SEQUENCES = {
    "show": [
        ("46fa44", ["A", "A'", ("g", 0), ("g", 1), "B", "B", ("g", 2)]),  # repeats judged again
        ("740d45", [("g", 1), ("g", 0), "B", "C", "B"]),  # frozen by its lives
        ("cb4d9e", ["A", "N", "A", "B", "C", "A", "give up"]),  # free before two groups
    ],
    "nyt": [
        ("46fa44", ["N", "N", "A", "A'", ("g", 0), "B", ("g", 1), ("g", 2)]),  # repeats: free
        ("740d45", ["N", "A", "A'", "B", "B", "C"]),  # frozen by its mistakes
        ("cb4d9e", ["A", "A", "A'", "A"]),  # frozen by answers made again
    ],
}


def _move(groups: list[list[str]], move: Any) -> list[str]:
    if isinstance(move, tuple) and move[0] == "g":
        return list(groups[move[1]])
    return [groups[g][c] for g, c in _W[move]]


@pytest.mark.parametrize("rules_name", ["show", "nyt"])
def test_page_and_engine_play_alike(
    tmp_path: Path, test_rows: dict[str, dict], rules_name: str
) -> None:
    """The same moves through the page (clicks) and through the rules engine give the same
    verdicts, counters shown, log records (state after each guess included) and figures; the
    page states what the rule set states (its label, its connection round or none)."""
    from ocw_hub.play import rules
    from ocw_hub.play.log import gold_groups, guess_record
    from ocw_hub.play.scoring import score_play_log

    _require_browser()
    rows = [test_rows[w] for w, _ in SEQUENCES[rules_name]]
    html = tmp_path / f"{rules_name}.html"
    page = build_play_page(rows, config="default", split="test", rules=rules_name, clock=False)
    html.write_text(page, encoding="utf-8")
    engine_records: list[dict[str, Any]] = []
    expected: list[tuple[str, int | None]] = []
    for wall_id, moves in SEQUENCES[rules_name]:
        groups = gold_groups(test_rows[wall_id])
        state = rules.new_wall(rules_name, groups)
        for turn, move in enumerate(moves, 1):
            if move == "give up":
                state = dataclasses.replace(state, ended="gave_up")
                break
            verdict = rules.apply(state, _move(groups, move))
            engine_records.append(guess_record(wall_id, turn, _move(groups, move), verdict))
            expected.append((verdict.verdict, verdict.state.lives))
            state = verdict.state
        assert state.ended is not None, (wall_id, state)  # every sequence ends its wall
        engine_records.append({"record": "end", "wall_id": wall_id, "reason": state.ended})
    seen_moves: list[tuple[str, int | None]] = []
    shown: dict[str, Any] = {"labels": set(), "titles": [], "inputs": []}

    def script(p: Player) -> None:
        for wall_id, moves in SEQUENCES[rules_name]:
            p.start()
            groups = gold_groups(test_rows[wall_id])
            for move in moves:
                if move == "give up":
                    p.page.click("#give-up")
                    break
                seen_moves.append((p.guess(_move(groups, move)), p.lives()))
                if not p.page.is_hidden("#lives"):
                    shown["labels"].add(str(p.page.text_content("#lives")).split(":")[0])
            p.resolved()
            shown["titles"].append(p.page.text_content("#connections-title"))
            inputs = p.page.query_selector_all("#connection-list input")
            shown["inputs"].append(len(inputs))
            if inputs:
                p.name_connections(["", "", "", ""])
        shown["rules"] = p.page.text_content("#rules")

    log, seen = play(html, script, tmp_path)
    assert seen["errors"] == [] and seen["blocked"] == []
    assert seen_moves == expected
    rule_set = rules.RULE_SETS[rules_name]
    assert shown["labels"] == {rule_set.lives_label}
    assert shown["rules"] == rules.describe(rules_name, clock=False)
    round_ = rule_set.connection_round
    assert shown["inputs"] == [4 if round_ else 0] * 3
    assert shown["titles"] == ["Connections" if round_ else "The groups"] * 3
    assert log.name == f"play-{rules_name}-default-test.jsonl"
    header, walls = check_log(log, test_rows)
    page_records = [
        {k: v for k, v in r.items() if k != "seconds"}
        for rs in walls.values()
        for r in rs
        if r["record"] != "connections"
    ]
    assert page_records == engine_records  # verdicts, invalid reasons, states, ends
    # the page's log and the engine's score alike (the connection round typed empty)
    engine_log = tmp_path / "engine.jsonl"
    lines = [header] + [r for rs in walls.values() for r in rs if r["record"] == "connections"]
    engine_log.write_text(
        "".join(json.dumps(r) + "\n" for r in [header, *engine_records]), encoding="utf-8"
    )
    if round_:  # the engine's log with the same connection round
        by_wall: dict[str, list[dict[str, Any]]] = {}
        for r in engine_records:
            by_wall.setdefault(r["wall_id"], []).append(r)
        rounds = {r["wall_id"]: r for r in lines[1:]}
        ordered = [r for w, rs in by_wall.items() for r in (*rs[:-1], rounds[w], rs[-1])]
        engine_log.write_text(
            "".join(json.dumps(r) + "\n" for r in [header, *ordered]), encoding="utf-8"
        )
    split = list(test_rows.values())
    ours = score_play_log(log, split, "default", allow_missing=True)
    theirs = score_play_log(engine_log, split, "default", allow_missing=True)
    assert ours["play"] == theirs["play"]
    assert [w["play"] for w in ours["per_wall"]] == [w["play"] for w in theirs["per_wall"]]
    ends = {
        "show": {"frozen_lives": 1, "gave_up": 1, "solved": 1},
        "nyt": {"frozen_invalid": 1, "frozen_lives": 1, "solved": 1},
    }[rules_name]
    assert ours["play"]["n_played"] == 3 and ours["play"]["end_reasons"] == ends
