"""``metrics/ocw_metric`` through ``evaluate``: loading, add_batch, validation before Arrow,
bertscore options, the metric card and its examples, the installed forms.
"""

from __future__ import annotations

import os
import shutil
import sys
import types
from pathlib import Path

import evaluate
import pytest
from metric_support import (
    GOLD_CONN,
    METRIC_DIR,
    REPO_ROOT,
    WALL,
    A,
    B,
    C,
    D,
    connections,
    cs_configs,
    grouping,
    inputs,
)

# ----------------------------------------------------------------------------------------
# evaluate integration
# ----------------------------------------------------------------------------------------


def test_the_metric_under_test_is_this_checkouts() -> None:
    """(Not asserted on import of metric_support: conftest's sandbox copy imports it too.)"""
    from ocw_hub.resources import metric_dir

    assert metric_dir() == METRIC_DIR


def test_evaluate_load_from_repo_root(loaded: dict) -> None:
    swap = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
    got = loaded["grouping"].compute(predictions=[WALL, swap], references=[WALL, WALL])
    assert got == grouping.grouping_scores([WALL, swap], [WALL, WALL])
    assert type(loaded["grouping"]).__name__ == "OcwMetric"


def test_evaluate_return_per_item(loaded: dict) -> None:
    got = loaded["spans"].compute(
        predictions=["an apple", "pear"], references=["the apple", ["apple"]], return_per_item=True
    )
    assert got["per_item"] == [{"exact_match": 100.0, "f1": 100.0}, {"exact_match": 0.0, "f1": 0.0}]
    assert got["exact_match"] == 50.0


@pytest.mark.parametrize("config", ["grouping", "connections", "spans"])
def test_add_batch_equals_one_compute(loaded: dict, config: str) -> None:
    if config == "grouping":
        swap = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
        preds, refs = [WALL, swap, WALL[::-1]], [WALL, WALL, WALL]
    elif config == "connections":
        preds, refs = [GOLD_CONN, ["x"] * 4, GOLD_CONN[::-1]], [GOLD_CONN] * 3
    else:
        preds, refs = ["a cat", "dog", "the bird"], [["cat"], "big dog", ["bird", "birds"]]
    metric = loaded[config]
    once = metric.compute(predictions=preds, references=refs, return_per_item=True)
    metric.add_batch(predictions=preds[:2], references=refs[:2])
    metric.add(prediction=preds[2], reference=refs[2])
    assert metric.compute(return_per_item=True) == once


def test_evaluate_validates_before_arrow(loaded: dict) -> None:
    bad = [A, B, C, ["d1", "d2", "d3", 8.5]]
    with pytest.raises(ValueError, match=r"predictions\[1\]\[3\]\[3\]: clue must be a string"):
        loaded["grouping"].compute(predictions=[WALL, bad], references=[WALL, WALL])
    with pytest.raises(ValueError, match=r"predictions\[0\]: expected 4 groups"):
        loaded["grouping"].add_batch(predictions=[WALL[:3]], references=[WALL])
    with pytest.raises(ValueError, match=r"references: expected 4 connection strings, got 2"):
        loaded["connections"].add(prediction=GOLD_CONN, reference=["a", "b"])
    with pytest.raises(ValueError, match=r"differ in length"):
        loaded["spans"].compute(predictions=["a"], references=[])


def test_unknown_config_and_bertscore_on_wrong_config(loaded: dict) -> None:
    with pytest.raises(ValueError, match=r"unknown config_name 'default'.*grouping"):
        evaluate.load(str(METRIC_DIR))
    with pytest.raises(ValueError, match=r"bertscore is only available with config 'connections'"):
        loaded["grouping"].compute(predictions=[WALL], references=[WALL], bertscore=True)


def test_bertscore_without_package_is_a_clear_error(
    loaded: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "bert_score", None)  # import fails like when missing
    with pytest.raises(RuntimeError, match=r"`bert_score` is not installed"):
        loaded["connections"].compute(
            predictions=[GOLD_CONN], references=[GOLD_CONN], bertscore=True
        )


