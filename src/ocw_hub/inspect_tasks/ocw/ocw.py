"""Only Connect Wall, the one-shot LLM protocols of the paper as inspect-ai tasks:
``ocw_grouping`` (task 1: the 16 clues into four groups of four) and ``ocw_connections``
(task 2: name the connection of each of the four gold groups).

Alavi Naeini et al. "Large Language
Models are Fixated by Red Herrings: Exploring Creative Problem Solving and Einstellung Effect
using the Only Connect Wall Dataset." NeurIPS 2023 Datasets and Benchmarks.

Nothing of the protocol is written here: each wall's messages and generation fields are the
request ``ocw-hub prompts`` writes (:func:`ocw_hub.llm.prompts.build_requests`: the style's
text, K in-context train walls drawn with seed 42), each answer is read by ``ocw-hub parse``'s
robust parser (:func:`ocw_hub.llm.responses.parse_wall`) and scored by ``ocw-hub evaluate``'s
code (:func:`ocw_hub.scoring.runs.score_ocw` on the one wall), so a sample's figures are the
ones ``parse`` + ``evaluate`` give that wall, and the means over samples are the paper's
aggregates.

Run (a local vLLM, or any OpenAI-compatible server)::

    LOCAL_API_KEY=none inspect eval ocw_hub/ocw_grouping --model openai-api/local/MODEL \\
      --model-base-url http://127.0.0.1:8000/v1 -T data_dir=build/hub/ocw -T shots=3
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser
from inspect_ai.scorer import (
    Score,
    ScoreReducer,
    Target,
    mean,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ...configs import config_spec
from ...llm.profiles import common_fields, sent_fields
from ...llm.prompts import DEFAULT_SEED, build_requests
from ...llm.responses import ParsedWall, Response, parse_wall
from .._common import (
    answer_once,
    chat_messages,
    generate_config,
    generation_of,
    response_of,
    split_rows,
)

#: Per-wall figures of each task, named as the paper's aggregates that their means are
#: (``full_wall_rate``: 1 for a wall solved whole; ``correct_groups_rate``: gold groups found
#: over 4).
FIGURES = {
    "grouping": ("wd", "ami", "ari", "fms", "correct_groups_rate", "full_wall_rate"),
    "connections": ("exact_match", "rouge1"),
}
#: Where an OCW task keeps its protocol record in the task's (and so the log's) metadata.
PROTOCOL_KEY = "ocw_protocol"


def record_to_sample(wall: Mapping[str, Any], request: Mapping[str, Any]) -> Sample:
    """One wall and its request (:func:`ocw_hub.llm.prompts.make_request`) as a sample: the
    request's messages as they are, id the wall id, the wall in the metadata."""
    return Sample(
        input=chat_messages(request["body"]["messages"]),
        id=str(wall["wall_id"]),
        metadata={"wall": dict(wall)},
    )


def wall_figures(wall: Mapping[str, Any], task_name: str, parsed: ParsedWall) -> dict[str, float]:
    """The figures of one wall's parsed answer: ``evaluate``'s per-wall figures
    (:func:`ocw_hub.scoring.runs.score_ocw` of the one wall), the grouping totals as rates."""
    from ...scoring.predictions import check_wall_prediction
    from ...scoring.runs import GoldWalls, score_ocw

    wall_id = str(wall["wall_id"])
    entry = {"predicted_groups": parsed.groups, "predicted_connections": parsed.connections}
    prediction = check_wall_prediction("inspect answer", wall_id, entry)
    gold = GoldWalls([dict(wall)])
    with warnings.catch_warnings():  # clues not of the wall: the log's evaluate says so
        warnings.simplefilter("ignore", UserWarning)
        scored = score_ocw(f"inspect sample {wall_id}", gold, {wall_id: prediction})
    item = scored["per_wall"][0][task_name]
    if task_name == "grouping":
        return {
            **{k: float(item[k]) for k in ("wd", "ami", "ari", "fms")},
            "correct_groups_rate": item["correct_groups"] / 4,
            "full_wall_rate": float(bool(item["full_wall"])),
        }
    return {k: float(item[k]) for k in FIGURES["connections"]}


def _score(
    wall: Mapping[str, Any], task_name: str, parsed: ParsedWall, answer: str | None
) -> Score:
    return Score(
        value=wall_figures(wall, task_name, parsed),
        answer=answer,
        explanation=parsed.status
        + (f" ({parsed.reason}: {parsed.detail})" if parsed.reason else ""),
        metadata={
            "task": task_name,
            "wall": dict(wall),
            "status": parsed.status,
            "reason": parsed.reason,
            "groups": parsed.groups,
            "connections": parsed.connections,
            "repairs": parsed.repairs,
        },
    )


