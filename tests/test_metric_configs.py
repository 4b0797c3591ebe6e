"""The metric's table of configs (``metrics/ocw_metric/ocw_metric.py``: ``CONFIGS``), the
card's table of inputs, options through ``evaluate``, and the pure modules without
``evaluate``: the wrapper decides nothing by comparing config names."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import evaluate
import pytest

from ocw_hub.resources import METRIC_MODULES, metric_dir
from ocw_hub.scoring.metric import METRIC_CONFIGS

METRIC_DIR = metric_dir()
SCRIPT = METRIC_DIR / "ocw_metric.py"
REPO_ROOT = Path(__file__).resolve().parents[1]

WALL = [["a", "b", "c", "d"], ["e", "f", "g", "h"], ["i", "j", "k", "l"], ["m", "n", "o", "p"]]
# One clue swapped between the first two groups: 2 correct groups, WD 0.125, ARI 0.6875
# (hand-computed in tests/test_metric.py, test_one_swap_between_two_groups).
SWAP = [["a", "b", "c", "e"], ["d", "f", "g", "h"], WALL[2], WALL[3]]
CONN = ["Famous Mels", "Household tools", "Cocktails", "Monkey ___"]


@pytest.fixture(scope="module")
def metrics() -> dict[str, evaluate.EvaluationModule]:
    return {name: evaluate.load(str(METRIC_DIR), name) for name in METRIC_CONFIGS}


@pytest.fixture(scope="module")
def table(metrics: dict) -> dict:
    return sys.modules[type(metrics["grouping"]).__module__].CONFIGS


def test_the_package_lists_the_metric_configs(table: dict) -> None:
    assert tuple(table) == METRIC_CONFIGS


def test_no_branch_on_the_config_name() -> None:
    # No comparison (==, !=, in, not in) of anything with config_name or a config's name.
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    names = set(METRIC_CONFIGS)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for operand in operands:
            assert not (isinstance(operand, ast.Attribute) and operand.attr == "config_name") or (
                isinstance(node.ops[0], (ast.In, ast.NotIn)) and operand is node.left
            ), ast.unparse(node)
            assert not (isinstance(operand, ast.Constant) and operand.value in names), ast.unparse(
                node
            )


def _card_rows() -> dict[str, list[str]]:
    """The card's table of configs: config -> its cells."""
    card = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    start = card.index("| config | task | predictions (per item)")
    rows: dict[str, list[str]] = {}
    for line in card[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells
    return rows


def test_the_card_says_which_inputs_and_options_each_config_takes(table: dict) -> None:
    rows = _card_rows()
    assert list(rows) == list(table)
    header = ["config", "task", "predictions (per item)", "references (per item)", "options"]
    for name, config in table.items():
        options = {cell.strip("` ") for cell in rows[name][header.index("options")].split(",")}
        assert options == {"return_per_item", *config.options}, name
    assert table["connections"].options == {
        "bertscore": False,
        "bertscore_kwargs": None,
        "rouge_tokenizer": "default",
    }
    assert table["grouping"].options == table["spans"].options == {}


def test_features_follow_the_table(metrics: dict, table: dict) -> None:
    for name, metric in metrics.items():
        assert metric.features == table[name].features, name
    assert isinstance(metrics["spans"].features, list) and len(metrics["spans"].features) == 2


def test_an_option_of_another_config_at_its_default_is_ignored(metrics: dict) -> None:
    got = metrics["grouping"].compute(
        predictions=[SWAP], references=[WALL], rouge_tokenizer="default", bertscore=False
    )
    assert (got["correct_groups"], got["wd"], got["ari"]) == (2, 0.125, 0.6875)


def test_an_unknown_option_keeps_the_stored_batches(metrics: dict) -> None:
    metric = metrics["connections"]
    metric.add_batch(predictions=[CONN], references=[CONN])
    with pytest.raises(TypeError, match="'rouge_stemmer'"):
        metric.compute(rouge_stemmer=True)
    with pytest.raises(ValueError, match="only available with config 'connections'"):
        metrics["spans"].compute(predictions=["x"], references=[["x"]], rouge_tokenizer="unicode")
    # The batch added before the bad call is still there, and scored once.
    assert metric.compute(rouge_tokenizer="unicode") == {
        "exact_match": 1.0,
        "rouge1": 1.0,
        "n_walls": 1,
    }


def test_an_empty_first_batch_then_items(metrics: dict) -> None:
    # An empty batch opens the store in the default shape; items added after it count.
    metric = metrics["spans"]
    metric.add_batch(predictions=[], references=[])
    metric.add(prediction="the oven", reference="oven")
    assert metric.compute() == {"exact_match": 100.0, "f1": 100.0, "n_questions": 1}


def test_a_failed_first_batch_stores_no_shape(metrics: dict) -> None:
    # A squad-shaped batch refused (two predictions, one reference: the ids are named) leaves
    # nothing behind: a plain batch after it is accepted and scored alone.
    metric = metrics["spans"]
    with pytest.raises(ValueError, match=r"question id 'q2' \(predictions\[1\]\) not among"):
        metric.add_batch(
            predictions=[
                {"id": "q1", "prediction_text": "x"},
                {"id": "q2", "prediction_text": "y"},
            ],
            references=[{"id": "q1", "answers": {"text": ["x"], "answer_start": [0]}}],
        )
    metric.add_batch(predictions=["a pan"], references=[["pan"]])
    assert metric.compute() == {"exact_match": 100.0, "f1": 100.0, "n_questions": 1}


def test_the_pure_modules_need_neither_evaluate_nor_datasets(tmp_path: Path) -> None:
    # In a fresh process where importing evaluate or datasets fails, the package loads every
    # pure module and scores with them.
    code = textwrap.dedent(
        f"""
        import json, sys
        sys.modules["evaluate"] = None
        sys.modules["datasets"] = None
        from ocw_hub.resources import load_metric_module
        modules = {{name: load_metric_module(name) for name in {list(METRIC_MODULES)!r}}}
        wall, swap = {WALL!r}, {SWAP!r}
        grouping = modules["grouping"].grouping_scores([swap], [wall])
        spans = modules["spans"].span_scores(["the oven"], [["oven"]])
        print(json.dumps([grouping["correct_groups"], grouping["ari"], spans["f1"]]))
        """
    )
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [2, 0.6875, 100.0]


def test_the_package_defines_no_scoring_of_its_own() -> None:
    # The package imports the metric's modules (ocw_hub.resources.load_metric_module), never
    # a copy: no function of the metric's pure modules is defined again under src/.
    defined: set[str] = set()
    for name in METRIC_MODULES:
        tree = ast.parse((METRIC_DIR / f"{name}.py").read_text(encoding="utf-8"))
        defined |= {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef)
            and not node.name.startswith(("_", "check_", "clear_"))
        }
    assert {"grouping_scores", "span_scores", "connection_scores", "normalize_answer"} <= defined
    for path in (REPO_ROOT / "src").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        again = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert not again & defined, (path, again & defined)
