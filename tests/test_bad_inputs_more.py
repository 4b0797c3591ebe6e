"""Bad input found by a tester on main, each kind once: a JSON Lines file (a play log, or one
that is not) where a results or predictions file is expected, and a file that is not a play
log given to ``show --play``; a play log cut short by a crash; the loading scripts' format
errors printed without their class name; totals more than the walls or questions they count
allow; outputs made or written before a refusal.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from ocw_fixtures import OCW_FIXTURE, WOTE_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import PlayLogError
from ocw_hub.figure_ranges import check_figures
from ocw_hub.llm.log import CutLineWarning
from ocw_hub.play.log import read_play_log

pytestmark = [pytest.mark.usefixtures("local_only"), pytest.mark.filterwarnings("ignore")]
runner = CliRunner()
DATA = ["--data-dir", str(OCW_FIXTURE), "--no-checks"]
REPORT = Path(__file__).resolve().parent / "data" / "report"
HEAD = {
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


def _wall() -> dict[str, Any]:
    return json.loads((OCW_FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"][0]


def _play_lines(with_end: bool = True) -> list[dict[str, Any]]:
    """A header and a wall solved in three gold guesses (the fixture's first test wall)."""
    wall = _wall()
    groups = [g["gt_words"] for g in wall["groups"].values()]
    lines: list[dict[str, Any]] = [HEAD]
    for turn, group in enumerate(groups[:3], 1):
        lines.append(
            {
                "record": "guess",
                "wall_id": wall["wall_id"],
                "turn": turn,
                "clues": group,
                "invalid": None,
                "verdict": "correct",
            }
        )
    if with_end:
        lines.append({"record": "end", "wall_id": wall["wall_id"], "reason": "solved"})
    return lines


def _write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


# --------------------------------------------------------------------------------------------
# 1. JSON Lines where JSON is expected; show --play; a cut play log
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "header", "play_log"),
    [
        (["report", "{log}", "--out", "{tmp}/r.html"], True, True),
        (["compare", "{log}", str(REPORT / "model-a.json")], True, True),
        (["compare", str(REPORT / "model-a.json"), "{log}"], True, True),
        (["evaluate", "{log}", *DATA], False, False),  # no header: not a play log
        (["report", "{log}", "--out", "{tmp}/r.html"], False, False),
    ],
)
def test_json_lines_given_for_json_is_named(
    tmp_path: Path, command: list[str], header: bool, play_log: bool
) -> None:
    lines = _play_lines()
    log = _write_lines(tmp_path / "log.jsonl", lines if header else lines[1:])
    args = [a.format(log=log, tmp=tmp_path) for a in command]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    [error] = _error_lines(result.output)
    assert str(log) in error and "Extra data" not in error and "JSON Lines" in error
    # a play log is told to be scored first; another JSON Lines file is told it is none
    assert ("ocw-hub evaluate LOG --out" in error) == play_log
    assert ("nor a play log" in error) == (not play_log)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("content", ["not a play log\n", '{"wall_id": "x"}\n', "[1, 2]\n", None])
def test_show_play_checks_the_log_before_drawing_the_wall(
    tmp_path: Path, content: str | None
) -> None:
    log = tmp_path / "given.jsonl"
    if content is not None:
        log.write_text(content, encoding="utf-8")
    wall = _wall()
    result = runner.invoke(app, ["show", wall["wall_id"], *DATA, "--play", str(log)])
    assert result.exit_code == 1, result.output
    [error] = _error_lines(result.output)
    assert str(log) in error and "not valid JSON" not in error
    assert ("no such file" in error) == (content is None)
    assert all(clue not in result.output for clue in wall["words"])  # the wall was not drawn


@pytest.mark.parametrize("cut", [1, 10, -1])
def test_a_cut_play_log_warns_of_the_skipped_line(tmp_path: Path, cut: int) -> None:
    lines = _play_lines()
    whole = "".join(json.dumps(r) + "\n" for r in lines[:-1])
    log = tmp_path / "cut.jsonl"
    log.write_text(whole + json.dumps(lines[-1])[:cut], encoding="utf-8")
    with pytest.warns(CutLineWarning, match=f"line {len(lines)}: cut short"):
        read = read_play_log(log)
    [records] = read.walls.values()
    assert len(records.guesses) == 3 and records.end is None  # the cut end record skipped
    result = runner.invoke(app, ["evaluate", str(log), *DATA])
    assert result.exit_code == 1 and "cut short" in result.output, result.output


def test_a_whole_play_log_is_still_read(tmp_path: Path) -> None:
    log = _write_lines(tmp_path / "log.jsonl", _play_lines())
    [records] = read_play_log(log).walls.values()
    assert len(records.guesses) == 3 and records.end is not None
    bad = _write_lines(tmp_path / "bad.jsonl", [{**HEAD, "record": "other"}])
    with pytest.raises(PlayLogError, match="not a play log"):
        read_play_log(bad)


# --------------------------------------------------------------------------------------------
# 2. format errors without their class name
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "fixture", "bad"),
    [
        (["predict", "-m", "random", "--out", "{tmp}/out"], OCW_FIXTURE, "[]"),
        (["predict", "-m", "random", "--out", "{tmp}/out"], OCW_FIXTURE, '{"dataset": [{}]}'),
        (["show", "x"], OCW_FIXTURE, '{"dataset": 3}'),
        (["show", "x", "--config", "wote"], WOTE_FIXTURE, "[]"),
        (["show", "x", "--config", "wote"], WOTE_FIXTURE, '{"data": 3}'),
    ],
)
def test_format_errors_are_printed_without_a_class_name(
    tmp_path: Path, command: list[str], fixture: Path, bad: str
) -> None:
    data = tmp_path / "data"
    shutil.copytree(fixture, data)
    for split in ("train", "validation", "test"):
        (data / f"{split}.json").write_text(bad, encoding="utf-8")
    args = [a.format(tmp=tmp_path) for a in command]
    result = runner.invoke(app, [*args, "--data-dir", str(data), "--no-checks"])
    assert result.exit_code == 1, result.output
    [error] = _error_lines(result.output)
    assert "FormatError" not in error and "Error:" not in error
    assert str(data) in error  # the message names the file
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------------
# 3. totals bounded by the counts the results carry
# --------------------------------------------------------------------------------------------


