"""LLM answers read from a log and turned into OCW predictions (``ocw-hub parse``).

Input: JSON Lines, each line either a line of the batch *output* shape written by
OpenAI's Batch API or vLLM's ``run_batch`` (and by the retired ``ocw-hub run-llm``)::

    {"custom_id": wall_id, "response": {"status_code": 200, "body": <chat completion>},
     "error": null}

or a plain ``{"wall_id": str, "text": str, "finish_reason": str (optional)}`` (WoTe:
``"id"`` for ``"wall_id"``). The answer
is the ``content`` of the first choice's message (``text`` of a legacy completion; a list of
content parts is its text parts joined). A line whose request failed, or whose 200 body is
no chat completion (an ``error`` object, no choices, a content that is not text), is that
wall's ``no_response`` with the server's own message; an answer whose ``finish_reason`` is
neither ``stop`` nor ``length`` (``abort``, ``error``, ``content_filter``, ...) is
``unrecoverable``, reason ``incomplete``, its text kept
(:mod:`~ocw_hub.llm.answer_text`).

Two modes: ``paper``, the notebook's lenient parsing (:mod:`.paper_parse`), and ``robust``
(the default): task 1 by :func:`.parsing.parse_groups`, which never invents a partition,
task 2 by :func:`.connections.robust_connections`. In robust mode, before parsing: closed
reasoning blocks (``<think>``, ``<thinking>``, ``<reasoning>``) are dropped; an unclosed one,
or an empty ``content`` with ``reasoning_content``, is no answer (``unrecoverable``, reason
``unclosed_reasoning`` or ``reasoning_only``); an answer cut at the token limit
(``finish_reason: "length"``) is ``unrecoverable`` (reason ``truncated``) unless
``allow_truncated``: then its last (cut) line is dropped, a fourth group may be completed from
the 3 stated, and the wall's status is ``truncated``, counted apart.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PredictionsError
from ..shown import capped
from .answer_text import completion_problem, content_text, error_message, incomplete
from .log import json_records
from .prompts import TASKS, gold_groups

MODES = ("paper", "robust")
#: The model asked and the other names accepted for it (the retired ``run-llm --accept-model``).
ModelAsked = tuple[str, tuple[str, ...]]
#: Wall statuses in the report.
STATUSES = ("clean", "repaired", "truncated", "unrecoverable", "no_response")
_NO_CONNECTIONS = ["", "", "", ""]


@dataclass
class Response:
    """One wall's answer read from a responses file.

    Attributes:
        wall_id: the wall (``custom_id`` of a batch line).
        text: the answer, or None when the request failed (``problem`` says why).
        line: 1-based line number in the file.
        problem: why there is no answer, else None (with a ``text``: the answer ended before
            it was complete, :func:`~ocw_hub.llm.answer_text.incomplete`).
        finish_reason: the choice's ``finish_reason`` (``length``: cut at the token limit).
        reasoning: the message's ``reasoning_content`` (or ``reasoning``), else None.
        samples: every choice of the body (``n`` > 1 samples) as ``(content, finish_reason,
            reasoning)``, in choice order; ``[]`` for a line without an answer or a
            ``{wall_id, text}`` line (:mod:`.vote` reads it, and folds ``WALL#i`` lines into
            one Response whose failed samples have content None).
    """

    wall_id: str
    text: str | None
    line: int
    problem: str | None = None
    finish_reason: str | None = None
    reasoning: str | None = None
    samples: list[tuple[str | None, str | None, str | None]] = field(default_factory=list)


# --------------------------------------------------------------------------------------
# Reading the responses file
# --------------------------------------------------------------------------------------


def _field_error(path: Path, number: int, wall_id: Any, name: str, problem: str) -> Exception:
    who = f" (wall {wall_id})" if wall_id is not None else ""
    return PredictionsError(f"{path}, line {number}{who}: field {name}: {problem}")


def _failure(record: Mapping[str, Any]) -> str | None:
    """Why a batch output line holds no answer (an error, a status other than 200, a 200
    body that is no chat completion: see
    :func:`~ocw_hub.llm.answer_text.completion_problem`), with the server's own message; an
    answer that ended before it was complete is not a failure here (its text is kept)."""
    response, error = record.get("response"), record.get("error")
    status = response.get("status_code") if isinstance(response, dict) else None
    body = response.get("body") if isinstance(response, dict) else None
    if error is None and status == 200:
        problem = completion_problem(body)
        if problem is None or problem[0] == "incomplete":
            return None
        return f"{problem[1]} ({problem[0]})"
    message = error.get("message") if isinstance(error, dict) else error
    if not message:
        code = error.get("code") if isinstance(error, dict) else None
        message = error_message(body) or (f"error code {code}" if code else "no message")
    return f"request failed (status {status}): {message}"


#: What a dated snapshot or a default tag adds to a model's name (``gpt-4-0613``, ``:latest``).
_SNAPSHOT = re.compile(r"-\d{4}(?:-\d{2}-\d{2})?|:latest")


def same_model(asked: str, answered: Any, accepted: Collection[str] = ()) -> bool:
    """Whether a completion's ``model`` is the model asked: the same name, a dated snapshot of
    it (OpenAI answers ``gpt-4o`` as ``gpt-4o-2024-08-06``, ``gpt-4`` as ``gpt-4-0613``), its
    default tag (Ollama's ``:latest``), or a name accepted for it (``accepted``: the names a
    log's record accepted, for a model asked by an alias); a completion that names no model
    is taken as the one asked."""
    if answered is None or answered == asked or answered in accepted:
        return True
    if not isinstance(answered, str) or not answered.startswith(asked):
        return False
    return _SNAPSHOT.fullmatch(answered[len(asked) :]) is not None


def _batch_response(
    path: Path, number: int, record: Mapping[str, Any], asked: ModelAsked | None = None
) -> Response:
    """The Response of a batch output line; a line that holds no answer is a Response without
    text whose ``problem`` says why (never an error of the whole file); an answer that ended
    before it was complete keeps its text, and ``problem`` says why it is no answer."""
    wall_id = record["custom_id"]
    problem = _failure(record)
    choice = first_choice(record)
    finish = choice.get("finish_reason")
    if problem is None and asked is not None:
        problem = _other_model(record, asked)
    if problem is not None:
        return Response(wall_id, None, number, problem, _reason(finish))
    message = choice.get("message")
    text = content_text(message.get("content") if isinstance(message, dict) else choice.get("text"))
    return Response(
        wall_id,
        text or "",
        number,
        problem=incomplete(finish),
        finish_reason=_reason(finish),
        reasoning=_reasoning(message),
        samples=_samples(record),
    )


def _samples(record: Mapping[str, Any]) -> list[tuple[str | None, str | None, str | None]]:
    """Every choice of a line's body as ``(content, finish_reason, reasoning)``; a choice
    whose content is not text is ``("", "invalid_content", None)`` (no answer)."""
    body = record["response"].get("body")
    found: list[tuple[str | None, str | None, str | None]] = []
    for choice in body.get("choices", []):
        if not isinstance(choice, dict):
            found.append(("", "invalid_content", None))
            continue
        message = choice.get("message")
        try:
            content = message.get("content") if isinstance(message, dict) else choice.get("text")
            text = content_text(content)
        except ValueError:
            found.append(("", "invalid_content", None))
            continue
        found.append((text or "", _reason(choice.get("finish_reason")), _reasoning(message)))
    return found


def _reason(finish: Any) -> str | None:
    """A ``finish_reason`` as recorded: a string as it is, anything else as its JSON."""
    return finish if finish is None or isinstance(finish, str) else json.dumps(finish)


def _other_model(record: Mapping[str, Any], asked: ModelAsked) -> str | None:
    """Why an answer is not the model ``asked``'s (another ``model`` in its body, not one of
    the names accepted for it), else None."""
    body = record["response"].get("body")
    answered = body.get("model") if isinstance(body, dict) else None
    if same_model(asked[0], answered, asked[1]):
        return None
    return f"answered by model {answered!r}, not the model asked {asked[0]!r} (other_model)"


def first_choice(record: Mapping[str, Any]) -> dict[str, Any]:
    """The first choice of a line's body, else ``{}``."""
    response = record.get("response")
    body = response.get("body") if isinstance(response, dict) else None
    choices = body.get("choices") if isinstance(body, dict) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return {}


