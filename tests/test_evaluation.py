"""ocw-hub evaluate end to end: the stand-in's 494 test walls and WoTe validation."""

from __future__ import annotations

import json
from pathlib import Path

import evaluate
import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.resources import metric_dir

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def test_walls(ocw_dir: Path) -> list[dict]:
    return json.loads((ocw_dir / "test.json").read_text())["dataset"]


def _perfect(walls: list[dict]) -> list[dict]:
    """Perfect predictions, groups in reverse order and clues reversed inside each group."""
    return [
        {
            "wall_id": w["wall_id"],
            "predicted_groups": [g["gt_words"][::-1] for g in w["groups"].values()][::-1],
            "predicted_connections": list(w["gt_connections"]),
        }
        for w in walls
    ]


def _run(tmp_path: Path, predictions: object, *args: str, data_dir: Path, cache: Path):
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(predictions))
    out = tmp_path / "results.json"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(path),
            "--data-dir",
            str(data_dir),
            "--cache-dir",
            str(cache),
            "--out",
            str(out),
            *args,
        ],
    )
    return result, (json.loads(out.read_text()) if out.exists() else None)


def test_perfect_predictions_on_494_walls(
    tmp_path: Path, ocw_dir: Path, cache: Path, test_walls: list[dict]
) -> None:
    result, res = _run(
        tmp_path, _perfect(test_walls), "--config", "default", data_dir=ocw_dir, cache=cache
    )
    assert result.exit_code == 0, result.output
    assert res["n_walls"] == 494 and res["n_missing"] == 0
    assert res["grouping"] == {
        "wd": 0.0,
        "ami": 1.0,
        "ari": 1.0,
        "fms": 1.0,
        "full_wall": 494,
        "correct_groups": 1976,
        "full_wall_rate": 1.0,
        "correct_groups_rate": 1.0,
        "n_walls": 494,
    }
    assert res["connections"] == {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 494}
    # the human performance recorded for the same walls, counted here from the raw JSON
    scores = [g["human_performance"] for w in test_walls for g in w["groups"].values()]
    assert res["human"]["correct_groups"] == sum(s["grouping"] for s in scores)
    assert res["human"]["connections_correct_rate"] == sum(s["connection"] for s in scores) / 1976
    assert res["human"]["full_wall"] == sum(
        all(g["human_performance"]["grouping"] for g in w["groups"].values()) for w in test_walls
    )
    seasons = {str(w["season"]) for w in test_walls}
    assert set(res["by_season"]) == seasons
    assert sum(s["n_walls"] for s in res["by_season"].values()) == 494
    assert all(s["grouping"]["full_wall_rate"] == 1.0 for s in res["by_season"].values())
    assert [w["wall_id"] for w in res["per_wall"]] == [w["wall_id"] for w in test_walls]
    repeated = {w["wall_id"]: w for w in res["per_wall"]}
    for wall_id in ("654041", "b308e4"):  # the repeated-clue walls score perfectly too
        assert repeated[wall_id]["grouping"]["correct_groups"] == 4
        assert repeated[wall_id]["grouping"]["ami"] == 1.0
    assert "full_wall" in result.output and "494" in result.output


