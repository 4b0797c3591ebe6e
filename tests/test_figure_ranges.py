"""Issue 22: figures are range-checked wherever results are read (``report``, ``compare``):
an impossible figure in a results file is a one-line error naming the file and the field."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.figure_ranges import figure_problem
from ocw_hub.results import ReportError, read_results

DATA = Path(__file__).parent / "data" / "report"
runner = CliRunner()


def _set(data: Any, path: list[Any], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


#: (fixture, path to the figure, the impossible value, the field the message names)
CASES = [
    (
        "model-a.json",
        ["runs", 0, "grouping", "full_wall_rate"],
        7.5,
        "runs[0].grouping.full_wall_rate",
    ),
    ("model-a.json", ["runs", 1, "grouping", "ami"], math.nan, "runs[1].grouping.ami"),
    ("model-a.json", ["runs", 0, "grouping", "ami"], math.inf, "runs[0].grouping.ami"),
    (
        "model-a.json",
        ["runs", 0, "grouping", "correct_groups"],
        -3,
        "runs[0].grouping.correct_groups",
    ),
    ("model-a.json", ["runs", 0, "n_walls"], 2.5, "runs[0].n_walls"),
    (
        "model-a.json",
        ["runs", 0, "per_wall", 2, "grouping", "correct_groups"],
        5,
        "runs[0].per_wall[2].grouping.correct_groups",
    ),
    (
        "model-a.json",
        ["runs", 0, "per_wall", 0, "connections", "rouge1"],
        1.2,
        "runs[0].per_wall[0].connections.rouge1",
    ),
    ("model-a.json", ["runs", 0, "human", "full_wall_rate"], -0.1, "runs[0].human.full_wall_rate"),
    ("wote-spans.json", ["runs", 0, "spans", "f1"], 100.5, "runs[0].spans.f1"),
    ("wote-spans.json", ["runs", 0, "spans", "exact_match"], -1.0, "runs[0].spans.exact_match"),
]


@pytest.mark.parametrize(("name", "where", "value", "field"), CASES)
def test_impossible_figures_are_refused_naming_file_and_field(
    tmp_path: Path, name: str, where: list[Any], value: Any, field: str
) -> None:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    if where[0] == "runs" and "runs" not in data:
        where = where[2:]
        field = field.split(".", 1)[1]
    _set(data, where, value)
    bad = tmp_path / name
    bad.write_text(json.dumps(data), encoding="utf-8")  # NaN / Infinity as json writes them
    with pytest.raises(ReportError) as caught:
        read_results([bad])
    message = str(caught.value)
    assert str(bad) in message and f"`{field}`" in message and "\n" not in message
    result = runner.invoke(app, ["report", str(bad), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "name", ["model-a.json", "model-b.json", "randomized-a.json", "wote-spans.json"]
)
def test_the_fixtures_real_figures_pass(name: str) -> None:
    assert read_results([DATA / name])[0].runs


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [
        ("grouping.ami", -0.2, True),  # worse than chance is a real AMI
        ("grouping.ami", 1.0000001, False),
        ("connections.exact_match", 80.0, False),  # OCW's connections are 0-1
        ("per_wall[0].grouping.full_wall", True, True),  # one wall's full_wall is a boolean
        ("grouping.full_wall", 9, True),  # a total over walls
        ("per_wall[0].grouping.correct_groups", 4, True),
        ("by_season.1.grouping.n_walls", 0, True),
        ("grouping.bertscore_f1", math.nan, False),
        ("grouping.some_new_figure", -5.0, True),  # not named: only checked for being finite
        ("grouping.some_new_figure", -math.inf, False),
    ],
)
def test_ranges(field: str, value: Any, ok: bool) -> None:
    assert (figure_problem(field, value) is None) is ok


@pytest.mark.parametrize(("value", "ok"), [(80.0, True), (100.0, True), (100.01, False)])
def test_wote_span_figures_are_on_0_100(value: float, ok: bool) -> None:
    for field in ("spans.exact_match", "per_question[3].f1", "by_domain.x.spans.f1"):
        assert (figure_problem(field, value, spans=True) is None) is ok


@pytest.mark.parametrize(
    ("where", "value", "field"),
    [
        (["runs", 0, "grouping", "ami"], math.nan, "runs[0].grouping.ami"),
        (["runs", 2, "per_wall", 1, "grouping", "ami"], -1.5, "runs[2].per_wall[1].grouping.ami"),
    ],
)
def test_compare_reads_results_through_the_same_check(
    tmp_path: Path, where: list[Any], value: float, field: str
) -> None:
    data = json.loads((DATA / "model-a.json").read_text(encoding="utf-8"))
    _set(data, where, value)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["compare", str(bad), str(DATA / "model-b.json")])
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and f"`{field}`" in lines[0], result.output


# -- the group-analysis figures and the intervals (results with ``groups`` and ``ci95``) -------


@pytest.fixture(scope="module")
def grouped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``evaluate`` of the herrings predictions with intervals: one run, and two runs."""
    import shutil
    import warnings

    from ocw_fixtures import DATA as FIXTURES
    from ocw_fixtures import OCW_FIXTURE

    from ocw_hub.evaluation import evaluate_files

    predictions = FIXTURES / "herrings" / "predictions.json"
    second = tmp_path_factory.mktemp("runs") / "second.json"
    shutil.copy(predictions, second)
    options = {"verification_mode": "no_checks", "allow_missing": True, "bootstrap": 100}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = evaluate_files([predictions], "default", "test", OCW_FIXTURE, **options)
        two = evaluate_files(
            [predictions, second], "default", "test", OCW_FIXTURE, as_runs=True, **options
        )
    return {"one": json.loads(json.dumps(one)), "two": json.loads(json.dumps(two))}


