"""The Hub's benchmark leaderboard (issue 24, item 6): the exports' ``eval.yaml`` (one task per
headline figure of each config), ``ocw-hub evaluate --eval-results`` writing a model repo's
``.eval_results/<task>.yaml`` entries, ``check`` of both offline, ``publish --eval-results``
(dry run, and a fake ``HfApi``: nothing touches the network).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from export_support import HUB_DATA, _build_small
from huggingface_hub import CommitOperationAdd
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.configs import config_spec
from ocw_hub.data import eval_results as er
from ocw_hub.data.hub_check import check_export, inspect_export
from ocw_hub.data.leaderboard import (
    BOARD_FIGURES,
    EVAL_FILE,
    FRAMEWORK,
    INSPECT_TASKS,
    board_tasks,
)
from ocw_hub.data.publish import ExportError, publish_eval_results
from ocw_hub.scoring.intervals import FIGURES

pytestmark = [pytest.mark.datasets_era, pytest.mark.filterwarnings("ignore::UserWarning")]
runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ocw-hub build`` of default + ocw_wordnet + wote (the synthetic sources)."""
    work = tmp_path_factory.mktemp("board")
    result = _build_small(work / "out", work / "cache")
    assert result.exit_code == 0, result.output
    return work / "out"


def _imperfect(walls: list[dict]) -> list[dict]:
    """Predictions with the gold groups, but in every other wall the first clues of groups 1
    and 2 swapped (two groups wrong there), connections right on even walls only."""
    out = []
    for i, wall in enumerate(walls):
        groups = [list(g["gt_words"]) for g in wall["groups"].values()]
        if i % 2:
            groups[0][0], groups[1][0] = groups[1][0], groups[0][0]
        names = list(wall["gt_connections"]) if i % 2 == 0 else ["x"] * 4
        out.append(
            {"wall_id": wall["wall_id"], "predicted_groups": groups, "predicted_connections": names}
        )
    return out


# --------------------------------------------------------------------------------------------
# eval.yaml
# --------------------------------------------------------------------------------------------


def test_every_export_registers_one_task_per_headline_figure(built: Path) -> None:
    for export, configs in {"ocw": ["default", "ocw_wordnet"], "wote": ["wote"]}.items():
        board = yaml.safe_load((built / export / EVAL_FILE).read_text(encoding="utf-8"))
        assert board["evaluation_framework"] == FRAMEWORK == "inspect-ai"
        assert (
            board["name"]
            == yaml.safe_load((built / export / "README.md").read_text().split("---")[1])[
                "pretty_name"
            ]
        )
        expected = [
            (f"{INSPECT_TASKS[task]}-{c}-{figure}", c, "test")
            for c in configs
            for task in config_spec(c).tasks
            for figure, _ in BOARD_FIGURES[task]
        ]
        assert [(t["id"], t["config"], t["split"]) for t in board["tasks"]] == expected
        assert all(t["id"] in board["description"] for t in board["tasks"])
        for task in {INSPECT_TASKS[t] for c in configs for t in config_spec(c).tasks}:
            assert f"inspect eval ocw_hub/{task}" in board["description"]
        # no field_spec / solvers / scorers: inspect's hf/ loader would run another benchmark
        assert all(set(t) == {"id", "config", "split"} for t in board["tasks"])
        assert check_export(built / export) == []
        # eval.yaml is the leaderboard's, not a file "belonging to no config"
        assert not any(EVAL_FILE in d for d in inspect_export(built / export).differences)
    assert len(board_tasks(["default"])) == 9 and len(board_tasks(["wote"])) == 2


def test_every_board_figure_is_a_figure_the_results_carry() -> None:
    for task, figures in BOARD_FIGURES.items():
        assert {f for f, _ in figures} <= set(FIGURES[task])


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda b: b["tasks"].append(dict(b["tasks"][0])), "is given twice"),
        (lambda b: b["tasks"][0].update(config="ocw_randomized"), "is not a config of the card"),
        (lambda b: b["tasks"][1].update(split="dev"), "has no split 'dev'"),
        (lambda b: b["tasks"][2].update(id="../x"), "is not a plain name"),
        (lambda b: b.pop("evaluation_framework"), "`evaluation_framework` must be"),
        (
            lambda b: b.update(evaluation_framework="ocw-hub"),
            "evaluation_framework is 'ocw-hub', not 'inspect-ai'",
        ),
        (  # an id of an older ocw-hub: no result of evaluate --eval-results would name it
            lambda b: b["tasks"][0].update(id="default-grouping-ami"),
            "id 'default-grouping-ami' is no leaderboard task of config 'default'",
        ),
        (lambda b: b.update(tasks=[]), "`tasks` must be a non-empty list"),
    ],
)
def test_a_damaged_eval_yaml_fails_check(built: Path, tmp_path: Path, edit, problem) -> None:
    export = Path(shutil.copytree(built / "ocw", tmp_path / "ocw"))
    path = export / EVAL_FILE
    board = yaml.safe_load(path.read_text())
    edit(board)
    path.write_text(yaml.safe_dump(board))
    problems = check_export(export)
    assert len(problems) == 1 and problem in problems[0], problems
    result = runner.invoke(app, ["check", str(export)])
    assert result.exit_code == 1 and problem in result.output