def _reasoning(message: Any) -> str | None:
    """A message's ``reasoning_content`` (or ``reasoning``) text, else None."""
    if not isinstance(message, dict):
        return None
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    return reasoning if isinstance(reasoning, str) else None


def _read_line(
    path: Path, number: int, record: Mapping[str, Any], asked: ModelAsked | None = None
) -> tuple[Response, bool]:
    """A line's object as a Response, and whether it is a batch output line."""
    if "custom_id" in record:
        if not isinstance(record["custom_id"], str):
            raise _field_error(path, number, None, "custom_id", "expected a string")
        return _batch_response(path, number, record, asked), True
    key = "wall_id" if "wall_id" in record else "id"
    if key in record:
        wall_id, text = record[key], record.get("text")
        if not isinstance(wall_id, str):
            raise _field_error(path, number, None, key, "expected a string")
        if not isinstance(text, str):
            raise _field_error(path, number, wall_id, "text", "expected a string")
        finish = record.get("finish_reason")
        if finish is not None and not isinstance(finish, str):
            raise _field_error(path, number, wall_id, "finish_reason", "expected a string")
        return Response(wall_id, text, number, incomplete(finish), finish_reason=finish), False
    raise PredictionsError(
        f"{path}, line {number}: expected a batch output line (custom_id, response), "
        "{wall_id, text} or (WoTe) {id, text}"
    )


