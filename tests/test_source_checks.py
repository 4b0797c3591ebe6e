"""Every source is checked the same way: a wall that lost a clue is the same one-line error
(exception type, wall id, field) from the raw files and from an export, in every command that
reads walls, and ``check`` reports it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app

DATA = Path(__file__).parent / "data"
REPORT = DATA / "report"
OCW_DIR = REPORT / "ocw" / "dataset"  # the walls of the report fixtures' results files
WALL = "a002"
#: The one error line (its message, no class name before it): the wall and the field named.
ERROR = re.compile(r"^error: (?!\w+Error: ).*wall '([^']+)'.*field '([^']+)'", re.M)

runner = CliRunner()


def _drop_clue(wall: dict) -> None:
    """The wall loses its last clue: 15 in ``words``, 3 in group 4."""
    dropped = wall["groups"]["group_4"]["gt_words"].pop()
    wall["words"].remove(dropped)


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same 15-clue wall in raw files and in a Parquet export built from good raw files."""
    from ocw_hub.data.export import build_export

    root = tmp_path_factory.mktemp("sources")
    raw = root / "raw"
    shutil.copytree(OCW_DIR, raw)
    document = json.loads((raw / "test.json").read_text(encoding="utf-8"))
    _drop_clue(next(w for w in document["dataset"] if w["wall_id"] == WALL))
    (raw / "test.json").write_text(json.dumps(document), encoding="utf-8")
    build_export({"default": OCW_DIR}, root / "hub", root / "cache", verification_mode="no_checks")
    export = root / "hub" / "ocw"
    (parquet,) = (export / "data" / "default").glob("test-*.parquet")
    table = pq.read_table(parquet)
    rows = table.to_pylist()
    _drop_clue(next(r for r in rows if r["wall_id"] == WALL))
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), parquet)
    return {"raw": raw, "export": export}


def _commands(source: Path, tmp_path: Path) -> dict[str, list[str]]:
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps({"wall_id": "a001", "text": "x"}) + "\n")
    d = ["--data-dir", str(source), "--no-checks"]
    return {
        "evaluate": ["evaluate", str(REPORT / "predictions" / "model-b" / "run-01.json"), *d],
        "parse": ["parse", str(responses), "--out", str(tmp_path / "p.json"), *d],
        "show": ["show", "a001", *d],
        "report": ["report", str(REPORT / "model-a.json"), "--out", str(tmp_path / "r.html")]
        + ["--data-dir", f"default={source}", "--no-checks"],
    }


@pytest.mark.parametrize("command", ["evaluate", "parse", "show", "report"])
def test_a_15_clue_wall_is_the_same_error_from_raw_files_and_an_export(
    sources: dict[str, Path], tmp_path: Path, command: str
) -> None:
    found = {}
    for kind, source in sources.items():
        out = tmp_path / kind
        out.mkdir()
        result = runner.invoke(app, _commands(source, out)[command])
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        found[kind] = ERROR.findall(result.output)
        assert sorted(p.name for p in out.iterdir()) == ["responses.jsonl"]
    assert found["raw"] == found["export"] == [(WALL, "words")]


def test_check_reports_the_wall(sources: dict[str, Path]) -> None:
    result = runner.invoke(app, ["check", str(sources["export"])])
    assert result.exit_code == 1
    assert f"wall '{WALL}'" in result.output and "field 'words'" in result.output


def test_wote_rows_pass_as_built_and_fail_when_changed() -> None:
    from ocw_hub.resources import load_sibling

    questions = load_sibling("wote_questions")
    rows = questions.read_questions(str(DATA / "wote" / "test.json"), "test")
    questions.check_rows(rows, "export", "test")  # what the builder yields passes
    rows[1]["answers"] = {"text": ["not in it"], "answer_start": [0]}
    with pytest.raises(questions.WoTeFormatError, match="field 'answers'") as caught:
        questions.check_rows(rows, "export", "test")
    assert rows[1]["question_id"] in str(caught.value)
    with pytest.raises(questions.WoTeFormatError, match="field 'id'"):
        questions.check_rows([rows[0], rows[0]], "export", "test")
