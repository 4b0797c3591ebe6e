"""The report's play section (``ocw_hub.views.report_play``) on play results computed from
real play logs of the fixture walls (:mod:`report_play_support`): the section's data checked
against the results JSON ``ocw-hub evaluate`` wrote, and the page of play and one-shot
results together."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from report_play_support import DATA, cli, play_results

from ocw_hub.results import read_results
from ocw_hub.views.report import build_report
from ocw_hub.views.report_play import (
    AGREEMENT_LABELS,
    NO_HUMAN_POINTS,
    computed_on,
    lives_keys,
    play_files,
    play_table,
    plot_play_agreement,
    plot_play_lives,
    plot_play_seasons,
    season_figures,
    season_table,
)
from ocw_hub.views.summary import play_rows

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return play_results(tmp_path_factory.mktemp("play-results"))


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _numbers(cell: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", cell)]


def test_play_section_data_equals_the_results(made: dict[str, Path]) -> None:
    files = read_results([made[n] for n in ("oneshot", "play-show", "play-nyt", "play-ana")])
    plays = play_files(files)
    assert [f.label for f in plays] == ["play-show", "play-nyt", "play-ana"]  # not the one-shot
    assert [computed_on(f) for f in plays] == [
        "rules show, model m",
        "rules nyt, model m",
        "rules show, human player ana",
    ]
    header, rows = play_table(plays)
    assert header[1:] == [f"{f.label} ({computed_on(f)}; stand-in)" for f in plays] + [
        "contestants"
    ]
    table = {row[0]: row[1:] for row in rows}
    for column, f in enumerate(plays):
        data = f.data
        play, human = data["play"], data["human"]["play"]
        interval = data["ci95"]["play"]["groups_found_mean"]
        assert _numbers(table["groups found"][column]) == pytest.approx(
            [play["groups_found"], play["groups_found_mean"], *interval], abs=0.005
        )
        assert _numbers(table["lives lost"][column])[0] == play["lives_lost"]
        assert _numbers(table["walls played"][column]) == [play["n_played"]]
        for key, name in AGREEMENT_LABELS:
            label = f"groups found: {name}"
            assert _numbers(table[label][column]) == [play["agreement"][key]]
        if data["play_log"]["rules"] == "nyt":
            assert table["points (0-10 a wall)"][column] == "-"  # no connection round
        else:
            assert _numbers(table["points (0-10 a wall)"][column])[0] == play["points"]
        assert _numbers(table["groups found"][-1]) == [human["groups_found"]]
        assert _numbers(table["points (0-10 a wall)"][-1]) == [human["points"]]
        # the rows are play_rows', one formatter: each file's column is its own rows'
        assert [r[2] for r in play_rows(data)] == [table[r[1]][column] for r in play_rows(data)]

    show, ana = plays[0].data["play"], plays[2].data["play"]
    # hand-counted from the scripted contestant's plans (tests/play_support.py) and from
    # the person's log: 3 walls solved (4 groups, 2 connections: 6 points), 3 given up after
    # one free wrong guess
    assert (show["groups_found"], show["points"]) == (18, 25)
    assert (ana["groups_found"], ana["points"], ana["walls_solved"]) == (12, 18, 3)
    assert (ana["wrong_guesses"], ana["lives_lost"], ana["end_reasons"]) == (
        3,
        0,
        {"gave_up": 3, "solved": 3},
    )
    for f in plays:
        seasons = season_figures(f)
        per_wall = f.data["per_wall"]
        assert sum(s["n_walls"] for s in seasons.values()) == len(per_wall)
        assert set(seasons) == {str(w["season"]) for w in per_wall}
        for season, figures in seasons.items():
            walls = [w for w in per_wall if str(w["season"]) == season]
            assert figures["groups_found"] == pytest.approx(
                sum(w["play"]["groups_found"] for w in walls) / len(walls)
            )
            assert figures["human_groups_found"] == pytest.approx(
                sum(w["human"]["play"]["groups_found"] for w in walls) / len(walls)
            )
        # the seasons add up to the split's totals
        total = sum(s["groups_found"] * s["n_walls"] for s in seasons.values())
        assert total == pytest.approx(f.data["play"]["groups_found"])
        human = sum(s["human_groups_found"] * s["n_walls"] for s in seasons.values())
        assert human == pytest.approx(f.data["human"]["play"]["groups_found"])
        points = [s["points"] for s in seasons.values()]
        if f.data["play"]["points"] is None:
            assert set(points) == {None}
        else:
            assert sum(p * s["n_walls"] for p, s in zip(points, seasons.values(), strict=True)) == (
                pytest.approx(f.data["play"]["points"])
            )
    # the by-season table shows those means
    season_header, season_rows = season_table(plays)
    assert season_header[1:] == header[1:]
    for row in season_rows:
        season = row[0].split(" ")[0]
        for column, f in enumerate(plays):
            means = season_figures(f)[season]
            expected = [v for v in (means["groups_found"], means["points"]) if v is not None]
            assert _numbers(row[1 + column]) == pytest.approx(expected, abs=0.005)
    # lives lost: show loses at most 3 (740d45 frozen), nyt 4 (its fourth mistake)
    assert lives_keys(plays) == ["0", "1", "2", "3", "4"]
    assert plays[1].data["play"]["lives_lost_distribution"]["4"] == 1
    for f in plays:
        assert set(f.data["play"]["lives_lost_distribution"]) <= set(lives_keys(plays))


def _bar_heights(plot: Any) -> list[list[float]]:
    """Each labelled bar container's heights, in the order drawn (one per file)."""
    from matplotlib.container import BarContainer

    ax = plot.figure.axes[0]
    return [[p.get_height() for p in c] for c in ax.containers if isinstance(c, BarContainer)]


