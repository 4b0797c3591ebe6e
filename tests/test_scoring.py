"""ocw-hub evaluate on hand-made walls: several runs (mean ± std), every source of the split,
strict predictions files, safe --out. Runs from a plain clone (no ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.errors import OutputPathError, PredictionsError
from ocw_hub.evaluation import evaluate_files
from ocw_hub.outputs import check_output_file
from ocw_hub.scoring.predictions import read_predictions
from ocw_hub.scoring.runs import summarize_runs

runner = CliRunner()


def _wall(n: int, season: int) -> dict:
    """A wall of my own: group g holds clues "w<n>g<g>c<c>"; contestants found groups 1-2."""
    groups = {
        f"group_{g}": {
            "group_id": f"w{n}-{g}",
            "gt_words": [f"w{n}g{g}c{c}" for c in range(1, 5)],
            "gt_connection": f"connection {g} of wall {n}",
            "human_performance": {"grouping": int(g <= 2), "connection": int(g == 1)},
        }
        for g in range(1, 5)
    }
    words = [c for group in groups.values() for c in group["gt_words"]][::-1]
    return {
        "wall_id": f"w{n}",
        "season": season,
        "episode": n,
        "words": words,
        "gt_connections": [g["gt_connection"] for g in groups.values()],
        "groups": groups,
        "overall_human_performance": {
            "grouping": [g["human_performance"]["grouping"] for g in groups.values()],
            "connections": [g["human_performance"]["connection"] for g in groups.values()],
        },
    }


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release-shaped folder: train w1-w2, validation w3, test w4-w7 (seasons 1, 1, 2, 2)."""
    root = tmp_path_factory.mktemp("release") / "dataset"
    root.mkdir()
    splits = {"train": [1, 2], "validation": [3], "test": [4, 5, 6, 7]}
    for split, numbers in splits.items():
        walls = [_wall(n, 1 if n <= 5 else 2) for n in numbers]
        payload = {"season_to_walls_map": {}, "dataset": walls}
        (root / f"{split}.json").write_text(json.dumps(payload), encoding="utf-8")
    return root


def _perfect(wall: dict, connections: bool = True) -> dict:
    return {
        "wall_id": wall["wall_id"],
        "predicted_groups": [g["gt_words"][::-1] for g in wall["groups"].values()][::-1],
        "predicted_connections": list(wall["gt_connections"]) if connections else None,
    }


def _swapped(wall: dict) -> dict:
    """Clue 0 of groups 1 and 2 swapped: 2 correct groups of 4."""
    pred = _perfect(wall)
    groups = [list(g["gt_words"]) for g in wall["groups"].values()]
    groups[0][0], groups[1][0] = groups[1][0], groups[0][0]
    pred["predicted_groups"] = groups
    return pred


def _test_walls() -> list[dict]:
    return [_wall(n, 1 if n <= 5 else 2) for n in (4, 5, 6, 7)]


def _write(path: Path, entries: object) -> Path:
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _invoke(*args: object) -> object:
    return runner.invoke(app, [str(a) for a in args])


def test_two_runs_mean_and_population_std(tmp_path: Path, release: Path, cache: Path) -> None:
    walls = _test_walls()
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs / "run-00.json", [_perfect(w) for w in walls])
    _write(runs / "run-01.json", [_swapped(w) for w in walls])
    (runs / "embeddings.json").write_text("{}")  # sidecars, not runs
    (runs / "run-00.json.parse.json").write_text("{}")
    res = evaluate_files(
        [runs], "default", "test", release, cache_dir=cache, verification_mode="no_checks"
    )
    assert res["n_runs"] == 2 and [r["run"] for r in res["runs"]] == ["run-00", "run-01"]
    # by hand: run 0 finds 16 groups and 4 walls, run 1 finds 8 groups and no wall
    assert [r["grouping"]["correct_groups"] for r in res["runs"]] == [16, 8]
    assert res["mean"]["grouping"]["correct_groups"] == 12.0
    assert res["std"]["grouping"]["correct_groups"] == 4.0  # population std of (16, 8)
    assert res["mean"]["grouping"]["full_wall_rate"] == 0.5
    assert res["std"]["grouping"]["full_wall_rate"] == 0.5
    ami = [r["grouping"]["ami"] for r in res["runs"]]
    assert ami[0] == 1.0 and ami[1] < 1.0
    assert res["std"]["grouping"]["ami"] == pytest.approx(np.std(ami), abs=1e-15)
    # connections are right in both runs: mean 1, std 0
    assert res["mean"]["connections"]["exact_match"] == 1.0
    assert res["std"]["connections"]["exact_match"] == 0.0
    assert res["human"]["correct_groups"] == 8 and res["human"]["full_wall"] == 0


