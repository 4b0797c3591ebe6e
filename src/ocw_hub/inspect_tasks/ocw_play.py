"""``ocw_play``: an inspect-ai task that plays each wall of a split one group at a time, by the
package's rules engine, conversation, guess parser and scoring (:mod:`ocw_hub.play`, those of
``ocw-hub evaluate PLAY_LOG``); nothing of the protocol is written here.

Each sample is a wall; the solver keeps the conversation of
:class:`ocw_hub.play.turns.WallPlay` (inspect sends it; the package reads each answer and
gives the feedback) and stores the wall's play-log records (:mod:`ocw_hub.play.log`) in the
sample's store under ``play_records``; the scorer scores that one wall with
:func:`ocw_hub.play.scoring.score_play_log`, so each sample's figures are the ones
``evaluate`` gives that wall. :func:`play_log_from_eval` writes an inspect log's
conversations as one play log, which ``ocw-hub evaluate`` scores: its means are the task's
metrics.

Run (a local vLLM, or any OpenAI-compatible server)::

    LOCAL_API_KEY=none inspect eval ocw_hub/ocw_play --model openai-api/local/MODEL \\
      --model-base-url http://127.0.0.1:8000/v1 -T data_dir=build/hub/ocw -T rules_name=show
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
)
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..configs import config_spec, verification_mode
from ..outputs import jsonl_text
from ..play import rules
from ..play.log import VERSION
from ..play.scoring import score_play_log
from ..play.turns import WallPlay, take_answer
from ._common import FINISH, answer_once

#: Per-wall figures reported as metrics (means over walls, with inspect's standard error);
#: under ``nyt`` the connection figures are absent (no connection round).
FIGURES = ("groups_found", "walls_solved", "wrong_guesses", "lives_lost", "invalid", "frozen")
SHOW_FIGURES = (*FIGURES, "connections_right", "points")
#: inspect generate-config fields of how requests are sent, not of what is generated.
_TRANSPORT = (
    "max_retries",
    "timeout",
    "attempt_timeout",
    "stream_idle_timeout",
    "max_connections",
    "adaptive_connections",
    "cache",
    "batch",
    "cache_prompt",
    "extra_headers",
    "fallback_models",
)
_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def _header(
    config: str, split: str, rules_name: str, max_guesses: int, max_invalid: int
) -> dict[str, Any]:
    return {
        "record": "play",
        "version": VERSION,
        "rules": rules_name,
        "max_guesses": max_guesses,
        "max_invalid": max_invalid,
        "config": config,
        "split": split,
        "player": "inspect-ai",  # the eval's model, once known (play_log_from_eval)
        "player_kind": "model",
    }


def _messages(messages: Sequence[Mapping[str, str]]) -> list[ChatMessage]:
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


@solver
def play_wall(header: dict[str, Any]) -> Solver:
    """Plays the sample's wall (``metadata["wall"]``) to its end, a turn per ``generate``
    (:func:`._common.answer_once`: a tool call, a body with no message, is an answer with no
    guess). Each record keeps the ``model`` that answered, as the server named it."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        wall = WallPlay(state.metadata["wall"], header)
        records: list[dict[str, Any]] = []
        answer = answer_once()
        while not wall.done:
            state.messages = _messages(wall.messages)
            state = await answer(state, generate)
            output = state.output
            usage = output.usage
            tokens = (
                {}
                if usage is None
                else {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens}
            )
            extra = {"usage": tokens, "model": output.model}
            finish = FINISH.get(str(output.stop_reason)) if output.choices else None
            text = output.completion if output.choices else ""
            records += take_answer(wall, text, finish, extra)
        state.store.set("play_records", records)
        state.store.set("play_header", header)
        return state

    return solve