def parse_answer(
    wall: Mapping[str, Any], response: Response, task_name: str, style: str
) -> ParsedWall:
    """``parse``'s robust reading of one answer (answers cut at the token limit are no
    answer, as ``parse`` without ``--allow-truncated``)."""
    return parse_wall(wall, response, task=task_name, mode="robust", style=style)


@solver
def answer_with_reprompts(task_name: str, style: str, reprompt: int) -> Solver:
    """:func:`answer_once`, then up to ``reprompt`` follow-ups while the answer is
    ``unrecoverable`` (:mod:`ocw_hub.llm.follow_up`): the answer stays in the conversation
    and :func:`~ocw_hub.llm.follow_up.follow_up_text` of its reason is asked next. The
    first answer's status and the number of follow-ups are kept in the sample's metadata;
    the last answer is scored."""
    from ...llm.follow_up import follow_up_text

    once = answer_once()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        wall = state.metadata["wall"]
        state = await once(state, generate)
        for k in range(reprompt + 1):
            response = response_of(str(wall["wall_id"]), state.output)
            parsed = parse_answer(wall, response, task_name, style)
            if k == 0:
                state.metadata["first_status"] = parsed.status
            if parsed.status != "unrecoverable" or k == reprompt or response.text is None:
                state.metadata["follow_ups"] = k
                return state
            state.messages.append(ChatMessageUser(content=follow_up_text(parsed.reason)))
            state = await once(state, generate)
        return state

    return solve


def _ocw_scorer(task_name: str, style: str) -> Any:
    @scorer(metrics={name: [mean(), stderr()] for name in FIGURES[task_name]})
    def ocw_figures() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            wall = state.metadata["wall"]
            response = response_of(str(wall["wall_id"]), state.output)
            parsed = parse_answer(wall, response, task_name, style)
            return _score(wall, task_name, parsed, response.text)

        return score

    return ocw_figures()


@score_reducer(name="ocw_vote")
def ocw_vote() -> ScoreReducer:
    """Self-consistency over epochs, as ``parse --vote``: the partition most epochs state
    (task 2: each group's most frequent connection), ties to the first epoch's, scored
    again (:func:`ocw_hub.llm.vote.vote_groups`, :func:`~ocw_hub.llm.vote.vote_connections`)."""
    from ...llm.vote import vote_connections, vote_groups

    def reduce(scores: list[Score]) -> Score:
        meta = scores[0].metadata or {}
        wall, task_name = meta["wall"], meta["task"]
        wall_id = str(wall["wall_id"])
        samples = [
            ParsedWall(
                wall_id,
                (s.metadata or {}).get("groups"),
                (s.metadata or {}).get("connections"),
                status=str((s.metadata or {}).get("status")),
            )
            for s in scores
        ]
        vote = vote_groups if task_name == "grouping" else vote_connections
        return _score(wall, task_name, vote(wall_id, samples), None)

    return reduce