def test_eval_yaml_that_is_no_yaml_fails_check(built: Path, tmp_path: Path) -> None:
    export = Path(shutil.copytree(built / "wote", tmp_path / "wote"))
    (export / EVAL_FILE).write_text("tasks: [unclosed\n")
    (problem,) = check_export(export)
    assert problem.startswith(f"{EVAL_FILE}: not readable as YAML")


def test_rebuild_over_an_export_with_its_eval_yaml(built: Path, tmp_path: Path) -> None:
    """A build replaces an export that holds what a build writes, eval.yaml included."""
    out = tmp_path / "out"
    assert _build_small(out, tmp_path / "cache", "wote").exit_code == 0
    assert (out / "wote" / EVAL_FILE).is_file()
    result = _build_small(out, tmp_path / "cache", "wote")
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------------------------
# .eval_results entries
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scored(built: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, Path]:
    """``evaluate --out --eval-results`` of imperfect predictions on the default test split of
    the export: (results JSON, model folder, predictions file)."""
    work = tmp_path_factory.mktemp("scored")
    walls = json.loads((HUB_DATA / "ocw" / "test.json").read_text())["dataset"]
    predictions = work / "predictions.json"
    predictions.write_text(json.dumps(_imperfect(walls)))
    model = work / "model"
    args = [
        "evaluate",
        str(predictions),
        "--data-dir",
        str(built / "ocw"),
        "--no-checks",
        "--cache-dir",
        str(work / "cache"),
        "--out",
        str(work / "results.json"),
        "--bootstrap",
        "200",
        "--eval-results",
        str(model),
        "--model-id",
        "org/model",
        "--dataset-id",
        "org/ocw",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads((work / "results.json").read_text()), model, predictions


def test_evaluate_writes_one_entry_per_figure_equal_to_the_results(scored) -> None:
    results, model, _ = scored
    files = sorted(p.name for p in (model / ".eval_results").iterdir())
    expected = [t for t in board_tasks(["default"]) if t.figure != "bertscore_f1"]  # not scored
    assert files == sorted(f"{t.id}.yaml" for t in expected)
    for task in expected:
        (entry,) = yaml.safe_load((model / ".eval_results" / f"{task.id}.yaml").read_text())
        assert entry["dataset"] == {"id": "org/ocw", "task_id": task.id}  # a local export
        assert entry["value"] == pytest.approx(results[task.task][task.figure])
        assert "evaluation_framework" not in entry  # a predictions file, not an inspect log
        assert "inspect-ai" not in entry["notes"]
        assert entry["source"]["url"] == "https://huggingface.co/org/model"
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", entry["date"])
        low, high = results["ci95"][task.task][task.figure]
        assert f"[{low:.4g}, {high:.4g}]" in entry["notes"]
        method = results["bootstrap"]["method"][task.task][task.figure]  # the figure's own
        named = "bootstrap interval" if method == "percentile" else f"({method}, over walls)"
        assert named in entry["notes"], (task.id, entry["notes"])
        assert results["source"]["sha256"][:12] in entry["notes"]
        assert str(results["source"]["path"]) not in entry["notes"]  # no local path published
    # the figures are not trivial: two groups wrong on every other wall
    assert 0 < results["grouping"]["correct_groups_rate"] < 1
    assert er.eval_results_problems(model) == []
    result = runner.invoke(app, ["check", str(model)])
    assert result.exit_code == 0 and "OK" in result.output


def test_hub_class_and_plain_dict_give_the_same_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    api = er.hub_entry_api()
    if api is None:
        pytest.skip("this huggingface_hub has no EvalResultEntry")
    fields = dict(
        dataset_revision="a" * 40,
        date="2026-01-02T03:04:05+00:00",
        source_url="https://huggingface.co/org/m",
        source_name="ocw-hub evaluate (org/m)",
        notes="one run",
    )
    with_class = er.make_entry("org/ocw", "ocw_grouping-default-ami", 0.25, **fields)
    monkeypatch.setattr(er, "hub_entry_api", lambda: None)
    assert er.make_entry("org/ocw", "ocw_grouping-default-ami", 0.25, **fields) == with_class
    assert er.make_entry("org/ocw", "t", 1.0) == {
        "dataset": {"id": "org/ocw", "task_id": "t"},
        "value": 1.0,
    }
    assert er.make_entry("org/ocw", "t", 1.0, FRAMEWORK)["evaluation_framework"] == FRAMEWORK
    # and huggingface_hub reads the entry back
    from huggingface_hub import parse_eval_result_entries

    (back,) = parse_eval_result_entries([with_class])
    assert (back.dataset_id, back.task_id, back.value) == (
        "org/ocw",
        "ocw_grouping-default-ami",
        0.25,
    )
    assert back.dataset_revision == "a" * 40 and back.source_url == fields["source_url"]


def test_several_runs_give_their_mean_and_std() -> None:
    results = json.loads((Path(__file__).parent / "data/report/model-a.json").read_text())
    entries = er.eval_result_entries(results, model_id="org/m", dataset_id="org/ocw")
    entry = entries["ocw_grouping-default-ami"]
    assert entry["value"] == pytest.approx(results["mean"]["grouping"]["ami"])
    assert f"mean of {results['n_runs']} runs" in entry["notes"]
    assert f"std {results['std']['grouping']['ami']:.4g}" in entry["notes"]


def test_hub_source_gives_dataset_id_and_revision() -> None:
    results = json.loads((Path(__file__).parent / "data/report/model-a.json").read_text())
    results["source"] = {"kind": "hub", "path": "org/ocw", "revision": "b" * 40, "stand_in": False}
    entry = er.eval_result_entries(results, model_id="org/m")["ocw_grouping-default-wd"]
    assert entry["dataset"] == {
        "id": "org/ocw",
        "task_id": "ocw_grouping-default-wd",
        "revision": "b" * 40,
    }
    other = er.eval_result_entries(results, model_id="org/m", dataset_id="org/copy")
    assert "revision" not in other["ocw_grouping-default-wd"]["dataset"]  # not that repo's revision


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"split": "validation"}, "leaderboard tasks are on the 'test' split"),
        ({"source": {"kind": "files", "stand_in": True}}, "pre-release stand-in"),
        ({"source": {"kind": "files", "stand_in": False}, "dataset": None}, "--dataset-id"),
    ],
)
def test_entries_refused(change: dict, message: str) -> None:
    results = json.loads((Path(__file__).parent / "data/report/model-a.json").read_text())
    dataset_id = change.pop("dataset", "org/ocw")
    results.update(change)
    with pytest.raises(ExportError, match=re.escape(message)):
        er.eval_result_entries(results, model_id="org/m", dataset_id=dataset_id)


