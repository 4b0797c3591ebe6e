"""A model's scores for the Hub's benchmark leaderboard: ``.eval_results/<task>.yaml`` files.

A model repo publishes one YAML file per leaderboard task (:mod:`ocw_hub.data.leaderboard`),
each a list of entries ``{dataset: {id, task_id, revision?}, value, date?, source?: {url,
name?}, notes?}`` (https://huggingface.co/docs/hub/eval-results). The entries are made by
``huggingface_hub``'s ``EvalResultEntry`` and ``eval_result_entries_to_yaml`` where the
installed version has them, else as the same dict (:func:`plain_entry`); the format has no
field for an interval, so the 95 % interval goes in ``notes``. An entry of results scored
from an inspect-ai log says ``evaluation_framework: inspect-ai`` and its notes name inspect-ai's
version, the task and the model; other entries name no framework (they were not made with it).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..configs import PathLike, config_spec
from ..errors import ExportError
from .leaderboard import BOARD_SPLIT, FRAMEWORK, TASK_ID, config_tasks

#: The folder of a model repo that holds its results (``huggingface_hub.constants``').
RESULTS_FOLDER = ".eval_results"
_URL = re.compile(r"^https?://[^\s/]+\S*$")


def hub_entry_api() -> tuple[Any, Any] | None:
    """``(EvalResultEntry, eval_result_entries_to_yaml)`` of the installed ``huggingface_hub``,
    or None when it is older than the ``.eval_results`` format."""
    try:
        from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml
    except ImportError:
        return None
    return EvalResultEntry, eval_result_entries_to_yaml


def plain_entry(
    dataset_id: str,
    task_id: str,
    value: float,
    *,
    dataset_revision: str | None = None,
    date: str | None = None,
    source_url: str | None = None,
    source_name: str | None = None,
    notes: str | None = None,
) -> dict[str, Any]:
    """One entry as the documented YAML shape, without ``huggingface_hub``'s class (for
    versions that lack it); the same dict as ``eval_result_entries_to_yaml`` makes."""
    dataset: dict[str, Any] = {"id": dataset_id, "task_id": task_id}
    if dataset_revision is not None:
        dataset["revision"] = dataset_revision
    entry: dict[str, Any] = {"dataset": dataset, "value": value}
    if date is not None:
        entry["date"] = date
    if source_url is not None:
        entry["source"] = {"url": source_url, **({"name": source_name} if source_name else {})}
    if notes is not None:
        entry["notes"] = notes
    return entry


def make_entry(
    dataset_id: str, task_id: str, value: float, framework: str | None = None, **fields: Any
) -> dict[str, Any]:
    """One entry (``fields`` as :func:`plain_entry`'s) through ``huggingface_hub``'s
    ``EvalResultEntry`` when installed; with ``evaluation_framework: framework`` when given
    (hub-docs: the framework the result was made with, the eval.yaml's; ``EvalResultEntry``
    has no such field)."""
    api = hub_entry_api()
    if api is None:
        entry = plain_entry(dataset_id, task_id, value, **fields)
    else:
        entry_class, to_yaml = api
        hub_entry = entry_class(dataset_id=dataset_id, task_id=task_id, value=value, **fields)
        (entry,) = to_yaml([hub_entry])
    if framework is not None:
        entry["evaluation_framework"] = framework
    return entry


def inspect_protocol(results: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The protocol record of results scored from an inspect-ai log (``ocw-hub evaluate
    LOG.eval``), else None."""
    from ..provenance import results_protocol

    protocol = results_protocol(results)
    if isinstance(protocol, Mapping) and protocol.get("framework") == FRAMEWORK:
        return protocol
    return None


def _inspect_text(protocol: Mapping[str, Any]) -> str:
    """``run with inspect-ai 0.3.285: task ocw_hub/ocw_grouping, model openai-api/local/m``."""
    version = protocol.get("inspect_version")
    task = protocol.get("inspect_task") or "not recorded"
    return (
        f"run with {FRAMEWORK}{f' {version}' if version else ''}: task {task}, "
        f"model {protocol.get('model')}"
    )


def _figures(results: Mapping[str, Any], task: str) -> tuple[dict, dict, int | None]:
    """``(figures, stds, runs)`` of a task: one run's figures, or the mean over runs."""
    if "runs" in results:
        return (
            dict(results.get("mean", {}).get(task, {})),
            dict(results.get("std", {}).get(task, {})),
            int(results["n_runs"]),
        )
    return dict(results.get(task) or {}), {}, None


def _short_source(source: Any) -> str:
    """The release and SHA-256 of a results' source, without its local path."""
    if not isinstance(source, Mapping):
        return "source not recorded"
    from ..provenance import release_text

    text = release_text(source)
    if source.get("kind") == "hub" and source.get("path"):
        text += f" {source['path']}" + (f"@{source['revision']}" if source.get("revision") else "")
    sha = source.get("sha256")
    return text + (f", sha256 {str(sha)[:12]}" if sha else "")


#: How the notes state the walls a figure is over (``check`` reads it back).
_OVER = re.compile(r"figure over (\d+) of the (\d+) (walls|questions) of the split")
#: The start of the notes of an entry of ``ocw-hub evaluate``.
_BY_EVALUATE = re.compile(r"^ocw-hub \S+ evaluate of ")


def _coverage(results: Mapping[str, Any], task: str) -> tuple[int, list[int]]:
    """``(size of the split, predicted count of each run)`` of a task, once its figure is over
    every wall of the split in every run.

    Raises:
        ExportError: a run whose figure of ``task`` is over fewer walls (predictions null for
            the task, not scored), naming the file.
    """
    spec = config_spec(str(results["config"]))
    key, runs = spec.size_key, results.get("runs") or [results]
    predicted = []
    for run in runs:
        size = int(run[key])
        scored = int((run.get(task) or {}).get(key, size))
        if scored != size:
            raise ExportError(
                f"{run.get('predictions', 'the predictions')}: its {task} figures are over "
                f"{scored} of the {size} {spec.units} of the split (the others' prediction is "
                f"null): a leaderboard entry is a figure of every {spec.unit} of the split; "
                f"predict every {spec.unit}, or leave the unpredicted ones out and pass "
                "--allow-missing to score them as wrong"
            )
        predicted.append(size - int(run.get("n_missing") or 0))
    return int(results[key]), predicted


def _notes(
    results: Mapping[str, Any], model_id: str, spread: str, ci: Any, figure: tuple[str, str]
) -> str:
    from ..provenance import package_version, protocol_text, results_protocol

    spec = config_spec(str(results["config"]))
    size, predicted = _coverage(results, figure[0])
    parts = [f"ocw-hub {package_version()} evaluate of {model_id}"]
    if (inspected := inspect_protocol(results)) is not None:
        parts.append(_inspect_text(inspected))
    parts.append(spread)
    if isinstance(ci, list | tuple) and len(ci) == 2:
        boot = results.get("bootstrap") or {}
        method = boot.get("method")  # per figure; one string in files before rates had theirs
        if isinstance(method, Mapping):
            method = method.get(figure[0], {}).get(figure[1])
        if method in (None, "percentile"):
            parts.append(
                f"95 % bootstrap interval [{ci[0]:.4g}, {ci[1]:.4g}] ({boot.get('resampled')}, "
                f"{boot.get('resamples')} resamples, seed {boot.get('seed')})"
            )
        else:
            parts.append(f"95 % interval [{ci[0]:.4g}, {ci[1]:.4g}] ({method}, over walls)")
    if all(n == size for n in predicted):
        shown = f"every {spec.unit} predicted"
    else:
        counts = ", ".join(map(str, predicted)) + (" by run" if len(predicted) > 1 else "")
        shown = f"{counts} predicted, the others missing and scored as wrong"
    parts.append(f"figure over {size} of the {size} {spec.units} of the split ({shown})")
    parts.append(f"protocol: {protocol_text(results_protocol(results))}")
    parts.append("source: " + _short_source(results.get("source")))
    return "; ".join(parts)


def _dataset_of(source: Any, dataset_id: str | None) -> tuple[str, str | None]:
    """``(dataset id, revision)``: the given id (the revision when the results were scored on
    that Hub repo), else the Hub repo the results were scored on."""
    hub = isinstance(source, Mapping) and source.get("kind") == "hub"
    if dataset_id is None:
        if not hub:
            raise ExportError(
                "the results were not scored on a Hub dataset: name the benchmark's dataset "
                "repo (--dataset-id ORG/NAME)"
            )
        dataset_id = str(source["path"])
    revision = source.get("revision") if hub and source.get("path") == dataset_id else None
    return dataset_id, revision


def eval_result_entries(
    results: Mapping[str, Any],
    *,
    model_id: str,
    dataset_id: str | None = None,
    date: str | None = None,
    source_url: str | None = None,
    allow_stand_in: bool = False,
) -> dict[str, dict[str, Any]]:
    """The leaderboard entries of a results dict of ``ocw-hub evaluate``: task id -> entry,
    for each leaderboard task of its config whose figure it holds (BERTScore only when
    scored).

    Args:
        results: one run, or several runs (their mean is the value, their std in ``notes``).
        model_id: the model repo (``ORG/NAME``) the entries are for (named in ``notes``).
        dataset_id: the benchmark's dataset repo; default: the Hub repo scored on.
        date: ISO-8601; default: now (UTC, seconds).
        source_url: where the result comes from; default: the model repo's page.
        allow_stand_in: make entries of figures on the pre-release stand-in (never published
            as OCW; for tests).

    Raises:
        ExportError: a malformed repo id; results of another split than the test split, or
            on the pre-release stand-in; no dataset id known; no leaderboard figure.
    """
    from .hub_files import validate_repo_id

    validate_repo_id(model_id)
    source = results.get("source")
    dataset_id, revision = _dataset_of(source, dataset_id)
    validate_repo_id(dataset_id)
    config, split = str(results.get("config")), str(results.get("split"))
    if split != BOARD_SPLIT:
        raise ExportError(
            f"results of the {split!r} split: the leaderboard tasks are on the {BOARD_SPLIT!r} "
            "split"
        )
    if isinstance(source, Mapping) and source.get("stand_in") and not allow_stand_in:
        raise ExportError(
            "these figures are on the pre-release stand-in (its wall ids), not the official "
            f"OCW release: never published on the {dataset_id} leaderboard"
        )
    date = date or datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    url = source_url or f"https://huggingface.co/{model_id}"
    framework = FRAMEWORK if inspect_protocol(results) is not None else None
    entries = {}
    for task in config_tasks(config_spec(config)):
        figures, stds, runs = _figures(results, task.task)
        value = figures.get(task.figure)
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        spread = (
            "one run"
            if runs is None
            else f"mean of {runs} runs (std {float(stds.get(task.figure, 0.0)):.4g})"
        )
        ci = results.get("ci95", {}).get(task.task, {}).get(task.figure)
        notes = _notes(results, model_id, spread, ci, (task.task, task.figure))
        entries[task.id] = make_entry(
            dataset_id,
            task.id,
            float(value),
            framework,
            dataset_revision=revision,
            date=date,
            source_url=url,
            source_name=f"ocw-hub evaluate ({model_id})",
            notes=notes,
        )
    if not entries:
        raise ExportError(f"the results hold no leaderboard figure of config {config!r}")
    return entries


def results_file(folder: PathLike, task_id: str) -> Path:
    """Where the entry of ``task_id`` goes in a model repo folder:
    ``folder/.eval_results/<task_id>.yaml``."""
    return Path(folder) / RESULTS_FOLDER / f"{task_id}.yaml"


def entry_text(entry: Mapping[str, Any]) -> str:
    """One results file: the YAML list holding ``entry``."""
    from ..outputs import yaml_text

    return yaml_text([dict(entry)])


def write_eval_results(
    folder: PathLike, entries: Mapping[str, Mapping[str, Any]], inputs: list[PathLike | None]
) -> list[Path]:
    """Write each entry to :func:`results_file` (replacing an earlier result of the task), all
    or none (:func:`ocw_hub.outputs.write_files_atomic`); every path checked first.

    Raises:
        OutputPathError: ``folder/.eval_results`` or a file in it cannot be written safely
            (an input, or lies in one; a link; a folder where a file goes). ``folder`` itself
            may hold inputs (the predictions in a model repo's clone).
    """
    from ..outputs import check_output_dir, check_output_file, write_files_atomic

    root = check_output_dir(Path(folder) / RESULTS_FOLDER, inputs, option="--eval-results").parent
    files = {
        check_output_file(results_file(root, task), inputs, option="--eval-results"): entry_text(
            entry
        ).encode("utf-8")
        for task, entry in entries.items()
    }
    (root / RESULTS_FOLDER).mkdir(parents=True, exist_ok=True)
    write_files_atomic(files)
    return list(files)


# --------------------------------------------------------------------------------------------
# Checking a .eval_results folder offline
# --------------------------------------------------------------------------------------------


def results_folder(path: PathLike) -> Path:
    """The ``.eval_results`` folder of a path: itself, or the one inside a model repo folder."""
    path = Path(path)
    return path if path.name == RESULTS_FOLDER else path / RESULTS_FOLDER


def value_problem(task_id: Any, value: float) -> str | None:
    """Why ``value`` cannot be the figure of leaderboard task ``task_id``, else None: the
    results' own range check (:func:`ocw_hub.figure_ranges.figure_problem`) of the task's
    figure (``ocw_grouping-default-ami``: AMI, -1 to 1; ``wote-wote-f1``: 0 to 100); a task id
    of no config is checked only for being finite."""
    from ..configs import CONFIGS
    from ..figure_ranges import figure_problem

    tasks = {t.id: t for name in CONFIGS for t in config_tasks(config_spec(name))}
    task = tasks.get(task_id) if isinstance(task_id, str) else None
    field = f"{task.task}.{task.figure}" if task is not None else "value"
    return figure_problem(field, value, spans=task is not None and task.task == "spans")


def _entry_problems(where: str, entry: Any, tasks: set[str] | None) -> list[str]:
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    if not isinstance(entry, dict):
        return [f"{where}: an entry must be a mapping (dataset, value)"]
    dataset = entry.get("dataset")
    if not isinstance(dataset, dict):
        return [f"{where}: `dataset` must be a mapping with id and task_id"]
    problems = []
    try:
        validate_repo_id(str(dataset.get("id")))
        if not isinstance(dataset.get("id"), str):
            raise HFValidationError("not a string")
    except HFValidationError:
        problems.append(f"{where}: dataset.id {dataset.get('id')!r} is not a Hub repo id")
    task_id = dataset.get("task_id")
    if not isinstance(task_id, str) or not TASK_ID.match(task_id):
        problems.append(f"{where}: dataset.task_id {task_id!r} is not a task id")
    elif tasks is not None and task_id not in tasks:
        problems.append(f"{where}: dataset.task_id {task_id!r} is not a task of the eval.yaml")
    value = entry.get("value")
    if not isinstance(value, int | float) or isinstance(value, bool):
        problems.append(f"{where}: `value` must be a number, not {value!r}")
    elif (problem := value_problem(task_id, value)) is not None:
        problems.append(f"{where}: field value: {problem}")
    problems += _optional_problems(where, entry)
    problems += _coverage_problems(where, entry.get("notes"))
    return problems


def _coverage_problems(where: str, notes: Any) -> list[str]:
    """An entry of ``ocw-hub evaluate`` whose notes say its figure is over fewer walls than
    the split's, or do not say over how many (an older ocw-hub wrote ``494 walls`` for a
    figure of the walls predicted alone)."""
    if not isinstance(notes, str) or not _BY_EVALUATE.match(notes):
        return []
    over = _OVER.search(notes)
    if over is None:
        return [
            f"{where}: its notes do not say that the figure is over every wall of the split "
            "(written by an older ocw-hub); evaluate the predictions again"
        ]
    scored, size, units = over.groups()
    if scored != size:
        return [f"{where}: the figure is over {scored} of the {size} {units} of the split only"]
    return []


def _optional_problems(where: str, entry: dict[str, Any]) -> list[str]:
    problems = []
    date = entry.get("date")
    if date is not None:
        try:
            datetime.datetime.fromisoformat(str(date).replace("Z", "+00:00"))
        except ValueError:
            problems.append(f"{where}: date {date!r} is not ISO-8601")
    source = entry.get("source")
    if source is not None and (
        not isinstance(source, dict) or not _URL.match(str(source.get("url", "")))
    ):
        problems.append(f"{where}: `source` needs a `url` (http or https)")
    for key in ("notes", "evaluation_framework"):
        if key in entry and not isinstance(entry[key], str):
            problems.append(f"{where}: `{key}` must be a string")
    return problems


def eval_results_problems(path: PathLike, tasks: set[str] | None = None) -> list[str]:
    """What is wrong with a ``.eval_results`` folder (or a model repo folder holding one),
    offline: no such folder or no ``*.yaml`` in it; a file that is not a YAML list of entries
    with ``dataset.id`` (a repo id), ``dataset.task_id`` (one of ``tasks`` when given: the
    task ids of an eval.yaml), a numeric ``value``, an ISO-8601 ``date``, a ``source`` with a
    ``url``; symbolic links; other files."""
    import yaml

    from .hub_files import link_problems

    folder = results_folder(path)
    if folder.is_symlink() or not folder.is_dir():
        return [f"{folder}: not a folder"]
    problems = link_problems(folder)
    files = sorted(folder.iterdir())
    if not any(f.suffix == ".yaml" for f in files):
        problems.append(f"{folder}: holds no .yaml results file")
    for file in files:
        where = f"{RESULTS_FOLDER}/{file.name}"
        if file.suffix != ".yaml" or file.is_symlink() or not file.is_file():
            problems.append(f"{where}: not a .yaml results file")
            continue
        try:
            data = yaml.safe_load(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
            problems.append(f"{where}: not readable as YAML ({' '.join(str(err).split())})")
            continue
        if not isinstance(data, list) or not data:
            problems.append(f"{where}: must be a non-empty YAML list of entries")
            continue
        for i, entry in enumerate(data):
            problems += _entry_problems(f"{where}[{i}]", entry, tasks)
    return problems


def result_files(path: PathLike) -> list[Path]:
    """The ``*.yaml`` files of a ``.eval_results`` folder, sorted."""
    return sorted(p for p in results_folder(path).glob("*.yaml") if p.is_file())