def test_imperfect_predictions_equal_the_metric(
    tmp_path: Path, ocw_dir: Path, cache: Path, test_walls: list[dict]
) -> None:
    preds = _perfect(test_walls[:20])
    # wall 0: swap one clue between two groups -> 2 groups right; wall 1: one wrong connection
    g = preds[0]["predicted_groups"]
    g[0][0], g[1][0] = g[1][0], g[0][0]
    preds[1]["predicted_connections"][2] = "something else"
    result, res = _run(
        tmp_path, preds, "--config", "default", "--allow-missing", data_dir=ocw_dir, cache=cache
    )
    assert result.exit_code == 0, result.output
    assert res["n_missing"] == 474
    first = res["per_wall"][0]
    assert first["grouping"]["correct_groups"] == 2 and not first["grouping"]["full_wall"]
    assert res["per_wall"][1]["connections"]["exact_match"] == 0.75
    missing = res["per_wall"][20]
    assert missing["missing"] is True
    assert missing["grouping"]["correct_groups"] == 0 and missing["grouping"]["wd"] == 1.0
    assert missing["connections"] == {"exact_match": 0.0, "rouge1": 0.0}
    assert res["grouping"]["correct_groups"] == 19 * 4 + 2
    # the CLI's global figures are the evaluate module's, on the same inputs
    metric = evaluate.load(str(metric_dir()), "connections")
    refs = [list(w["gt_connections"]) for w in test_walls[:20]]
    expected = metric.compute(
        predictions=[p["predicted_connections"] for p in preds], references=refs
    )
    by_id = {w["wall_id"]: w for w in res["per_wall"]}
    assert [by_id[w["wall_id"]]["connections"]["exact_match"] for w in test_walls[:20]] == [
        1.0,
        0.75,
        *[1.0] * 18,
    ]
    assert expected["exact_match"] == (19 + 0.75) / 20


