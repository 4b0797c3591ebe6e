"""``ocw-hub report results.json`` without ``--data-dir`` (issue 24, item 7): the walls come from
the source the results file records (a folder, an export, the prepared cache), checked by its
sha256, even when the cache holds the split prepared from several sources; a source that is
gone or changed is one typed, one-line error saying which and why.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from export_support import HUB_DATA, _build_small
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.data.sources import prepared_split
from ocw_hub.errors import SourceUnavailableError
from ocw_hub.results import ReportError, read_results
from ocw_hub.views.report_data import load_walls
from ocw_hub.views.report_source import CHANGED, GONE, RecordedSourceError

pytestmark = [pytest.mark.datasets_era, pytest.mark.filterwarnings("ignore::UserWarning")]
runner = CliRunner()


def _source(tmp_path: Path, name: str, connection: str | None = None) -> Path:
    """A copy of the synthetic OCW source (official-style ids); with ``connection``, the first
    test wall's first connection renamed (other content, same clues: predictions still fit)."""
    folder = Path(shutil.copytree(HUB_DATA / "ocw", tmp_path / name / "dataset"))
    if connection is not None:
        test = folder / "test.json"
        data = json.loads(test.read_text(encoding="utf-8"))
        wall = data["dataset"][0]
        wall["gt_connections"][0] = connection
        next(iter(wall["groups"].values()))["gt_connection"] = connection
        test.write_text(json.dumps(data), encoding="utf-8")
    return folder


def _predictions(tmp_path: Path) -> Path:
    walls = json.loads((HUB_DATA / "ocw" / "test.json").read_text())["dataset"]
    rows = [
        {
            "wall_id": w["wall_id"],
            "predicted_groups": [g["gt_words"] for g in w["groups"].values()][::-1],
            "predicted_connections": ["x"] * 4,
        }
        for w in walls
    ]
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(rows))
    return path


def _evaluate(tmp_path: Path, out: Path, *args: str) -> dict:
    args = (
        "evaluate",
        str(_predictions(tmp_path)),
        "--no-checks",
        "--bootstrap",
        "0",
        "--out",
        str(out),
        *args,
    )
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _prepare(source: Path, cache: Path) -> None:
    ocw_hub.load_dataset("default", data_dir=source, cache_dir=cache, verification_mode="no_checks")


def _first_connection(walls: dict) -> str:
    (rows,) = walls.values()
    return rows[0]["gt_connections"][0]


def _report(results: Path, cache: Path, out: Path, *args: str):
    return runner.invoke(
        app,
        [
            "report",
            str(results),
            "--out",
            str(out),
            "--cache-dir",
            str(cache),
            "--no-checks",
            *args,
        ],
    )


