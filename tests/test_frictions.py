"""A newcomer's first runs: an id looked up in the wrong split, a predictions file with a typo
in a wall id or several faults, ``build`` offline with no option."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import PredictionsError
from ocw_hub.scoring.predictions import MAX_FAULTS, read_predictions

DATA = Path(__file__).parent / "data"
REPORT_OCW = DATA / "report" / "ocw" / "dataset"
RUN = DATA / "report" / "predictions" / "model-b" / "run-01.json"

runner = CliRunner()


def test_show_finds_an_id_in_another_split(wote_fixture_dir: Path) -> None:
    qid = "Wizard-of-Task-food-903/food-903-2"  # a validation question
    args = ["show", qid, "--config", "wote", "--data-dir", str(wote_fixture_dir), "--no-checks"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "'validation'" in result.output and f"question {qid}" in result.output
    result = runner.invoke(app, [*args[:1], "nope", *args[2:]])
    assert result.exit_code == 1 and "'nope'" in result.output


def _entries() -> list[dict]:
    return json.loads(RUN.read_text(encoding="utf-8"))


def test_a_typo_in_a_wall_id_names_the_missing_wall_and_the_nearest(tmp_path: Path) -> None:
    entries = _entries()
    entries[1]["wall_id"] = "a0o2"  # a002 mistyped
    path = tmp_path / "p.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    args = ["evaluate", str(path), "--data-dir", str(REPORT_OCW), "--no-checks"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    error = next(line for line in result.output.splitlines() if line.startswith("error:"))
    assert "a0o2 (nearest: a002)" in error and "missing from the predictions: a002" in error


def test_a_predictions_file_reports_all_its_faults(tmp_path: Path) -> None:
    entries = _entries()
    entries[2]["predicted_groups"] = entries[2]["predicted_groups"][:3]
    entries[5]["predicted_connections"] = [1, 2, 3, 4]
    entries[7].pop("predicted_connections")
    path = tmp_path / "p.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    with pytest.raises(PredictionsError) as caught:
        read_predictions(path, "default")
    lines = str(caught.value).splitlines()
    assert lines[0] == f"{path}: 3 faults:"
    for entry, field in ((2, "predicted_groups"), (5, "predicted_connections[0]")):
        assert any(f"wall {entries[entry]['wall_id']}" in ln and field in ln for ln in lines)
    assert any(f"wall {entries[7]['wall_id']}" in line for line in lines)


def test_faults_beyond_the_limit_are_counted(tmp_path: Path) -> None:
    entries = [
        {"wall_id": f"w{i}", "predicted_groups": [["a"]], "predicted_connections": None}
        for i in range(MAX_FAULTS + 5)
    ]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    with pytest.raises(PredictionsError) as caught:
        read_predictions(path, "default")
    lines = str(caught.value).splitlines()
    assert lines[0].endswith(f"{MAX_FAULTS + 5} faults:")
    assert len(lines) == 1 + MAX_FAULTS + 1 and lines[-1] == "- … and 5 more"


def test_build_offline_with_no_option_names_the_options(tmp_path: Path) -> None:
    result = runner.invoke(app, ["build", "--out", str(tmp_path / "hub")])
    assert result.exit_code == 1
    for config in ("default", "ocw_randomized", "ocw_wordnet", "wote"):
        assert f"--data-dir {config}=DIR" in result.output
    assert not (tmp_path / "hub").exists()


def test_build_with_no_config_builds_what_has_a_source(
    tmp_path: Path, wote_fixture_dir: Path
) -> None:
    args = ["build", "--data-dir", f"wote={wote_fixture_dir}", "--out", str(tmp_path / "hub")]
    result = runner.invoke(app, [*args, "--no-checks", "--cache-dir", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert "--data-dir default=DIR" in result.output and "--data-dir wote=DIR" not in result.output
    assert sorted(p.name for p in (tmp_path / "hub").iterdir()) == ["wote"]


def test_jobs_are_capped_at_the_cores(
    tmp_path: Path, ocw_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ocw_hub.cli._common import worker_count

    cores = len(os.sched_getaffinity(0))
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # an idle machine
    assert worker_count(None) == cores == worker_count(10_000) and worker_count(1) == 1
    out = tmp_path / "runs"
    args = ["predict", "--method", "random", "--runs", "2", "--jobs", "1000", "--no-checks"]
    result = runner.invoke(app, [*args, "--data-dir", str(ocw_fixture_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"--jobs 1000: {cores} used" in result.output


@pytest.mark.parametrize(
    ("load", "cores", "workers"), [(0.0, 2, 2), (0.4, 2, 2), (0.6, 2, 1), (4.8, 2, 1), (1.2, 8, 7)]
)
def test_default_workers_are_the_idle_cores(
    monkeypatch: pytest.MonkeyPatch, load: float, cores: int, workers: int
) -> None:
    from ocw_hub.cli._common import idle_cores

    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert idle_cores(cores) == workers


def test_default_workers_without_a_load_average(monkeypatch: pytest.MonkeyPatch) -> None:
    from ocw_hub.cli._common import idle_cores

    monkeypatch.delattr(os, "getloadavg")
    assert idle_cores(4) == 4