#: (which results, path to the value, the impossible value); the message names the path
GROUP_CASES = [
    ("one", ["groups", "found_by_both_rate"], 5.0),
    ("one", ["groups", "found_by_both"], -3),
    ("one", ["groups", "found_by_both"], 2.5),
    ("one", ["groups", "found_by_both"], 25),  # 6 walls: at most 24
    ("one", ["groups", "decoy_share"], -0.01),
    ("one", ["groups", "misplaced_clues"], 97),  # 16 per wall
    ("one", ["per_wall", 0, "groups", "misplaced_clues"], 17),
    ("one", ["per_wall", 1, "groups", "near_misses"], 5),
    ("one", ["by_season", "1", "groups", "near_miss_rate"], 1.5),
    ("two", ["mean", "groups", "misplaced_clue_rate"], math.nan),
    ("two", ["runs", 1, "groups", "found_by_neither_rate"], 2.0),
]
#: (which results, the interval's path, the interval)
INTERVAL_CASES = [
    ("one", ["ci95", "groups", "found_by_both_rate"], [0.0, 0.0]),
    ("one", ["ci95", "grouping", "ami"], [0.95, 0.99]),  # figure below
    ("one", ["ci95", "grouping", "wd"], [0.5, 0.1]),  # low above high
    ("one", ["ci95", "groups", "decoy_share"], [0.0, 1.5]),
    ("one", ["ci95", "human", "full_wall_rate"], [0.1]),
    ("one", ["by_season", "1", "ci95", "grouping", "fms"], [0.0, 0.01]),
    ("two", ["ci95", "groups", "misplaced_clue_rate"], [0.5, 0.6]),
    ("two", ["by_season", "1", "ci95", "groups", "near_miss_rate"], [0.9, 0.8]),
]


def _written(tmp_path: Path, data: dict[str, Any], where: list[Any], value: Any) -> Path:
    data = json.loads(json.dumps(data))
    _set(data, where, value)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _field(where: list[Any]) -> str:
    """A results file's dotted path (``per_wall[0].groups.decoys``) of a path of keys."""
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in where).lstrip(".")


@pytest.mark.parametrize(("which", "where", "value"), GROUP_CASES + INTERVAL_CASES)
def test_group_figures_and_intervals_are_range_checked(
    tmp_path: Path, grouped: dict[str, Any], which: str, where: list[Any], value: Any
) -> None:
    field = _field(where)
    path = _written(tmp_path, grouped[which], where, value)
    with pytest.raises(ReportError) as caught:
        read_results([path])
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    assert re.search(rf"`{re.escape(field)}(\[[01]\])?`", message), message  # an end: [i]
    result = runner.invoke(app, ["report", str(path), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 1, result.output
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("which", ["one", "two"])
def test_real_group_figures_and_intervals_pass(
    tmp_path: Path, grouped: dict[str, Any], which: str
) -> None:
    data = grouped[which]
    figures = data["groups"] if which == "one" else data["mean"]["groups"]
    low, high = data["ci95"]["groups"]["found_by_both_rate"]
    assert low <= figures["found_by_both_rate"] <= high  # the real interval holds its figure
    path = _written(tmp_path, data, ["config"], "default")
    assert read_results([path])[0].runs


@pytest.mark.parametrize(
    ("interval", "figure", "ok"),
    [
        ([0.25, 0.75], 0.5, True),
        ([0.5, 0.5], 0.5 + 1e-12, True),  # the bootstrap's own rounding
        ([0.0, 0.0], 0.9, False),
        ([0.6, 0.9], 0.5, False),
        ([0.9, 0.6], None, False),
        (None, 0.5, True),  # not computed (a decoy share without a wrong group)
        ("[0, 1]", 0.5, False),
        ([0.0, 1.0, 2.0], 0.5, False),
        ([0, 3], None, True),  # a season's interval over runs: no figure beside it
    ],
)
def test_interval_problem(interval: Any, figure: Any, ok: bool) -> None:
    from ocw_hub.figure_ranges import interval_problem

    assert (interval_problem(interval, figure) is None) is ok


# -- leaderboard entries (``.eval_results/*.yaml``): the same range table ----------------------


@pytest.mark.parametrize(
    ("task_id", "value", "ok"),
    [
        ("ocw_grouping-default-ami", 0.31, True),
        ("ocw_grouping-default-ami", -0.2, True),
        ("ocw_grouping-default-ami", 7.5, False),
        ("ocw_grouping-default-full_wall_rate", 1.5, False),
        ("ocw_connections-default-rouge1", math.nan, False),
        ("ocw_grouping-ocw_wordnet-wd", -0.1, False),
        ("wote-wote-f1", 83.5, True),  # SQuAD's 0-100
        ("wote-wote-exact_match", 100.5, False),
        ("some-other-task", 1234.0, True),  # not ocw-hub's: only finite
        ("some-other-task", math.inf, False),
    ],
)
def test_eval_results_values_are_range_checked(
    tmp_path: Path, task_id: str, value: float, ok: bool
) -> None:
    import yaml

    from ocw_hub.data import eval_results as er

    folder = tmp_path / ".eval_results"
    folder.mkdir()
    entry = er.plain_entry("org/ocw", task_id, value)
    (folder / f"{task_id}.yaml").write_text(yaml.safe_dump([entry]), encoding="utf-8")
    problems = er.eval_results_problems(tmp_path)
    assert (problems == []) is ok, problems
    if not ok:
        assert len(problems) == 1 and "field value" in problems[0]
        assert f"{task_id}.yaml[0]" in problems[0]
    result = runner.invoke(app, ["check", str(tmp_path)])
    assert result.exit_code == (0 if ok else 1), result.output
