"""The lm-evaluation-harness tasks of ``ocw_hub/lm_eval_tasks``: one shared YAML included by
every task, the ``ocw`` tag, the folder's README in lm-eval's task README shape, and lm-eval's
request cache kept in step with the task settings.

The tests marked ``lm_eval`` need lm-evaluation-harness (the ``[test-llm]`` extra: .venv-torch
in ``.ci/run``); elsewhere they are skipped, unless ``OCW_HUB_REQUIRE_LLM=1`` makes lm-eval
required.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ocw_hub.lm_eval_tasks import TASKS_DIR
from ocw_hub.lm_eval_tasks.request_cache import DIGEST_SUFFIX, settings_digest

TASKS = ("ocw_connections", "ocw_grouping", "wote")
COMMON = "_ocw_common.yaml"
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
HUB_EXPORT = Path(__file__).parent / "data" / "hub_export"


class _TaskLoader(yaml.SafeLoader):
    """A YAML loader that reads lm-eval's ``!function module.name`` as the string."""


_TaskLoader.add_constructor("!function", lambda loader, node: f"!function {node.value}")


def _yaml(name: str) -> dict[str, Any]:
    return yaml.load((TASKS_DIR / name).read_text(encoding="utf-8"), Loader=_TaskLoader)


def test_every_task_includes_the_common_yaml() -> None:
    common = _yaml(COMMON)
    assert "task" not in common and common["tag"] == "ocw"
    tasks = sorted(p.stem for p in TASKS_DIR.glob("*.yaml") if not p.name.startswith("_"))
    assert tasks == list(TASKS)
    for task in TASKS:
        config = _yaml(f"{task}.yaml")
        assert config["include"] == COMMON and config["task"] == task, task
        # the key the request cache is kept under (request_cache.forget_stale_requests)
        assert config["dataset_kwargs"]["lm_eval_task"] == task, task
        repeated = {key for key, value in config.items() if common.get(key) == value}
        assert not repeated, (task, repeated)  # nothing the common file says is said again
    # WoTe's own docs and decoding replace the OCW ones of the common file
    wote = _yaml("wote.yaml")
    assert wote["custom_dataset"] == "!function utils.wote_dataset"
    assert wote["generation_kwargs"]["until"] == [] != common["generation_kwargs"]["until"]