def _score_one(header: Mapping[str, Any], records: Sequence[Mapping[str, Any]], row: Any) -> dict:
    """The one wall's ``per_wall[0].play`` figures, by ``score_play_log`` of a one-wall log."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wall.jsonl"
        lines = [header, *records]
        path.write_text(jsonl_text(lines), encoding="utf-8")
        scored = score_play_log(path, [row], header["config"])
    return scored["per_wall"][0]["play"]


def _metrics(rules_name: str) -> dict[str, list[Any]]:
    names = SHOW_FIGURES if rules.rule_set(rules_name).connection_round else FIGURES
    return {name: [mean(), stderr()] for name in names}


def _play_scorer(rules_name: str) -> Any:
    @scorer(metrics=_metrics(rules_name))
    def play_figures() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            header = state.store.get("play_header")
            figures = _score_one(header, state.store.get("play_records"), state.metadata["wall"])
            names = SHOW_FIGURES if rules.rule_set(rules_name).connection_round else FIGURES
            return Score(
                value={name: figures[name] for name in names},
                answer=json.dumps([r.get("clues") for r in state.store.get("play_records")]),
                metadata={"end": figures["end"]},
            )

        return score

    return play_figures()


@task
def ocw_play(
    data_dir: str | None = None,
    config: str = "default",
    split: str = "test",
    rules_name: str = "show",
    max_guesses: int | None = None,
    max_invalid: int = rules.DEFAULT_MAX_INVALID,
    no_checks: bool = False,
    walls: int | None = None,
) -> Task:
    """The walls of ``split`` (the first ``walls`` of them when given) played by
    ``rules_name`` (``show`` or ``nyt``); ``data_dir`` as ``--data-dir`` takes it.

    Raises:
        ValueError: an unknown rule set; a config that is not OCW's.
    """
    from ..data.sources import load_rows

    if rules_name not in rules.RULES:
        raise ValueError(f"rules_name {rules_name!r}: one of {rules.RULES}")
    spec = config_spec(config)
    if "grouping" not in spec.tasks:
        raise ValueError(f"config {config!r} has no walls to play")
    rows = load_rows(
        spec.name,
        split,
        data_dir or os.environ.get("OCW_HUB_DATA_DIR"),
        verification_mode=verification_mode(no_checks),
    ).rows
    rows = rows[:walls] if walls is not None else rows
    cap = max_guesses if max_guesses is not None else rules.default_max_guesses(rules_name)
    header = _header(spec.name, split, rules_name, cap, max_invalid)
    samples = [
        Sample(input=str(row["wall_id"]), id=str(row["wall_id"]), metadata={"wall": row})
        for row in rows
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"ocw_play-{spec.name}-{split}"),
        solver=play_wall(header),
        scorer=_play_scorer(rules_name),
        metadata={"play_header": header},
    )


def _epoch_stores(eval_log: Any, samples: Sequence[Any], epoch: int | None) -> list[Any]:
    """The stores of the ``ocw_play`` samples of ``epoch`` (None: of the one epoch there is).

    Raises:
        ValueError: no such samples; several epochs and none chosen.
    """
    played = [s for s in samples if "play_records" in s.store]
    epochs = sorted({s.epoch for s in played})
    if epoch is None and len(epochs) > 1:
        raise ValueError(
            f"{eval_log}: {len(epochs)} epochs, each a run of its own: give epoch= one of "
            f"{epochs} (one play log each)"
        )
    stored = [s.store for s in played if epoch is None or s.epoch == epoch]
    if not stored:
        within = "" if epoch is None else f" in epoch {epoch}"
        raise ValueError(f"{eval_log}: no ocw_play samples{within} (no play_records in the store)")
    return stored


def play_log_from_eval(
    eval_log: str | os.PathLike[str], out: str | os.PathLike[str], epoch: int | None = None
) -> Path:
    """The conversations of an inspect log of ``ocw_play`` (of its ``epoch``: needed when it
    has several, each a run) as one play log at ``out`` (a new file): the header, with the
    eval's ``model`` as the player, ``answered_by`` (the models the server named in its
    answers) and the ``generation`` fields it was run with (inspect's generate config as
    recorded, less how requests are sent and the fields not set: empty when every one was
    the server's default), then each sample's records in the log's sample order.

    Raises:
        OutputPathError: ``out`` cannot be written safely, or is ``eval_log`` itself.
        ValueError: the log holds no ``ocw_play`` samples (of ``epoch``); it has several
            epochs and none is chosen.
    """
    from inspect_ai.log import read_eval_log

    from ..outputs import check_output_file, write_text_atomic

    log = read_eval_log(str(eval_log))
    stored = _epoch_stores(eval_log, log.samples or [], epoch)
    recorded = log.eval.model_generate_config.model_dump(exclude_none=True)
    config = {k: v for k, v in recorded.items() if k not in _TRANSPORT}
    records = [r for s in stored for r in s["play_records"]]
    answered = sorted({r["model"] for r in records if isinstance(r.get("model"), str)})
    header = {
        **stored[0]["play_header"],
        "player": log.eval.model,
        "model": log.eval.model,
        "answered_by": answered,
        "generation": config,
    }
    path = check_output_file(out, [eval_log])
    write_text_atomic(path, jsonl_text([header, *records]))
    return path
