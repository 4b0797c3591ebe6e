"""The Hub's benchmark leaderboard: the ``eval.yaml`` an export registers its benchmark with.

The Hub turns a dataset repo into a benchmark when an ``eval.yaml`` at its root names it, the
framework that computes its scores and its tasks (``id``, ``config``, ``split``; format:
hub-docs ``docs/hub/eval-results.md``, "Eval.yaml specification"); model repos then publish
one score per task as ``.eval_results/*.yaml`` (:mod:`ocw_hub.data.eval_results`). A task is a
sub-leaderboard of one value per model, so here one task is one headline figure of one config
on its test split, in the order of :data:`BOARD_FIGURES` for each task of the config
(``ConfigSpec.tasks``), named after the inspect-ai task whose log gives it:
``ocw_grouping-default-ami``, ``wote-wote-f1``.

The ids are plain names: inspect-ai addresses one task of an ``eval.yaml`` as
``hf/ORG/NAME/ID`` and splits that on ``/`` (``inspect_ai/_eval/task/hf.py``,
``parse_task_spec``), so ``ocw_hub/ocw_grouping`` cannot be an id. The tasks carry no
``field_spec`` / ``solvers`` / ``scorers``: hub-docs asks for them with ``inspect-ai`` so that
``inspect eval hf/ORG/NAME`` can build the task from the dataset alone, but that loader takes
only inspect's built-in solvers and scorers (``HFSolver``, ``HFScorer`` there), which give
none of these figures (AMI, WD, full walls of the paper's protocol); the figures come from
this package's own inspect tasks (``inspect eval ocw_hub/ocw_grouping``), run as the
``description`` says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..configs import ConfigSpec, config_spec

#: The file at a dataset repo's root that registers it as a benchmark.
EVAL_FILE = "eval.yaml"
#: The ``evaluation_framework`` of the eval.yaml: an enum the Hub keeps (huggingface.js
#: ``packages/tasks/src/eval.ts``, ``EVALUATION_FRAMEWORKS``, which lists ``inspect-ai`` and no
#: ``ocw-hub``: the Hub refuses an eval.yaml naming a framework not on it). The scores come from
#: the package's inspect-ai tasks, read by ``ocw-hub evaluate LOG.eval``.
FRAMEWORK = "inspect-ai"
#: The framework an earlier ocw-hub wrote (``check`` names it).
OLD_FRAMEWORK = "ocw-hub"
#: The split every leaderboard task is scored on.
BOARD_SPLIT = "test"
#: A task id (also the file name of its ``.eval_results`` entry, without ``.yaml``).
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

#: The headline figures of each metric task (``ConfigSpec.tasks``): ``(figure, what it is)``;
#: ``figure`` is the key in the results JSON (``results[task][figure]``, or ``mean[task]``
#: over runs). Totals (``full_wall``, ``correct_groups``) are left out: their rates are the
#: same figure on a scale that does not depend on the split's size.
BOARD_FIGURES: dict[str, tuple[tuple[str, str], ...]] = {
    "grouping": (
        ("ami", "adjusted mutual information of the predicted groups (0-1, higher is better)"),
        ("ari", "adjusted Rand index of the predicted groups (0-1, higher is better)"),
        ("fms", "Fowlkes-Mallows score of the predicted groups (0-1, higher is better)"),
        ("wd", "Wasserstein distance to the gold grouping (0-1, lower is better)"),
        ("correct_groups_rate", "share of gold groups found exactly (0-1, higher is better)"),
        ("full_wall_rate", "share of walls solved whole (0-1, higher is better)"),
    ),
    "connections": (
        ("exact_match", "exact match of the named connections (0-1, higher is better)"),
        ("rouge1", "ROUGE-1 F of the named connections (0-1, higher is better)"),
        ("bertscore_f1", "BERTScore F1 of the named connections (0-1, higher is better)"),
    ),
    "spans": (
        ("exact_match", "SQuAD v1.1 exact match of the answer spans (0-100, higher is better)"),
        ("f1", "SQuAD v1.1 token F1 of the answer spans (0-100, higher is better)"),
    ),
}

#: The inspect-ai task (``inspect eval ocw_hub/NAME``, :mod:`ocw_hub.inspect_tasks`) whose log
#: gives the figures of each metric task.
INSPECT_TASKS = {"grouping": "ocw_grouping", "connections": "ocw_connections", "spans": "wote"}

#: The metric task of each of ``ocw_hub.scoring``'s task names, for the descriptions.
_TASK_NAMES = {
    "grouping": "task 1, grouping the 16 clues",
    "connections": "task 2, naming the connections",
    "spans": "extractive QA",
}


@dataclass(frozen=True)
class BoardTask:
    """One leaderboard task: one headline figure of one config on :data:`BOARD_SPLIT`.

    Attributes:
        id: the task id (``<inspect task>-<config>-<figure>``).
        config, split: what it is scored on.
        task: the metric task (``grouping``, ``connections``, ``spans``).
        figure: the figure's key in the results JSON.
        about: what the figure is, one line.
    """

    id: str
    config: str
    split: str
    task: str
    figure: str
    about: str

    @property
    def inspect_task(self) -> str:
        """The inspect-ai task whose log gives the figure: ``ocw_hub/ocw_grouping``."""
        return f"ocw_hub/{INSPECT_TASKS[self.task]}"

    def inspect_command(self) -> str:
        """``inspect eval`` of the task on the config's test split (model and server left
        to the author)."""
        args = "" if self.task == "spans" else f" -T config={self.config}"
        return f"inspect eval {self.inspect_task}{args} --model MODEL"


def config_tasks(spec: ConfigSpec) -> list[BoardTask]:
    """The leaderboard tasks of one config: each headline figure of each of its tasks."""
    return [
        BoardTask(
            f"{INSPECT_TASKS[task]}-{spec.name}-{figure}",
            spec.name,
            BOARD_SPLIT,
            task,
            figure,
            about,
        )
        for task in spec.tasks
        for figure, about in BOARD_FIGURES[task]
    ]


def board_tasks(configs: Iterable[str]) -> list[BoardTask]:
    """The leaderboard tasks of several configs, in config order.

    Raises:
        ValueError: an unknown config.
    """
    return [t for name in configs for t in config_tasks(config_spec(name))]


def eval_yaml(title: str, configs: Iterable[str]) -> dict[str, Any]:
    """The ``eval.yaml`` of an export holding ``configs``: its ``name`` (the card's title), a
    ``description`` that says what each task id measures, ``evaluation_framework`` and
    ``tasks`` (``id``, ``config``, ``split``)."""
    tasks = board_tasks(configs)
    runs = dict.fromkeys(t.inspect_command() for t in tasks)
    lines = [
        f"{title}: each task is one headline figure of one config's test split, from a log of "
        'the ocw-hub package\'s inspect-ai tasks (pip install "ocw-hub[inspect]"): run '
        "`inspect eval` as below, then `ocw-hub evaluate LOG.eval --eval-results DIR "
        "--model-id ORG/NAME` writes the model repo's results; each result's notes give its "
        "95 % interval.",
        *(f"Run: {command}" for command in runs),
        *(
            f"{t.id}: {t.about}, {_TASK_NAMES[t.task]}, config {t.config} ({t.inspect_task})."
            for t in tasks
        ),
    ]
    return {
        "name": title,
        "description": "\n".join(lines) + "\n",
        "evaluation_framework": FRAMEWORK,
        "tasks": [{"id": t.id, "config": t.config, "split": t.split} for t in tasks],
    }


def eval_yaml_text(title: str, configs: Iterable[str]) -> str:
    """:func:`eval_yaml` as YAML text (keys in the documented order, the description as a
    literal block)."""
    from ..outputs import yaml_text

    return yaml_text(eval_yaml(title, configs), literal_blocks=True, width=100)


def read_eval_yaml(path: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """``(eval.yaml as a mapping or None, problems)``: problems when it is not YAML or not a
    mapping with a ``name``, an ``evaluation_framework`` and a non-empty list of ``tasks``,
    each with a unique ``id`` (a file name: letters, digits, ``_.-``), a ``config`` and a
    ``split`` (strings)."""
    import yaml

    where = path.name
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        return None, [f"{where}: not readable as YAML ({' '.join(str(err).split())})"]
    if not isinstance(data, dict):
        return None, [f"{where}: must be a YAML mapping (name, evaluation_framework, tasks)"]
    problems = [
        f"{where}: `{key}` must be a non-empty string"
        for key in ("name", "evaluation_framework")
        if not isinstance(data.get(key), str) or not data[key].strip()
    ]
    tasks = data.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        return data, [*problems, f"{where}: `tasks` must be a non-empty list"]
    seen: set[str] = set()
    for i, task in enumerate(tasks):
        problems += _task_problems(where, i, task, seen)
    return data, problems


def _task_problems(where: str, index: int, task: Any, seen: set[str]) -> list[str]:
    at = f"{where}: tasks[{index}]"
    if not isinstance(task, dict):
        return [f"{at}: must be a mapping with id, config and split"]
    problems = [
        f"{at}: `{key}` must be a non-empty string"
        for key in ("id", "config", "split")
        if not isinstance(task.get(key), str) or not task[key].strip()
    ]
    task_id = task.get("id")
    if isinstance(task_id, str) and task_id:
        if not TASK_ID.match(task_id):
            problems.append(f"{at}: id {task_id!r} is not a plain name (letters, digits, _.-)")
        if task_id in seen:
            problems.append(f"{at}: id {task_id!r} is given twice")
        seen.add(task_id)
    return problems


def eval_yaml_problems(root: Path, splits: Mapping[str, Iterable[str]]) -> list[str]:
    """What is wrong with the ``eval.yaml`` of an export whose card's configs resolve to
    ``splits`` (config -> its splits): :func:`read_eval_yaml`'s problems; an
    ``evaluation_framework`` other than :data:`FRAMEWORK`; tasks naming a config the card
    lacks or a split that config lacks, or an id of a known config that is none of its
    :func:`config_tasks` (``ocw-hub evaluate --eval-results`` writes no result for it). A
    missing file is no problem."""
    path = root / EVAL_FILE
    if not path.exists() and not path.is_symlink():
        return []
    if path.is_symlink() or not path.is_file():
        return [f"{EVAL_FILE}: must be a regular file"]
    data, problems = read_eval_yaml(path)
    if data is None:
        return problems
    framework = data.get("evaluation_framework")
    if isinstance(framework, str) and framework.strip() and framework != FRAMEWORK:
        older = " (written by an older ocw-hub; build the export again)" * (
            framework == OLD_FRAMEWORK
        )
        problems.append(
            f"{EVAL_FILE}: evaluation_framework is {framework!r}, not {FRAMEWORK!r}: the "
            f"scores come from the package's inspect-ai tasks{older}"
        )
    if not isinstance(data.get("tasks"), list):
        return problems
    for i, task in enumerate(data["tasks"]):
        if isinstance(task, dict):
            problems += _task_config_problems(i, task, splits)
    return problems


def _task_config_problems(
    index: int, task: Mapping[str, Any], splits: Mapping[str, Iterable[str]]
) -> list[str]:
    at = f"{EVAL_FILE}: tasks[{index}] ({task.get('id')})"
    config, split, task_id = task.get("config"), task.get("split"), task.get("id")
    if not isinstance(config, str):
        return []
    if config not in splits:
        return [
            f"{at}: config {config!r} is not a config of the card ({', '.join(splits) or 'none'})"
        ]
    if isinstance(split, str) and split not in splits[config]:
        return [f"{at}: config {config!r} has no split {split!r} ({', '.join(splits[config])})"]
    try:
        ids = [t.id for t in config_tasks(config_spec(config))]
    except ValueError:  # a config of the card this package does not know
        return []
    if isinstance(task_id, str) and TASK_ID.match(task_id) and task_id not in ids:
        return [
            f"{at}: id {task_id!r} is no leaderboard task of config {config!r}: "
            f"`ocw-hub evaluate --eval-results` writes {', '.join(ids)}"
        ]
    return []
