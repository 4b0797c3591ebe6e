"""Issue 22: figures are range-checked wherever results are read (``report``, ``compare``):
an impossible figure in a results file is a one-line error naming the file and the field."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.scoring.ranges import figure_problem
from ocw_hub.views.report_data import ReportError, read_results

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