def test_play_plots_draw_the_results(made: dict[str, Path]) -> None:
    plays = play_files(read_results([made["play-show"], made["play-ana"]]))
    lives = plot_play_lives(plays)
    keys = lives_keys(plays)
    for f, heights in zip(plays, _bar_heights(lives), strict=True):
        counts = f.data["play"]["lives_lost_distribution"]
        n = f.data["play"]["n_played"]
        assert heights == pytest.approx([counts.get(k, 0) / n for k in keys])
    agreement = plot_play_agreement(plays)
    for f, heights in zip(plays, _bar_heights(agreement), strict=True):
        counts = f.data["play"]["agreement"]
        groups = 4 * f.data["n_walls"]
        assert heights == pytest.approx([counts[k] / groups for k, _ in AGREEMENT_LABELS])
    assert lives.title.endswith("play-ana (rules show, human player ana; stand-in))")


def test_report_of_play_and_one_shot_results(made: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    names = ("oneshot", "play-show", "play-nyt", "play-ana")
    cli(
        "report",
        *(str(made[n]) for n in names),
        "--out",
        str(out),
        *DATA,
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    page = out.read_text(encoding="utf-8")
    assert page.count('<section class="play"') == 1  # one config and split
    assert (
        "Played as the contestants did (default / test): "
        "play-show (rules show, model m; stand-in); "
        "play-nyt (rules nyt, model m; stand-in); play-ana (rules show, human player ana; stand-in)"
        in page
    )
    for slug in ("play-season", "play-lives", "play-agreement"):
        assert f'id="{slug}-default-test"' in page
    # the one-shot file is in the headline table and its plots, not in the play table
    play_table_html = page.split('<table class="play"', 1)[1].split("</table>", 1)[0]
    assert (
        "oneshot" not in play_table_html
        and "play-ana (rules show, human player ana; stand-in)" in play_table_html
    )
    assert 'data-column="oneshot (stand-in)"' in page  # the fixture walls are the stand-in
    assert build_report(read_results([made["oneshot"]])).count('class="play"') == 0
    results = _json(made["play-show"])
    assert results["play_log"]["player"] == "m"


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        (("play", "groups_found"), "many", "play.groups_found"),
        (("play", "agreement"), {"both": "all"}, "play.agreement.both"),
        (("per_wall", 0, "play", "end"), 3, "per_wall[0].play.end"),
        (("human", "play", "points"), [44], "human.play.points"),
        (("play_log", "rules"), None, "play_log.rules"),
    ],
)
def test_a_broken_play_result_names_the_field(
    made: dict[str, Path], tmp_path: Path, field: tuple, value: Any, named: str
) -> None:
    from ocw_hub.results import ReportError

    data = _json(made["play-show"])
    inner = data
    for key in field[:-1]:
        inner = inner[key]
    inner[field[-1]] = value
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ReportError, match=re.escape(f"`{named}`")):
        read_results([path])


def test_rebuilt_walls_have_no_contestants_points(tmp_path: Path) -> None:
    """On ``ocw_randomized`` (walls rebuilt from groups of different walls) the contestants
    found groups but never played the walls: their groups are drawn, their points are not."""
    made = play_results(tmp_path, "ocw_randomized")
    (show,) = play_files(read_results([made["play-show"]]))
    assert show.data["human"]["play"]["points"] is None  # as play.scoring says for them
    seasons = season_figures(show)
    assert {s["human_points"] for s in seasons.values()} == {None}
    total = sum(s["human_groups_found"] * s["n_walls"] for s in seasons.values())
    assert total == pytest.approx(show.data["human"]["play"]["groups_found"])
    header, rows = play_table([show])
    table = {row[0]: row[1:] for row in rows}
    assert table["points (0-10 a wall)"][-1] == "-"
    assert _numbers(table["points (0-10 a wall)"][0])[0] == show.data["play"]["points"]
    plot = plot_play_seasons([show])
    groups_ax, points_ax = plot.figure.axes
    assert NO_HUMAN_POINTS in [t.get_text() for t in points_ax.texts]
    assert any(c.get_label() == "human (contestants)" for c in groups_ax.containers)
    assert not any(c.get_label() == "human (contestants)" for c in points_ax.containers)


def test_a_play_result_is_not_sliced(made: dict[str, Path], tmp_path: Path) -> None:
    """``report --seasons`` refuses a play result (its play figures are the whole log's, as
    ``evaluate`` refuses to slice a play log) and writes nothing."""
    from typer.testing import CliRunner

    from ocw_hub.cli import app

    out = tmp_path / "sliced.html"
    args = ["report", str(made["play-show"]), "--out", str(out), "--seasons", "1", *DATA]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0 and not out.exists()
    assert "play-show.jsonl is a play result" in result.output
    cli("report", str(made["oneshot"]), "--out", str(out), "--seasons", "1", *DATA)  # one-shot
    assert out.is_file()


def test_a_player_name_is_escaped(made: dict[str, Path], tmp_path: Path) -> None:
    """The player's name (from the log, a person's page or a server's model name) reaches
    the page as text: escaped in HTML, ``$`` never math in matplotlib."""
    data = _json(made["play-ana"])
    data["play_log"]["player"] = "<script>alert(1)</script> $x^2$"
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    page = build_report(read_results([path]))
    assert "<script>" not in page
    assert "human player &lt;script&gt;alert(1)&lt;/script&gt; $x^2$; stand-in" in page
    (f,) = play_files(read_results([path]))
    labels = [c.get_label() for c in plot_play_lives([f]).figure.axes[0].containers]
    assert any(r"\$x^2\$" in label for label in labels)
