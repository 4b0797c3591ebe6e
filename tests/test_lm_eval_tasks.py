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
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    command = [
        sys.executable,
        "-m",
        "ocw_hub",
        "build",
        "--out",
        str(work / "hub"),
        "--cache-dir",
        str(work / "cache"),
        "--no-checks",
        "-c",
        "default",
        "--data-dir",
        f"default={HUB_EXPORT / 'ocw'}",
        "-c",
        "wote",
        "--data-dir",
        f"wote={HUB_EXPORT / 'wote'}",
    ]
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


@pytest.fixture
def lm_eval_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder that lm-eval's request cache (``--cache_requests``) uses for the test."""
    cache = pytest.importorskip("lm_eval.caching.cache")
    folder = tmp_path / "lm-eval-cache"
    folder.mkdir()
    monkeypatch.setattr(cache, "PATH", str(folder))
    return folder


@pytest.mark.lm_eval
def test_a_changed_setting_never_reuses_cached_requests(
    lm_eval_tasks: Any, built: Path, lm_eval_cache: Path
) -> None:
    folder = lm_eval_cache
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


# ----------------------------------------------------------------------------------------
# task folders for a prompt style and a profile (ocw-hub lm-eval-tasks --out)
# ----------------------------------------------------------------------------------------


def _variant(**options: Any) -> dict[str, dict[str, Any]]:
    from ocw_hub.llm.profiles import Generation
    from ocw_hub.lm_eval_tasks.variants import variant_configs

    style, response_format = options.pop("style", None), options.pop("response_format", None)
    return variant_configs(style, response_format, Generation(**options))


def test_the_paper_variant_is_the_shipped_tasks() -> None:
    configs = _variant()
    assert sorted(configs) == list(TASKS)
    common = _yaml(COMMON)["generation_kwargs"]
    for task, config in configs.items():
        shipped = _yaml(f"{task}.yaml")
        assert config["include"] == str(TASKS_DIR / f"{task}.yaml")
        assert config["tag"] == "ocw" and config["task"] == task
        assert config["generation_kwargs"] == shipped.get("generation_kwargs", common), task
        kept = {k: config["dataset_kwargs"][k] for k in shipped["dataset_kwargs"]}
        assert kept == shipped["dataset_kwargs"]


def test_a_variant_sends_the_profiles_fields() -> None:
    cot = _variant(
        style="cot",
        profile="custom",
        max_tokens=512,
        temperature=0.7,
        top_p=0.9,
        stop=("END",),
        seed=3,
    )
    assert sorted(cot) == ["ocw_connections_cot_custom", "ocw_grouping_cot_custom"]
    grouping = cot["ocw_grouping_cot_custom"]
    assert grouping["tag"] == "ocw_cot_custom"
    assert grouping["generation_kwargs"] == {
        "until": ["END"],
        "max_gen_toks": 512,
        "do_sample": True,
        "temperature": 0.7,
        "top_p": 0.9,
        "seed": 3,
    }
    assert grouping["dataset_kwargs"] == {
        "task": "grouping",
        "lm_eval_task": "ocw_grouping_cot_custom",
        "profile": "custom",
        "prompt_style": "cot",
        "generation": {
            "max_tokens": 512,
            "temperature": 0.7,
            "top_p": 0.9,
            "stop": ["END"],
            "seed": 3,
        },
    }
    reasoning = _variant(profile="reasoning", max_tokens=8000, reasoning_effort="high")
    assert sorted(reasoning) == sorted(f"{t}_reasoning" for t in TASKS)
    for config in reasoning.values():
        assert config["generation_kwargs"] == {
            "until": [],
            "max_gen_toks": 8000,
            "reasoning_effort": "high",
        }
    schema = _variant(style="json")["ocw_grouping_json"]
    sent = schema["generation_kwargs"]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "ocw_grouping"
    prompt = _variant(style="json", response_format="prompt")["ocw_grouping_json"]
    assert "response_format" not in prompt["generation_kwargs"]
    assert prompt["dataset_kwargs"]["response_format"] == "prompt"


def test_a_variant_refuses_what_lm_eval_cannot_send() -> None:
    from ocw_hub.errors import GenerationProfileError
    from ocw_hub.llm.styles import StyleError

    with pytest.raises(GenerationProfileError):
        _variant(profile="custom", max_tokens=10, n=3)
    with pytest.raises(StyleError):
        _variant(style="cot", response_format="prompt")
    with pytest.raises(StyleError):
        _variant(style="haiku")


