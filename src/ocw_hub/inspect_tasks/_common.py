"""What the one-shot inspect-ai tasks share: the split's rows (``-T data_dir= config= split=
no_checks=``, as ``ocw_play``), the generation fields of a request body as inspect's
:class:`~inspect_ai.model.GenerateConfig`, and an inspect answer as the package's
:class:`~ocw_hub.llm.responses.Response`, which ``ocw-hub parse`` reads the same way."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    ResponseSchema,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema

from ..configs import verification_mode
from ..llm.profiles import Generation
from ..llm.responses import Response

#: inspect's stop reasons as the ``finish_reason`` the package reads: a cut answer is
#: ``length``, one stopped by the content filter or by a tool call ended before it was
#: complete (no answer); ``unknown`` is not reported (read as complete, and counted).
FINISH = {
    "stop": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
    "unknown": None,
}
_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser}


def split_rows(config: str, split: str, data_dir: str | None, no_checks: bool) -> list[dict]:
    """The rows of ``config``/``split`` (``data_dir`` as ``--data-dir``, else
    ``$OCW_HUB_DATA_DIR``, else the cache)."""
    from ..data.sources import load_rows

    return list(
        load_rows(
            config,
            split,
            data_dir or os.environ.get("OCW_HUB_DATA_DIR"),
            verification_mode=verification_mode(no_checks),
        ).rows
    )


def chat_messages(messages: list[Mapping[str, str]]) -> list[ChatMessage]:
    """A request's messages (system, user) as inspect's, their text unchanged."""
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


def generation_of(
    profile: str, max_tokens: int | None, reasoning_effort: str | None
) -> Generation | None:
    """The generation profile of ``-T profile= max_tokens= reasoning_effort=`` (None: the
    paper's, the prompt style's own fields)."""
    if profile == "paper" and max_tokens is None and reasoning_effort is None:
        return None
    return Generation(profile=profile, max_tokens=max_tokens, reasoning_effort=reasoning_effort)


def generate_config(fields: Mapping[str, Any]) -> GenerateConfig:
    """A request body's generation fields (:func:`ocw_hub.llm.profiles.sent_fields`) as
    inspect's generate config: ``max_tokens`` (or ``max_completion_tokens``), ``temperature``,
    ``top_p``, ``stop`` (a list), ``seed``, ``reasoning_effort``, ``response_format``; ``n`` 1
    and ``stream`` false are inspect's own (several samples are epochs here)."""
    values: dict[str, Any] = {}
    budget = fields.get("max_tokens", fields.get("max_completion_tokens"))
    if budget is not None:
        values["max_tokens"] = budget
    for name in ("temperature", "top_p", "seed", "reasoning_effort"):
        if fields.get(name) is not None:
            values[name] = fields[name]
    stop = fields.get("stop")
    if stop is not None:
        values["stop_seqs"] = [stop] if isinstance(stop, str) else list(stop)
    shape = fields.get("response_format")
    if isinstance(shape, Mapping) and isinstance(shape.get("json_schema"), Mapping):
        schema = shape["json_schema"]
        values["response_schema"] = ResponseSchema(
            name=schema["name"],
            json_schema=JSONSchema.model_validate(schema["schema"]),
            strict=schema.get("strict"),
        )
    return GenerateConfig(**values)


def _reasoning(output: ModelOutput) -> str | None:
    """The reasoning blocks of the answer's message, joined, else None."""
    from inspect_ai._util.content import ContentReasoning

    if not output.choices or isinstance(output.choices[0].message.content, str):
        return None
    parts = [
        c.reasoning for c in output.choices[0].message.content if isinstance(c, ContentReasoning)
    ]
    return "\n".join(parts) if parts else None


def response_of(sample_id: str, output: ModelOutput | None, error: str | None = None) -> Response:
    """One answer of an inspect sample as the :class:`Response` a responses file gives
    ``parse``: its text (``completion``), its stop reason as a ``finish_reason``
    (:data:`FINISH`), its reasoning; no choice (a failed request, an ``error`` of the
    sample) is a response without text, which is ``no_response``."""
    if output is None or not output.choices:
        problem = error or (output.error if output is not None else None) or "no answer"
        return Response(sample_id, None, 0, problem=f"no answer: {problem}")
    finish = FINISH.get(str(output.stop_reason))
    from ..llm.answer_text import incomplete

    return Response(
        sample_id,
        output.completion,
        0,
        problem=incomplete(finish),
        finish_reason=finish,
        reasoning=_reasoning(output),
    )


#: What inspect's provider raises on a 200 body it cannot read (``message: null``, ...).
_UNREADABLE = (AttributeError, TypeError, KeyError, IndexError, ValueError)


@solver
def answer_once() -> Solver:
    """inspect's ``generate`` once: a ``tool_calls`` answer is no answer (not answered with a
    tool result, which asks again without end), and a 200 body the provider cannot read (a
    null message, ...) is an answer without choices (``no_response`` for ``parse``), not the
    end of the eval; failed requests stay inspect's to retry or fail."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        try:
            return await generate(state, tool_calls="none")  # a tool call is no answer
        except _UNREADABLE as err:
            detail = " ".join(f"{type(err).__name__}: {err}".split())[:200]
            state.output = ModelOutput(model=str(state.model), choices=[], error=detail)
            return state

    return solve
