"""WoTe (Wizard of Tasks, extractive QA over a task's text) as an inspect-ai task: one sample
per question, our extractive prompt (:func:`ocw_hub.llm.wote.wote_request`, the request
``ocw-hub prompts --config wote`` writes), each answer read by ``ocw-hub parse --config
wote`` (:func:`ocw_hub.llm.wote.parse_wote_responses`) and scored by ``ocw-hub evaluate``'s
SQuAD v1.1 exact match and F1 (:func:`ocw_hub.scoring.runs.score_wote`, 0-100).

Run::

    LOCAL_API_KEY=none inspect eval ocw_hub/wote --model openai-api/local/MODEL \\
      --model-base-url http://127.0.0.1:8000/v1 -T data_dir=build/hub/wote
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from ...llm.profiles import common_fields, sent_fields
from ...llm.wote import wote_request
from .._common import (
    answer_once,
    chat_messages,
    generate_config,
    generation_of,
    response_of,
    split_rows,
)

#: Per-question figures (SQuAD v1.1, 0 or 100 for exact match), whose means are the split's.
FIGURES = ("exact_match", "f1")


def record_to_sample(row: Mapping[str, Any], request: Mapping[str, Any]) -> Sample:
    """One question and its request as a sample: id the question ``id``, the row in the
    metadata."""
    return Sample(
        input=chat_messages(request["body"]["messages"]),
        id=str(row["id"]),
        metadata={"question": dict(row)},
    )


def question_figures(row: Mapping[str, Any], span: str) -> dict[str, float]:
    """``evaluate``'s figures of one question's predicted span."""
    from ...scoring.runs import score_wote

    item = score_wote("inspect answer", [dict(row)], {str(row["id"]): span})["per_question"][0]
    return {k: float(item[k]) for k in FIGURES}


@scorer(metrics={name: [mean(), stderr()] for name in FIGURES})
def wote_spans() -> Any:
    """SQuAD exact match and F1 of the span ``parse`` reads from the answer."""
    from ...llm.wote import parse_wote_responses

    async def score(state: TaskState, target: Target) -> Score:
        row = state.metadata["question"]
        response = response_of(str(row["id"]), state.output)
        (prediction,), report = parse_wote_responses({str(row["id"]): response}, [row])
        entry = report["questions"][0]
        span = prediction["prediction_text"]
        return Score(
            value=question_figures(row, span),
            answer=span,
            explanation=entry["status"] + (f" ({entry['reason']})" if entry["reason"] else ""),
            metadata={"status": entry["status"], "reason": entry["reason"]},
        )

    return score


@task
def wote(
    data_dir: str | None = None,
    split: str = "test",
    profile: str = "paper",
    max_tokens: int | None = None,
    reasoning_effort: str | None = None,
    no_checks: bool = False,
) -> Task:
    """WoTe's questions answered with a span of the task text.

    Args:
        data_dir: where the split is read (as ``--data-dir``).
        split: the split scored.
        profile: generation profile (paper: temperature 0, at most 256 tokens).
        max_tokens: the token budget of the reasoning and custom profiles.
        reasoning_effort: the reasoning profile's effort.
        no_checks: skip the split's checksum check.
    """
    generation = generation_of(profile, max_tokens, reasoning_effort)
    rows = split_rows("wote", split, data_dir, no_checks)
    requests = [wote_request(row, generation=generation) for row in rows]
    bodies = [r["body"] for r in requests]
    protocol = {
        "method": "llm",
        "task": "spans",
        "config": "wote",
        "split": split,
        "prompt_style": "ours",
        "shots": 0,
        "profile": profile,
        "generation": common_fields(bodies),
        "parse_mode": "robust",
    }
    return Task(
        dataset=MemoryDataset(
            [record_to_sample(r, q) for r, q in zip(rows, requests, strict=True)],
            name=f"wote-{split}",
        ),
        solver=answer_once(),
        scorer=wote_spans(),
        config=generate_config(sent_fields(bodies[0]) if bodies else {}),
        metadata={"ocw_protocol": protocol},
    )