def _model_asked(path: Path) -> ModelAsked | None:
    """The model the requests of a responses file asked for and the other names accepted for
    it: its own protocol record's ``model`` and ``accepted_models`` (the retired ``run-llm``
    wrote ``<log>.protocol.json``), else None."""
    from ..provenance import read_protocol, record_path

    record = read_protocol(path) if record_path(path).is_file() else None  # its own record
    model = record.get("model") if record is not None else None
    if not isinstance(model, str):
        return None
    accepted = record.get("accepted_models") if record is not None else None
    names = tuple(n for n in accepted if isinstance(n, str)) if isinstance(accepted, list) else ()
    return model, names


def _rank(response: Response) -> int:
    """2 for an answer, 1 for a text that is no answer (ended before it was complete), 0 for
    no text: of a wall's lines, the first of the highest rank is kept."""
    if response.text is None:
        return 0
    return 1 if response.problem is not None else 2


def read_responses(path: str | Path, unit: str = "wall") -> dict[str, Response]:
    """The answers of a responses file, ``{wall_id: Response}`` in file order (``unit``: what an
    id names in messages, ``ConfigSpec.unit``: ``wall`` or WoTe's ``question``).

    A wall may have several batch lines (failed attempts, then an answer): its answer wins
    (an answer that ended before it was complete, e.g. ``finish_reason: "abort"``, is a
    failed attempt that keeps its text). When the file's protocol record names the model
    asked (logs of the retired ``run-llm``), an answer whose completion names another model (not a
    dated snapshot of it, :func:`same_model`) is no answer.
    Read by :func:`.log.json_records` (lines end at ``\n`` only; a last line cut short by a
    crash is skipped with a warning).

    Raises:
        PredictionsError: no such file, not UTF-8; a line that is not JSON or has neither
            shape; a field of the wrong type (named with the line and the wall); a wall
            answered twice, or given twice as ``{wall_id, text}`` (both lines named); a file
            with no response at all.
    """
    path = Path(path)
    asked = _model_asked(path)
    found: dict[str, Response] = {}
    for number, record in json_records(path, PredictionsError):
        response, batch = _read_line(path, number, record, asked)
        before = found.get(response.wall_id)
        answered_twice = before is not None and _rank(before) == _rank(response) == 2
        if before is not None and (not batch or answered_twice):
            raise PredictionsError(
                f"{path}, line {number}: {unit} {response.wall_id} already answered on line "
                f"{before.line}"
            )
        if before is None or (_rank(before) < 2 and _rank(response) >= _rank(before)):
            found[response.wall_id] = response
    if not found:
        raise PredictionsError(
            f"{path}: holds no responses (is it the output of a run that could not reach "
            "its server?)"
        )
    return found


