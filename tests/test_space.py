"""The metric folder as a Hugging Face Space holds it: its files alone, at the root of a folder
of any name; ``app.py`` loads the metric from there, and the docstring examples run.

A Space runs ``python app.py`` with the Space's root as working directory. Gradio is not
launched here: ``evaluate.utils.launch_gradio_widget`` is replaced by a stand-in that records
the module it is given.
"""

from __future__ import annotations

import ast
import doctest
import json
import os
import runpy
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import evaluate
import evaluate.utils
import pytest

from ocw_hub.resources import metric_dir

METRIC_DIR = Path(__file__).resolve().parents[1] / "metrics" / "ocw_metric"
WALL = [["a", "b", "c", "d"], ["e", "f", "g", "h"], ["i", "j", "k", "l"], ["m", "n", "o", "p"]]
GOLD_CONN = ["Famous Mels", "Household tools", "Cocktails", "Monkey ___"]
# "famous mel" vs "famous mels": F 1/2; "tools" vs "household tools": F 2/3; the other two
# equal after lowercasing -> ROUGE-1 (1/2 + 2/3 + 1 + 1) / 4 = 19/24; exact match 2/4.
PRED_CONN = ["Famous Mel", "tools", "cocktails", "MONKEY ___"]


def _space_files() -> list[Path]:
    """The files a Space of the metric holds: every file of the folder, no caches."""
    return sorted(
        p for p in METRIC_DIR.iterdir() if p.is_file() and p.suffix not in (".pyc", ".pyo")
    )


@pytest.fixture
def space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A flat copy of ``metrics/ocw_metric/`` in a folder not named after the script (a
    Space's root is e.g. ``/home/user/app``), made the working directory."""
    root = tmp_path / "app"
    root.mkdir()
    for path in _space_files():
        shutil.copy2(path, root / path.name)
    monkeypatch.chdir(root)
    return root


def _run_app(space: Path, monkeypatch: pytest.MonkeyPatch, run_name: str) -> tuple[dict, list]:
    launched: list[Any] = []
    monkeypatch.setattr(evaluate.utils, "launch_gradio_widget", launched.append)
    namespace = runpy.run_path(str(space / "app.py"), run_name=run_name)
    return namespace, launched


def test_space_holds_the_folder_files(space: Path) -> None:
    names = sorted(p.name for p in space.iterdir())
    assert names == [
        "README.md",
        "app.py",
        "connections.py",
        "grouping.py",
        "inputs.py",
        "ocw_metric.py",
        "partition.py",
        "requirements.txt",
        "spans.py",
    ]


def test_app_launches_the_widget_with_the_metric(
    space: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As the Space runs it: python app.py, from the Space's root.
    namespace, launched = _run_app(space, monkeypatch, "__main__")
    assert namespace["METRIC_SCRIPT"] == space / "ocw_metric.py"
    assert len(launched) == 1
    module = launched[0]
    assert isinstance(module, evaluate.EvaluationModule)
    assert module.config_name == "connections" and type(module).__name__ == "OcwMetric"
    got = module.compute(predictions=[PRED_CONN], references=[GOLD_CONN])
    assert got == {"exact_match": 0.5, "rouge1": 19 / 24, "n_walls": 1}


def test_app_loads_every_config_from_the_copy(space: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Imported (not run as a script): nothing is launched; load_module serves every config.
    namespace, launched = _run_app(space, monkeypatch, "app")
    assert launched == []
    load_module = namespace["load_module"]
    swap = [["a", "b", "c", "e"], ["d", "f", "g", "h"], WALL[2], WALL[3]]
    # One clue swapped between two groups: 2 correct groups, WD 0.125, ARI 0.6875
    # (hand-computed in tests/test_metric.py, test_one_swap_between_two_groups).
    got = load_module("grouping").compute(predictions=[WALL[::-1], swap], references=[WALL] * 2)
    assert (got["full_wall"], got["correct_groups"]) == (1, 6)
    assert got["wd"] == pytest.approx(0.0625) and got["ari"] == pytest.approx(0.84375)
    got = load_module("spans").compute(predictions=["the oven"], references=[["oven"]])
    assert got == {"exact_match": 100.0, "f1": 100.0, "n_questions": 1}


@pytest.mark.slow
def test_app_runs_in_a_fresh_process_from_the_copy(space: Path) -> None:
    # Nothing of this checkout on the path: the copy alone, its cwd, as on a Space.
    code = (
        "import json, runpy, evaluate.utils\n"
        "seen = []\n"
        "evaluate.utils.launch_gradio_widget = seen.append\n"
        "runpy.run_path('app.py', run_name='__main__')\n"
        "m = seen[0]\n"
        f"print(json.dumps(m.compute(predictions=[{PRED_CONN!r}], references=[{GOLD_CONN!r}])))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=space,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"exact_match": 0.5, "rouge1": 19 / 24, "n_walls": 1}


def test_requirements_cover_the_imports() -> None:
    # Every third-party module the Space's code imports is in requirements.txt.
    pypi_name = {"sklearn": "scikit-learn", "rouge_score": "rouge_score"}
    imported: set[str] = set()
    for path in METRIC_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "__future__"}
    reqs = (METRIC_DIR / "requirements.txt").read_text(encoding="utf-8").split()
    listed = {r.split(">=")[0].split("==")[0] for r in reqs}
    # (rouge_score is imported on first use of ROUGE-1, bert_score only on request.)
    assert third_party == {"evaluate", "datasets", "numpy", "scipy", "sklearn", "rouge_score"}
    assert {pypi_name.get(m, m) for m in third_party} <= listed


# ----------------------------------------------------------------------------------------
# The usage examples of the metric's docstring, as doctests (as evaluate's own suite does)
# ----------------------------------------------------------------------------------------


def _run_examples(module: evaluate.EvaluationModule) -> doctest.TestResults:
    text = module.info.inputs_description
    assert "Examples:" in text
    test = doctest.DocTestParser().get_doctest(text, {}, "ocw_metric", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=lambda s: print(s, end=""))
    return runner.summarize(verbose=False)


def test_docstring_examples_run_installed() -> None:
    # The installed form the examples show: ocw_hub.load_metric (this checkout's folder).
    assert metric_dir() == METRIC_DIR
    results = _run_examples(evaluate.load(str(METRIC_DIR), "grouping"))
    assert results.failed == 0 and results.attempted >= 10


def test_docstring_examples_run_from_the_flat_copy(
    space: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same examples against the Space copy: "ocw_hub.load_metric" is evaluate.load of
    # the copied folder's script (app.load_module), no package needed.
    namespace, _ = _run_app(space, monkeypatch, "app")
    stand_in = types.ModuleType("ocw_hub")
    stand_in.load_metric = namespace["load_module"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ocw_hub", stand_in)
    results = _run_examples(namespace["load_module"]("grouping"))
    assert results.failed == 0 and results.attempted >= 10


def test_card_examples_run_from_the_flat_copy(space: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The card (the Space's README.md) against the copy, "ocw_hub.load_metric" standing for
    # evaluate.load of the copied script.
    namespace, _ = _run_app(space, monkeypatch, "app")
    stand_in = types.ModuleType("ocw_hub")
    stand_in.load_metric = namespace["load_module"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ocw_hub", stand_in)
    card = (space / "README.md").read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(card, {}, "README.md", str(space), 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0 and results.attempted >= 12
