"""The report's play section opened in headless Chromium (the helpers of
:mod:`test_report_browser`): a report of play results (a model under show and nyt, a person's
log) and a one-shot run on the fixture walls (:mod:`report_play_support`). Checked: no console
error, no request leaves the file, every plot drawn, the headline figures equal the results
JSON, and every number of the play table, as Chromium shows it, equals the results JSON's
(``play``, ``human.play``, ``ci95.play``), with the rules and player in the section's title.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from report_play_support import DATA, cli, play_results
from test_report_browser import ARGS, CHROMIUM, _require_browser, check_page, open_in_chromium

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::UserWarning")]

#: The play table's rows of totals (label as shown -> the results' name).
TOTAL_ROWS = {
    "groups found": "groups_found",
    "walls solved": "walls_solved",
    "guesses": "guesses",
    "wrong guesses": "wrong_guesses",
    "lives lost": "lives_lost",
    "invalid answers": "invalid",
    "frozen walls": "frozen",
    "connections right": "connections_right",
    "points (0-10 a wall)": "points",
}
NAMES = ("oneshot", "play-show", "play-nyt", "play-ana")


def _numbers(cell: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", cell)]


def _play_tables(report: Path) -> list[dict[str, Any]]:
    """The play sections as Chromium shows them: title, table header and rows (text)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_context(offline=True).new_page()
            page.goto(report.resolve().as_uri(), wait_until="load")
            return page.eval_on_selector_all(  # type: ignore[no-any-return]
                "section.play",
                "ss => ss.map(s => { const read = (t) => ({"
                " header: [...s.querySelectorAll(t + ' thead th')].map(c => c.textContent),"
                " rows: [...s.querySelectorAll(t + ' tbody tr')].map("
                "r => [...r.children].map(c => c.textContent))});"
                " return {title: s.querySelector('h3').textContent, ...read('table.play'),"
                " seasons: read('table.play-seasons')}; })",
            )
        finally:
            browser.close()


def _expected_cells(results: dict[str, Any]) -> dict[str, tuple[list[float], list[float]]]:
    """Figure -> (the player's numbers, the contestants') from the results JSON: a total, the
    mean a wall and its 95 % interval; ``[]`` where the figure does not exist (``-``)."""
    play, human = results["play"], results["human"]["play"]
    intervals = results["ci95"]["play"]
    out = {"walls played": ([play["n_played"]], [human["n_walls"]])}
    for label, name in TOTAL_ROWS.items():
        ours = [] if play[name] is None else [play[name], play[f"{name}_mean"]]
        ours += intervals.get(f"{name}_mean", []) if ours else []
        out[label] = (ours, [] if human[name] is None else [human[name]])
    labels = {"model_only": "player only", "contestants_only": "contestants only"}
    for key, count in play["agreement"].items():
        out[f"groups found: {labels.get(key, key)}"] = ([count], [])
    lives = [float(x) for item in play["lives_lost_distribution"].items() for x in item]
    out["walls by lives lost"] = (lives, [])
    return out


def test_play_report_in_chromium(tmp_path: Path) -> None:
    _require_browser()
    made = play_results(tmp_path)
    out = tmp_path / "report.html"
    cli(
        "report",
        *(str(made[n]) for n in NAMES),
        "--out",
        str(out),
        *DATA,
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    results = {n: json.loads(made[n].read_text(encoding="utf-8")) for n in NAMES}
    seen = open_in_chromium(out)
    check_page(seen, results)  # no error, no request, plots drawn, headline = results
    assert sum(tag == "svg" for tag, _, _ in seen["sizes"]) >= 3 + 3  # one-shot plots + play's
    sections = _play_tables(out)
    assert len(sections) == 1
    section = sections[0]
    header, rows = section["header"], {r[0]: r[1:] for r in section["rows"]}
    assert header[0] == "figure" and header[-1] == "contestants"
    checked = 0
    for name in NAMES[1:]:
        data = results[name]
        log = data["play_log"]
        who = {"human": "human player"}.get(log["player_kind"], log["player_kind"])
        said = f"{name} (rules {log['rules']}, {who} {log['player']}; stand-in)"
        assert said in section["title"] and said in header  # what it was computed on
        column = header.index(said) - 1
        assert rows["rules"][column] == log["rules"]
        for figure, (ours, theirs) in _expected_cells(data).items():
            assert _numbers(rows[figure][column]) == pytest.approx(ours, abs=0.005), figure
            assert _numbers(rows[figure][-1]) == pytest.approx(theirs, abs=0.005), figure
            checked += 1
    assert "oneshot" not in " ".join(header)
    assert checked == 3 * (1 + len(TOTAL_ROWS) + 4 + 1)
    nyt = header.index(next(h for h in header if h.startswith("play-nyt "))) - 1
    assert rows["points (0-10 a wall)"][nyt] == "-"  # nyt: no connection round, no points
    # by season: the means a wall of per_wall[*].play and per_wall[*].human.play
    seasons = section["seasons"]
    by_row = {r[0]: r[1:] for r in seasons["rows"]}
    for name in NAMES[1:]:
        data = results[name]
        column = [h.split(" (")[0] for h in seasons["header"]].index(name) - 1
        for season in {str(w["season"]) for w in data["per_wall"]}:
            walls = [w for w in data["per_wall"] if str(w["season"]) == season]
            row = by_row[f"{season} ({len(walls)})"]
            groups = sum(w["play"]["groups_found"] for w in walls) / len(walls)
            points = sum(w["play"]["points"] or 0 for w in walls) / len(walls)
            expected = [groups] if data["play"]["points"] is None else [groups, points]
            assert _numbers(row[column]) == pytest.approx(expected, abs=0.005), (name, season)
            human = [w["human"]["play"] for w in walls]
            theirs = [sum(h[k] for h in human) / len(walls) for k in ("groups_found", "points")]
            assert _numbers(row[-1]) == pytest.approx(theirs, abs=0.005), season
