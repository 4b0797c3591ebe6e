"""ocw-hub reproduce: the grouping experiment end to end on the fixture walls (no ../shared):
every step's files are there, the results are those of scoring the written predictions, a
second run reuses the folder, and a folder of other files is refused before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import OutputPathError
from ocw_hub.evaluation import evaluate_files
from ocw_hub.experiment import MANIFEST, RUNS_OF, reproduce

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory, ocw_fixture_dir: Path) -> tuple:
    out = tmp_path_factory.mktemp("reproduce") / "build"
    cache = tmp_path_factory.mktemp("cache")
    outcomes = reproduce(
        ocw_fixture_dir, out, runs=2, jobs=1, cache_dir=cache, verification_mode="no_checks"
    )
    return out, cache, outcomes


@pytest.mark.slow
def test_every_step_writes_its_files(outcome: tuple) -> None:
    out, _, outcomes = outcome
    assert [(o.config, o.method) for o in outcomes] == list(RUNS_OF)
    assert (out / "hub" / "ocw" / "README.md").is_file()
    assert sorted(p.name for p in (out / "ocw_randomized").iterdir()) == [
        "derived.json",
        "test.json",
        "train.json",
        "validation.json",
    ]
    for o in outcomes:
        assert sorted(p.name for p in o.predictions.glob("run-*.json")) == [
            "run-00.json",
            "run-01.json",
        ]
    assert (out / "predictions" / "default-embedding" / "embeddings.npz").is_file()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") or html.lower().startswith("<!doctype html>")
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["runs"] == 2 and len(manifest["outcomes"]) == 3


@pytest.mark.slow
def test_results_are_the_scores_of_the_written_predictions(
    outcome: tuple, ocw_fixture_dir: Path
) -> None:
    out, cache, outcomes = outcome
    first = outcomes[0]
    again = evaluate_files(
        [first.predictions],
        "default",
        "test",
        ocw_fixture_dir,
        cache_dir=cache,
        verification_mode="no_checks",
    )
    saved = json.loads(first.results.read_text())
    assert saved["mean"] == again["mean"] and saved["std"] == again["std"]
    assert first.summary["mean"] == again["mean"]["grouping"]
    assert saved["n_runs"] == 2 and saved["n_walls"] == 6


@pytest.mark.slow
def test_a_second_run_reuses_the_folder(outcome: tuple, ocw_fixture_dir: Path) -> None:
    out, cache, outcomes = outcome
    again = reproduce(
        ocw_fixture_dir, out, runs=2, jobs=1, cache_dir=cache, verification_mode="no_checks"
    )
    assert [o.summary for o in again] == [o.summary for o in outcomes]  # seeded: identical


def test_a_folder_of_other_files_is_refused_first(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(OutputPathError, match="holds other files"):
        reproduce(ocw_fixture_dir, tmp_path, runs=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    result = CliRunner().invoke(
        app, ["reproduce", "--data-dir", str(ocw_fixture_dir), "--out", str(tmp_path)]
    )
    assert result.exit_code == 1 and "holds other files" in result.output
    with pytest.raises(OutputPathError):
        reproduce(ocw_fixture_dir, ocw_fixture_dir / "inside", runs=1)


@pytest.mark.slow
def test_an_interrupted_run_is_redone_and_a_second_writer_refused(
    tmp_path: Path, ocw_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ocw_hub.data.randomize as randomize
    from ocw_hub.outputs import LOCK_NAME, exclusive

    out, cache = tmp_path / "build", tmp_path / "cache"
    kwargs = dict(runs=1, jobs=1, cache_dir=cache, verification_mode="no_checks")

    def interrupted(*args, **kw):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(randomize, "derive_randomized", interrupted)
        with pytest.raises(KeyboardInterrupt):
            reproduce(ocw_fixture_dir, out, **kwargs)
    assert json.loads((out / MANIFEST).read_text())["complete"] is False
    assert (out / "hub").is_dir() and not (out / LOCK_NAME).exists()
    with exclusive(out):  # another run holds the folder
        with pytest.raises(OutputPathError, match="another ocw-hub run"):
            reproduce(ocw_fixture_dir, out, **kwargs)
    reproduce(ocw_fixture_dir, out, **kwargs)  # the same command redoes it
    assert json.loads((out / MANIFEST).read_text())["complete"] is True


@pytest.mark.filterwarnings("default::UserWarning")
def test_each_data_warning_is_shown_once(
    tmp_path: Path, ocw_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """reproduce reads the release through the builder (the exports) and as raw files (the
    baselines, the scores): a quirk of one file is one warning, though the data dir is given
    as a relative path (the builder named it by its absolute path, the raw reader as given)."""
    monkeypatch.chdir(ocw_fixture_dir.parent)
    args = [
        "reproduce",
        "--data-dir",
        ocw_fixture_dir.name,
        "--out",
        str(tmp_path / "build"),
        "--runs",
        "1",
        "--jobs",
        "1",
        "--cache-dir",
        str(tmp_path / "c"),
        "--no-checks",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    shown = [line for line in result.stderr.splitlines() if "wall '0f1677'" in line]
    release = [line for line in shown if "ocw_randomized" not in line]  # not its derived copy
    assert len(release) == 1, shown
    assert str(ocw_fixture_dir / "validation.json") in release[0]