def _write_variant(folder: Path, *options: str) -> Path:
    command = [sys.executable, "-m", "ocw_hub", "lm-eval-tasks", "--out", str(folder), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(folder.resolve())
    return folder


def test_the_command_writes_the_variant_and_its_command_line(tmp_path: Path) -> None:
    options = [
        "--prompt-style",
        "cot",
        "--profile",
        "custom",
        "--max-tokens",
        "300",
        "--stop",
        "a b",
    ]
    folder = _write_variant(tmp_path / "cot", *options)
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["ocw_connections_cot_custom.yaml", "ocw_grouping_cot_custom.yaml"]
    text = (folder / "ocw_grouping_cot_custom.yaml").read_text(encoding="utf-8")
    head = text.splitlines()[0].removeprefix("# Written by: ")
    assert shlex.split(head) == ["ocw-hub", "lm-eval-tasks", "--out", str(folder), *options]
    assert (
        yaml.safe_load(text)
        == _variant(style="cot", profile="custom", max_tokens=300, stop=("a b",))[
            "ocw_grouping_cot_custom"
        ]
    )
    # a style or profile without --out: refused, the shipped folder printed by nobody
    command = [
        sys.executable,
        "-m",
        "ocw_hub",
        "lm-eval-tasks",
        "--profile",
        "custom",
        "--max-tokens",
        "5",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and done.stdout == ""
    # the shipped folder is never written to
    command = [
        sys.executable,
        "-m",
        "ocw_hub",
        "lm-eval-tasks",
        "--out",
        str(TASKS_DIR),
        "--prompt-style",
        "cot",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and not (TASKS_DIR / "ocw_grouping_cot.yaml").exists()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stops=st.lists(
        st.one_of(
            st.sampled_from(["\n\n", "\n", "#", ": x", "'", '"', "\r", "\u2028", "\x85"]),
            st.text(min_size=1, max_size=12),
        ),
        min_size=1,
        max_size=3,
    ),
    name=st.text(min_size=1, max_size=10).filter(lambda n: "/" not in n and "\x00" not in n),
)
def test_every_variant_file_reads_back_as_its_config(stops: list[str], name: str) -> None:
    """The command line is written as a comment that never ends early: ``--stop $'\\n\\n'``
    (lm-eval's default) made three files ``yaml.safe_load`` refused, and a stop string could
    add keys."""
    import tempfile

    from ocw_hub.llm.profiles import Generation
    from ocw_hub.lm_eval_tasks.variants import command_line, variant_configs, write_variant

    generation = Generation(profile="custom", max_tokens=5, stop=tuple(stops))
    configs = variant_configs(None, None, generation)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / name
        written = write_variant(out, configs, command_line(out, None, None, generation))
        assert len(written) == len(configs) == 3
        for path in written:
            text = path.read_text(encoding="utf-8")
            assert yaml.safe_load(text) == configs[path.stem]
            assert [line[:1] for line in text.split("\n")[:2]] == ["#", "#"]


def test_the_comment_of_lm_evals_default_stop_is_one_line(tmp_path: Path) -> None:
    folder = _write_variant(
        tmp_path / "v", "--profile", "custom", "--max-tokens", "5", "--stop", "\n\n"
    )
    text = (folder / "ocw_grouping_custom.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[0].endswith("--stop '\\n\\n'")
    assert yaml.safe_load(text)["generation_kwargs"]["until"] == ["\n\n"]


def _variant_task(lm_eval_tasks: Any, folder: Path, name: str, data: Path, **metadata: Any) -> Any:
    manager = lm_eval_tasks.TaskManager(
        include_path=str(folder),
        include_defaults=False,
        metadata={"data_dir": str(data), "no_checks": True, **metadata},
    )
    return lm_eval_tasks.get_task_dict([name], manager)[name]


@pytest.mark.lm_eval
def test_a_cot_task_sends_the_styles_prompt_and_parses_its_block(
    lm_eval_tasks: Any, built: Path, tmp_path: Path
) -> None:
    from ocw_hub.data.sources import load_rows
    from ocw_hub.llm.prompts import build_requests

    folder = _write_variant(
        tmp_path / "cot", "--prompt-style", "cot", "--profile", "custom", "--max-tokens", "700"
    )
    task = _variant_task(lm_eval_tasks, folder, "ocw_grouping_cot_custom", built, shots=1)
    assert task.config.generation_kwargs["max_gen_toks"] == 700
    docs = list(task.test_docs())
    walls = load_rows("default", "test", str(built / "ocw")).rows
    train = load_rows("default", "train", str(built / "ocw")).rows
    requests = build_requests(walls, train, task="grouping", shots=1, style="cot")
    assert [d["user_message"] for d in docs] == [
        r["body"]["messages"][1]["content"] for r in requests
    ]
    assert [d["system_prompt"] for d in docs] == [
        r["body"]["messages"][0]["content"] for r in requests
    ]
    doc = docs[0]
    gold = "\n".join(", ".join(g["gt_words"]) for g in doc["groups"].values())
    # the groups after the final-answer line are read; without that line, nothing is
    solved = task.process_results(doc, [f"Thinking about it.\nFinal answer:\n{gold}"])
    assert (solved["full_wall"], solved["correct_groups"]) == (1, 4)
    unmarked = task.process_results(doc, [gold])
    assert (unmarked["full_wall"], unmarked["correct_groups"]) == (0, 0)


@pytest.mark.lm_eval
def test_two_budgets_under_one_task_name_never_share_cached_requests(
    lm_eval_tasks: Any, built: Path, tmp_path: Path, lm_eval_cache: Path
) -> None:
    cached = lm_eval_cache
    name = "ocw_grouping_custom"
    sent = []
    for budget in ("100", "200", "100"):
        folder = _write_variant(
            tmp_path / f"b{budget}", "--profile", "custom", "--max-tokens", budget
        )
        task = _variant_task(lm_eval_tasks, folder, name, built)
        task.build_all_requests(cache_requests=True)
        sent.append({instance.args[1]["max_gen_toks"] for instance in task.instances})
    assert sent == [{100}, {200}, {100}]
    assert [p.name for p in cached.iterdir() if p.name.endswith(DIGEST_SUFFIX)] == [
        f"requests-{name}{DIGEST_SUFFIX}"
    ]