@dataclass
class ParsedWall:
    """One wall's parsed answer.

    Attributes:
        wall_id: the wall.
        groups: 4 groups of 4 clues (task 1), else None.
        connections: 4 connections in gold group order (task 2), else None.
        repairs: what was repaired, dicts with a ``kind``.
        status: one of :data:`STATUSES`.
        reason: why ``unrecoverable`` (see :data:`.parsing.REASONS`), else None.
        detail: the reason's specifics, else None.
        text: the raw answer (None without one).
        reasoning: the message's ``reasoning_content``, else None.
    """

    wall_id: str
    groups: list[list[str]] | None
    connections: list[str] | None
    repairs: list[dict[str, Any]] = field(default_factory=list)
    status: str = "clean"
    reason: str | None = None
    detail: str | None = None
    text: str | None = None
    reasoning: str | None = None


def _drop_last_line(text: str) -> str:
    """The text without its last non-empty line (the one cut at the token limit)."""
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[:-1])


def _no_answer(response: Response, problem: str | None, cut: bool) -> tuple[str | None, str | None]:
    """(reason, detail) of an answer that is no answer: reasoning only, an unclosed
    reasoning block, cut at the token limit (``cut``); else (None, None)."""
    if not (response.text or "").strip() and response.reasoning:
        return "reasoning_only", "reasoning only: the answer's content is empty"
    if problem is not None:
        return problem, "the answer ends inside a reasoning block"
    if cut:
        return "truncated", "finish_reason length: cut at the token limit"
    return None, None


def _robust(
    parsed: ParsedWall,
    wall: Mapping[str, Any],
    response: Response,
    *,
    task: str,
    allow_truncated: bool,
    style: str = "paper",
) -> None:
    """Fill ``parsed`` in robust mode (see the module docstring); ``style``'s answer block
    (:mod:`.answer_blocks`) is what is parsed."""
    from .parsing import drop_reasoning

    text = response.text or ""
    if task == "grouping":
        parsed.groups = [["", "", "", ""] for _ in range(4)]
    else:
        parsed.connections = list(_NO_CONNECTIONS)
    text, problem, dropped = drop_reasoning(text)
    truncated = response.finish_reason == "length"
    reason, detail = _no_answer(response, problem, truncated and not allow_truncated)
    if reason is not None:
        parsed.status, parsed.reason, parsed.detail = "unrecoverable", reason, detail
        return
    if dropped:
        parsed.repairs.append({"kind": "reasoning_dropped"})
    if truncated:
        text = _drop_last_line(text)
    _read_block(parsed, wall, text, task=task, style=style, truncated=truncated)
    if truncated and parsed.status != "unrecoverable":
        parsed.status = "truncated"


