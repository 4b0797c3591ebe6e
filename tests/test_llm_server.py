"""End to end against a real OpenAI-compatible server with a real model (``.ci/run`` starts
``transformers serve`` on SmolLM2-135M-Instruct, see ``tests/llm_model.py``).

``prompts -> run-llm -> parse -> evaluate`` per task (OCW grouping and connections, WoTe
spans), and the lm-evaluation-harness tasks of ``ocw-hub lm-eval-tasks`` (the shipped ones,
and a cot task folder it writes with ``--out``) through ``lm_eval --model
local-chat-completions``, whose figures must equal ``ocw-hub evaluate``'s on the answers
lm-eval logged. The model's quality does not matter: every request answered, the parse
outcomes counted, the figures recomputed, and run-llm's token totals equal to the sums of
the server's ``usage`` fields.

The server comes from ``OCW_HUB_LLM_BASE_URL`` (``http://127.0.0.1:PORT/v1``) and
``OCW_HUB_LLM_MODEL`` (the model name it serves); without them these tests are skipped, and
``OCW_HUB_REQUIRE_LLM=1`` (set by ``.ci/run``) makes a missing server a failure. Answers are
capped at :data:`MAX_TOKENS` new tokens, greedy (:data:`CAPPED`: the paper's 144 would only
make the run longer).
"""

from __future__ import annotations

import json
import os
import shutil
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.provenance import read_protocol

pytestmark = pytest.mark.llm_server

