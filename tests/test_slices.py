"""Slices of walls by season and air date (``--seasons``, ``--aired-after``) on ``evaluate``,
``compare`` and ``report``, and the intervals of ``by_season``.

Fixtures: ``tests/data/ocw_dated/dataset`` (the OCW fixture's walls with a dated
``season_to_walls_map``: seasons 1, 2, 3, 13 and 15 started 15/09/2008, 13/07/2009,
06/09/2010, 17/07/2017 and 15/07/2019) and ``tests/data/herrings/predictions.json`` (five of the
six test walls, b308e4 missing; its hand count is in ``tests/test_herrings.py``). The test split
holds walls of seasons 1 (46fa44, 740d45, cb4d9e, 0436ff), 13 (654041) and 15 (b308e4).
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from ocw_fixtures import DATA, OCW_FIXTURE, WOTE_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import SeasonDatesError, SliceError
from ocw_hub.evaluation import evaluate_files
from ocw_hub.scoring import binomial
from ocw_hub.scoring.intervals import run_intervals
from ocw_hub.scoring.slices import WallSlice, parse_seasons, slice_results, span_text

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
DATED = DATA / "ocw_dated" / "dataset"
PREDICTIONS = DATA / "herrings" / "predictions.json"
runner = CliRunner()


def _score(data_dir: Path = DATED, walls_slice: WallSlice | None = None, **kw: object) -> dict:
    return evaluate_files(
        [PREDICTIONS],
        "default",
        "test",
        data_dir,
        verification_mode="no_checks",
        allow_missing=True,
        bootstrap=300,
        bootstrap_seed=2,
        walls_slice=walls_slice,
        **kw,
    )


def test_parse_seasons_ranges_and_lists() -> None:
    assert parse_seasons("1-5") == ((1, 5),)
    assert parse_seasons("7, 1-3,2") == ((1, 3), (7, 7))
    assert parse_seasons("4-6,1-3,9") == ((1, 6), (9, 9))  # adjacent ranges merge
    assert span_text([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10"
    assert span_text([(9, 10), (1, 3), 7]) == "1-3, 7, 9-10"
    for bad in ("", "0-3", "5-1", "a", "1-2-3", "1,,2", "²", "1-²", "٣", "１", "1" * 10):
        with pytest.raises(SliceError):
            parse_seasons(bad)


def test_a_range_is_kept_as_its_bounds() -> None:
    """``1-300000000`` was a set of every number (MemoryError; ``1-30000000`` took 2.5 GB):
    now two ints, and a season is looked up in the ranges."""
    import tracemalloc

    tracemalloc.start()
    wanted = WallSlice.parse("1-300000000,999999999", None)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100_000
    assert wanted is not None and wanted.seasons == ((1, 300_000_000), (999_999_999, 999_999_999))
    assert [wanted.lists(s) for s in (1, 13, 300_000_000, 300_000_001, 999_999_999)] == [
        True,
        True,
        True,
        False,
        True,
    ]
    from ocw_hub.scoring.slices import describe, in_spans, spans_minus

    assert describe(wanted) == "seasons 1-300000000, 999999999"
    assert not in_spans((), 1) and not in_spans(((5, 9),), 4) and in_spans(((5, 9),), 9)
    assert spans_minus(((1, 300_000_000),), ((1, 1), (13, 13))) == ((2, 12), (14, 300_000_000))


@pytest.mark.parametrize("text", ["²", "1-٣", "1-1000000000"])
def test_a_season_not_in_ascii_digits_is_one_line(text: str) -> None:
    result = runner.invoke(app, ["evaluate", "p.json", "--seasons", text, "--data-dir", "/none"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "expected seasons and ranges" in result.output and "Traceback" not in result.output


def test_seasons_slice_scores_only_those_walls() -> None:
    full = _score()
    cut = _score(walls_slice=WallSlice(seasons=(1, 2, 3)))
    assert [w["wall_id"] for w in cut["per_wall"]] == ["46fa44", "740d45", "cb4d9e", "0436ff"]
    assert cut["n_walls"] == 4 and cut["n_missing"] == 0
    # the figures of the slice are the season's figures of the whole split
    assert cut["grouping"] == full["by_season"]["1"]["grouping"]
    assert cut["groups"] == full["by_season"]["1"]["groups"]
    assert cut["groups"]["found_by_contestants_only"] == 4  # the hand count (season 1)
    assert cut["human"] == full["by_season"]["1"]["human"]
    assert cut["slice"]["seasons"] == [1]
    assert (cut["slice"]["n_walls"], cut["slice"]["n_walls_unsliced"]) == (4, 6)
    assert cut["slice"]["asked"] == {"seasons": [[1, 3]], "aired_after": None}


def test_aired_after_uses_the_season_start_dates() -> None:
    cut = _score(walls_slice=WallSlice(aired_after=datetime.date(2017, 7, 17)))
    assert cut["slice"]["seasons"] == [15]  # season 13 started on the day itself: left out
    assert [w["wall_id"] for w in cut["per_wall"]] == ["b308e4"]
    assert cut["n_missing"] == 1
    both = _score(walls_slice=WallSlice(seasons=(1, 13), aired_after=datetime.date(2015, 1, 1)))
    assert both["slice"]["seasons"] == [13]
    assert [w["wall_id"] for w in both["per_wall"]] == ["654041"]
    assert both["groups"]["misplaced_clues"] == 4


def test_the_stand_in_has_no_dates_and_says_why() -> None:
    with pytest.raises(SeasonDatesError) as err:
        _score(OCW_FIXTURE, WallSlice(aired_after=datetime.date(2010, 1, 1)))
    assert err.value.date == "2010-01-01" and "1, 13, 15" in err.value.reason
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(PREDICTIONS),
            "--data-dir",
            str(OCW_FIXTURE),
            "--no-checks",
            "--allow-missing",
            "--aired-after",
            "2010-01-01",
        ],
    )
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: --aired-after 2010-01-01: ")


def test_refusals(tmp_path: Path) -> None:
    with pytest.raises(SliceError, match="seasons are 1, 13, 15"):
        _score(walls_slice=WallSlice(seasons=(4, 5)))
    spans = tmp_path / "spans.json"
    questions = json.loads((WOTE_FIXTURE / "test.json").read_text(encoding="utf-8"))
    ids = [f"{q['conversation_id']}/{q['question_id']}" for q in questions]
    spans.write_text(json.dumps({i: "" for i in ids}), encoding="utf-8")
    with pytest.raises(SliceError, match="has no seasons"):
        evaluate_files(
            [spans],
            "wote",
            "test",
            WOTE_FIXTURE,
            verification_mode="no_checks",
            walls_slice=WallSlice(seasons=(1,)),
        )
    result = runner.invoke(app, ["evaluate", str(PREDICTIONS), "--seasons", "3-1"])
    assert result.exit_code == 1 and "--seasons '3-1'" in result.output


def test_by_season_intervals_are_the_seasons_own(tmp_path: Path) -> None:
    full = _score()
    season = full["by_season"]["1"]
    walls = [w for w in full["per_wall"] if w["season"] == 1]
    own = run_intervals({**season, "per_wall": walls}, 300, 2)
    assert season["ci95"] == own
    low, high = season["ci95"]["grouping"]["ami"]
    assert low <= season["grouping"]["ami"] <= high
    assert "human" in season["ci95"] and "groups" in season["ci95"]
    # several runs: the two-level interval of the mean per season, in the summary's by_season
    again = tmp_path / "run-01.json"
    again.write_bytes(PREDICTIONS.read_bytes())
    runs = evaluate_files(
        [PREDICTIONS, again],
        "default",
        "test",
        DATED,
        verification_mode="no_checks",
        allow_missing=True,
        bootstrap=200,
        as_runs=True,
    )
    assert runs["by_season"]["13"]["n_walls"] == 1
    assert runs["by_season"]["1"]["ci95"]["grouping"]["correct_groups_rate"][0] <= 0.625


def test_slicing_a_results_file_equals_scoring_the_slice() -> None:
    """``report`` and ``compare`` cut results files: the same figures and intervals as
    ``evaluate`` on the slice."""
    wanted = WallSlice(seasons=(1,))
    cut = slice_results(_score(), wanted, dates=lambda: {})
    scored = _score(walls_slice=wanted)
    for key in ("grouping", "groups", "human", "by_season", "ci95", "slice", "n_walls"):
        assert cut[key] == scored[key], key


def test_cli_records_and_shows_the_slice(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(PREDICTIONS),
            "--data-dir",
            str(DATED),
            "--no-checks",
            "--allow-missing",
            "--aired-after",
            "2009-01-01",
            "--bootstrap",
            "100",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["slice"]["seasons"] == [13, 15] and data["n_walls"] == 2
    assert "slice: seasons aired after 2009-01-01" in result.output
    # report: the results file cut again, shown in the headline's caption
    page = tmp_path / "report.html"
    result = runner.invoke(
        app,
        [
            "report",
            str(out),
            "-o",
            str(page),
            "--seasons",
            "13",
            "--data-dir",
            str(DATED),
            "--no-checks",
        ],
    )
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    assert "slice: seasons 13 (1 of 6 walls)" in html  # of the whole split, not of the file
    # compare: a results file and predictions, both on the slice
    result = runner.invoke(
        app,
        [
            "compare",
            str(out),
            str(PREDICTIONS),
            "--data-dir",
            str(DATED),
            "--no-checks",
            "--allow-missing",
            "--seasons",
            "13",
            "--bootstrap",
            "200",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["slice"].startswith("seasons 13 (1 of ")
    values = {row["system"]: row["value"] for row in shown["systems"]}
    assert values[str(out)] == values[str(PREDICTIONS)]  # the same walls, the same figure


def test_a_play_log_is_not_sliced_silently(tmp_path: Path) -> None:
    log = tmp_path / "play.jsonl"
    log.write_text(json.dumps({"record": "play"}) + "\n", encoding="utf-8")  # a log's header
    with pytest.raises(SliceError, match="play log"):
        evaluate_files([log], "default", "test", DATED, walls_slice=WallSlice(seasons=(1,)))


def test_compare_refuses_systems_on_different_seasons(tmp_path: Path) -> None:
    whole, cut = tmp_path / "whole.json", tmp_path / "cut.json"
    whole.write_text(json.dumps(_score()), encoding="utf-8")
    cut.write_text(json.dumps(_score(walls_slice=WallSlice(seasons=(1,)))), encoding="utf-8")
    result = runner.invoke(app, ["compare", str(whole), str(cut), "--bootstrap", "100"])
    assert result.exit_code == 1 and "different configs, splits or sources" in result.output
    # cut to the same seasons, they compare: the same walls, the same figure
    result = runner.invoke(
        app,
        [
            "compare",
            str(whole),
            str(cut),
            "--seasons",
            "1",
            "--bootstrap",
            "100",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["systems"]
    assert len({row["value"] for row in rows if row["system"] != "contestants"}) == 1


def test_aired_after_reads_the_dates_of_a_release_tarball(tmp_path: Path) -> None:
    """The release as downloaded (``OCW.tar.gz`` holding ``dataset/``): the season map is read
    from the archive, extracted as the builder extracts it."""
    import tarfile

    archive = tmp_path / "OCW.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(DATED, arcname="dataset")
    cut = _score(
        archive, WallSlice(aired_after=datetime.date(2015, 1, 1)), cache_dir=tmp_path / "cache"
    )
    assert cut["slice"]["seasons"] == [13, 15]
    assert [w["wall_id"] for w in cut["per_wall"]] == ["654041", "b308e4"]


def _season_bars(path: Path) -> tuple[list[tuple[float, list[float]]], str]:
    """The season plot's interval bars of one results file (x, [low, high]) and the report's
    HTML of the file."""
    from ocw_hub.results import read_results
    from ocw_hub.views.plots import plot_by_season
    from ocw_hub.views.report import build_report

    plot = plot_by_season(read_results([path]))
    assert plot is not None
    lines = [
        (float(line.get_xdata()[0]), [float(y) for y in line.get_ydata()])
        for ax in plot.figure.axes
        for line in ax.lines
        if line.get_gid() == "season-ci"
    ]
    return lines, build_report(read_results([path]), walls=None)


def test_the_season_plot_draws_the_intervals_of_one_run_and_of_several(tmp_path: Path) -> None:
    """One run: each season's interval over its walls; four runs: the two-level interval of
    the mean over runs; both with the contestants' beside them: 3 seasons x (model,
    contestants) x 2 panels = 12 bars, at the values of ``by_season[s].ci95``."""
    walls = json.loads((DATED / "test.json").read_text(encoding="utf-8"))["dataset"]
    perfect = tmp_path / "perfect.json"
    perfect.write_text(
        json.dumps(
            [
                {
                    "wall_id": w["wall_id"],
                    "predicted_connections": None,  # as PREDICTIONS: groups
                    "predicted_groups": [g["gt_words"] for g in w["groups"].values()],
                }
                for w in walls
            ]
        ),
        encoding="utf-8",
    )
    seasons = ["1", "13", "15"]
    for name, files in (("one", [PREDICTIONS]), ("four", [PREDICTIONS, perfect] * 2)):
        copies = []
        for i, source in enumerate(files):  # distinct names: four runs of one model
            copies.append(tmp_path / f"{name}-run-{i}.json")
            copies[-1].write_bytes(source.read_bytes())
        results = evaluate_files(
            copies,
            "default",
            "test",
            DATED,
            verification_mode="no_checks",
            allow_missing=True,
            bootstrap=200,
            as_runs=True,
        )
        out = tmp_path / f"{name}.json"
        out.write_text(json.dumps(results), encoding="utf-8")
        lines, page = _season_bars(out)
        assert len(lines) == 12, name
        expected = [
            results["by_season"][s]["ci95"][task][figure]
            for figure in ("full_wall_rate", "correct_groups_rate")
            for task in ("grouping", "human")
            for s in seasons
        ]
        assert sorted(map(str, [y for _, y in lines])) == sorted(map(str, expected))
        assert page.count('id="season-ci') == 12, name
    # four runs (two perfect): season 1's correct-groups rate, a rate of the 4 runs' groups
    # on its walls clustered by wall (scoring/binomial.py), holds the mean over runs
    low, high = results["by_season"]["1"]["ci95"]["grouping"]["correct_groups_rate"]
    first = [i for i, w in enumerate(results["runs"][0]["per_wall"]) if str(w["season"]) == "1"]
    found = [
        sum(run["per_wall"][i]["grouping"]["correct_groups"] for run in results["runs"])
        for i in first
    ]
    assert [low, high] == pytest.approx([float(e) for e in binomial.rate_interval(found, 16)])
    mean = sum(found) / (16 * len(first))
    assert 0.625 < mean < 1 and low < mean < high <= 1.0


def test_a_sliced_results_file_is_not_widened_silently(tmp_path: Path) -> None:
    """A file cut to season 1 holds 4 of the split's 6 walls: asked for seasons 1 and 13 it is
    refused (season 13 was cut off, not absent), in one line naming the file and the seasons
    it holds; cut further, it keeps the split's 6 walls as its total, as ``evaluate`` on the
    narrower slice does."""
    from functools import partial

    from ocw_hub.scoring.slices import season_dates

    dates = partial(season_dates, "default", DATED, None)
    first = _score(walls_slice=WallSlice(seasons=tuple(range(1, 14))))  # 1 and 13: 5 walls
    assert (first["slice"]["n_walls"], first["slice"]["n_walls_unsliced"]) == (5, 6)
    narrower = slice_results(first, WallSlice(seasons=(1,)), dates)
    scored = _score(walls_slice=WallSlice(seasons=(1,)))
    assert (narrower["slice"]["n_walls"], narrower["slice"]["n_walls_unsliced"]) == (4, 6)
    for key in ("grouping", "groups", "human", "by_season", "ci95", "slice"):
        assert narrower[key] == scored[key], key
    with pytest.raises(SliceError) as err:
        slice_results(narrower, WallSlice(seasons=(1, 13)), dates, name="cut.json")
    assert str(err.value).startswith("cut.json ") and "seasons 1 (4 of 6 walls)" in str(err.value)
    # seasons the file's own slice asked for are no widening: 2-12 hold no wall of the split
    again = slice_results(first, WallSlice(seasons=tuple(range(1, 14))), dates)
    assert again["slice"]["seasons"] == [1, 13] and again["n_walls"] == 5
    # a range far beyond the split's seasons is bounds, not a set of seasons to count out
    with pytest.raises(SliceError, match=r"seasons 14-300000000 of seasons 1-300000000"):
        slice_results(first, WallSlice(seasons=((1, 300_000_000),)), dates)
    with pytest.raises(SliceError, match=r"seasons 2-300000000 of seasons 1-300000000"):
        slice_results(narrower, WallSlice(seasons=((1, 300_000_000),)), dates, name="cut.json")
    # a record of an older version: the seasons asked as a list
    asked = {"seasons": [1, 5], "aired_after": None}
    older = {**narrower, "slice": {**narrower["slice"], "asked": asked}}
    with pytest.raises(SliceError, match="seasons 13 of"):
        slice_results(older, WallSlice(seasons=(1, 13)), dates, name="cut.json")
    # cut by date (seasons 13 and 15), then asked for season 1, which the date left out
    dated = _score(walls_slice=WallSlice(aired_after=datetime.date(2015, 1, 1)))
    with pytest.raises(SliceError):
        slice_results(dated, WallSlice(seasons=(1, 13)), dates, name="dated.json")
    assert slice_results(dated, WallSlice(seasons=(13,)), dates)["n_walls"] == 1
    # the CLI: one line, the file named
    out = tmp_path / "cut.json"
    out.write_text(json.dumps(narrower), encoding="utf-8")
    result = runner.invoke(
        app,
        [
            "report",
            str(out),
            "-o",
            str(tmp_path / "r.html"),
            "--seasons",
            "1-13",
            "--data-dir",
            str(DATED),
            "--no-checks",
        ],
    )
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(out) in errors[0] and "seasons 2-13 " in errors[0]