def _read_block(
    parsed: ParsedWall,
    wall: Mapping[str, Any],
    text: str,
    *,
    task: str,
    style: str,
    truncated: bool,
) -> None:
    """Fill ``parsed`` from the answer block of ``style`` in ``text``."""
    from .answer_blocks import answer_block
    from .connections import robust_connections
    from .parsing import parse_groups, parse_stated_groups
    from .styles import load_style

    block = answer_block(text, load_style(style), task)
    parsed.repairs += block.repairs
    if block.reason is not None:
        parsed.status, parsed.reason, parsed.detail = "unrecoverable", block.reason, block.detail
        return
    if task == "grouping":
        words = list(wall["words"])
        if block.value is not None:
            result = parse_stated_groups(block.value["groups"], words)
        else:
            result = parse_groups(block.text or "", words, complete=truncated)
        parsed.repairs += result.repairs
        parsed.groups, parsed.status = result.groups, result.status
        parsed.reason, parsed.detail = result.reason, result.detail
        if parsed.status == "clean" and parsed.repairs:
            parsed.status = "repaired"
    elif block.value is not None:
        parsed.connections = [str(c).strip() for c in block.value["connections"]]
        parsed.status = "repaired" if parsed.repairs else "clean"
    else:
        gold = [g["gt_words"] for g in gold_groups(wall)]
        parsed.connections, repairs = robust_connections(block.text or "", gold)
        parsed.repairs += repairs
        parsed.status = "repaired" if parsed.repairs else "clean"


def _empty(parsed: ParsedWall, task: str, status: str) -> None:
    """``parsed`` with ``status`` and the empty prediction of ``task`` (scored as wrong)."""
    parsed.status = status
    if task == "grouping":
        parsed.groups = [["", "", "", ""] for _ in range(4)]
    else:
        parsed.connections = list(_NO_CONNECTIONS)


def paper_mode_reads(style: str) -> bool:
    """Whether paper mode (the notebook's parsing) reads answers of prompt ``style``: only
    the styles answered in text (``paper``, ``ours``)."""
    from .styles import load_style

    return load_style(style).answer == "text"


def parse_wall(
    wall: Mapping[str, Any],
    response: Response | None,
    *,
    task: str,
    mode: str,
    allow_truncated: bool = False,
    style: str = "paper",
) -> ParsedWall:
    """One wall's answer as a prediction (``groups`` for grouping, ``connections`` for
    connections); an absent or failed answer is ``no_response`` (empty groups or
    connections, which score as wrong); an answer that ended before it was complete
    (``finish_reason`` other than ``stop`` and ``length``) is ``unrecoverable``, reason
    ``incomplete``, in both modes. In robust mode, the answer block of the prompt ``style``
    is parsed (:mod:`.answer_blocks`: a ``cot`` answer's text after ``Final answer:``, a
    ``json`` answer's object); paper mode reads answers of the styles answered in text only.

    Raises:
        ValueError: unknown ``task`` or ``mode``; paper mode on a style not answered in text.
    """
    from .paper_parse import paper_connections, paper_groups

    if task not in TASKS or mode not in MODES:
        raise ValueError(f"task must be one of {TASKS} and mode one of {MODES}")
    if mode == "paper" and not paper_mode_reads(style):
        raise ValueError(f"paper mode reads answers in text; prompt style {style!r} is not")
    text = response.text if response is not None else None
    reasoning = response.reasoning if response is not None else None
    parsed = ParsedWall(str(wall["wall_id"]), None, None, text=text, reasoning=reasoning)
    if response is None or text is None:
        problem = response.problem if response is not None else "no response"
        parsed.repairs = [{"kind": "no_response", "problem": problem}]
        _empty(parsed, task, "no_response")
    elif response.problem is not None:  # an answer that ended before it was complete
        _empty(parsed, task, "unrecoverable")
        parsed.reason, parsed.detail = "incomplete", response.problem
    elif mode == "robust":
        _robust(parsed, wall, response, task=task, allow_truncated=allow_truncated, style=style)
    else:
        if task == "grouping":
            parsed.groups, parsed.repairs = paper_groups(text)
        else:
            parsed.connections, parsed.repairs = paper_connections(text)
        parsed.status = "repaired" if parsed.repairs else "clean"
    return parsed


