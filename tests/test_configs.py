"""``ConfigSpec`` (``ocw_hub.configs``): every per-dataset fact in one table, agreeing with the
builders, and asked by the code instead of comparing config names.

The guard test reads every module of the package: none but ``configs.py`` compares a config,
dataset or script name (``== "wote"``, ``script == "WoTe"``, ``config in ("default", ...)``);
the loading scripts ``OCW.py`` / ``WoTe.py`` may (they cannot import the package).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ocw_hub.configs import CONFIGS, EXPORT_FOLDERS, SPLITS, config_spec
from ocw_hub.data.layout import export_folder
from ocw_hub.errors import PredictionsError
from ocw_hub.resources import load_script, load_sibling
from ocw_hub.scoring.metric import METRIC_CONFIGS
from ocw_hub.scoring.runs import REBUILT_WALLS
from ocw_hub.views.lookup import UnknownIdError, find_row

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ocw_hub"

_NAMES = sorted(
    {n for s in CONFIGS.values() for n in (s.name, s.dataset, s.script, s.builder_config)}
    | {"ocw"},
    key=len,
    reverse=True,
)
_NAME = "|".join(re.escape(n) for n in _NAMES)
_QUOTED = rf"""["'](?:{_NAME})["']"""
#: A comparison with a config, dataset or script name, or of a spec's name-like field.
NAME_COMPARISON = re.compile(
    rf"""(?:==|!=)\s*{_QUOTED}"""  # x == "wote"
    rf"""|{_QUOTED}\s*(?:==|!=)"""  # "wote" == x
    rf"""|\bin\s*[(\[{{]\s*{_QUOTED}"""  # x in ("default", "ocw_randomized")
    r"""|(?:\bspec|\))\.(?:dataset|script|unit|units|builder_config)\s*(?:==|!=)"""  # spec.unit
)


def test_no_module_compares_config_names() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "configs.py" and path.parent == PACKAGE:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAME_COMPARISON.search(line.split("#")[0]):
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert found == []


@pytest.mark.parametrize(
    "line",
    [
        'if config == "wote":',
        'key = "id" if spec.script == "WoTe" else "wall_id"',
        'if "ocw_randomized" != name:',
        'chosen = [f for f in files if f.config in ("default", "ocw_randomized")]',
        "if spec.dataset != other:",
    ],
)
def test_the_guard_sees_a_name_comparison(line: str) -> None:
    assert NAME_COMPARISON.search(line)


@pytest.mark.parametrize("line", ['if task == "grouping":', '_ROWS = {"ocw": a, "wote": b}'])
def test_the_guard_lets_tables_and_task_names_be(line: str) -> None:
    assert not NAME_COMPARISON.search(line)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_spec_agrees_with_its_builder(name: str) -> None:
    spec = config_spec(name)
    script = load_script(spec.script)
    assert spec.builder_config in getattr(script, spec.script).builder_configs
    assert spec.id_key in script.FEATURES
    assert spec.splits == tuple(script.SPLITS) == SPLITS == load_sibling("source_files").SPLITS
    assert set(script.OFFICIAL_SPLIT_SIZES) == set(spec.splits)
    assert callable(load_sibling(spec.sibling).check_rows)
    assert set(spec.tasks) <= set(METRIC_CONFIGS)
    assert spec.human == ("overall_human_performance" in script.FEATURES)
    assert export_folder(name) == spec.export in EXPORT_FOLDERS
    assert spec.size_key == f"n_{spec.units}"


def test_one_export_folder_per_dataset() -> None:
    assert len(EXPORT_FOLDERS) == len({s.dataset for s in CONFIGS.values()})
    assert {config_spec(name).export for name in CONFIGS} == set(EXPORT_FOLDERS)


def test_rebuilt_walls_are_the_configs_without_whole_walls_played() -> None:
    assert REBUILT_WALLS == {n for n, s in CONFIGS.items() if not s.whole_walls_played}
    assert all(config_spec(name).human for name in REBUILT_WALLS)


def test_an_unknown_wote_id_is_a_question(wote_fixture_dir: Path) -> None:
    rows = json.loads((wote_fixture_dir / "test.json").read_text(encoding="utf-8"))
    ids = [f"{r['conversation_id']}/{r['question_id']}" for r in rows]
    built = [{"id": i, "question_id": r["question_id"]} for i, r in zip(ids, rows, strict=True)]
    assert find_row(built, ids[1], "wote", "test") is built[1]
    assert find_row(built, rows[2]["question_id"], "wote", "test") is built[2]
    with pytest.raises(UnknownIdError) as info:
        find_row(built, "no/such-question", "wote", "test")
    assert str(info.value).split()[0] == config_spec("wote").unit == "question"


def test_a_wote_question_answered_twice_is_named_a_question(tmp_path: Path) -> None:
    from ocw_hub.llm.responses import read_responses

    path = tmp_path / "responses.jsonl"
    lines = [{"id": "Wizard-of-Task-food-2/food-2-0", "text": t} for t in ("a", "b")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(PredictionsError) as info:
        read_responses(path, config_spec("wote").unit)
    assert "question Wizard-of-Task-food-2/food-2-0 already answered" in str(info.value)
