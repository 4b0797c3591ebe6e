"""Hooks of the lm-evaluation-harness tasks ``ocw_grouping``, ``ocw_connections`` and ``wote``
(``!function utils.…`` in the YAML files).

The tasks reuse this package end to end, so their figures equal ``ocw-hub evaluate``'s on the
same answers:

* **Docs**: the walls of one split from :func:`ocw_hub.data.sources.load_rows` (raw source
  files, an ``ocw-hub build`` export folder of Parquet files, or a Hub repo id), given by
  ``--metadata '{"data_dir": ..., "split": "test", "shots": 0, "seed": 42}'`` (and
  ``"no_checks": true`` as ``--no-checks``: raw files whose split sizes are not the release's);
  lm-eval always names the evaluated split ``test``. A task folder of ``ocw-hub lm-eval-tasks
  --out`` (:mod:`.variants`) adds ``prompt_style``, ``response_format``, ``profile`` and
  ``generation`` through ``dataset_kwargs``.
* **Prompt**: each doc carries the request that ``ocw-hub prompts`` writes for it
  (:func:`ocw_hub.llm.prompts.build_requests`, the paper's wording;
  :func:`ocw_hub.llm.wote.build_wote_requests` for WoTe): ``system_prompt`` (the
  task's ``description``, sent as the system message with ``--apply_chat_template``) and
  ``user_message`` (the K in-context examples inside it, as the paper laid them out).
* **Answer**: parsed as ``ocw-hub parse`` does (robust mode, :func:`ocw_hub.llm.responses.
  parse_wall`, the answer block of the doc's prompt style), shape-checked as ``ocw-hub
  evaluate`` reads a predictions file, and scored by the metric's own per-wall code (WoTe:
  :func:`ocw_hub.llm.wote.parse_wote_answer` and the metric's SQuAD scores per question);
  lm-eval's ``mean`` of the per-wall figures is the metric's mean, and :func:`total` sums the
  counts (full walls, correct groups).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ocw_hub.llm.prompts import DEFAULT_SEED, build_requests, gold_groups
from ocw_hub.llm.responses import Response, parse_wall
from ocw_hub.resources import load_metric_module
from ocw_hub.scoring.predictions import check_wall_prediction

#: The config of the OCW walls, and of the WoTe questions.
CONFIG = "default"
WOTE_CONFIG = "wote"


def _split_rows(
    data_dir: str | None, split: str, no_checks: bool, config: str = CONFIG
) -> list[dict[str, Any]]:
    """The rows (walls or questions) of one split of ``config``."""
    from ocw_hub.configs import verification_mode
    from ocw_hub.data.sources import load_rows

    mode = verification_mode(no_checks)
    return load_rows(config, split, data_dir, verification_mode=mode).rows


def _with_messages(
    rows: list[dict[str, Any]],
    requests: list[dict[str, Any]],
    settings: dict[str, Any],
    style: str = "paper",
) -> dict[str, Any]:
    """``{"test": Dataset}`` of the rows, each with its request's two messages added (and the
    prompt ``style`` as ``prompt_style``, unless paper: the answer hooks read it); lm-eval's
    cached requests of the task are dropped unless built from these ``settings`` and docs
    (:func:`ocw_hub.lm_eval_tasks.request_cache.forget_stale_requests`)."""
    import datasets

    from ocw_hub.lm_eval_tasks.request_cache import forget_stale_requests

    docs = []
    shown = {} if style == "paper" else {"prompt_style": style}
    for row, request in zip(rows, requests, strict=True):
        system, user = request["body"]["messages"]
        docs.append(
            {**row, "system_prompt": system["content"], "user_message": user["content"], **shown}
        )
    forget_stale_requests(settings, docs)
    return {"test": datasets.Dataset.from_list(docs)}


def ocw_dataset(
    task: str,
    data_dir: str | None = None,
    split: str = "test",
    shots: int = 0,
    seed: int = DEFAULT_SEED,
    no_checks: bool = False,
    prompt_style: str = "paper",
    response_format: str = "schema",
    **other: Any,
) -> dict[str, Any]:
    """The docs of ``task`` (``grouping`` or ``connections``): ``{"test": Dataset}``, one
    row per wall of ``split`` with its ``system_prompt`` and ``user_message`` added, in the
    prompt style ``prompt_style`` (a task folder of ``ocw-hub lm-eval-tasks --out`` sets it).

    Raises:
        ocw_hub.llm.prompts.PromptError: more shots than the train split has.
        SourceUnavailableError, UnknownSplitError: the split cannot be had.
    """
    walls = _split_rows(data_dir, split, no_checks)
    train = (
        walls if split == "train" or int(shots) == 0 else _split_rows(data_dir, "train", no_checks)
    )
    requests = build_requests(
        walls,
        train,
        task=task,
        shots=int(shots),
        seed=int(seed),
        style=prompt_style,
        response_format=response_format,
    )
    settings = {"task": task, "data_dir": data_dir, "split": split, "shots": int(shots)}
    settings.update(seed=int(seed), no_checks=no_checks, **other)
    if prompt_style != "paper":  # the paper task's digest as before
        settings.update(prompt_style=prompt_style, response_format=response_format)
    return _with_messages(walls, requests, settings, prompt_style)


def wote_dataset(
    data_dir: str | None = None, split: str = "test", no_checks: bool = False, **other: Any
) -> dict[str, Any]:
    """The WoTe docs: ``{"test": Dataset}``, one row per question of ``split`` with the
    messages of ``ocw-hub prompts --config wote`` added.

    Raises:
        ocw_hub.llm.prompts.PromptError: a malformed row.
        SourceUnavailableError, UnknownSplitError: the split cannot be had.
    """
    from ocw_hub.llm.wote import build_wote_requests

    rows = _split_rows(data_dir, split, no_checks, config=WOTE_CONFIG)
    settings = {"data_dir": data_dir, "split": split, "no_checks": no_checks, **other}
    return _with_messages(rows, build_wote_requests(rows), settings)


def grouping_target(doc: dict[str, Any]) -> str:
    """The gold groups, one per line (logged by lm-eval as the target; not used to score)."""
    return "\n".join(", ".join(g["gt_words"]) for g in gold_groups(doc))


def connections_target(doc: dict[str, Any]) -> str:
    """The gold connections, one per line (logged as the target; not used to score)."""
    return "\n".join(g["gt_connection"] for g in gold_groups(doc))


def _prediction(doc: dict[str, Any], text: str, task: str) -> Any:
    """The wall's prediction as ``ocw-hub parse`` writes it and ``ocw-hub evaluate`` reads it
    (the answer block of the doc's ``prompt_style``, paper when absent)."""
    response = Response(str(doc["wall_id"]), text, 1)
    style = doc.get("prompt_style") or "paper"
    parsed = parse_wall(doc, response, task=task, mode="robust", style=style)
    entry = {"predicted_groups": parsed.groups, "predicted_connections": parsed.connections}
    return check_wall_prediction("lm-eval answer", str(doc["wall_id"]), entry)


def process_grouping(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """Per-wall task-1 figures of one answer: ``wd``, ``ami``, ``ari``, ``fms``,
    ``full_wall`` (0 or 1), ``correct_groups`` (0-4) and their rates."""
    reference = load_metric_module("inputs").validate_reference_wall(
        [g["gt_words"] for g in doc["groups"].values()], f"wall {doc['wall_id']}: gold groups"
    )
    predicted = _prediction(doc, results[0], "grouping").groups
    item = load_metric_module("grouping").score_wall(predicted, reference)
    full, correct = int(item["full_wall"]), int(item["correct_groups"])
    return {
        **{key: float(item[key]) for key in ("wd", "ami", "ari", "fms")},
        "full_wall": full,
        "correct_groups": correct,
        "full_wall_rate": float(full),
        "correct_groups_rate": correct / 4,
    }


def process_connections(doc: dict[str, Any], results: Sequence[str]) -> dict[str, float]:
    """Per-wall task-2 figures of one answer: ``exact_match`` and ``rouge1`` (means over the
    wall's 4 connections, 0-1), with the metric's default ROUGE tokenizer."""
    predicted = _prediction(doc, results[0], "connections").connections
    scores = load_metric_module("connections").connection_scores(
        [predicted], [list(doc["gt_connections"])], return_per_item=True
    )
    item = scores["per_item"][0]
    return {"exact_match": float(item["exact_match"]), "rouge1": float(item["rouge1"])}


def wote_target(doc: dict[str, Any]) -> str:
    """The first gold answer (logged by lm-eval as the target; scoring takes every answer)."""
    return doc["answers"]["text"][0]


def process_wote(doc: dict[str, Any], results: Sequence[str]) -> dict[str, float]:
    """Per-question WoTe figures of one answer: SQuAD ``exact_match`` and ``f1`` (0-100,
    max over the gold answers), the answer read as ``ocw-hub parse --config wote`` does."""
    from ocw_hub.llm.wote import parse_wote_answer

    prediction = parse_wote_answer(results[0]).prediction_text
    load_metric_module("inputs").validate_span_prediction(prediction, "prediction_text")
    scores = load_metric_module("spans").span_scores(
        [prediction], [list(doc["answers"]["text"])], return_per_item=True
    )
    item = scores["per_item"][0]
    return {"exact_match": float(item["exact_match"]), "f1": float(item["f1"])}


def total(items: Sequence[float]) -> float:
    """Aggregation of counts: their sum (full walls, correct groups)."""
    return float(sum(items))