def check_known(
    responses: Mapping[str, Response], walls: Sequence[Mapping[str, Any]], source: str
) -> None:
    """Raises PredictionsError: a response for a wall that is not in ``walls`` (names
    ``source`` and up to 5 ids)."""
    known = {str(w["wall_id"]) for w in walls}
    unknown = [wall_id for wall_id in responses if wall_id not in known]
    if unknown:
        raise PredictionsError(
            f"{source}: {len(unknown)} responses are for walls not in this split "
            f"({capped(unknown)}); check the config "
            "and the split"
        )


def parse_responses(
    responses: Mapping[str, Response],
    walls: Sequence[Mapping[str, Any]],
    *,
    task: str = "grouping",
    mode: str = "robust",
    allow_truncated: bool = False,
    source: str = "responses",
    style: str = "paper",
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Predictions in the official format for the walls that have a response line, in split
    order, and the parse report (the ``.parse.json`` sidecar).

    Returns:
        (predictions: ``[{wall_id, predicted_groups, predicted_connections}]``, report:
        ``{task, mode, allow_truncated, counts: {status: n, "missing": n}, repairs: {kind:
        n}, unrecoverable: {reason: n}, missing: [wall ids of the split without a response
        line], walls: [{wall_id, status, reason, detail, repairs, text}]}``).

    Raises:
        PredictionsError: a response for a wall that is not in ``walls`` (names ``source``
            and up to 5 ids).
    """
    check_known(responses, walls, source)
    parsed = [
        parse_wall(
            w,
            responses[str(w["wall_id"])],
            task=task,
            mode=mode,
            allow_truncated=allow_truncated,
            style=style,
        )
        for w in walls
        if str(w["wall_id"]) in responses
    ]
    missing = [str(w["wall_id"]) for w in walls if str(w["wall_id"]) not in responses]
    report = _report(parsed, missing, task=task, mode=mode)
    return predictions_of(parsed), {
        **report,
        "prompt_style": style,
        "allow_truncated": allow_truncated,
    }


def finish_not_reported(responses: Mapping[str, Response]) -> int:
    """How many answers state no ``finish_reason`` (read as complete, and counted in the parse
    report as :data:`~ocw_hub.llm.answer_text.NOT_REPORTED`: whether they were cut is not
    known)."""
    return sum(r.text is not None and r.finish_reason is None for r in responses.values())


def predictions_of(parsed: Sequence[ParsedWall]) -> list[dict[str, Any]]:
    """Parsed walls as predictions in the official format."""
    return [
        {"wall_id": p.wall_id, "predicted_groups": p.groups, "predicted_connections": p.connections}
        for p in parsed
    ]


def parse_report(
    parsed: Sequence[ParsedWall], missing: list[str], *, task: str, mode: str
) -> dict[str, Any]:
    """The parse report of ``parsed`` (:func:`parse_responses`'s second value, less the
    ``prompt_style`` and ``allow_truncated`` that it adds)."""
    return _report(parsed, missing, task=task, mode=mode)


def _report(
    parsed: Sequence[ParsedWall], missing: list[str], *, task: str, mode: str
) -> dict[str, Any]:
    """The parse report: counts by status, repairs by kind, unrecoverable walls by reason,
    walls without a response, and per wall its status, repairs and raw answer."""
    counts = Counter(p.status for p in parsed)
    return {
        "task": task,
        "mode": mode,
        "counts": {**{s: counts.get(s, 0) for s in STATUSES}, "missing": len(missing)},
        "repairs": dict(sorted(Counter(r["kind"] for p in parsed for r in p.repairs).items())),
        "unrecoverable": dict(sorted(Counter(p.reason for p in parsed if p.reason).items())),
        "missing": missing,
        "walls": [
            {
                "wall_id": p.wall_id,
                "status": p.status,
                "reason": p.reason,
                "detail": p.detail,
                "repairs": p.repairs,
                "text": p.text,
                "reasoning": p.reasoning,
            }
            for p in parsed
        ],
    }
