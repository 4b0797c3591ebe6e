"""The wall and WoTe question views (``ocw_hub.views``, ``ocw-hub show``).

Small data: invented walls and questions in ``tests/data/report`` (written by its
``make_fixtures.py``); the full-scale check on the stand-in's test split uses ``ocw_dir``.
"""

from __future__ import annotations

import itertools
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.resources import load_metric_module
from ocw_hub.scoring.predictions import WallPrediction
from ocw_hub.views.lookup import UnknownIdError, find_row
from ocw_hub.views.question import Question, question_html
from ocw_hub.views.wall import Wall, wall
from ocw_hub.views.wall_render import MISPLACED, wall_html

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

DATA = Path(__file__).parent / "data" / "report"
OCW_DIR = DATA / "ocw" / "dataset"
WOTE_DIR = DATA / "wote"
WALLS = {w["wall_id"]: w for w in json.loads((OCW_DIR / "test.json").read_text())["dataset"]}
QUESTIONS = json.loads((WOTE_DIR / "test.json").read_text())

#: Wall a001 with three red herrings taken: Mars (a chocolate bar) and Jupiter (a Roman god)
#: placed with the planets, Saturn and Uranus with the gods, Janus with the chocolate bars.
HERRINGS = [
    ["Mercury", "Venus", "Mars", "Jupiter"],
    ["Saturn", "Uranus", "Neptune", "Apollo"],
    ["Bounty", "Twix", "Galaxy", "Janus"],
    ["Iron", "Tin", "Lead", "Zinc"],
]


def _row(wall_id: str) -> dict:
    """A fixture wall as the builders yield it (the raw file has the same fields)."""
    return WALLS[wall_id]


def _text(renderable: object, width: int = 160) -> str:
    console = Console(record=True, width=width, color_system=None)
    console.print(renderable)
    return console.export_text()


# --------------------------------------------------------------------------------------
# Wall: placement of clues, figures
# --------------------------------------------------------------------------------------


def test_red_herrings_are_placed_and_marked() -> None:
    shown = Wall.from_row(
        _row("a001"), {"predicted_groups": HERRINGS, "predicted_connections": None}
    )
    labels = [[c.gold for c in row] for row in shown.placed()]
    # gold groups: 0 planets, 1 chocolate bars, 2 Roman gods, 3 metals
    assert labels == [[0, 0, 1, 2], [0, 0, 2, 2], [1, 1, 1, 2], [3, 3, 3, 3]]
    # overlaps: row 1 has 2 planets, row 2 2 planets and 2 gods, row 3 3 bars, row 4 4 metals;
    # the one-to-one matching with most clues in place: 1->planets, 2->gods, 3->bars, 4->metals
    assert shown.row_matches() == [0, 2, 1, 3]
    misplaced = [c.clue for row in shown.placed() for c in row if c.misplaced]
    assert misplaced == ["Mars", "Jupiter", "Saturn", "Uranus", "Janus"]
    scores = shown.scores
    assert scores == load_metric_module("grouping").score_wall(HERRINGS, shown.gold)
    assert scores["correct_groups"] == 1 and not scores["full_wall"]


def test_wall_prediction_objects_and_case() -> None:
    lower = [[c.lower() for c in g] for g in HERRINGS]
    shown = Wall.from_row(_row("a001"), WallPrediction("a001", lower, None))
    assert [[c.gold for c in row] for row in shown.placed()][0] == [0, 0, 1, 2]
    assert shown.placed()[0][0].clue == "mercury"  # shown as predicted


def test_clue_not_in_the_wall_has_no_gold_group() -> None:
    groups = [list(g) for g in HERRINGS]
    groups[3][0] = "Pluto"
    shown = Wall.from_row(_row("a001"), {"predicted_groups": groups, "predicted_connections": None})
    pluto = shown.placed()[3][0]
    assert pluto.gold is None and pluto.misplaced
    assert "? Pluto" in _text(shown)
    assert 'data-group="none"' in shown.to_html()


def test_clue_held_by_two_gold_groups() -> None:
    """Wall a011 holds `Vogue` in two groups (magazines, Madonna songs): a solved wall is solved
    whichever Vogue goes where."""
    gold = [g["gt_words"] for g in _row("a011")["groups"].values()]
    shown = Wall.from_row(
        _row("a011"), {"predicted_groups": gold[::-1], "predicted_connections": None}
    )
    assert not any(c.misplaced for row in shown.placed() for c in row)
    assert shown.scores["full_wall"]
    # one Vogue in each group: both in place
    vogues = [c.gold for row in shown.placed() for c in row if c.clue == "Vogue"]
    assert sorted(vogues) == [0, 1]


@st.composite
def _partitions(draw: st.DrawFn) -> list[list[str]]:
    clues = [c for g in _row("a004")["groups"].values() for c in g["gt_words"]]
    order = draw(st.permutations(clues))
    return [list(order[i : i + 4]) for i in range(0, 16, 4)]


