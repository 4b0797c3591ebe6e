"""End to end against a real OpenAI-compatible server with a real model (``.ci/run`` starts
``transformers serve`` on SmolLM2-135M-Instruct, see ``tests/llm_model.py``).

``prompts -> run-llm -> parse -> evaluate`` per task, and the lm-evaluation-harness tasks of
``ocw-hub lm-eval-tasks`` through ``lm_eval --model local-chat-completions``, whose figures
must equal ``ocw-hub evaluate``'s on the answers lm-eval logged. The model's quality does not
matter: every request answered, the parse outcomes counted, the figures recomputed.

The server comes from ``OCW_HUB_LLM_BASE_URL`` (``http://127.0.0.1:PORT/v1``) and
``OCW_HUB_LLM_MODEL`` (the model name it serves); without them these tests are skipped, and
``OCW_HUB_REQUIRE_LLM=1`` (set by ``.ci/run``) makes a missing server a failure. Answers are
capped at :data:`MAX_TOKENS` new tokens (the paper's 144 would only make the run longer).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app

pytestmark = pytest.mark.llm_server

BASE_URL_ENV = "OCW_HUB_LLM_BASE_URL"
MODEL_ENV = "OCW_HUB_LLM_MODEL"
REQUIRE_ENV = "OCW_HUB_REQUIRE_LLM"
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
#: Walls of the test split asked (the first ones of the fixture's test split).
N_WALLS = 2
MAX_TOKENS = 96
SHOTS = 1
runner = CliRunner()


@pytest.fixture(scope="module")
def server() -> tuple[str, str]:
    """(base URL, model name) of the running server."""
    base_url, model = os.environ.get(BASE_URL_ENV), os.environ.get(MODEL_ENV)
    if not base_url or not model:
        reason = f"needs a running OpenAI-compatible server: set {BASE_URL_ENV} and {MODEL_ENV}"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{reason} ({REQUIRE_ENV}=1 makes it required)", pytrace=False)
        pytest.skip(reason)
    return base_url, model


@pytest.fixture(scope="module")
def walls_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The LLM fixture with its test split cut to the first :data:`N_WALLS` walls."""
    folder = tmp_path_factory.mktemp("walls")
    for name in ("train.json", "validation.json"):
        shutil.copy(FIXTURE / name, folder / name)
    test = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))
    test["dataset"] = test["dataset"][:N_WALLS]
    seasons = Counter(str(wall["season"]) for wall in test["dataset"])
    test["season_to_walls_map"] = {
        season: {**test["season_to_walls_map"][season], "num_walls": count}
        for season, count in seasons.items()
    }
    (folder / "test.json").write_text(json.dumps(test), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def gold(walls_dir: Path) -> dict[str, dict[str, Any]]:
    test = json.loads((walls_dir / "test.json").read_text(encoding="utf-8"))
    return {wall["wall_id"]: wall for wall in test["dataset"]}


def _ocw(*args: str | Path) -> None:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


def _data(walls_dir: Path, tmp_path: Path) -> list[str | Path]:
    return ["--data-dir", walls_dir, "--cache-dir", tmp_path / "cache", "--no-checks"]


def _parse_and_evaluate(
    responses: Path, task: str, walls_dir: Path, tmp_path: Path
) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """(predictions, parse report, evaluate's results) of a responses file."""
    data = _data(walls_dir, tmp_path)
    predictions = tmp_path / f"{responses.stem}.predictions.json"
    results = tmp_path / f"{responses.stem}.results.json"
    _ocw("parse", responses, "--task", task, "--out", predictions, *data)
    _ocw("evaluate", predictions, "--out", results, *data)
    report = json.loads(Path(f"{predictions}.parse.json").read_text(encoding="utf-8"))
    return (
        json.loads(predictions.read_text(encoding="utf-8")),
        report,
        json.loads(results.read_text(encoding="utf-8")),
    )


def _check_figures(
    task: str, predictions: list[dict[str, Any]], results: dict[str, Any], gold: dict
) -> None:
    """Recompute evaluate's counts and exact match from the predictions file by hand."""
    assert results["n_walls"] == N_WALLS
    if task == "grouping":
        correct = full = 0
        for entry in predictions:
            truth = [
                {c.lower() for c in g["gt_words"]}
                for g in gold[entry["wall_id"]]["groups"].values()
            ]
            right = sum({c.lower() for c in group} in truth for group in entry["predicted_groups"])
            correct, full = correct + right, full + (right == 4)
        assert results["grouping"]["correct_groups"] == correct
        assert results["grouping"]["full_wall"] == full
        assert results["grouping"]["correct_groups_rate"] == correct / (4 * N_WALLS)
    else:
        per_wall = [
            sum(
                p.strip().lower() == t.strip().lower()
                for p, t in zip(
                    entry["predicted_connections"],
                    gold[entry["wall_id"]]["gt_connections"],
                    strict=True,
                )
            )
            / 4
            for entry in predictions
        ]
        assert results["connections"]["exact_match"] == pytest.approx(sum(per_wall) / N_WALLS)


@pytest.mark.parametrize("task", ["grouping", "connections"])
def test_prompts_run_llm_parse_evaluate(
    task: str, server: tuple[str, str], walls_dir: Path, gold: dict, tmp_path: Path
) -> None:
    base_url, model = server
    requests = tmp_path / "requests.jsonl"
    _ocw(
        "prompts", "--task", task, "--shots", SHOTS, "--out", requests, *_data(walls_dir, tmp_path)
    )
    lines = [json.loads(line) for line in requests.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line["body"]["max_tokens"] = MAX_TOKENS
    requests.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    responses = tmp_path / "responses.jsonl"
    _ocw("run-llm", requests, "--base-url", base_url, "--model", model, "--out", responses,
         "--concurrency", "1")  # fmt: skip

    log = [json.loads(line) for line in responses.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["custom_id"] for r in log) == sorted(gold)
    for record in log:
        assert record["error"] is None and record["response"]["status_code"] == 200
        choice = record["response"]["body"]["choices"][0]
        assert isinstance(choice["message"]["content"], str)
        assert choice["finish_reason"] in ("stop", "length")
        assert record["response"]["body"]["usage"]["completion_tokens"] <= MAX_TOKENS

    predictions, report, results = _parse_and_evaluate(responses, task, walls_dir, tmp_path)
    statuses = Counter(wall["status"] for wall in report["walls"])
    assert {k: v for k, v in report["counts"].items() if v} == dict(statuses)
    assert sum(statuses.values()) == N_WALLS and report["counts"]["no_response"] == 0
    texts = {r["custom_id"]: r["response"]["body"]["choices"][0]["message"]["content"] for r in log}
    assert {wall["wall_id"]: wall["text"] for wall in report["walls"]} == texts
    cut = {
        r["custom_id"]
        for r in log
        if r["response"]["body"]["choices"][0]["finish_reason"] == "length"
    }
    for wall in report["walls"]:
        if wall["wall_id"] in cut:  # never scored as an answer by default
            assert (wall["status"], wall["reason"]) == ("unrecoverable", "truncated")
    _check_figures(task, predictions, results, gold)


def _lm_eval(
    task: str, server: tuple[str, str], walls_dir: Path, out: Path
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run ``lm_eval`` on the shipped task; (its results JSON, its logged samples)."""
    base_url, model = server
    listed = runner.invoke(app, ["lm-eval-tasks"])
    assert listed.exit_code == 0, listed.output
    tasks_dir = listed.output.strip()
    metadata = {
        "data_dir": str(walls_dir),
        "split": "test",
        "shots": SHOTS,
        "seed": 42,
        "no_checks": True,
    }
    model_args = (
        f"model={model},base_url={base_url}/chat/completions,num_concurrent=1,max_retries=1,"
        "tokenized_requests=False,timeout=600"
    )
    command = [
        sys.executable, "-m", "lm_eval", "run", "--model", "local-chat-completions",
        "--model_args", model_args, "--include_path", tasks_dir, "--tasks", f"ocw_{task}",
        "--apply_chat_template", "--metadata", json.dumps(metadata),
        "--gen_kwargs", f"max_gen_toks={MAX_TOKENS}", "--log_samples", "--output_path", str(out),
        "--bootstrap_iters", "0",
    ]  # fmt: skip
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    (results_file,) = out.rglob("results_*.json")
    (samples_file,) = out.rglob(f"samples_ocw_{task}_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]
    return json.loads(results_file.read_text(encoding="utf-8")), samples


#: Per task, the figures lm-eval reports under the names ocw-hub evaluate gives them.
FIGURES = {
    "grouping": [
        "wd",
        "ami",
        "ari",
        "fms",
        "full_wall",
        "correct_groups",
        "full_wall_rate",
        "correct_groups_rate",
    ],
    "connections": ["exact_match", "rouge1"],
}


@pytest.mark.parametrize("task", ["grouping", "connections"])
def test_lm_eval_figures_equal_evaluate(
    task: str, server: tuple[str, str], walls_dir: Path, gold: dict, tmp_path: Path
) -> None:
    results, samples = _lm_eval(task, server, walls_dir, tmp_path / "lm-eval")
    assert sorted(s["doc"]["wall_id"] for s in samples) == sorted(gold)
    requests = tmp_path / "requests.jsonl"
    _ocw(
        "prompts", "--task", task, "--shots", SHOTS, "--out", requests, *_data(walls_dir, tmp_path)
    )
    asked = {
        r["custom_id"]: r["body"]["messages"]
        for r in map(json.loads, requests.read_text(encoding="utf-8").splitlines())
    }
    responses = tmp_path / "lm-eval-answers.jsonl"
    with responses.open("w", encoding="utf-8") as handle:
        for sample in samples:
            (text,) = sample["resps"][0]
            assert isinstance(text, str)
            sent = json.loads(sample["arguments"]["gen_args_0"]["arg_0"])
            assert sent == asked[sample["doc"]["wall_id"]]  # the same messages as prompts'
            handle.write(json.dumps({"wall_id": sample["doc"]["wall_id"], "text": text}) + "\n")
    predictions, _, figures = _parse_and_evaluate(responses, task, walls_dir, tmp_path)
    reported = results["results"][f"ocw_{task}"]
    for name in FIGURES[task]:
        assert reported[f"{name},none"] == pytest.approx(figures[task][name], abs=1e-12), name
    _check_figures(task, predictions, figures, gold)