def _bibtex(text: str) -> str:
    """The first BibTeX entry of ``text``, whitespace collapsed."""
    start = text.index("@")
    depth, end = 0, start
    for end in range(text.index("{", start), len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    return " ".join(text[start : end + 1].split())


def test_the_readme_has_the_shape_of_lm_evals_task_readmes() -> None:
    readme = (TASKS_DIR / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#+ .+$", readme, flags=re.MULTILINE)
    for heading in (
        "### Paper",
        "### Citation",
        "### Groups, Tags, and Tasks",
        "#### Tags",
        "#### Tasks",
        "### Checklist",
    ):
        assert heading in headings, heading
    tags_part = readme[readme.index("#### Tags") : readme.index("#### Tasks")]
    tasks_part = readme[readme.index("#### Tasks") : readme.index("### Checklist")]
    assert re.findall(r"^\* `([a-z_]+)`", tags_part, flags=re.MULTILINE) == ["ocw"]
    assert sorted(re.findall(r"^\* `([a-z_]+)`", tasks_part, flags=re.MULTILINE)) == list(TASKS)
    assert re.findall(r"^\* \[[ x]\]", readme[readme.index("### Checklist") :], re.MULTILINE)
    for url in ("https://arxiv.org/abs/2306.11167", "https://github.com/TaatiTeam/OCW"):
        assert url in readme, url


@pytest.mark.parametrize("seed", ["OCW-README.txt", "WoTe-README.txt"])
def test_the_readme_cites_as_the_datasets_ask(seed: str) -> None:
    # The citation each dataset's own README requests (../shared/seeds), as given there.
    if not (SEEDS / seed).is_file():
        pytest.skip(f"needs {SEEDS / seed}")
    readme = " ".join((TASKS_DIR / "README.md").read_text(encoding="utf-8").split())
    assert _bibtex((SEEDS / seed).read_text(encoding="utf-8")) in readme


def test_the_digest_sees_every_setting_and_the_docs() -> None:
    settings = {"lm_eval_task": "ocw_grouping", "data_dir": "a", "shots": 0, "seed": 42}
    docs = [{"wall_id": "1", "user_message": "Solve this wall"}]
    digest = settings_digest(settings, docs)
    assert settings_digest(dict(reversed(settings.items())), docs) == digest  # key order
    assert len({digest, settings_digest({**settings, "shots": 3}, docs)}) == 2
    assert len({digest, settings_digest({**settings, "seed": 1}, docs)}) == 2
    assert len({digest, settings_digest({**settings, "data_dir": "b"}, docs)}) == 2
    assert len({digest, settings_digest(settings, [{**docs[0], "user_message": "x"}])}) == 2


# ----------------------------------------------------------------------------------------
# through lm-eval itself
# ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``--out`` of ``ocw-hub build`` of the synthetic OCW walls and WoTe questions (one
    export per dataset in it: ``ocw/``, ``wote/``)."""
    work = tmp_path_factory.mktemp("lm-eval-data")
    command = [sys.executable, "-m", "ocw_hub", "build", "--out", str(work / "hub"),
               "--cache-dir", str(work / "cache"), "--no-checks",
               "-c", "default", "--data-dir", f"default={HUB_EXPORT / 'ocw'}",
               "-c", "wote", "--data-dir", f"wote={HUB_EXPORT / 'wote'}"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return work / "hub"


@pytest.fixture(scope="module")
def lm_eval_tasks() -> Any:
    """``lm_eval.tasks``, or a skip (a failure with ``OCW_HUB_REQUIRE_LLM=1``)."""
    try:
        import lm_eval.tasks
    except ImportError as err:
        reason = f"needs lm-evaluation-harness (the [test-llm] extra): {err}"
        if os.environ.get("OCW_HUB_REQUIRE_LLM") == "1":
            pytest.fail(f"{reason} (OCW_HUB_REQUIRE_LLM=1 makes it required)", pytrace=False)
        pytest.skip(reason)
    return lm_eval.tasks


def _leaf_tasks(task_dict: dict[Any, Any]) -> dict[str, Any]:
    """The tasks of ``get_task_dict``'s answer by name (groups and tags unfolded)."""
    leaves: dict[str, Any] = {}
    for value in task_dict.values():
        if isinstance(value, dict):
            leaves.update(_leaf_tasks(value))
        else:
            leaves[value.config.task] = value
    return leaves


@pytest.mark.lm_eval
def test_the_task_manager_finds_the_tasks_and_the_tag(lm_eval_tasks: Any, built: Path) -> None:
    manager = lm_eval_tasks.TaskManager(include_path=str(TASKS_DIR), include_defaults=False)
    assert sorted(manager.all_subtasks) == list(TASKS)
    assert manager.all_tags == ["ocw"]
    # The tag builds all three (an `ocw-hub build --out` folder holds both datasets' exports).
    manager = lm_eval_tasks.TaskManager(
        include_path=str(TASKS_DIR),
        include_defaults=False,
        metadata={"data_dir": str(built), "no_checks": True},
    )
    tasks = _leaf_tasks(lm_eval_tasks.get_task_dict(["ocw"], manager))
    assert sorted(tasks) == list(TASKS)
    wote_ids = [doc["id"] for doc in tasks["wote"].test_docs()]
    ocw_ids = [doc["wall_id"] for doc in tasks["ocw_grouping"].test_docs()]
    assert wote_ids and ocw_ids == [doc["wall_id"] for doc in tasks["ocw_connections"].test_docs()]


def _requests(lm_eval_tasks: Any, data: Path, cache: bool = True, **settings: Any) -> list[Any]:
    """The contexts lm-eval builds for ocw_grouping with ``--metadata settings`` (and
    ``--cache_requests true`` when ``cache``)."""
    manager = lm_eval_tasks.TaskManager(
        include_path=str(TASKS_DIR),
        include_defaults=False,
        metadata={"data_dir": str(data), "no_checks": True, **settings},
    )
    task = lm_eval_tasks.get_task_dict(["ocw_grouping"], manager)["ocw_grouping"]
    task.build_all_requests(cache_requests=cache)
    return [instance.args for instance in task.instances]


@pytest.mark.lm_eval
def test_a_changed_setting_never_reuses_cached_requests(
    lm_eval_tasks: Any, built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lm_eval.caching import cache

    folder = tmp_path / "lm-eval-cache"
    folder.mkdir()
    monkeypatch.setattr(cache, "PATH", str(folder))
    zero = _requests(lm_eval_tasks, built, shots=0)
    (entry,) = (p for p in folder.iterdir() if p.name.startswith("requests-ocw_grouping-"))
    written = entry.stat().st_mtime_ns
    # Same settings: lm-eval's entry is reused as it is.
    assert _requests(lm_eval_tasks, built, shots=0) == zero
    assert entry.stat().st_mtime_ns == written
    # Other settings, under the same lm-eval key: the requests of those settings (as built
    # without the cache), not the entry of an earlier run.
    one = _requests(lm_eval_tasks, built, shots=1)
    assert one == _requests(lm_eval_tasks, built, False, shots=1) != zero
    validation = _requests(lm_eval_tasks, built, shots=1, split="validation")
    assert validation == _requests(lm_eval_tasks, built, False, shots=1, split="validation")
    assert validation != one
    digests = [p.name for p in folder.iterdir() if p.name.endswith(DIGEST_SUFFIX)]
    assert digests == [f"requests-ocw_grouping{DIGEST_SUFFIX}"]


@pytest.mark.lm_eval
def test_no_cache_folder_no_record(
    lm_eval_tasks: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without lm-eval's cache folder (--cache_requests never used) nothing is written.
    from lm_eval.caching import cache

    from ocw_hub.lm_eval_tasks.request_cache import forget_stale_requests

    monkeypatch.setattr(cache, "PATH", str(tmp_path / "absent"))
    assert forget_stale_requests({"lm_eval_task": "wote"}, [{"id": "q1"}]) is False
    assert not (tmp_path / "absent").exists()
    with pytest.raises(ValueError, match="plain task name"):
        forget_stale_requests({"lm_eval_task": "../wote"}, [])