BASE_URL_ENV = "OCW_HUB_LLM_BASE_URL"
MODEL_ENV = "OCW_HUB_LLM_MODEL"
REQUIRE_ENV = "OCW_HUB_REQUIRE_LLM"
FIXTURE = Path(__file__).parent / "data" / "llm" / "ocw"
WOTE_FIXTURE = Path(__file__).parent / "data" / "wote"
#: Walls (questions) of the test split asked: the first ones of the fixture's test split.
N_WALLS = 2
MAX_TOKENS = 64
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
def data_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per config (``default``, ``wote``), its fixture with the test split cut to the first
    :data:`N_WALLS` walls or questions."""
    ocw, wote = tmp_path_factory.mktemp("ocw"), tmp_path_factory.mktemp("wote")
    for name in ("train.json", "validation.json"):
        shutil.copy(FIXTURE / name, ocw / name)
        shutil.copy(WOTE_FIXTURE / name, wote / name)
    test = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))
    test["dataset"] = test["dataset"][:N_WALLS]
    seasons = Counter(str(wall["season"]) for wall in test["dataset"])
    test["season_to_walls_map"] = {
        season: {**test["season_to_walls_map"][season], "num_walls": count}
        for season, count in seasons.items()
    }
    (ocw / "test.json").write_text(json.dumps(test), encoding="utf-8")
    questions = json.loads((WOTE_FIXTURE / "test.json").read_text(encoding="utf-8"))
    (wote / "test.json").write_text(json.dumps(questions[:N_WALLS]), encoding="utf-8")
    return {"default": ocw, "wote": wote}


def _ocw(*args: str | Path) -> None:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


def _config(task: str) -> str:
    return "wote" if task == "spans" else "default"


def _data(task: str, data_dirs: dict[str, Path], tmp_path: Path) -> list[str | Path]:
    config = _config(task)
    options = ["--config", config] + ([] if config == "wote" else ["--task", task])
    cache = tmp_path / "cache"
    return [*options, "--data-dir", data_dirs[config], "--cache-dir", cache, "--no-checks"]


#: The generation options of every request: greedy, at most :data:`MAX_TOKENS` new tokens.
CAPPED = ["--profile", "custom", "--max-tokens", str(MAX_TOKENS), "--temperature", "0"]


def _requests(task: str, data_dirs: dict[str, Path], tmp_path: Path) -> list[dict[str, Any]]:
    """``ocw-hub prompts`` for the task (1 shot for OCW), capped at :data:`MAX_TOKENS` by the
    custom profile (:data:`CAPPED`)."""
    path = tmp_path / "requests.jsonl"
    shots = [] if task == "spans" else ["--shots", SHOTS]
    _ocw("prompts", *shots, *CAPPED, "--out", path, *_data(task, data_dirs, tmp_path))
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        assert {k: v for k, v in line["body"].items() if k not in ("model", "messages")} == {
            "max_tokens": MAX_TOKENS,
            "temperature": 0.0,
        }
    return lines


def _parse_and_evaluate(
    responses: Path, task: str, data_dirs: dict[str, Path], tmp_path: Path
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """(predictions, parse report, evaluate's results) of a responses file."""
    data = _data(task, data_dirs, tmp_path)
    predictions = tmp_path / f"{responses.stem}.predictions.json"
    results = tmp_path / f"{responses.stem}.results.json"
    _ocw("parse", responses, "--out", predictions, *data)
    scoring = [o for o in data if o not in ("--task", task)]
    _ocw("evaluate", predictions, "--out", results, *scoring)
    report = json.loads(Path(f"{predictions}.parse.json").read_text(encoding="utf-8"))
    return (
        json.loads(predictions.read_text(encoding="utf-8")),
        report,
        json.loads(results.read_text(encoding="utf-8")),
    )


def _squad_normal(text: str) -> str:
    """SQuAD v1.1's answer normalisation: lower case, no punctuation, no articles."""
    text = "".join(c for c in text.lower() if c not in string.punctuation)
    return " ".join(w for w in text.split() if w not in ("a", "an", "the"))


def _grouping_by_hand(predictions: list[dict[str, Any]], results: dict[str, Any]) -> None:
    correct = full = 0
    for entry, wall in zip(predictions, results["per_wall"], strict=True):
        truth = [{c.lower() for c in group} for group in wall["gold_groups"]]
        right = sum({c.lower() for c in group} in truth for group in entry["predicted_groups"])
        correct, full = correct + right, full + (right == 4)
    assert results["grouping"]["correct_groups"] == correct
    assert results["grouping"]["full_wall"] == full
    assert results["grouping"]["correct_groups_rate"] == correct / (4 * N_WALLS)


def _check_figures(task: str, predictions: Any, results: dict[str, Any], gold: dict) -> None:
    """Recompute evaluate's counts and exact match from the predictions file by hand."""
    if task == "spans":
        assert results["n_questions"] == N_WALLS
        answers = {q["id"]: q["answers"] for q in results["per_question"]}
        em = [
            100.0
            * any(_squad_normal(p["prediction_text"]) == _squad_normal(a) for a in answers[p["id"]])
            for p in predictions
        ]
        assert results["spans"]["exact_match"] == pytest.approx(sum(em) / N_WALLS)
        return
    assert results["n_walls"] == N_WALLS
    if task == "grouping":
        for wall in results["per_wall"]:
            wall["gold_groups"] = [g["gt_words"] for g in gold[wall["wall_id"]]["groups"].values()]
        _grouping_by_hand(predictions, results)
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


def _walls(data_dirs: dict[str, Path]) -> dict[str, dict[str, Any]]:
    test = json.loads((data_dirs["default"] / "test.json").read_text(encoding="utf-8"))
    return {wall["wall_id"]: wall for wall in test["dataset"]}


TASKS = ["grouping", "connections", "spans"]


def _check_usage(responses: Path, log: list[dict[str, Any]]) -> None:
    """run-llm's recorded token totals are the sums of the server's ``usage`` fields."""
    record = read_protocol(responses)
    assert record is not None
    usage = record["usage"]
    served = [line["response"]["body"]["usage"] for line in log]
    assert usage["requests"] == usage["answered"] == usage["usage_reported"] == len(log)
    for name in ("prompt_tokens", "completion_tokens"):
        assert usage[name] == sum(u[name] for u in served) > 0, name
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["latency_s"]["timed"] == len(log)


def _lm_eval(
    task: str,
    server: tuple[str, str],
    data_dirs: dict[str, Path],
    out: Path,
    variant: list[str] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run ``lm_eval`` on the shipped task, or on the task folder ``ocw-hub lm-eval-tasks
    --out DIR *variant`` writes (its own decoding: no ``--gen_kwargs``); (its results JSON,
    its logged samples)."""
    base_url, model = server
    folder = ["--out", str(out.parent / "tasks"), *variant] if variant is not None else []
    listed = runner.invoke(app, ["lm-eval-tasks", *folder])
    assert listed.exit_code == 0, listed.output
    name = LM_EVAL_TASKS[task] + (_variant_suffix(variant) if variant is not None else "")
    gen_kwargs = [] if variant is not None else ["--gen_kwargs", f"max_gen_toks={MAX_TOKENS}"]
    metadata: dict[str, Any] = {
        "data_dir": str(data_dirs[_config(task)]),
        "split": "test",
        "no_checks": True,
    }
    if task != "spans":
        metadata.update(shots=SHOTS, seed=42)
    # eos_string: lm-eval's stop list is otherwise empty, which transformers serve answers 500
    model_args = (
        f"model={model},base_url={base_url}/chat/completions,num_concurrent=1,max_retries=1,"
        "tokenized_requests=False,timeout=600,eos_string=<|im_end|>"
    )
    command = [
        sys.executable,
        "-m",
        "lm_eval",
        "run",
        "--model",
        "local-chat-completions",
        "--model_args",
        model_args,
        "--include_path",
        listed.output.strip(),
        "--tasks",
        name,
        "--apply_chat_template",
        "--metadata",
        json.dumps(metadata),
        *gen_kwargs,
        "--log_samples",
        "--output_path",
        str(out),
    ]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    (results_file,) = out.rglob("results_*.json")
    (samples_file,) = out.rglob(f"samples_{name}_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]
    return json.loads(results_file.read_text(encoding="utf-8")), samples


def _variant_suffix(variant: list[str]) -> str:
    """``_cot_custom``: the style and profile of a variant's options, as its task names end."""
    from ocw_hub.lm_eval_tasks.variants import suffix

    options = dict(zip(variant[::2], variant[1::2], strict=False))
    return suffix(options.get("--prompt-style"), options.get("--profile", "paper"))


LM_EVAL_TASKS = {"grouping": "ocw_grouping", "connections": "ocw_connections", "spans": "wote"}
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
    "spans": ["exact_match", "f1"],
}


@pytest.mark.parametrize("task", TASKS)
def test_lm_eval_figures_equal_evaluate(
    task: str, server: tuple[str, str], data_dirs: dict[str, Path], tmp_path: Path
) -> None:
    results, samples = _lm_eval(task, server, data_dirs, tmp_path / "lm-eval")
    key = "id" if task == "spans" else "wall_id"
    asked = {r["custom_id"]: r["body"]["messages"] for r in _requests(task, data_dirs, tmp_path)}
    assert sorted(s["doc"][key] for s in samples) == sorted(asked)
    responses = tmp_path / "lm-eval-answers.jsonl"
    with responses.open("w", encoding="utf-8") as handle:
        for sample in samples:
            (text,) = sample["resps"][0]
            assert isinstance(text, str)
            (context,) = sample["arguments"]["gen_args_0"]["arg_0"]  # the messages as JSON
            sent = json.loads(context)
            assert sent == asked[sample["doc"][key]]  # the same messages as ocw-hub prompts'
            handle.write(json.dumps({key: sample["doc"][key], "text": text}) + "\n")
    predictions, _, figures = _parse_and_evaluate(responses, task, data_dirs, tmp_path)
    reported = results["results"][LM_EVAL_TASKS[task]]
    for name in FIGURES[task]:
        assert reported[f"{name},none"] == pytest.approx(figures[task][name], abs=1e-9), name
    _check_figures(task, predictions, figures, _walls(data_dirs))


def test_lm_eval_cot_task_figures_equal_evaluate(
    server: tuple[str, str], data_dirs: dict[str, Path], tmp_path: Path
) -> None:
    # A task folder of `lm-eval-tasks --out`: the cot prompt, the custom profile's decoding
    # (sent by lm-eval as max_tokens), the answers parsed from the cot answer block.
    variant = ["--prompt-style", "cot", *CAPPED]
    results, samples = _lm_eval("grouping", server, data_dirs, tmp_path / "lm-eval", variant)
    path = tmp_path / "cot-requests.jsonl"
    _ocw(
        "prompts",
        "--shots",
        SHOTS,
        "--prompt-style",
        "cot",
        *CAPPED,
        "--out",
        path,
        *_data("grouping", data_dirs, tmp_path),
    )
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    asked = {line["custom_id"]: line["body"]["messages"] for line in lines}
    responses = tmp_path / "lm-eval-answers.jsonl"
    with responses.open("w", encoding="utf-8") as handle:
        for sample in samples:
            (text,) = sample["resps"][0]
            arguments = sample["arguments"]["gen_args_0"]
            (context,) = arguments["arg_0"]  # the messages as JSON
            assert json.loads(context) == asked[sample["doc"]["wall_id"]]
            assert arguments["arg_1"]["max_gen_toks"] == MAX_TOKENS
            assert arguments["arg_1"]["temperature"] == 0.0
            handle.write(json.dumps({"wall_id": sample["doc"]["wall_id"], "text": text}) + "\n")
    data = _data("grouping", data_dirs, tmp_path)
    predictions = tmp_path / "cot.predictions.json"
    _ocw("parse", responses, "--prompt-style", "cot", "--out", predictions, *data)
    scored = tmp_path / "cot.results.json"
    scoring = [o for o in data if o not in ("--task", "grouping")]
    _ocw("evaluate", predictions, "--out", scored, *scoring)
    figures = json.loads(scored.read_text(encoding="utf-8"))["grouping"]
    reported = results["results"]["ocw_grouping_cot_custom"]
    for name in FIGURES["grouping"]:
        assert reported[f"{name},none"] == pytest.approx(figures[name], abs=1e-9), name