@pytest.fixture()
def two_sources(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Sources A and B (one connection differs), both prepared in one cache dir."""
    cache = tmp_path / "cache"
    a, b = _source(tmp_path, "a"), _source(tmp_path, "b", connection="Renamed in B")
    _prepare(a, cache)
    _prepare(b, cache)
    with pytest.raises(SourceUnavailableError, match="from 2 local sources"):
        prepared_split("default", "test", cache, "no_checks")  # what report used to read
    return a, b, cache


def test_report_reads_the_recorded_folder_in_a_cache_of_several_sources(
    two_sources: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    a, b, cache = two_sources
    results_a = tmp_path / "a.json"
    results_b = tmp_path / "b.json"
    recorded = _evaluate(tmp_path, results_a, "--data-dir", str(a))["source"]
    assert recorded["kind"] == "files" and recorded["path"] == str(a)
    _evaluate(tmp_path, results_b, "--data-dir", str(b))
    for results, connection in ((results_a, _gold_connection(a)), (results_b, "Renamed in B")):
        walls = load_walls(
            read_results([results]), {}, cache_dir=cache, verification_mode="no_checks"
        )
        assert _first_connection(walls) == connection
        result = _report(results, cache, tmp_path / f"{results.stem}.html")
        assert result.exit_code == 0, result.output
    assert "Renamed in B" in (tmp_path / "b.html").read_text(encoding="utf-8")
    assert "Renamed in B" not in (tmp_path / "a.html").read_text(encoding="utf-8")
    # two files of one split scored on different content: which walls to draw is not guessed
    with pytest.raises(ReportError, match="sources of different content"):
        load_walls(read_results([results_a, results_b]), {}, cache_dir=cache)


def _gold_connection(source: Path) -> str:
    return json.loads((source / "test.json").read_text())["dataset"][0]["gt_connections"][0]


@pytest.mark.parametrize("reason", [GONE, CHANGED])
def test_a_gone_or_changed_source_is_one_line_and_data_dir_still_works(
    two_sources: tuple[Path, Path, Path], tmp_path: Path, reason: str
) -> None:
    a, b, cache = two_sources
    results = tmp_path / "a.json"
    sha = _evaluate(tmp_path, results, "--data-dir", str(a))["source"]["sha256"]
    kept = Path(shutil.copytree(a, tmp_path / "kept"))
    if reason == GONE:
        shutil.rmtree(a)
    else:
        test = a / "test.json"
        test.write_text(test.read_text() + " ")  # same rows, other bytes
    with pytest.raises(RecordedSourceError) as caught:
        load_walls(read_results([results]), {}, cache_dir=cache, verification_mode="no_checks")
    assert caught.value.reason == reason and caught.value.recorded["sha256"] == sha
    assert caught.value.config == "default" and caught.value.results == results
    result = _report(results, cache, tmp_path / "r.html")
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = [x for x in result.output.splitlines() if x.strip()]
    state = {GONE: "is gone: no such file or folder", CHANGED: "has changed: sha256 now"}[reason]
    assert state in line and (sha[:12] in line) == (reason == CHANGED)
    assert "--data-dir default=DIR" in line
    assert not (tmp_path / "r.html").exists()
    result = _report(results, cache, tmp_path / "r.html", "--data-dir", str(kept))
    assert result.exit_code == 0, result.output


def test_a_relative_path_is_found_beside_the_results_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    source = _source(work, "src", connection="Relative")
    monkeypatch.chdir(work)
    results = work / "results.json"
    recorded = _evaluate(work, results, "--data-dir", "src/dataset")["source"]
    assert recorded["path"] == "src/dataset"
    monkeypatch.chdir(tmp_path)  # the path as written no longer resolves from here
    walls = load_walls(
        read_results([results]), {}, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    assert _first_connection(walls) == "Relative"
    assert source.is_dir()


def test_results_on_the_prepared_cache_find_their_preparation(tmp_path: Path) -> None:
    """Scored with no --data-dir on the cache's one preparation (A); a second source (B) is
    prepared afterwards: the report picks A's rows by their digest."""
    cache = tmp_path / "cache"
    a, b = _source(tmp_path, "a"), _source(tmp_path, "b", connection="Renamed in B")
    _prepare(a, cache)
    results = tmp_path / "results.json"
    recorded = _evaluate(tmp_path, results, "--cache-dir", str(cache))["source"]
    assert recorded["kind"] == "cache" and recorded["path"] is None
    _prepare(b, cache)
    walls = load_walls(read_results([results]), {}, cache_dir=cache, verification_mode="no_checks")
    assert _first_connection(walls) == _gold_connection(a)
    assert _report(results, cache, tmp_path / "r.html").exit_code == 0
    shutil.rmtree(a)  # its preparation is no longer served
    with pytest.raises(RecordedSourceError) as caught:
        load_walls(read_results([results]), {}, cache_dir=cache, verification_mode="no_checks")
    assert caught.value.reason == CHANGED  # B's preparation is there, with other rows


def test_two_exports_in_one_cache_and_a_changed_export(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    out_a, out_b = tmp_path / "out_a", tmp_path / "out_b"
    assert _build_small(out_a, tmp_path / "bc", "default").exit_code == 0
    b = _source(tmp_path, "b", connection="Renamed in B")
    result = runner.invoke(
        app,
        [
            "build",
            "--out",
            str(out_b),
            "--cache-dir",
            str(tmp_path / "bc"),
            "--no-checks",
            "-c",
            "default",
            "--data-dir",
            f"default={b}",
        ],
    )
    assert result.exit_code == 0, result.output
    results_a, results_b = tmp_path / "a.json", tmp_path / "b.json"
    ra = _evaluate(tmp_path, results_a, "--data-dir", str(out_a / "ocw"), "--cache-dir", str(cache))
    _evaluate(tmp_path, results_b, "--data-dir", str(out_b / "ocw"), "--cache-dir", str(cache))
    assert ra["source"]["kind"] == "export"
    walls_b = load_walls(
        read_results([results_b]), {}, cache_dir=cache, verification_mode="no_checks"
    )
    assert _first_connection(walls_b) == "Renamed in B"
    walls_a = load_walls(
        read_results([results_a]), {}, cache_dir=cache, verification_mode="no_checks"
    )
    assert _first_connection(walls_a) == _gold_connection(HUB_DATA / "ocw")
    (out_a / "ocw" / "README.md").write_text("changed\n")
    with pytest.raises(RecordedSourceError) as caught:
        load_walls(read_results([results_a]), {}, cache_dir=cache)
    assert caught.value.reason == CHANGED


def test_raw_files_and_their_export_are_one_source(tmp_path: Path) -> None:
    """One report of a file scored on the raw folder and one scored on its export: the same
    rows (``rows_sha256``), though the files read differ, so no "different content"."""
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert _build_small(out, tmp_path / "bc", "default").exit_code == 0
    raw, exported = tmp_path / "raw.json", tmp_path / "export.json"
    on_raw = _evaluate(
        tmp_path, raw, "--data-dir", str(HUB_DATA / "ocw"), "--cache-dir", str(cache)
    )
    on_export = _evaluate(
        tmp_path, exported, "--data-dir", str(out / "ocw"), "--cache-dir", str(cache)
    )
    assert on_raw["source"]["sha256"] != on_export["source"]["sha256"]
    walls = load_walls(
        read_results([raw, exported]), {}, cache_dir=cache, verification_mode="no_checks"
    )
    assert _first_connection(walls) == _gold_connection(HUB_DATA / "ocw")


def test_results_without_a_recorded_source_read_the_cache_as_before(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    a = _source(tmp_path, "a", connection="Only source")
    _prepare(a, cache)
    results = tmp_path / "results.json"
    data = _evaluate(tmp_path, results, "--data-dir", str(a))
    data.pop("source")
    results.write_text(json.dumps(data))
    walls = load_walls(read_results([results]), {}, cache_dir=cache, verification_mode="no_checks")
    assert _first_connection(walls) == "Only source"


def test_a_hub_source_is_read_and_checked_by_the_digest_of_its_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Hub repo id recorded with the sha256 of the rows read (no network: ``load_split`` of
    the repo id answers with a local preparation, as the offline cache would)."""
    from ocw_hub.data import sources
    from ocw_hub.resources import load_sibling

    cache = tmp_path / "cache"
    a = _source(tmp_path, "a", connection="From the Hub")
    served = sources.load_split(
        "default", "test", a, cache_dir=cache, verification_mode="no_checks"
    )
    arrow = [e["filename"] for e in served.cache_files]
    results = tmp_path / "results.json"
    data = _evaluate(tmp_path, results, "--data-dir", str(a))
    data["source"] = {
        "release": "official release",
        "stand_in": False,
        "kind": "hub",
        "path": "org/ocw",
        "revision": "c" * 40,
        "sha256": load_sibling("source_files").source_digest(*arrow),
    }
    results.write_text(json.dumps(data))
    asked: list[object] = []

    def hub(config, split, data_dir=None, **kw):
        asked.append(data_dir)
        if data_dir != "org/ocw":
            raise AssertionError(data_dir)
        return served

    monkeypatch.setattr(sources, "load_split", hub)
    walls = load_walls(read_results([results]), {}, cache_dir=cache)
    assert _first_connection(walls) == "From the Hub" and asked == ["org/ocw"]
    data["source"]["sha256"] = "0" * 64  # the repo now serves other rows
    results.write_text(json.dumps(data))
    with pytest.raises(RecordedSourceError) as caught:
        load_walls(read_results([results]), {}, cache_dir=cache)
    assert caught.value.reason == CHANGED

    def offline(config, split, data_dir=None, **kw):
        raise SourceUnavailableError("cannot read org/ocw", config=config, data_dir=data_dir)

    monkeypatch.setattr(sources, "load_split", offline)
    with pytest.raises(RecordedSourceError) as caught:
        load_walls(read_results([results]), {}, cache_dir=cache)
    assert caught.value.reason == GONE


def test_report_never_writes_into_the_recorded_source(tmp_path: Path) -> None:
    a = _source(tmp_path, "a")
    results = tmp_path / "results.json"
    _evaluate(tmp_path, results, "--data-dir", str(a))
    before = sorted(p.name for p in a.iterdir())
    result = _report(results, tmp_path / "cache", a / "report.html")
    assert result.exit_code == 1 and "lies inside the input folder" in result.output
    assert sorted(p.name for p in a.iterdir()) == before