@settings(max_examples=60, deadline=None)
@given(_partitions())
def test_placement_laws(predicted: list[list[str]]) -> None:
    """For any grouping of a wall's 16 clues: each clue's gold group is its own; the clues in
    place are the best one-to-one matching of rows to gold groups (checked over all 24); a row
    with no misplaced clue is exactly a correct group."""
    row = _row("a004")
    gold = [g["gt_words"] for g in row["groups"].values()]
    shown = Wall.from_row(row, {"predicted_groups": predicted, "predicted_connections": None})
    group_of = {c: g for g, clues in enumerate(gold) for c in clues}
    placed = shown.placed()
    assert [[c.gold for c in r] for r in placed] == [[group_of[c] for c in r] for r in predicted]
    best = max(
        sum(sum(group_of[c] == perm[p] for c in r) for p, r in enumerate(predicted))
        for perm in itertools.permutations(range(4))
    )
    assert sum(not c.misplaced for r in placed for c in r) == best
    clean_rows = sum(not any(c.misplaced for c in r) for r in placed)
    assert clean_rows == shown.scores["correct_groups"]


def test_bad_prediction_names_the_wall() -> None:
    with pytest.raises(ValueError, match=r"wall a001: predicted_groups\[2\]"):
        Wall.from_row(
            _row("a001"), {"predicted_groups": [["a"] * 4] * 2 + [["b"] * 3] + [["c"] * 4]}
        )


# --------------------------------------------------------------------------------------
# Wall: terminal and HTML
# --------------------------------------------------------------------------------------


def test_terminal_view_marks_misplaced_clues_and_prints_the_figures() -> None:
    shown = Wall.from_row(
        _row("a001"),
        {"predicted_groups": HERRINGS, "predicted_connections": ["Planets", "x", "y", "Metals"]},
        config="default",
        split="test",
    )
    text = _text(shown)
    assert "wall a001 · season 1, episode 1 · default/test" in text
    for clue, group in (("Mars", 2), ("Jupiter", 3), ("Saturn", 1), ("Uranus", 1), ("Janus", 3)):
        assert f"{MISPLACED} {clue} ({group})" in text
    # five clues, the legend, and the contestants' missed group 3 and connection 4
    assert text.count(MISPLACED) == 5 + 1 + 2
    scores = shown.scores
    assert f"AMI {scores['ami']:.3f}   ARI {scores['ari']:.3f}" in text
    assert "correct groups 1/4" in text
    assert "Planets" in text and "Chocolate bars" in text  # the gold connections beside rows
    assert "✓ group 4" in text  # the metals row is a correct group


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td":
            self.cells.append(dict(attrs))


def test_html_view_marks_misplaced_clues_and_escapes_data() -> None:
    shown = Wall.from_row(
        _row("a001"), {"predicted_groups": HERRINGS, "predicted_connections": None}
    )
    snippet = shown._repr_html_()
    assert snippet == wall_html(shown) and snippet.startswith('<div class="ocw-wall"')
    parser = _Cells()
    parser.feed(snippet)
    assert sum(c.get("data-misplaced") == "true" for c in parser.cells) == 5
    assert sum(c.get("data-group") is not None for c in parser.cells) == 32  # gold + predicted
    assert "<script" not in snippet.lower()

    hostile = Wall.from_row(_row("a012"))
    snippet = hostile.to_html()
    assert "<script>" not in snippet and "&lt;script&gt;" in snippet
    assert "&amp;amp;" in snippet and "&lt;b&gt;Tags&lt;/b&gt; &amp; &quot;markup&quot;" in snippet
    assert "[red]" in _text(hostile)  # rich markup in data is printed as it is


# --------------------------------------------------------------------------------------
# WoTe questions
# --------------------------------------------------------------------------------------


def _question(index: int, prediction: str | None = None) -> Question:
    from ocw_hub.data.sources import load_split

    rows = load_split("wote", "test", WOTE_DIR, verification_mode="no_checks").to_list()
    return Question.from_row(rows[index], prediction)


def test_question_spans() -> None:
    q = _question(2, "2 MINUTES on each side")  # "How long on each side?"
    start = q.context.index("2 minutes")
    assert q.gold_spans() == [(start, start + len("2 minutes"))]
    assert q.prediction_span() == (start, start + len("2 minutes on each side"))
    text = _text(q)
    assert "⟦⟨2 minutes⟧ on each side⟩" in text
    assert f"gold answer ⟦2 minutes⟧ at offset {start}" in text
    assert "student: What next?" in text and "teacher: Heat a pan." in text
    # SQuAD F1: 2 common tokens, precision 2/5, recall 2/2
    assert q.scores() == {"exact_match": 0.0, "f1": pytest.approx(100 * 2 * 0.4 * 1 / 1.4)}