def test_stand_in_figures_are_refused_by_evaluate_and_nothing_written(tmp_path: Path) -> None:
    from ocw_fixtures import OCW_FIXTURE

    walls = json.loads((OCW_FIXTURE / "test.json").read_text())["dataset"]
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps(_imperfect(walls)))
    args = [
        "evaluate",
        str(predictions),
        "--data-dir",
        str(OCW_FIXTURE),
        "--no-checks",
        "--bootstrap",
        "0",
        "--eval-results",
        str(tmp_path / "model"),
        "--model-id",
        "org/m",
        "--dataset-id",
        "org/ocw",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1 and "pre-release stand-in" in result.output
    assert not (tmp_path / "model" / ".eval_results").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--eval-results", "DIR"], "go together"),  # no --model-id
        (["--model-id", "org/m"], "go together"),  # no --eval-results
        (["--eval-results", "DIR", "--model-id", "not a repo id"], "repo id 'not a repo id'"),
        (["--eval-results", "DIR", "--model-id", "org/m"], "--dataset-id ORG/NAME"),  # local data
        (
            ["--eval-results", "DIR", "--model-id", "o/m", "--dataset-id", "o/d", "-s", "train"],
            "leaderboard tasks are on --split test",
        ),
        (
            ["--eval-results", "PREDICTIONS", "--model-id", "org/m", "--dataset-id", "org/ocw"],
            "is a file, not a folder",
        ),  # an input
        (
            [
                "--eval-results",
                "DIR",
                "--model-id",
                "o/m",
                "--dataset-id",
                "o/d",
                "--seasons",
                "1-2",
            ],
            "not of a slice",
        ),  # a leaderboard figure is the whole split's
    ],
)
def test_bad_eval_results_options_fail_before_scoring(
    tmp_path: Path, args: list[str], message: str
) -> None:
    predictions = tmp_path / "p.json"
    predictions.write_text("[]")  # never read: the options are refused first
    args = [
        str(tmp_path / "m") if a == "DIR" else str(predictions) if a == "PREDICTIONS" else a
        for a in args
    ]
    result = runner.invoke(app, ["evaluate", str(predictions), "--data-dir", "/nonexistent", *args])
    assert result.exit_code == 1, result.output
    assert message in result.output
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"dataset": {"id": "org/ocw"}, "value": 1}, "dataset.task_id None"),
        ({"dataset": {"id": "bad id!", "task_id": "t"}, "value": 1}, "is not a Hub repo id"),
        ({"dataset": {"id": "org/ocw", "task_id": "t"}, "value": "0.5"}, "must be a number"),
        ({"dataset": {"id": "org/ocw", "task_id": "t"}, "value": True}, "must be a number"),
        ({"dataset": {"id": "org/ocw", "task_id": "t"}, "value": 1, "date": "May"}, "ISO-8601"),
        (
            {"dataset": {"id": "org/ocw", "task_id": "t"}, "value": 1, "source": {"name": "x"}},
            "url",
        ),
    ],
)
def test_check_finds_a_bad_entry(tmp_path: Path, entry: dict, problem: str) -> None:
    folder = tmp_path / ".eval_results"
    folder.mkdir()
    (folder / "t.yaml").write_text(yaml.safe_dump([entry]))
    problems = er.eval_results_problems(tmp_path)
    assert len(problems) == 1 and problem in problems[0], problems
    assert runner.invoke(app, ["check", str(tmp_path)]).exit_code == 1