def test_a_folder_without_run_files_skips_sidecars(tmp_path: Path) -> None:
    from ocw_hub.scoring.predictions import expand_prediction_paths

    (tmp_path / "predictions.json").write_text("[]")
    (tmp_path / "predictions.json.parse.json").write_text("{}")
    (tmp_path / "embeddings.json").write_text("{}")
    (tmp_path / ".hidden.json").write_text("[]")
    assert expand_prediction_paths([tmp_path]) == [tmp_path / "predictions.json"]


def test_summarize_runs_by_hand() -> None:
    runs = [{"grouping": {"wd": 0.0, "n_walls": 3}}, {"grouping": {"wd": 0.5, "n_walls": 3}}]
    assert summarize_runs(runs) == {
        "mean": {"grouping": {"wd": 0.25}},
        "std": {"grouping": {"wd": 0.25}},
    }


def test_by_season_is_aggregated_from_per_wall(tmp_path: Path, release: Path, cache: Path) -> None:
    walls = _test_walls()  # seasons 1, 1, 2, 2
    preds = [_perfect(walls[0]), _swapped(walls[1]), _swapped(walls[2]), _perfect(walls[3])]
    path = _write(tmp_path / "p.json", preds)
    res = evaluate_files(
        [path], "default", "test", release, cache_dir=cache, verification_mode="no_checks"
    )
    season1 = res["by_season"]["1"]["grouping"]
    assert season1["correct_groups"] == 4 + 2 and season1["full_wall"] == 1
    assert season1["ami"] == pytest.approx(
        (res["per_wall"][0]["grouping"]["ami"] + res["per_wall"][1]["grouping"]["ami"]) / 2
    )
    assert res["grouping"]["correct_groups"] == 12
    assert res["by_season"]["2"]["human"]["correct_groups"] == 4