def test_question_answer_not_in_context_and_prediction_not_found() -> None:
    q = _question(3, "never said")  # "Am I done?" -> "You are done" is not in the recipe
    assert q.answers[0][1] == -1 and q.gold_spans() == [] and q.prediction_span() is None
    text = _text(q)
    assert "⟦You are done⟧ not found in the context" in text
    assert "prediction ⟨never said⟩ not found in the context" in text
    assert "<mark" not in question_html(q)


def test_question_html_marks_and_escapes() -> None:
    q = _question(4, "wall plugs")
    snippet = q._repr_html_()
    assert '<mark style="background:#9ad19a"><u ' in snippet and "wall plugs</u></mark>" in snippet


# --------------------------------------------------------------------------------------
# ocw-hub show, the Python API
# --------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _wide_console() -> object:
    """The CLI's console is 80 columns under CliRunner; 200 keeps a clue and its marks on one
    line, so the output can be searched for them."""
    from ocw_hub.cli._common import console

    width = console._width
    console.width = 200
    yield
    console._width = width


def _show(*args: str) -> object:
    return runner.invoke(app, ["show", *args, "--no-checks"], catch_exceptions=False)


def test_show_wall_with_predictions(tmp_path: Path) -> None:
    predictions = tmp_path / "p.json"
    entry = {"wall_id": "a001", "predicted_groups": HERRINGS, "predicted_connections": None}
    predictions.write_text(json.dumps([entry]))
    result = _show("a001", "--data-dir", str(OCW_DIR), "--predictions", str(predictions))
    assert result.exit_code == 0, result.output
    assert "✗ Mars (2)" in result.output and "correct groups 1/4" in result.output


def test_show_gold_wall_and_question() -> None:
    result = _show("a002", "-c", "ocw", "--data-dir", str(OCW_DIR))
    assert result.exit_code == 0, result.output
    assert "Popes" in result.output and "predicted groups" not in result.output
    qid = f"{QUESTIONS[4]['conversation_id']}/{QUESTIONS[4]['question_id']}"
    run = DATA / "predictions" / "wote" / "run-01.json"
    result = _show(qid, "-c", "wote", "--data-dir", str(WOTE_DIR), "-p", str(run))
    assert result.exit_code == 0, result.output
    assert "⟦⟨wall plugs⟩⟧" in result.output  # predicted "WALL PLUGS", found ignoring case


def test_show_unknown_id_is_one_line(tmp_path: Path) -> None:
    result = _show("nope", "--data-dir", str(OCW_DIR))
    assert result.exit_code == 1
    # the data warnings of a first preparation (order of the tests) may come before it
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: wall 'nope' is not in config 'default', split 'test', nor in the other splits"
    ]
    assert "Traceback" not in result.output
    other = tmp_path / "other.json"
    other.write_text(json.dumps([]))
    result = _show("a001", "--data-dir", str(OCW_DIR), "-p", str(other))
    assert result.exit_code == 1 and "has no prediction for 'a001'" in result.output


def test_find_row_and_wall_api() -> None:
    with pytest.raises(UnknownIdError, match="question 'x' is not in config 'wote'"):
        find_row([{"id": "a", "question_id": "b"}], "x", "wote", "test")
    assert find_row([{"id": "a/q", "question_id": "q"}], "q", "wote", "test")["id"] == "a/q"
    run = DATA / "predictions" / "model-b" / "run-01.json"
    shown = wall(
        "default", "test", "a003", data_dir=OCW_DIR, predictions=run, verification_mode="no_checks"
    )
    assert shown.title == "wall a003 · season 1, episode 3 · default/test"
    assert shown.scores is not None and shown._repr_html_().count("ocw-predicted") == 4


@pytest.mark.full_data
def test_show_on_the_stand_in(ocw_dir: Path, tmp_path: Path) -> None:
    """A stand-in test wall with two clues swapped between groups: both marked, 2 groups right."""
    walls = json.loads((ocw_dir / "test.json").read_text())["dataset"]
    target = walls[7]
    groups = [list(g["gt_words"]) for g in target["groups"].values()]
    groups[0][0], groups[1][0] = groups[1][0], groups[0][0]
    predictions = tmp_path / "p.json"
    entry = {
        "wall_id": target["wall_id"],
        "predicted_groups": groups,
        "predicted_connections": None,
    }
    predictions.write_text(json.dumps([entry]))
    result = runner.invoke(
        app, ["show", target["wall_id"], "--data-dir", str(ocw_dir), "-p", str(predictions)]
    )
    assert result.exit_code == 0, result.output
    assert f"{MISPLACED} {groups[0][0]} (2)" in result.output
    assert f"{MISPLACED} {groups[1][0]} (1)" in result.output
    assert "correct groups 2/4" in result.output