def test_check_against_the_eval_yaml_tasks(tmp_path: Path) -> None:
    folder = tmp_path / ".eval_results"
    folder.mkdir()
    (folder / "a.yaml").write_text(yaml.safe_dump([er.make_entry("org/ocw", "wote-wote-f1", 50.0)]))
    tasks = {t.id for t in board_tasks(["wote"])}
    assert er.eval_results_problems(folder, tasks) == []
    (problem,) = er.eval_results_problems(folder, tasks - {"wote-wote-f1"})
    assert "not a task of the eval.yaml" in problem
    (folder / "notes.txt").write_text("x")
    assert any("not a .yaml results file" in p for p in er.eval_results_problems(folder))


# --------------------------------------------------------------------------------------------
# publish --eval-results
# --------------------------------------------------------------------------------------------


class _FakeApi:
    token = "hf_fake_token"

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def create_commit(self, repo_id: str, **kw: object) -> None:
        self.calls.append(("create_commit", {"repo_id": repo_id, **kw}))


def test_publish_dry_run_lists_the_result_files(scored) -> None:
    _, model, _ = scored
    files = publish_eval_results(model, "org/model", dry_run=True)
    on_disk = sorted(p.name for p in (model / ".eval_results").iterdir())
    assert [f.path for f in files] == [f".eval_results/{name}" for name in on_disk]
    assert [f.size for f in files] == [(model / f.path).stat().st_size for f in files]
    result = runner.invoke(
        app, ["publish", str(model), "--repo-id", "org/model", "--eval-results", "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert "Would upload to org/model" in result.output


def test_publish_adds_the_results_in_one_commit(scored, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    _, model, _ = scored
    api = _FakeApi()
    files = publish_eval_results(model, "org/model", create_pr=True, api=api)  # type: ignore[arg-type]
    ((name, call),) = api.calls
    assert name == "create_commit" and call["repo_type"] == "model" and call["create_pr"] is True
    ops = call["operations"]
    assert all(isinstance(op, CommitOperationAdd) for op in ops)  # nothing else is deleted
    assert [op.path_in_repo for op in ops] == [f.path for f in files]


def test_publish_refuses_bad_results_before_any_request(tmp_path: Path) -> None:
    folder = tmp_path / ".eval_results"
    folder.mkdir()
    (folder / "t.yaml").write_text("- value: 1\n")
    api = _FakeApi()
    with pytest.raises(ExportError, match="not publishable eval results"):
        publish_eval_results(tmp_path, "org/model", api=api)  # type: ignore[arg-type]
    assert api.calls == []
    result = runner.invoke(app, ["publish", str(tmp_path), "--repo-id", "o/m", "--pr"])
    assert result.exit_code == 1 and "--pr" in result.output


def test_check_a_model_folder_against_the_exports_eval_yaml(built: Path, scored) -> None:
    _, model, _ = scored
    result = runner.invoke(app, ["check", str(model), "--eval-yaml", str(built / "ocw")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["check", str(model), "--eval-yaml", str(built / "wote")])
    assert result.exit_code == 1 and "is not a task of the eval.yaml" in result.output
    result = runner.invoke(app, ["check", str(built / "ocw"), "--eval-yaml", str(built / "ocw")])
    assert result.exit_code == 1 and "holds no .eval_results folder" in result.output


def test_a_folder_of_runs_gives_the_mean_and_the_two_level_interval(
    built: Path, tmp_path: Path
) -> None:
    walls = json.loads((HUB_DATA / "ocw" / "test.json").read_text())["dataset"]
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "run-00.json").write_text(json.dumps(_imperfect(walls)))
    (runs / "run-01.json").write_text(json.dumps(_imperfect(walls[::-1])))  # other walls off
    args = [
        "evaluate",
        str(runs),
        "--data-dir",
        str(built / "ocw"),
        "--no-checks",
        "--bootstrap",
        "100",
        "--out",
        str(tmp_path / "r.json"),
        "--eval-results",
        str(tmp_path / "m"),
        "--model-id",
        "org/m",
        "--dataset-id",
        "org/ocw",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "r.json").read_text())
    (entry,) = yaml.safe_load(
        (tmp_path / "m/.eval_results/ocw_grouping-default-ami.yaml").read_text()
    )
    assert entry["value"] == pytest.approx(results["mean"]["grouping"]["ami"])
    assert f"mean of 2 runs (std {results['std']['grouping']['ami']:.4g})" in entry["notes"]
    low, high = results["ci95"]["grouping"]["ami"]
    assert f"[{low:.4g}, {high:.4g}] (walls, then runs within each wall" in entry["notes"]


def test_nothing_is_half_written(tmp_path: Path) -> None:
    results = json.loads((Path(__file__).parent / "data/report/model-a.json").read_text())
    entries = er.eval_result_entries(results, model_id="org/m", dataset_id="org/ocw")
    folder = tmp_path / "m" / ".eval_results"
    (folder / "ocw_grouping-default-wd.yaml").mkdir(parents=True)  # a folder where a file goes
    from ocw_hub.errors import OutputPathError

    with pytest.raises(OutputPathError, match="is a folder"):
        er.write_eval_results(tmp_path / "m", entries, [])
    assert [p.name for p in folder.iterdir()] == ["ocw_grouping-default-wd.yaml"]
    (folder / "ocw_grouping-default-wd.yaml").rmdir()
    written = er.write_eval_results(tmp_path / "m", entries, [])
    assert sorted(p.name for p in written) == sorted(f"{t}.yaml" for t in entries)
    assert er.eval_results_problems(tmp_path / "m") == []


def test_the_model_folder_may_hold_the_predictions(built: Path, tmp_path: Path) -> None:
    """A model repo's clone holding its predictions: only .eval_results is written there."""
    walls = json.loads((HUB_DATA / "ocw" / "test.json").read_text())["dataset"]
    model = tmp_path / "clone"
    model.mkdir()
    predictions = model / "predictions.json"
    predictions.write_text(json.dumps(_imperfect(walls)))
    args = [
        "evaluate",
        str(predictions),
        "--data-dir",
        str(built / "ocw"),
        "--no-checks",
        "--bootstrap",
        "0",
        "--eval-results",
        str(model),
        "--model-id",
        "o/m",
        "--dataset-id",
        "o/ocw",
    ]
    assert runner.invoke(app, args).exit_code == 0
    assert sorted(p.name for p in model.iterdir()) == [".eval_results", "predictions.json"]
    assert predictions.read_text() == json.dumps(_imperfect(walls))


# --------------------------------------------------------------------------------------------
# An entry is a figure of every wall of the split (issue 30, item 2)
# --------------------------------------------------------------------------------------------


def _board_args(built: Path, predictions: Path, model: Path, *extra: str) -> list[str]:
    return [
        "evaluate",
        str(predictions),
        "--data-dir",
        str(built / "ocw"),
        "--no-checks",
        "--bootstrap",
        "0",
        "--eval-results",
        str(model),
        "--model-id",
        "o/m",
        "--dataset-id",
        "o/ocw",
        "--out",
        str(model.parent / "r.json"),
        *extra,
    ]


@pytest.mark.parametrize("allow_missing", [False, True])
def test_null_predictions_give_no_entry(built: Path, tmp_path: Path, allow_missing: bool) -> None:
    """Groups of one wall, null for the others: the figures are the one wall's (AMI 1.0), never
    an entry, with --allow-missing too (null is not missing: not scored as wrong)."""
    walls = json.loads((HUB_DATA / "ocw" / "test.json").read_text())["dataset"]
    first, *rest = _imperfect(walls)
    nulls = [{**p, "predicted_groups": None, "predicted_connections": None} for p in rest]
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps([first, *nulls]))
    model = tmp_path / "m"
    extra = ["--allow-missing"] if allow_missing else []
    result = runner.invoke(app, _board_args(built, predictions, model, *extra))
    assert result.exit_code == 1, result.output
    flat = " ".join(result.output.split())
    assert f"grouping figures are over 1 of the {len(walls)} walls" in flat
    assert not model.exists() and not (tmp_path / "r.json").exists()


def test_missing_walls_scored_as_wrong_give_entries_that_say_so(
    built: Path, tmp_path: Path
) -> None:
    walls = json.loads((HUB_DATA / "ocw" / "test.json").read_text())["dataset"]
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps(_imperfect(walls)[:1]))  # the other walls left out
    model = tmp_path / "m"
    refused = runner.invoke(app, _board_args(built, predictions, model))
    assert refused.exit_code == 1 and "--allow-missing" in refused.output
    result = runner.invoke(app, _board_args(built, predictions, model, "--allow-missing"))
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["grouping"]["n_walls"] == len(walls) and results["n_missing"] == len(walls) - 1
    (entry,) = yaml.safe_load((model / ".eval_results/ocw_grouping-default-ami.yaml").read_text())
    assert entry["value"] == pytest.approx(results["grouping"]["ami"])
    assert entry["value"] < 1  # the missing walls count as wrong
    n = len(walls)
    assert (
        f"figure over {n} of the {n} walls of the split (1 predicted, the others missing and "
        "scored as wrong)" in entry["notes"]
    )
    assert er.eval_results_problems(model) == []