def test_missing_unknown_and_duplicated_ids(
    tmp_path: Path, ocw_dir: Path, cache: Path, test_walls: list[dict]
) -> None:
    preds = _perfect(test_walls[:-12])
    result, res = _run(tmp_path, preds, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 1 and res is None
    assert "missing from the predictions" in result.output
    assert test_walls[-12]["wall_id"] in result.output and "and 2 more" in result.output
    assert "--allow-missing" in result.output

    unknown = _perfect(test_walls) + [
        {"wall_id": "zzzz", "predicted_groups": None, "predicted_connections": None}
    ]
    result, _ = _run(tmp_path, unknown, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 1 and "not in the split: zzzz" in result.output

    dup = _perfect(test_walls) + _perfect(test_walls[:2])
    result, _ = _run(tmp_path, dup, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 1 and "duplicated wall_id" in result.output
    assert test_walls[1]["wall_id"] in result.output


def test_malformed_prediction_names_the_wall(
    tmp_path: Path, ocw_dir: Path, cache: Path, test_walls: list[dict]
) -> None:
    preds = _perfect(test_walls)
    preds[7]["predicted_groups"] = preds[7]["predicted_groups"][:3]
    result, res = _run(tmp_path, preds, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 1 and res is None
    assert test_walls[7]["wall_id"] in result.output and "predicted_groups" in result.output


def test_null_task_is_skipped(
    tmp_path: Path, ocw_dir: Path, cache: Path, test_walls: list[dict]
) -> None:
    preds = [{**p, "predicted_connections": None} for p in _perfect(test_walls)]
    result, res = _run(tmp_path, preds, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 0, result.output
    assert "connections" not in res and res["grouping"]["n_walls"] == 494
    assert "connections" not in res["per_wall"][0]


def test_fields_must_be_given_and_known(
    tmp_path: Path, ocw_dir: Path, cache: Path, test_walls: list[dict]
) -> None:
    """A typo in a field name must not silently drop a task."""
    preds = _perfect(test_walls)
    preds[3]["predicted_group"] = preds[3].pop("predicted_groups")
    result, _ = _run(tmp_path, preds, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 1
    assert f"wall {test_walls[3]['wall_id']} (entry 3)" in result.output
    assert "unknown field(s) ['predicted_group']" in result.output
    assert "missing field(s) ['predicted_groups']" in result.output
    nothing = [
        {**p, "predicted_groups": None, "predicted_connections": None} for p in _perfect(test_walls)
    ]
    result, _ = _run(tmp_path, nothing, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 1 and "nothing to score" in result.output


def test_wrong_config_or_split_is_hinted(
    tmp_path: Path, ocw_dir: Path, wote_dir: Path, cache: Path, test_walls: list[dict]
) -> None:
    result, _ = _run(
        tmp_path, _perfect(test_walls), "--config", "wote", data_dir=wote_dir, cache=cache
    )
    assert result.exit_code == 1 and "use --config default" in result.output
    result, _ = _run(
        tmp_path, _perfect(test_walls), "--split", "validation", data_dir=ocw_dir, cache=cache
    )
    assert result.exit_code == 1 and "is --config / --split right?" in result.output
    result, _ = _run(
        tmp_path, _perfect(test_walls), "--split", "dev", data_dir=ocw_dir, cache=cache
    )
    assert result.exit_code == 1 and "--split dev: config 'default' has splits" in result.output


def test_no_source_names_the_data_dir_flag(
    tmp_path: Path, test_walls: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --data-dir the official file is downloaded; here it cannot be (a local path that
    does not exist stands in for the URL, so no network is used)."""
    from ocw_hub.resources import load_script

    ocw = load_script("OCW")
    for config in ocw.OCW.BUILDER_CONFIGS:
        monkeypatch.setattr(config, "url", str(tmp_path / "nowhere" / "OCW.tar.gz"))
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_perfect(test_walls)))
    result = runner.invoke(app, ["evaluate", str(path), "--cache-dir", str(tmp_path / "c")])
    assert result.exit_code == 1
    assert "could not be downloaded" in result.output and "--data-dir default=DIR" in result.output
    assert "Traceback" not in result.output


def test_not_utf8_predictions(tmp_path: Path, ocw_dir: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('[{"wall_id": "caf\xe9"}]'.encode("latin-1"))
    result = runner.invoke(app, ["evaluate", str(path), "--data-dir", str(ocw_dir)])
    assert result.exit_code == 1 and "latin1.json: not UTF-8 text" in result.output


def test_markup_in_messages_is_printed_as_is(tmp_path: Path, ocw_dir: Path) -> None:
    path = tmp_path / "p[bold].json"
    path.write_text("[")
    result = runner.invoke(app, ["evaluate", str(path), "--data-dir", str(ocw_dir)])
    assert result.exit_code == 1 and "p[bold].json: not valid JSON" in result.output


def test_not_json_and_wrong_shape(tmp_path: Path, ocw_dir: Path, cache: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('[{"wall_id": "46fa44"')
    result = runner.invoke(app, ["evaluate", str(path), "--data-dir", str(ocw_dir)])
    assert result.exit_code == 1 and "not valid JSON" in result.output and "p.json" in result.output
    result, _ = _run(tmp_path, {"46fa44": []}, data_dir=ocw_dir, cache=cache)
    assert result.exit_code == 1 and "expected a JSON list" in result.output


@pytest.fixture(scope="module")
def wote_validation(wote_dir: Path, cache: Path) -> list[dict]:
    import ocw_hub

    return ocw_hub.load_dataset("wote", "validation", wote_dir, cache_dir=cache).to_list()


def test_wote_validation_end_to_end(
    tmp_path: Path, wote_dir: Path, cache: Path, wote_validation: list[dict]
) -> None:
    preds = {q["id"]: q["answers"]["text"][0] for q in wote_validation}
    first = wote_validation[0]
    preds[first["id"]] = "completely unrelated words"

    def run(predictions: object):
        return _run(
            tmp_path, predictions, "-c", "wote", "-s", "validation", data_dir=wote_dir, cache=cache
        )

    result, res = run(preds)
    assert result.exit_code == 0, result.output
    assert res["n_questions"] == 169
    assert res["spans"]["exact_match"] == pytest.approx(100 * 168 / 169)
    assert res["per_question"][0]["exact_match"] == 0.0
    assert sum(d["n_questions"] for d in res["by_domain"].values()) == 169
    assert set(res["by_domain"]) == {q["domain"] for q in wote_validation}
    types = {t for q in wote_validation for t in q["question_type"]}
    assert set(res["by_question_type"]) == types
    # the two questions sharing question_id diy-63-5 are scored separately
    assert sum(q["question_id"] == "diy-63-5" for q in res["per_question"]) == 2

    as_list = [{"id": k, "prediction_text": v} for k, v in preds.items()]
    _, res_list = run(as_list)
    assert res_list["spans"] == res["spans"]

    duplicated = as_list + as_list[:1]
    result, _ = run(duplicated)
    assert (
        result.exit_code == 1 and "duplicated id" in result.output and first["id"] in result.output
    )