def _set(data: dict[str, Any], field: str, value: Any) -> None:
    *parents, last = field.split(".")
    for part in parents:
        name, _, index = part.partition("[")
        data = data[name] if not index else data[name][int(index.rstrip("]"))]
    data[last] = value


@pytest.mark.parametrize(
    ("fixture", "field", "size", "per"),
    [
        ("model-a.json", "runs[0].grouping.full_wall", "runs[0].grouping.n_walls", 1),
        ("model-a.json", "runs[0].grouping.correct_groups", "runs[0].grouping.n_walls", 4),
        ("model-a.json", "runs[0].n_missing", "runs[0].n_walls", 1),
        (
            "model-a.json",
            "runs[0].by_season.1.grouping.full_wall",
            "runs[0].by_season.1.n_walls",
            1,
        ),
        ("model-a.json", "human.correct_groups", "human.n_walls", 4),
        ("wote-spans.json", "runs[0].n_missing", "runs[0].n_questions", 1),
    ],
)
@pytest.mark.parametrize("over", [0, 1, 9999])
def test_totals_above_their_counts_are_refused(
    tmp_path: Path, fixture: str, field: str, size: str, per: int, over: int
) -> None:
    data = json.loads((REPORT / fixture).read_text(encoding="utf-8"))
    node: Any = data
    for part in size.split("."):
        name, _, index = part.partition("[")
        node = node[name] if not index else node[name][int(index.rstrip("]"))]
    most = per * node
    _set(data, field, most + over)
    path = tmp_path / fixture
    path.write_text(json.dumps(data), encoding="utf-8")
    for command in (
        ["compare", str(path), str(path)],
        ["report", str(path), "-o", str(tmp_path / "r.html")],
    ):
        result = runner.invoke(app, command)
        if over == 0:  # the most the walls or questions allow is no range error
            assert "allows" not in result.output, result.output
            continue
        assert result.exit_code == 1, result.output
        [error] = _error_lines(result.output)
        assert str(path) in error and f"`{field}`" in error and f"at most {most}" in error


@pytest.mark.parametrize(
    ("name", "per"),
    [("groups_found", 4), ("points", 10), ("walls_solved", 1), ("connections_right", 4)],
)
def test_play_totals_are_bounded_by_the_walls(name: str, per: int) -> None:
    problems: list[str] = []

    def error(field: str, why: str) -> Exception:
        problems.append(field)
        return ValueError(why)

    for walls in (1, 3, 7):
        check_figures({"play": {"n_walls": walls, name: per * walls}}, error)  # the most: fine
        with pytest.raises(ValueError, match=f"at most {per * walls}"):
            check_figures({"n_walls": walls, "play": {name: per * walls + 1}}, error)
    assert problems == [f"play.{name}"] * 3
    check_figures({"play": {name: 10**6}}, error)  # no n_walls to bound it by


# --------------------------------------------------------------------------------------------
# 4. nothing made or written before a refusal
# --------------------------------------------------------------------------------------------


def test_a_failed_report_makes_no_folder(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"config": "default"}', encoding="utf-8")
    out = tmp_path / "a" / "b" / "report.html"
    result = runner.invoke(app, ["report", str(bad), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize("depth", [1, 3])
def test_a_failed_predict_leaves_no_folder(tmp_path: Path, depth: int) -> None:
    data = tmp_path / "data"
    shutil.copytree(OCW_FIXTURE, data)
    (data / "test.json").write_text("[]", encoding="utf-8")
    out = tmp_path.joinpath(*[f"d{i}" for i in range(depth)])
    result = runner.invoke(
        app, ["predict", "-m", "random", "--data-dir", str(data), "--no-checks", "--out", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert not (tmp_path / "d0").exists()


def test_stand_in_eval_results_are_refused_before_any_output(tmp_path: Path) -> None:
    walls = json.loads((OCW_FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]
    predictions = tmp_path / "p.json"
    predictions.write_text(
        json.dumps(
            [
                {
                    "wall_id": w["wall_id"],
                    "predicted_groups": [g["gt_words"] for g in w["groups"].values()],
                    "predicted_connections": list(w["gt_connections"]),
                }
                for w in walls
            ]
        )
    )
    out = tmp_path / "results.json"
    args = [
        "evaluate",
        str(predictions),
        *DATA,
        "--bootstrap",
        "0",
        "--out",
        str(out),
        "--eval-results",
        str(tmp_path / "model"),
        "--model-id",
        "org/m",
        "--dataset-id",
        "org/ocw",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1 and "pre-release stand-in" in result.output, result.output
    assert not out.exists() and not (tmp_path / "model").exists()
    assert "full_wall" not in result.output  # no table printed before the refusal


@pytest.mark.parametrize("split", ["tset", "TEST", ""])
def test_an_unknown_split_is_refused_before_any_file_is_read(tmp_path: Path, split: str) -> None:
    missing = tmp_path / "no-predictions.json"  # never read: the split is refused first
    result = runner.invoke(app, ["evaluate", str(missing), *DATA, "--split", split])
    assert result.exit_code == 1, result.output
    [error] = _error_lines(result.output)
    assert f"--split {split}" in error and "no such file" not in error