def test_bertscore_without_model_is_a_clear_error(
    loaded: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = types.ModuleType("bert_score")

    def score(*args: object, **kwargs: object) -> None:
        raise OSError("We couldn't connect to 'https://huggingface.co' to load roberta-large")

    fake.score = score  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bert_score", fake)
    with pytest.raises(RuntimeError, match=r"model \('roberta-large'\).*could not be loaded"):
        connections.connection_scores([GOLD_CONN], [GOLD_CONN], bertscore=True)


def test_bertscore_values_are_averaged_per_wall(monkeypatch: pytest.MonkeyPatch) -> None:
    # With a stand-in bert_score: F1 per connection 0.1..0.8 -> walls 0.25 and 0.65 -> 0.45.
    import numpy as np

    fake = types.ModuleType("bert_score")
    seen: dict = {}

    def score(cands: list, refs: list, **kwargs: object) -> tuple:
        seen.update(kwargs, n=len(cands))
        f1 = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
        return f1, f1, f1

    fake.score = score  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bert_score", fake)
    got = connections.connection_scores([GOLD_CONN] * 2, [GOLD_CONN] * 2, bertscore=True)
    assert got["bertscore_f1"] == pytest.approx(0.45)
    assert seen["lang"] == "en" and seen["rescale_with_baseline"] is True and seen["n"] == 8


#: One input per config and its figures (see the hand-computed tests above).
_COPY_CASES = {
    "grouping": (
        [[["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]],
        [WALL],
        {"correct_groups": 2, "full_wall": 0, "wd": 0.125},
    ),
    "connections": ([GOLD_CONN], [GOLD_CONN], {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 1}),
    "spans": (["the oven"], [["oven"]], {"exact_match": 100.0, "f1": 100.0, "n_questions": 1}),
}


@pytest.mark.slow
def test_folder_copied_alone_loads_every_config(tmp_path: Path) -> None:
    """A copy of the metric folder alone, loaded in a fresh process with an empty modules
    cache: evaluate fetches every sibling module from the copy, and each config computes."""
    import json
    import subprocess

    target = tmp_path / "ocw_metric"
    shutil.copytree(METRIC_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import importlib, json, sys\n"
        "from pathlib import Path\n"
        "import evaluate\n"
        "out = {}\n"
        f"for config, (preds, refs, _) in {_COPY_CASES!r}.items():\n"
        "    metric = evaluate.load(sys.argv[1], config)\n"
        "    package = importlib.import_module(type(metric).__module__.rsplit('.', 1)[0])\n"
        "    fetched = sorted(p.name for p in Path(package.__file__).parent.glob('*.py'))\n"
        "    result = metric.compute(predictions=preds, references=refs)\n"
        "    out[config] = {'result': result, 'fetched': fetched,\n"
        "                   'module': sys.modules[type(metric).__module__].__file__}\n"
        "print(json.dumps(out))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_MODULES_CACHE=str(tmp_path / "modules"), HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(target)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    siblings = sorted(p.name for p in METRIC_DIR.glob("*.py") if p.name != "app.py")
    for config, (_, _, want) in _COPY_CASES.items():
        got = out[config]
        assert Path(got["module"]).is_relative_to(tmp_path / "modules"), config
        assert got["fetched"] == ["__init__.py", *siblings], config
        assert {k: got["result"][k] for k in want} == pytest.approx(want), config


@pytest.mark.parametrize("config", cs_configs())
def test_evaluate_empty_input_is_nothing_to_score(loaded: dict, config: str) -> None:
    # spans picks its features from the first item, which an empty input lacks: still the
    # ValueError of the other configs, not an IndexError from evaluate.
    with pytest.raises(ValueError, match="nothing to score"):
        loaded[config].compute(predictions=[], references=[])
    metric = loaded[config]
    preds, refs, want = _COPY_CASES[config]
    got = metric.compute(predictions=preds, references=refs)
    assert {k: got[k] for k in want} == pytest.approx(want)


def test_metric_card_and_space_files() -> None:
    import yaml

    text = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    for key in ("title", "emoji", "colorFrom", "colorTo", "sdk_version", "description"):
        assert meta[key]
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and meta["pinned"] is False
    assert meta["tags"] == ["evaluate", "metric"]
    app = (METRIC_DIR / "app.py").read_text(encoding="utf-8")
    assert "launch_gradio_widget" in app  # loading from a flat copy: tests/test_space.py
    reqs = (METRIC_DIR / "requirements.txt").read_text(encoding="utf-8").split()
    for name in ("evaluate", "scikit-learn", "scipy", "rouge_score", "numpy"):
        assert any(r.startswith(name + ">=") for r in reqs), name


def test_metric_card_example(loaded: dict) -> None:
    # The README example: Gimlet and Margarita swapped, groups reordered.
    # Runs 3333 and 0000 removed; left 2122 (gibson gimlet manhattan sidecar) vs 1111 ->
    # W1 = 3/4, and 1211 (hammer margarita screwdriver wrench) vs 2222 -> 3/4; WD = 1.5/4.
    wall = [
        ["Blanc", "Brooks", "B", "Smith"],
        ["Screwdriver", "Hammer", "Gimlet", "Wrench"],
        ["Sidecar", "Manhattan", "Gibson", "Margarita"],
        ["Puzzle", "Business", "Nuts", "Suit"],
    ]
    pred = [wall[3], ["Sidecar", "Manhattan", "Gibson", "Gimlet"]]
    pred += [["Screwdriver", "Hammer", "Margarita", "Wrench"], wall[0]]
    got = loaded["grouping"].compute(predictions=[pred], references=[wall])
    assert got["wd"] == pytest.approx(0.375)
    assert got["ari"] == pytest.approx(0.6875) and got["correct_groups"] == 2


def test_many_repeated_clues_use_the_greedy_assignment() -> None:
    # Every clue in every gold group: 16 ambiguous occurrences with 4 candidates each
    # (4**16 > 4096 assignments) -> greedy, occurrence by occurrence: first avoid using a
    # gold occurrence twice, then maximise agreement, ties -> lowest index. Each gold group
    # holds "x" once, so the four "x" go to 0, 1, 2, 3; likewise "y", "z", "w":
    # every predicted group gets labels 0 1 2 3 (the transposed wall).
    gold = [["x", "y", "z", "w"]] * 4
    pred = [["x"] * 4, ["y"] * 4, ["z"] * 4, ["w"] * 4]
    labels = grouping.predicted_labels(grouping._sorted_lower(pred), grouping._sorted_lower(gold))
    assert labels == [0, 1, 2, 3] * 4
    got = grouping.score_wall(pred, gold)
    # As test_transposed_wall_is_worst: WD 1, ARI -0.25, FMS 0.
    assert got["wd"] == 1.0 and got["ari"] == pytest.approx(-0.25) and got["fms"] == 0.0
    assert got["correct_groups"] == 0


# ----------------------------------------------------------------------------------------
# bertscore_kwargs needs bertscore=True
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"model_type": "roberta-base"}, {}])
def test_bertscore_kwargs_without_bertscore(kwargs: dict) -> None:
    with pytest.raises(ValueError, match=r"bertscore_kwargs needs bertscore=True"):
        connections.connection_scores([GOLD_CONN], [GOLD_CONN], bertscore_kwargs=kwargs)


def test_bertscore_kwargs_must_be_a_dict() -> None:
    with pytest.raises(ValueError, match=r"bertscore_kwargs must be a dict.*got list"):
        connections.connection_scores(
            [GOLD_CONN], [GOLD_CONN], bertscore=True, bertscore_kwargs=[1]
        )


def test_evaluate_bertscore_kwargs_without_bertscore(loaded: dict) -> None:
    metric = loaded["connections"]
    metric.add_batch(predictions=[GOLD_CONN], references=[GOLD_CONN])
    with pytest.raises(ValueError, match=r"bertscore_kwargs needs bertscore=True"):
        metric.compute(bertscore_kwargs={"model_type": "roberta-base"})
    # Checked before evaluate finalises the stored batch: a corrected call still works.
    assert metric.compute() == {"exact_match": 1.0, "rouge1": 1.0, "n_walls": 1}
    with pytest.raises(ValueError, match=r"bertscore_kwargs is only available with config 'conn"):
        loaded["grouping"].compute(predictions=[WALL], references=[WALL], bertscore_kwargs={})


# ----------------------------------------------------------------------------------------
# metric card: citation, no local paths, connections order
# ----------------------------------------------------------------------------------------


def _ocw_citation() -> str:
    import ast

    tree = ast.parse((REPO_ROOT / "OCW.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "_CITATION":
            return node.value.value  # type: ignore[attr-defined]
    raise AssertionError("no _CITATION in OCW.py")


def test_citation_identical_to_dataset_script(loaded: dict) -> None:
    ocw = _ocw_citation()
    assert "alavi-naeini2023large" in ocw and "Alavi Naeini, Saeid" in ocw
    card = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    assert ocw in card
    assert card.count("alavi-naeini2023large") == 1
    citation = loaded["grouping"].citation
    assert citation.startswith(ocw) and citation.count("alavi-naeini2023large") == 1


def test_card_has_no_local_paths() -> None:
    # The card becomes a public Hugging Face Space: no paths of the development machine.
    card = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    for fragment in ("../", "shared/data", "/work/", "/home/", "/tmp/", "file://"):
        assert fragment not in card, fragment


def test_connections_are_scored_in_gold_group_order(loaded: dict) -> None:
    # Prediction i is compared with gold connection i, whatever order the predicted groups
    # came in: the right connections in another order score as wrong ones.
    # GOLD_CONN reversed: Monkey ___ / Cocktails / Household tools / Famous Mels -> no
    # position equal (EM 0) and no token shared at any position (ROUGE-1 0).
    got = loaded["connections"].compute(predictions=[GOLD_CONN[::-1]], references=[GOLD_CONN])
    assert got == {"exact_match": 0.0, "rouge1": 0.0, "n_walls": 1}
    card = " ".join((METRIC_DIR / "README.md").read_text(encoding="utf-8").split())
    assert "prediction `i` names the connection of **gold group `i`**" in card
    assert "must have them reordered to the gold groups they match" in card


def test_str_subclasses_are_checked_clue_by_clue() -> None:
    # numpy.str_ clues (e.g. from an array) take the clue-by-clue path and come back as str.
    import numpy as np

    wall = [[np.str_(c) for c in g] for g in WALL]
    checked = inputs.validate_wall(wall, "predictions[0]")
    assert checked == WALL and {type(c) for g in checked for c in g} == {str}
    assert grouping.grouping_scores([wall], [WALL])["full_wall"] == 1


# ----------------------------------------------------------------------------------------
# the card's examples (doctests) and its installed forms
# ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_card_examples_run() -> None:
    import doctest

    card = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(card, {}, "README.md", str(METRIC_DIR), 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0 and results.attempted >= 12
    for form in (
        'ocw_hub.load_metric("grouping")',
        'evaluate.load(str(ocw_hub.resources.metric_dir()), "grouping")',
        'evaluate.load("path/to/ocw_metric", "grouping")',
        'evaluate.load(str(Path(__file__).parent / "ocw_metric.py"), "connections")',
        'rouge_tokenizer="unicode"',
    ):
        assert form in card, form


def test_installed_forms_load_the_same_metric() -> None:
    import ocw_hub
    import ocw_hub.resources

    by_package = ocw_hub.load_metric("grouping")
    by_path = evaluate.load(str(ocw_hub.resources.metric_dir()), "grouping")
    swap = [["a1", "a2", "a3", "b1"], ["b2", "b3", "b4", "a4"], C, D]
    args = {"predictions": [WALL, swap], "references": [WALL, WALL]}
    assert (
        by_package.compute(**args)
        == by_path.compute(**args)
        == grouping.grouping_scores([WALL, swap], [WALL, WALL])
    )