def test_connections_scored_on_fewer_walls_say_so(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    walls = _test_walls()
    preds = [_perfect(w, connections=i == 0) for i, w in enumerate(walls)]
    path = _write(tmp_path / "p.json", preds)
    result = _invoke(
        "evaluate",
        path,
        "--data-dir",
        release,
        "--cache-dir",
        cache,
        "--no-checks",
        "--out",
        tmp_path / "r.json",
    )
    assert result.exit_code == 0, result.output
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["connections"]["n_walls"] == 1 and res["grouping"]["n_walls"] == 4
    lines = [line for line in result.output.splitlines() if "walls scored" in line]
    assert len(lines) == 2 and "4" in lines[0] and "1" in lines[1]


def test_multi_run_table_shows_mean_and_std(tmp_path: Path, release: Path, cache: Path) -> None:
    walls = _test_walls()
    a = _write(tmp_path / "a.json", [_perfect(w) for w in walls])
    b = _write(tmp_path / "b.json", [_swapped(w) for w in walls])
    result = _invoke(
        "evaluate", a, b, "--as-runs", "--data-dir", release, "--cache-dir", cache, "--no-checks"
    )
    assert result.exit_code == 0, result.output
    assert "12.00 ± 4.00" in result.output  # correct_groups over the two runs (a count)
    assert "0.5000 ± 0.5000" in result.output  # full_wall_rate


def test_duplicate_keys_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(
        '[{"wall_id": "w4", "predicted_groups": null, "predicted_connections": null,'
        ' "predicted_connections": ["a", "b", "c", "d"]}]'
    )
    with pytest.raises(PredictionsError, match=r"p\.json: w4: key 'predicted_connections' given"):
        read_predictions(path, "default")
    path.write_text('{"q1": "a", "q1": "b"}')
    with pytest.raises(PredictionsError, match="key 'q1' given twice"):
        read_predictions(path, "wote")


def test_blank_folder_and_missing_paths(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PredictionsError, match="no predictions file"):
        evaluate_files([empty], "default", rows=[])
    with pytest.raises(PredictionsError, match="no such file or folder"):
        evaluate_files([tmp_path / "nope.json"], "default", rows=[])
    path = _write(tmp_path / "p.json", [])
    with pytest.raises(PredictionsError, match="given twice"):
        evaluate_files([path, tmp_path / "." / "p.json"], "default", rows=[])


@pytest.mark.parametrize("kind", ["folder", "root", "under_a_file", "the_input", "symlink"])
def test_bad_out_is_refused_before_scoring(
    tmp_path: Path, release: Path, cache: Path, kind: str
) -> None:
    pred = _write(tmp_path / "p.json", [_perfect(w) for w in _test_walls()])
    before = pred.read_bytes()
    (tmp_path / "afile").write_text("x")
    (tmp_path / "link.json").symlink_to(tmp_path / "elsewhere.json")
    out = {
        "folder": tmp_path,
        "root": Path("/"),
        "under_a_file": tmp_path / "afile" / "r.json",
        "the_input": pred,
        "symlink": tmp_path / "link.json",
    }[kind]
    with pytest.raises(OutputPathError):
        check_output_file(out, [pred])
    result = _invoke(
        "evaluate", pred, "--data-dir", release, "--cache-dir", cache, "--no-checks", "--out", out
    )
    assert result.exit_code == 1 and "--out" in result.output
    assert "Traceback" not in result.output and "walls" not in result.output  # not scored
    assert pred.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_scores_against_an_export_folder(tmp_path: Path, release: Path, cache: Path) -> None:
    from ocw_hub.data.export import build_export

    export = tmp_path / "export"
    build_export({"default": release}, export, cache_dir=cache, verification_mode="no_checks")
    folders = [p for p in export.rglob("README.md")]
    assert folders, "the export holds a card"
    where = folders[0].parent
    path = _write(tmp_path / "p.json", [_swapped(w) for w in _test_walls()])
    from_export = evaluate_files(
        [path], "default", "test", where, cache_dir=tmp_path / "c2", verification_mode="no_checks"
    )
    from_raw = evaluate_files(
        [path], "default", "test", release, cache_dir=cache, verification_mode="no_checks"
    )
    assert from_export["grouping"] == from_raw["grouping"]
    assert from_export["per_wall"] == from_raw["per_wall"]


def test_scores_against_the_prepared_cache_offline(
    tmp_path: Path, release: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    ocw_hub.load_dataset(
        "default", data_dir=release, cache_dir=cache, verification_mode="no_checks"
    )
    # the official download is impossible: a URL that does not exist stands in for it
    from ocw_hub.resources import load_script

    for config in load_script("OCW").OCW.BUILDER_CONFIGS:
        monkeypatch.setattr(config, "url", str(tmp_path / "nowhere" / "OCW.tar.gz"))
    path = _write(tmp_path / "p.json", [_perfect(w) for w in _test_walls()])
    result = _invoke("evaluate", path, "--cache-dir", cache, "--no-checks")
    assert result.exit_code == 0, result.output
    assert "16" in result.output  # correct_groups
    assert f"prepared in the cache from {release.resolve()}" in " ".join(result.output.split())
    result = _invoke("evaluate", path, "--cache-dir", cache, "--fresh", "--no-checks")
    assert result.exit_code == 1 and "could not be downloaded" in result.output


def test_build_fresh_prepares_again(tmp_path: Path, release: Path) -> None:
    """--fresh ignores what the cache holds: a cache folder made unreadable is rebuilt."""
    cache = tmp_path / "cache"
    args = ["build", "-c", "default", "--data-dir", release, "--cache-dir", cache, "--no-checks"]
    assert _invoke(*args, "--out", tmp_path / "o1").exit_code == 0
    for arrow in cache.rglob("*-test.arrow"):
        arrow.write_bytes(b"not arrow")  # a damaged cache: only a fresh preparation recovers
    assert _invoke(*args, "--out", tmp_path / "o2").exit_code != 0
    result = _invoke(*args, "--out", tmp_path / "o3", "--fresh")
    assert result.exit_code == 0, result.output


def test_written_results_are_ordinary_files(tmp_path: Path) -> None:
    import os

    from ocw_hub.outputs import write_text_atomic

    umask = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "r.json", "{}")
    finally:
        os.umask(umask)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644


@pytest.mark.slow
def test_ami_margin_memo_is_kept_across_runs(tmp_path: Path, release: Path, cache: Path) -> None:
    """The second process restores AMI's margin terms and never imports scikit-learn; the
    figures are the same."""
    import os
    import subprocess
    import sys

    path = _write(tmp_path / "p.json", [_swapped(w) for w in _test_walls()])
    code = (
        "import json, sys\n"
        "from ocw_hub.evaluation import evaluate_files\n"
        f"r = evaluate_files([{str(path)!r}], 'default', 'test', {str(release)!r},"
        f" cache_dir={str(cache)!r}, verification_mode='no_checks')\n"
        "print(json.dumps([r['grouping'], 'sklearn' in sys.modules]))\n"
    )
    env = {**os.environ, "OCW_HUB_CACHE": str(tmp_path / "memo")}
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert first[1] is True and second[1] is False
    assert first[0] == second[0]
    assert list((tmp_path / "memo").glob("ami-margins-sklearn-*.json"))


def test_unicode_rouge_tokenizer_option(tmp_path: Path, release: Path, cache: Path) -> None:
    walls = _test_walls()
    preds = [_perfect(w) for w in walls]
    preds[0]["predicted_connections"] = ["Ωμέγα"] * 4  # no ASCII token: 0 either way
    path = _write(tmp_path / "p.json", preds)
    args = [path, "--data-dir", release, "--cache-dir", cache, "--no-checks"]
    assert _invoke("evaluate", *args, "--rouge-tokenizer", "unicode").exit_code == 0
    result = _invoke("evaluate", *args, "--rouge-tokenizer", "klingon")
    assert result.exit_code == 1 and "--rouge-tokenizer klingon: expected one of" in result.output
    assert "Cannot enable progress bars" not in result.output


def test_several_local_preparations_are_not_guessed(
    tmp_path: Path, release: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --data-dir and no official download in the cache, preparations from two local
    sources are ambiguous: the error lists them instead of taking the newest."""
    import shutil

    from ocw_hub.resources import load_script

    cache = tmp_path / "cache"
    other = tmp_path / "other" / "dataset"
    shutil.copytree(release, other)
    for source in (release, other):
        ocw_hub.load_dataset(
            "default", data_dir=source, cache_dir=cache, verification_mode="no_checks"
        )
    for config in load_script("OCW").OCW.BUILDER_CONFIGS:
        monkeypatch.setattr(config, "url", str(tmp_path / "nowhere" / "OCW.tar.gz"))
    path = _write(tmp_path / "p.json", [_perfect(w) for w in _test_walls()])
    result = _invoke("evaluate", path, "--cache-dir", cache, "--no-checks")
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "from 2 local sources" in text and "--data-dir default=DIR" in text


def test_clues_not_in_the_wall_are_named(tmp_path: Path, release: Path, cache: Path) -> None:
    walls = _test_walls()
    preds = [_perfect(w) for w in walls]
    preds[1]["predicted_groups"][0][0] += "zz"  # a typo in one clue
    path = _write(tmp_path / "p.json", preds)
    with pytest.warns(UserWarning, match=r"1 of 4 walls have predicted clues .* wall w5"):
        res = evaluate_files(
            [path], "default", "test", release, cache_dir=cache, verification_mode="no_checks"
        )
    assert res["per_wall"][1]["clues_not_in_wall"] == ["w5g4c4zz"]
    assert "clues_not_in_wall" not in res["per_wall"][0]
    assert res["per_wall"][1]["grouping"]["correct_groups"] == 3  # scored as wrong, as upstream


def test_an_unrecoverable_answer_is_scored_as_wrong_and_names_no_clue(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """``parse`` writes 16 empty clues and 4 empty connections for an answer it cannot
    recover: the wall is one of the walls scored, as wrong, and no warning calls its empty
    clues "not clues of the wall"."""
    import warnings

    from ocw_hub.llm.responses import Response, parse_responses

    walls = _test_walls()
    responses = {"w5": Response("w5", "<think>The first group is", 1)}  # unclosed
    preds = [_perfect(w) for w in walls]
    for task, key in (("grouping", "predicted_groups"), ("connections", "predicted_connections")):
        parsed, report = parse_responses(responses, walls, task=task)
        assert report["counts"]["unrecoverable"] == 1
        preds[1][key] = parsed[0][key]
    assert preds[1]["predicted_groups"] == [["", "", "", ""]] * 4
    path = _write(tmp_path / "p.json", preds)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*not clues of the wall")
        res = evaluate_files(
            [path], "default", "test", release, cache_dir=cache, verification_mode="no_checks"
        )
    assert res["grouping"]["n_walls"] == res["connections"]["n_walls"] == 4
    assert res["grouping"]["full_wall"] == 3 and res["connections"]["exact_match"] == 0.75
    assert "clues_not_in_wall" not in res["per_wall"][1]


def test_randomized_walls_show_no_human_full_walls(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """Contestants never played the rebuilt walls of ocw_randomized: no human full walls."""
    from ocw_hub.views.summary import summary_rows

    path = _write(tmp_path / "p.json", [_perfect(w) for w in _test_walls()])
    res = evaluate_files(
        [path], "ocw_randomized", "test", release, cache_dir=cache, verification_mode="no_checks"
    )
    rows = {(r[0], r[1]): r for r in summary_rows(res)}
    assert rows[("grouping", "full_wall")][3] == "-"
    assert rows[("grouping", "correct_groups")][3].split(" [")[0] == "8"  # on their own walls


def test_the_contestants_figures_carry_their_interval(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """Beside the model's, each of the contestants' figures is shown with its own 95 %
    interval (``ci95.human``), as the model's is; none without a bootstrap."""
    from ocw_hub.views.summary import summary_rows

    path = _write(tmp_path / "p.json", [_perfect(w) for w in _test_walls()])
    scored = {
        n: evaluate_files(
            [path],
            "default",
            "test",
            release,
            cache_dir=cache,
            verification_mode="no_checks",
            bootstrap=n,
        )
        for n in (0, 200)
    }
    res = scored[200]
    rows = {(r[0], r[1]): r for r in summary_rows(res)}
    low, high = res["ci95"]["human"]["correct_groups_rate"]
    assert 0 <= low <= res["human"]["correct_groups_rate"] <= high <= 1
    shown = rows[("grouping", "correct_groups_rate")][3]
    assert shown == f"{res['human']['correct_groups_rate']:.4f} [{low:.4f}, {high:.4f}]"
    low, high = res["ci95"]["human"]["connections_correct_rate"]
    assert rows[("connections", "found by the contestants")][3].endswith(f"[{low:.4f}, {high:.4f}]")
    plain = {(r[0], r[1]): r for r in summary_rows(scored[0])}
    assert "[" not in plain[("grouping", "correct_groups_rate")][3]


def test_runs_of_which_one_lacks_a_task(tmp_path: Path, release: Path, cache: Path) -> None:
    """Two runs, one with connections and one without: the grouping figures are the mean over
    both, and connections has no mean over runs (the table says in how many runs it is)."""
    from ocw_hub.views.summary import summary_rows

    walls = _test_walls()
    both = _write(tmp_path / "a.json", [_perfect(w) for w in walls])
    groups_only = _write(tmp_path / "b.json", [_perfect(w, connections=False) for w in walls])
    res = evaluate_files(
        [both, groups_only],
        "default",
        "test",
        release,
        cache_dir=cache,
        verification_mode="no_checks",
        bootstrap=0,
        as_runs=True,
    )
    assert "connections" not in res["mean"] and res["mean"]["grouping"]["full_wall"] == 4
    rows = {(r[0], r[1]): r for r in summary_rows(res)}
    assert rows[("connections", "runs with this task")][2] == "1 of 2"
    assert not [r for r in rows if r[0] == "connections" and r[1] == "exact_match"]
