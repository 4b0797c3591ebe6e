"""The HTML report (``ocw_hub.views.report`` and its modules, ``ocw-hub report``) on the
results fixtures of ``tests/data/report`` (invented walls; see its ``make_fixtures.py``)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.results import ReportError, read_results
from ocw_hub.views.embedding_plot import plot_embeddings
from ocw_hub.views.hardest import hardest_walls
from ocw_hub.views.plots import (
    plot_ablation,
    plot_by_season,
    plot_distributions,
    plot_runs,
    plot_wote_breakdown,
)
from ocw_hub.views.plotting import legend_entries
from ocw_hub.views.report import build_report, headline_rows
from ocw_hub.views.report_data import PredictionsCache, load_walls, resolve_predictions
from ocw_hub.views.summary import summary_rows
from ocw_hub.views.wall_render import GROUP_COLOURS

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

DATA = Path(__file__).parent / "data" / "report"
OCW_DIR = DATA / "ocw" / "dataset"
MODEL_A = DATA / "model-a.json"  # 3 runs, kept its clue vectors
MODEL_B = DATA / "model-b.json"  # 1 run
RANDOMIZED = DATA / "randomized-a.json"  # ocw_randomized, 2 runs
WOTE = DATA / "wote-spans.json"  # wote, 2 runs
ALL = [MODEL_A, MODEL_B, RANDOMIZED, WOTE]


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def files() -> list:
    return read_results(ALL)


@pytest.fixture(scope="module")
def walls(files: list) -> dict:
    dirs = {"default": OCW_DIR, "ocw_randomized": OCW_DIR}  # the fixtures score both on it
    return load_walls(files, dirs, verification_mode="no_checks")


@pytest.fixture(scope="module")
def page(files: list, walls: dict) -> str:
    return build_report(files, walls=walls, n_hardest=12)


# --------------------------------------------------------------------------------------
# Reading results files
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[]", "expected a JSON object"),
        ('{"config": "nope", "split": "test"}', "unknown `config` 'nope'"),
        ('{"config": "default", "split": "test", "runs": []}', "`runs` is empty"),
        ('{"config": "default", "split": "test"}', "field `human`: missing"),
        ('{"config": "wote", "split": "test", "runs": [{}]}', "field `runs[0].spans`: missing"),
    ],
)
def test_bad_results_files_name_the_file_and_field(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ReportError, match=re.escape(message)) as caught:
        read_results([path])
    assert str(path) in str(caught.value)


def test_labels_and_runs(tmp_path: Path, files: list) -> None:
    assert [f.label for f in files] == ["model-a", "model-b", "randomized-a", "wote-spans"]
    assert [len(f.runs) for f in files] == [3, 1, 2, 2]
    other = tmp_path / "x" / "model-b.json"
    other.parent.mkdir()
    shutil.copy(MODEL_B, other)
    assert [f.label for f in read_results([MODEL_B, other])] == ["report/model-b", "x/model-b"]
    with pytest.raises(ReportError, match="given twice"):
        read_results([MODEL_B, MODEL_B])


def test_predictions_found_relative_to_the_results_file(files: list) -> None:
    run = files[0].runs[0]
    assert run["predictions"] == "predictions/model-a/run-01.json"  # relative, as evaluated
    found = resolve_predictions(run, MODEL_A)
    assert found is not None
    assert found.resolve() == (DATA / "predictions/model-a/run-01.json").resolve()
    assert resolve_predictions({"predictions": "nowhere.json"}, MODEL_A) is None


# --------------------------------------------------------------------------------------
# Headline table
# --------------------------------------------------------------------------------------


def test_headline_of_one_file_is_the_terminal_table(files: list) -> None:
    header, rows = headline_rows([files[1]])
    assert header == ["task", "figure", "model-b", "human", "chance"]
    assert [tuple(r[:-1]) for r in rows] == [tuple(r) for r in summary_rows(_json(MODEL_B))]


def test_headline_figures_equal_the_results(files: list) -> None:
    header, rows = headline_rows(files[:2])
    assert header == ["task", "figure", "model-a", "model-b", "human", "chance"]
    cells = {(r[0], r[1]): r[2:] for r in rows}
    a, b = _json(MODEL_A), _json(MODEL_B)
    for key in ("wd", "ami", "ari", "fms", "correct_groups_rate", "full_wall_rate"):
        values = np.array([run["grouping"][key] for run in a["runs"]])  # 3 runs
        assert cells[("grouping", key)][0] == f"{values.mean():.4f} ± {values.std():.4f}"
        assert cells[("grouping", key)][1] == f"{b['grouping'][key]:.4f}"
    assert cells[("grouping", "full_wall")][2] == str(b["human"]["full_wall"])
    assert cells[("walls", "runs")] == ["3", "-", "-", "-"]
    assert cells[("walls", "missing, scored as wrong")] == ["-", "0", "-", "-"]
    n = b["grouping"]["n_walls"]  # the chance column: a uniformly random grouping
    assert cells[("grouping", "ami")][-1] == cells[("grouping", "ari")][-1] == "0.0000"
    assert cells[("grouping", "fms")][-1] == "0.2000"
    assert cells[("grouping", "correct_groups")][-1] == f"{n * 4 / 455:.4f}"
    assert cells[("grouping", "correct_groups_rate")][-1] == f"{1 / 455:.4f}"
    # rows a file lacks are merged in its own order: "missing" right after "in the split"
    assert [tuple(r[:2]) for r in rows][:3] == [
        ("walls", "in the split"),
        ("walls", "missing, scored as wrong"),
        ("walls", "runs"),
    ]


# --------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------


def _check_labelled(plot: object) -> None:
    assert plot.title and plot.caption and "\n" not in plot.caption
    for ax in plot.figure.axes:
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel(), ax
        scale = ax.get_ylabel() + ax.get_xlabel()
        assert any(s in scale for s in ("0-1", "0-100", "0-4", "units", "variance")), scale


def _bars(ax: object) -> list:
    """The bar containers of an axes, in drawing order (error bars left out)."""
    from matplotlib.container import BarContainer

    return [c for c in ax.containers if isinstance(c, BarContainer)]


def _heights(container: object) -> list[float]:
    return [patch.get_height() for patch in container]


def test_by_season_bars_are_the_results(files: list) -> None:
    plot = plot_by_season(files[:2])
    _check_labelled(plot)
    full, _ = plot.figure.axes
    a, b = _json(MODEL_A), _json(MODEL_B)
    seasons = ["1", "2", "3"]
    mean_a = [
        np.mean([r["by_season"][s]["grouping"]["full_wall_rate"] for r in a["runs"]])
        for s in seasons
    ]
    bars = _bars(full)
    assert _heights(bars[0]) == pytest.approx(mean_a)
    assert _heights(bars[1]) == [b["by_season"][s]["grouping"]["full_wall_rate"] for s in seasons]
    assert _heights(bars[2]) == [b["by_season"][s]["human"]["full_wall_rate"] for s in seasons]
    assert full.get_ylim() == (0, 1.05)


def test_distributions(files: list) -> None:
    plot = plot_distributions(files[:2])
    _check_labelled(plot)
    correct = plot.figure.axes[2]
    b = _json(MODEL_B)
    counts = [sum(w["grouping"]["correct_groups"] == k for w in b["per_wall"]) for k in range(5)]
    assert _heights(_bars(correct)[1]) == pytest.approx([c / 12 for c in counts])
    for container in _bars(correct):  # model-a (36 walls pooled), model-b, human
        assert sum(_heights(container)) == pytest.approx(1.0)


def test_runs_side_by_side_and_ablation(files: list) -> None:
    plot = plot_runs(files[:2])
    _check_labelled(plot)
    ax = plot.figure.axes[0]
    a = _json(MODEL_A)
    assert _heights(_bars(ax)[0])[:2] == pytest.approx(
        [a["mean"]["grouping"]["ami"], a["mean"]["grouping"]["ari"]]
    )
    errors = [c for c in ax.containers if c not in _bars(ax)]  # model-a's: 3 runs
    assert len(errors) == 1
    assert plot_runs(files[1:2]) is None  # one run of one model: the headline says it all
    ablation = plot_ablation(files)
    _check_labelled(ablation)
    assert "randomized-a (ocw_randomized)" in [
        label for label, _ in legend_entries(ablation.figure)
    ]
    assert not ablation.figure.legends  # the legend is HTML text beside the SVG
    assert plot_ablation(files[:2]) is None


def test_wote_breakdown(files: list) -> None:
    plot = plot_wote_breakdown(files)
    _check_labelled(plot)
    em_by_type = plot.figure.axes[0]
    w = _json(WOTE)
    types = sorted(w["runs"][0]["by_question_type"])
    means = [
        np.mean([r["by_question_type"][t]["spans"]["exact_match"] for r in w["runs"]])
        for t in types
    ]
    assert _heights(_bars(em_by_type)[0]) == pytest.approx(means)
    assert em_by_type.get_ylim() == (0, 105)


@pytest.mark.slow
def test_hardest_walls_per_results_file_and_embeddings(files: list, walls: dict, page: str) -> None:
    for f in files[:2]:  # model-a (3 runs), model-b (1 run): ranked each on its own runs
        hard = hardest_walls(f, n=3)
        amis: dict[str, list[float]] = {}
        for run in f.runs:
            for wall in run["per_wall"]:
                amis.setdefault(wall["wall_id"], []).append(wall["grouping"]["ami"])
        expected = sorted(amis, key=lambda w: (np.mean(amis[w]), w))[:3]
        assert [h.wall_id for h in hard] == expected
        assert {h.n_runs for h in hard} == {len(f.runs)}
        assert {h.worst[0].label for h in hard} == {f.label}
        assert hard[0].mean_ami == pytest.approx(np.mean(amis[expected[0]]))
        assert hard[0].worst[2] == min(amis[expected[0]])
    section = page[page.index('id="hardest-default-test"') :]
    section = section[: section.index("</section>")]
    assert re.findall(r'<h4 data-label="([^"]+)"', section) == ["model-a", "model-b"]
    tables = [part[: part.index("</table>")] for part in section.split("<h4")[1:]]
    runs_column = [set(re.findall(r'± [0-9.]+</td><td class="num">(\d+)</td>', t)) for t in tables]
    assert runs_column == [{"3"}, {"1"}]  # no row pools the runs of the two files

    rows = {r["wall_id"]: r for r in walls[("default", "test")]}
    plot = plot_embeddings(files[0], rows, "a001", [], PredictionsCache())
    _check_labelled(plot)
    tsne = plot.figure.axes[0]
    texts = [t.get_text() for t in tsne.texts]
    assert sorted(texts) == sorted(rows["a001"]["words"])
    mars = tsne.collections[texts.index("Mars")]  # one scatter per clue, in words order
    assert tuple(mars.get_facecolor()[0][:3]) == pytest.approx(
        tuple(int(GROUP_COLOURS[1][i : i + 2], 16) / 255 for i in (1, 3, 5))
    )
    assert plot_embeddings(files[1], rows, None, ["a001"], PredictionsCache()) is None  # no vectors
    # no two clue labels of a projection overlap (boxes as drawn, in pixels)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(plot.figure).get_renderer()
    for ax in plot.figure.axes:
        boxes = [t.get_window_extent(renderer) for t in ax.texts]
        assert len(boxes) == 16
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not a.overlaps(b), (a, b)
    svg = plot.html()
    assert len(re.findall(r'<g id="clue-[0-9a-f]{10}-[01]-\d+">', svg)) == 32


# --------------------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------------------


def test_labels_in_any_script_are_html_text(tmp_path: Path, walls: dict) -> None:
    """A CJK run label: every legend is HTML text beside the SVG (drawn by the page's fonts),
    no plot draws the label, and matplotlib warns of no missing glyph."""
    import warnings

    root = tmp_path / "report"
    shutil.copytree(DATA, root)
    label = "模型-甲"
    (root / "model-a.json").rename(root / f"{label}.json")
    files = read_results([root / f"{label}.json", root / "model-b.json", root / "wote-spans.json"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = build_report(files, walls=walls)
    assert [str(w.message) for w in caught if "Glyph" in str(w.message)] == []
    svgs = re.findall(r"<svg.*?</svg>", page, re.DOTALL)
    drawn = [svg[svg.index(">") :] for svg in svgs]  # the drawing, without the aria-label
    assert len(svgs) >= 4 and not any(label in svg for svg in drawn)
    legends = re.findall(r'<ul class="legend">(.*?)</ul>', page)
    with_label = [item for item in legends if f"</span>{label}</li>" in item]
    assert len(with_label) == 3  # by season, distributions, runs side by side
    assert all("<li>" in item for item in legends) and len(legends) == len(svgs)


@pytest.mark.slow
def test_page_is_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page.lower()
    references = re.findall(r"""\b(?:src|href|xlink:href)\s*=\s*["']([^"']*)""", page)
    assert set(references) <= {"data:,"} | {r for r in references if r.startswith("#")}
    assert "@import" not in page and "url(" not in page.replace("url(#", "")
    assert page.count("<svg") == page.count('<figure class="plot"') >= 9
    for section in (
        "Headline figures",
        "Model against human by season",
        "Per-wall figures",
        "Runs and models side by side",
        "The hardest walls",
        "Clue embeddings",
        "WoTe: exact match and F1",
        "Ablation",
    ):
        assert section in page


@pytest.mark.slow
def test_page_escapes_data(page: str) -> None:
    # every wall of ocw_randomized, and of default once per results file (model-a, model-b)
    assert page.count('class="ocw-wall"') == 36
    assert "<script>" not in page and "&lt;script&gt;" in page  # wall a012's clue
    assert "&lt;b&gt;Tags&lt;/b&gt;" in page


@pytest.mark.slow
def test_hostile_labels_and_run_names(tmp_path: Path) -> None:
    data = _json(MODEL_A)
    for run in data["runs"]:
        run["run"] = "<img src=x onerror=alert(1)>"
        run["predictions"] = str(DATA / run["predictions"])
    hostile = tmp_path / "$x$ <b>.json"
    hostile.write_text(json.dumps(data))
    page = build_report([hostile], n_hardest=2)
    assert "<img" not in page and "&lt;img src=x" in page and "&lt;b&gt;" in page
    assert "give the config's data" in page  # no walls: listed, not drawn


@pytest.mark.slow
def test_report_cli(tmp_path: Path) -> None:
    out = tmp_path / "r" / "report.html"
    args = ["report", *map(str, ALL), "--out", str(out), "--no-checks", "--hardest", "2"]
    args += ["--cache-dir", str(tmp_path / "cache")]  # nothing prepared
    result = runner.invoke(app, [*args, "--data-dir", f"default={OCW_DIR}"])
    assert result.exit_code == 0, result.output
    first = out.read_text()
    # 2 per results file: default's from --data-dir, ocw_randomized's from the source its
    # results file records (tests/data/report/ocw/dataset, same sha256; issue 24, item 7)
    assert first.count('class="ocw-wall"') == 6
    again = runner.invoke(app, [*args, "--data-dir", f"default={OCW_DIR}"])
    assert again.exit_code == 0 and out.read_text() == first  # reproducible byte for byte


def test_one_data_dir_for_several_configs_is_refused(files: list) -> None:
    with pytest.raises(ReportError, match="give each its data as CONFIG=DIR"):
        load_walls(files, {"*": OCW_DIR, "default": OCW_DIR})
    assert load_walls(files[:2], {"*": OCW_DIR}, verification_mode="no_checks").keys() == {
        ("default", "test")
    }


def test_report_cli_errors_write_nothing(tmp_path: Path) -> None:
    copy = tmp_path / "model-b.json"
    shutil.copy(MODEL_B, copy)
    result = runner.invoke(app, ["report", str(copy), "--out", str(copy)])
    assert result.exit_code == 1 and "is an input of this command" in result.output
    assert copy.read_text() == MODEL_B.read_text()
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    out = tmp_path / "out.html"
    result = runner.invoke(app, ["report", str(copy), str(bad), "--out", str(out)])
    assert result.exit_code == 1 and f"{bad}: `config` must be a JSON string" in result.output
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "model-b.json"]


def test_help_does_not_import_plotting() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from ocw_hub.cli import app\n"
        "for args in (['--help'], ['report', '--help'], ['show', '--help']):\n"
        "    assert CliRunner().invoke(app, args).exit_code == 0\n"
        "heavy = [m for m in ('matplotlib', 'sklearn', 'scipy', 'datasets') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _broken(path: Path, change: str) -> Path:
    data = json.loads(MODEL_A.read_text(encoding="utf-8"))
    run = data["runs"][1]
    if change == "grouping":
        run["grouping"] = "x"
    elif change == "per_wall":
        run["per_wall"] = []
    elif change == "ami":
        run["per_wall"][2]["grouping"]["ami"] = "0.5"
    elif change == "season":
        run["by_season"]["1"]["human"] = [1]
    elif change == "wall_id":
        run["per_wall"][0]["wall_id"] = 7
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ("grouping", "runs[1].grouping"),
        ("per_wall", "runs[1].per_wall"),
        ("ami", "runs[1].per_wall[2].grouping.ami"),
        ("season", "runs[1].by_season.1.human"),
        ("wall_id", "runs[1].per_wall[0].wall_id"),
    ],
)
def test_report_checks_the_inside_of_a_results_file(
    tmp_path: Path, change: str, field: str
) -> None:
    path = _broken(tmp_path / "bad.json", change)
    with pytest.raises(ReportError) as caught:
        read_results([path])
    assert str(path) in str(caught.value) and f"field `{field}`" in str(caught.value)
    out = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["report", str(path), "--out", str(out)])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert f"field `{field}`" in result.output and not out.exists()