def ocw_task(
    task_name: str,
    *,
    data_dir: str | None,
    config: str,
    split: str,
    shots: int,
    seed: int,
    style: str,
    response_format: str | None,
    profile: str,
    max_tokens: int | None,
    reasoning_effort: str | None,
    epochs: int,
    vote: bool,
    no_checks: bool,
    reprompt: int = 0,
) -> Task:
    """The task of ``task_name`` (``grouping``, ``connections``): see :func:`ocw_grouping`."""
    from ...llm.follow_up import FOLLOW_UP_VERSION
    from ...llm.styles import response_format_of

    if reprompt < 0:
        raise ValueError(f"reprompt={reprompt}: expected 0 or more follow-ups")
    spec = config_spec(config)
    if task_name not in spec.tasks:
        raise ValueError(f"config {config!r} has no {task_name} task")
    fmt = response_format_of(style, response_format) or "schema"
    generation = generation_of(profile, max_tokens, reasoning_effort)
    walls = split_rows(spec.name, split, data_dir, no_checks)
    train = (
        walls
        if split == "train" or shots == 0
        else split_rows(spec.name, "train", data_dir, no_checks)
    )
    requests = build_requests(
        walls,
        train,
        task=task_name,
        shots=shots,
        seed=seed,
        style=style,
        response_format=fmt,
        generation=generation,
    )
    bodies = [r["body"] for r in requests]
    fields = common_fields(bodies)
    samples = [record_to_sample(w, r) for w, r in zip(walls, requests, strict=True)]
    protocol = {
        "method": "llm",
        "task": task_name,
        "config": spec.name,
        "split": split,
        "prompt_style": style,
        "response_format": response_format_of(style, response_format),
        "shots": shots,
        "seed": seed,
        "profile": profile,
        "generation": fields,
        "parse_mode": "robust",
        "aggregate": "vote" if vote else "sample",
        **({"reprompt": reprompt, "follow_up_version": FOLLOW_UP_VERSION} if reprompt else {}),
    }
    return Task(
        dataset=MemoryDataset(samples, name=f"ocw_{task_name}-{spec.name}-{split}"),
        solver=answer_with_reprompts(task_name, style, reprompt) if reprompt else answer_once(),
        scorer=_ocw_scorer(task_name, style),
        config=generate_config(sent_fields(bodies[0]) if bodies else {}),
        epochs=Epochs(epochs, ocw_vote() if vote else "mean"),
        metadata={PROTOCOL_KEY: json.loads(json.dumps(protocol))},
    )


@task
def ocw_grouping(
    data_dir: str | None = None,
    config: str = "default",
    split: str = "test",
    shots: int = 0,
    seed: int = DEFAULT_SEED,
    style: str = "paper",
    response_format: str | None = None,
    profile: str = "paper",
    max_tokens: int | None = None,
    reasoning_effort: str | None = None,
    epochs: int = 1,
    vote: bool = False,
    no_checks: bool = False,
    reprompt: int = 0,
) -> Task:
    """Task 1 of the paper: group each wall's 16 clues into four groups of four.

    Args:
        data_dir: where the split is read (as ``--data-dir``; default
            ``$OCW_HUB_DATA_DIR``, else the cache).
        config: the OCW config.
        split: the split scored.
        shots: K in-context train walls (the paper ran 0, 1, 3, 5, 10).
        seed: seed of the in-context draw (the paper's 42).
        style: prompt style: paper (the notebook's messages byte for byte), ours, cot, json.
        response_format: a json style's schema as ``schema`` (structured output) or
            ``prompt`` (in the user message).
        profile: generation profile: paper (temperature 0, 144 tokens, the notebook's
            fields), reasoning (``max_tokens`` the budget, ``reasoning_effort``), custom.
        max_tokens: the token budget of the reasoning and custom profiles.
        reasoning_effort: the reasoning profile's effort.
        epochs: answers per wall; each epoch is a run of ``ocw-hub evaluate LOG.eval``.
        vote: reduce the epochs by a vote on the answers (``parse --vote``) instead of the
            mean of their figures.
        no_checks: skip the split's checksum check (as ``--no-checks``).
        reprompt: follow-ups asked while an answer is unrecoverable (0, the paper's: none;
            :func:`answer_with_reprompts`); the last answer is scored.
    """
    return ocw_task(
        "grouping",
        data_dir=data_dir,
        config=config,
        split=split,
        shots=shots,
        seed=seed,
        style=style,
        response_format=response_format,
        profile=profile,
        max_tokens=max_tokens,
        reasoning_effort=reasoning_effort,
        epochs=epochs,
        vote=vote,
        no_checks=no_checks,
        reprompt=reprompt,
    )


@task
def ocw_connections(
    data_dir: str | None = None,
    config: str = "default",
    split: str = "test",
    shots: int = 0,
    seed: int = DEFAULT_SEED,
    style: str = "paper",
    response_format: str | None = None,
    profile: str = "paper",
    max_tokens: int | None = None,
    reasoning_effort: str | None = None,
    epochs: int = 1,
    vote: bool = False,
    no_checks: bool = False,
    reprompt: int = 0,
) -> Task:
    """Task 2 of the paper: name the connection of each of a wall's four gold groups
    (arguments as :func:`ocw_grouping`)."""
    return ocw_task(
        "connections",
        data_dir=data_dir,
        config=config,
        split=split,
        shots=shots,
        seed=seed,
        style=style,
        response_format=response_format,
        profile=profile,
        max_tokens=max_tokens,
        reasoning_effort=reasoning_effort,
        epochs=epochs,
        vote=vote,
        no_checks=no_checks,
        reprompt=reprompt,
    )
