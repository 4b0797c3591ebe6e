"""Text from data is inert where it is shown: escape sequences, C0/C1 controls and bidi
overrides in clues, connections, ids and answers reach the terminal escaped; long values are
cut to a preview."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.shown import PREVIEW_CHARS, capped, inert, preview

#: Clear the screen, retitle the terminal, an OSC 8 hyperlink, a C1 CSI, a bidi override, BEL.
HOSTILE = "\x1b[2J\x1b]0;owned\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\x9b31m\u202eevil\u2066"
DANGEROUS = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066")

runner = CliRunner()


def test_inert_escapes_controls_and_keeps_text() -> None:
    assert inert("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert inert("\x9b\u202e\x7f") == "\\x9b\\u202e\\x7f"
    assert inert("Dr Riviera") == "Dr Riviera"
    assert inert("two\nlines", newlines=True) == "two\nlines"
    assert inert("two\nlines") == "two\\x0alines"
    assert preview("x" * 1000) == "x" * PREVIEW_CHARS + "… (1000 characters)"


@given(st.text())
def test_inert_output_is_always_printable(text: str) -> None:
    assert inert(text).isprintable()
    assert all(line.isprintable() for line in inert(text, newlines=True).split("\n"))


def test_capped_lists_the_first_items_then_counts_the_rest() -> None:
    assert capped("abc") == "a, b, c"
    assert capped(range(8), 3) == "0, 1, 2 and 5 more"
    long = "x" * (PREVIEW_CHARS + 1)
    assert capped([long]) == preview(long) and capped([long], show=inert) == long
    assert capped(["a\x1b", "b", "c"], 2, lines=True) == "- a\\x1b\n- b\n- … and 1 more"


def _no_control(output: str) -> None:
    for char in DANGEROUS:
        assert char not in output


@pytest.fixture()
def hostile_predictions(tmp_path: Path) -> Path:
    groups = [
        ["Elastic band", "Puck", "Squash ball", "Condom" + HOSTILE],
        ["Screw", "Grass", "Snout", "Lag"],
        ["Santa", "Satan", "Bottom", "Dr Riviera"],
        ["Up", "Down", "Charm", "Strange"],
    ]
    entry = {
        "wall_id": "46fa44",
        "predicted_groups": groups,
        "predicted_connections": [HOSTILE, "b", "c", "d"],
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps([entry]), encoding="utf-8")
    return path


def test_show_prints_hostile_predictions_escaped(
    hostile_predictions: Path, ocw_fixture_dir: Path
) -> None:
    result = runner.invoke(
        app,
        ["show", "46fa44", "--no-checks", "--data-dir", str(ocw_fixture_dir)]
        + ["-p", str(hostile_predictions)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    _no_control(result.output)
    assert "\\x1b[2J" in result.output and "\\u202eevil" in result.output


def test_error_and_warning_echo_ids_and_clues_escaped(
    tmp_path: Path, hostile_predictions: Path, ocw_fixture_dir: Path
) -> None:
    result = runner.invoke(
        app,
        ["evaluate", str(hostile_predictions), "--no-checks", "--data-dir", str(ocw_fixture_dir)],
        catch_exceptions=False,
    )  # missing walls: an error naming the file; the foreign clue: a warning
    _no_control(result.output)
    bad_id = tmp_path / "bad-id.json"
    entry = {"wall_id": HOSTILE, "predicted_groups": [["a"]], "predicted_connections": None}
    bad_id.write_text(json.dumps([entry]), encoding="utf-8")
    result = runner.invoke(
        app,
        ["evaluate", str(bad_id), "--no-checks", "--data-dir", str(ocw_fixture_dir)],
        catch_exceptions=False,
    )
    assert result.exit_code == 1
    _no_control(result.output)
    assert "\\x1b]0;owned\\x07" in result.output


def test_a_huge_foreign_clue_is_echoed_as_a_preview(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    rows = json.loads((ocw_fixture_dir / "test.json").read_text(encoding="utf-8"))["dataset"]
    predictions = []
    for row in rows:
        groups = [list(g["gt_words"]) for g in row["groups"].values()]
        predictions.append(
            {"wall_id": row["wall_id"], "predicted_groups": groups, "predicted_connections": None}
        )
    predictions[0]["predicted_groups"][0][0] = "z" * 4_000_000
    path = tmp_path / "p.json"
    path.write_text(json.dumps(predictions), encoding="utf-8")
    result = runner.invoke(
        app,
        ["evaluate", str(path), "--no-checks", "--data-dir", str(ocw_fixture_dir)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output[-2000:]
    warning = [line for line in result.output.splitlines() if "not clues of the wall" in line]
    assert warning and len(warning[0]) < 1000
    assert "(4000000 characters)" in warning[0]


def test_tables_are_never_cut_in_a_file_or_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.table import Table

    from ocw_hub.cli._common import make_console

    monkeypatch.delenv("COLUMNS", raising=False)
    name = "ocw_randomized/" + "x" * 300
    table = Table()
    table.add_column("file")
    table.add_row(name)
    out = io.StringIO()
    make_console(file=out).print(table)
    assert name in out.getvalue()
    monkeypatch.setenv("COLUMNS", "60")  # a width the user asks for is kept
    out = io.StringIO()
    make_console(file=out).print(table)
    assert name not in out.getvalue() and max(map(len, out.getvalue().splitlines())) <= 60