def test_entries_of_every_wall_say_so(scored) -> None:
    results, model, _ = scored
    (entry,) = yaml.safe_load((model / ".eval_results/ocw_grouping-default-ami.yaml").read_text())
    n = results["n_walls"]
    assert f"figure over {n} of the {n} walls of the split (every wall predicted)" in entry["notes"]


def test_a_run_with_null_predictions_refuses_the_mean() -> None:
    results = json.loads((Path(__file__).parent / "data/report/model-a.json").read_text())
    results["runs"][1]["grouping"]["n_walls"] = 2
    with pytest.raises(ExportError, match="over 2 of the 12 walls"):
        er.eval_result_entries(results, model_id="org/m", dataset_id="org/ocw")


@pytest.mark.parametrize(
    ("notes", "problem"),
    [
        ("figure over 2 of the 494 walls of the split (2 predicted)", "over 2 of the 494 walls"),
        ("one run; 494 walls; protocol: none", "do not say that the figure is over every wall"),
    ],
)
def test_check_and_publish_refuse_an_entry_of_part_of_the_split(
    tmp_path: Path, notes: str, problem: str
) -> None:
    folder = tmp_path / ".eval_results"
    folder.mkdir()
    entry = er.make_entry(
        "org/ocw", "ocw_grouping-default-ami", 1.0, notes=f"ocw-hub 1.0 evaluate of org/m; {notes}"
    )
    (folder / "ocw_grouping-default-ami.yaml").write_text(er.entry_text(entry))
    (found,) = er.eval_results_problems(tmp_path)
    assert problem in found
    result = runner.invoke(app, ["check", str(tmp_path)])
    assert result.exit_code == 1 and problem in " ".join(result.output.split())
    result = runner.invoke(
        app, ["publish", str(tmp_path), "--repo-id", "org/m", "--eval-results", "--dry-run"]
    )
    assert result.exit_code == 1 and problem in " ".join(result.output.split())
    # an entry not written by ocw-hub evaluate (no such notes) is not judged on them
    (folder / "ocw_grouping-default-ami.yaml").write_text(
        er.entry_text(er.make_entry("org/ocw", "ocw_grouping-default-ami", 1.0, notes=notes))
    )
    assert er.eval_results_problems(tmp_path) == []
