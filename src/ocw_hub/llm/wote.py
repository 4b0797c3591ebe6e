"""WoTe with LLMs: one chat-completion request per question, and its answer read as a span.

The prompt is ours: GRILLBot (Fischer et al., 2024) evaluated LLMs on WoTe, but its exact
prompt is not available here, so nothing below claims to be it. The model gets the task
text (the row's ``context``: title, description, each ingredient and each step, one per
line), the conversation so far (the row's ``history``, one ``student:`` / ``teacher:``
turn per line) and the question, with an extractive instruction: answer with a span
copied word for word from the task text. Greedy decoding (temperature 0), at most
:data:`MAX_TOKENS` new tokens (the longest extracted answer of the release is 92 words).

Requests have the OCW shape (:mod:`.prompts`), ``custom_id`` the question ``id``::

    {"custom_id": id, "method": "POST", "url": "/v1/chat/completions",
     "body": {"model": ..., "messages": [system, user], "temperature": 0, "max_tokens": 256}}

An answer is read by :func:`parse_wote_answer`, which never invents a span. Its status:

* ``clean``: the answer's text, surrounding whitespace stripped;
* ``repaired``: the same after repairs that are unambiguous, each recorded:
  ``reasoning_dropped`` (closed ``<think>…</think>`` blocks), ``answer_prefix`` (a leading
  ``Answer:``), ``quotes`` (one pair of quotes around the whole answer, holding no other
  quote of that kind);
* ``truncated``: cut at the token limit (``finish_reason: "length"``) and read as it stands,
  only with ``allow_truncated`` (counted apart);
* ``unrecoverable``, with a reason: ``no_answer`` (empty), ``reasoning_only`` (empty
  content, reasoning given), ``unclosed_reasoning``, ``truncated``, ``refusal`` (the answer
  opens with an apology or "I cannot"), ``incomplete`` (ended by a ``finish_reason`` other
  than ``stop`` and ``length``: ``abort``, ``error``, ``content_filter``, ...). Its
  ``prediction_text`` is ``""``, which scores 0 exact match and 0 F1 (as an unrecoverable
  wall scores as wrong); the parse report counts it apart.

Nothing else is changed: words the model adds around the span stay in the prediction and
cost F1.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import PredictionsError
from ..shown import capped
from .answer_text import drop_reasoning, incomplete
from .profiles import Generation, check_generation, generation_fields
from .prompts import CHAT_COMPLETIONS_URL, DEFAULT_MODEL, PromptError, one_line

__all__ = [
    "MAX_TOKENS",
    "REASONS",
    "REPAIR_KINDS",
    "STATUSES",
    "SYSTEM",
    "SpanParse",
    "build_wote_requests",
    "in_context",
    "parse_wote_answer",
    "parse_wote_responses",
    "wote_messages",
    "wote_request",
]

#: Greedy decoding, at most 256 new tokens.
TEMPERATURE = 0
MAX_TOKENS = 256
#: Statuses of a question's parse, in the report's order (``no_response``: the request failed).
STATUSES = ("clean", "repaired", "truncated", "unrecoverable", "no_response")
#: The repairs a ``repaired`` parse may record.
REPAIR_KINDS = ("reasoning_dropped", "answer_prefix", "quotes")
#: Reasons of an ``unrecoverable`` parse.
REASONS = (
    "no_answer",
    "reasoning_only",
    "unclosed_reasoning",
    "truncated",
    "refusal",
    "incomplete",
)

SYSTEM = (
    "You are a conversational task assistant helping a user (the student) cook a recipe or "
    "do a DIY task. You are given the task text (its title, description, ingredients and "
    "steps, one per line), the conversation so far between the student and you (the "
    "teacher), and the student's question. Answer with a span copied word for word from "
    "the task text: the shortest contiguous part of it that answers the question. Do not "
    "rephrase it, do not explain, and do not add anything else."
)

_PREFIX = re.compile(r"[*_]{0,2}answer[*_]{0,2}\s{0,8}:[*_]{0,2}", re.IGNORECASE)
_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "`": "`"}
_REFUSALS = (
    "i'm sorry",
    "i am sorry",
    "sorry,",
    "i cannot",
    "i can't",
    "i'm unable",
    "i am unable",
    "as an ai",
    "i don't know",
    "i do not know",
)


#: The headers of the prompt's sections (:func:`wote_messages`); no line of data may start
#: with one (compared case-insensitively, leading spaces ignored).
SECTION_HEADERS = ("Task:", "Conversation so far:", "Question:")


def _check_header(row: Mapping[str, Any], line: str, name: str) -> None:
    start = line.lstrip().casefold()
    header = next((h for h in SECTION_HEADERS if start.startswith(h.casefold())), None)
    if header is not None:
        raise PromptError(
            f"question {row.get('id')!r}: field {name}: a line starts with {header!r}, a "
            "header of the prompt: it would change the prompt's structure"
        )


def _text_field(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    if not isinstance(value, str):
        raise PromptError(f"question {row.get('id')!r}: field {name}: expected a string")
    return value


def _history_lines(row: Mapping[str, Any]) -> list[str]:
    history = row.get("history")  # a list, or an array when read with pandas
    if isinstance(history, (str, bytes, Mapping)) or not isinstance(history, Iterable):
        raise PromptError(f"question {row.get('id')!r}: field history: expected a list of turns")
    lines: list[str] = []
    for turn in history:
        if not isinstance(turn, Mapping) or not all(
            isinstance(turn.get(k), str) for k in ("role", "text")
        ):
            raise PromptError(
                f"question {row.get('id')!r}: field history: expected {{role, text}} turns"
            )
        item, field = f"question {row.get('id')!r}", f"history[{len(lines)}]"
        line = f"{one_line(turn['role'], item, field + '.role')}: "
        line += one_line(turn["text"], item, field + ".text")
        _check_header(row, line, field)
        lines.append(line)
    return lines


def wote_messages(row: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages for one question row of the ``wote`` config: :data:`SYSTEM`, then
    ``Task:`` and the row's ``context``, ``Conversation so far:`` and one line per history
    turn (left out when the history is empty), ``Question:`` and the question, separated by
    blank lines.

    Data never changes the prompt's structure: the question and each turn are one line (no
    control character or line break), and no line of the context or the history starts with
    a section header (:data:`SECTION_HEADERS`).

    Raises:
        PromptError: ``context`` or ``question`` not a string, ``history`` not a list of
            ``{role, text}`` turns, a field that would change the prompt's structure (the
            message names the question id and the field).
    """
    context, question = _text_field(row, "context"), _text_field(row, "question")
    one_line(question, f"question {row.get('id')!r}", "question")
    for number, line in enumerate(context.splitlines(), 1):
        _check_header(row, line, f"context (line {number})")
    parts = ["Task:\n" + context]
    turns = _history_lines(row)
    if turns:
        parts.append("Conversation so far:\n" + "\n".join(turns))
    parts.append("Question: " + question)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def wote_request(
    row: Mapping[str, Any], model: str = DEFAULT_MODEL, generation: Generation | None = None
) -> dict[str, Any]:
    """One request in the OpenAI batch input shape, ``custom_id`` the question ``id``; its
    generation fields those of ``generation``'s profile (None, ``paper``: temperature 0, at
    most :data:`MAX_TOKENS`; :mod:`ocw_hub.llm.profiles`).

    Raises:
        PromptError: a malformed row (see :func:`wote_messages`), no string ``id``.
        GenerationProfileError: options the profile does not take.
    """
    question_id = _text_field(row, "id")
    body = {"model": model, "messages": wote_messages(row)}
    paper = {"temperature": TEMPERATURE, "max_tokens": MAX_TOKENS}
    body.update(generation_fields(generation, paper))
    return {"custom_id": question_id, "method": "POST", "url": CHAT_COMPLETIONS_URL, "body": body}


def build_wote_requests(
    rows: Sequence[Mapping[str, Any]],
    model: str = DEFAULT_MODEL,
    generation: Generation | None = None,
) -> list[dict[str, Any]]:
    """One request per question row, in order (:func:`wote_request`)."""
    if generation is not None:
        check_generation(generation)
    return [wote_request(row, model, generation) for row in rows]


@dataclass
class SpanParse:
    """A WoTe answer read.

    Attributes:
        status: one of :data:`STATUSES` but ``no_response``.
        prediction_text: the span predicted; ``""`` when ``unrecoverable``.
        reason: why ``unrecoverable`` (one of :data:`REASONS`), else None.
        detail: the reason's specifics, else None.
        repairs: ``[{kind, ...}]``, kinds in :data:`REPAIR_KINDS`.
    """

    status: str
    prediction_text: str
    reason: str | None = None
    detail: str | None = None
    repairs: list[dict[str, Any]] = field(default_factory=list)


def _unrecoverable(reason: str, detail: str, repairs: list[dict[str, Any]]) -> SpanParse:
    return SpanParse("unrecoverable", "", reason, detail, repairs)


def _strip_prefix(text: str, repairs: list[dict[str, Any]]) -> str:
    match = _PREFIX.match(text)
    if match is None:
        return text
    repairs.append({"kind": "answer_prefix", "prefix": match.group(0)})
    return text[match.end() :].strip()


def _strip_quotes(text: str, repairs: list[dict[str, Any]]) -> str:
    """The text inside one pair of quotes around all of it (a full stop after the closing
    quote allowed), when neither quote occurs inside; else the text."""
    if len(text) < 2 or text[0] not in _QUOTE_PAIRS:
        return text
    opening, closing = text[0], _QUOTE_PAIRS[text[0]]
    body = text[1:]
    body = body[:-1] if body.endswith(closing + ".") else body
    if not body.endswith(closing):
        return text
    inner = body[:-1]
    if opening in inner or closing in inner or not inner.strip():
        return text
    repairs.append({"kind": "quotes", "quote": opening + closing})
    return inner.strip()


def _is_refusal(text: str) -> bool:
    start = text[:40].replace("’", "'").casefold()
    return start.startswith(_REFUSALS)


def parse_wote_answer(
    text: str,
    finish_reason: str | None = None,
    *,
    reasoning: str | None = None,
    allow_truncated: bool = False,
) -> SpanParse:
    """One WoTe answer as the span it states, or none (see the module docstring).

    Args:
        text: the message's ``content``.
        finish_reason: the choice's ``finish_reason`` (``length``: cut at the token limit;
            any other but ``stop``, e.g. ``abort``: ``incomplete``).
        reasoning: the message's ``reasoning_content``, if any (an empty ``content`` with
            reasoning is ``reasoning_only``, else ``no_answer``).
        allow_truncated: read an answer cut at the token limit as it stands (status
            ``truncated``) instead of ``unrecoverable``.

    Linear in the length of ``text``; never raises on any string.
    """
    repairs: list[dict[str, Any]] = []
    ended = incomplete(finish_reason)
    if ended is not None:
        return _unrecoverable("incomplete", ended, repairs)
    kept, problem, dropped = drop_reasoning(text)
    if problem is not None:
        return _unrecoverable(problem, "the answer ends inside a reasoning block", repairs)
    if dropped:
        repairs.append({"kind": "reasoning_dropped"})
    kept = kept.strip()
    if not kept:
        if reasoning and reasoning.strip():
            return _unrecoverable("reasoning_only", "the answer's content is empty", repairs)
        return _unrecoverable("no_answer", "the answer is empty", repairs)
    cut = finish_reason == "length"
    if cut and not allow_truncated:
        return _unrecoverable("truncated", "finish_reason length: cut at the token limit", repairs)
    span = _strip_quotes(_strip_prefix(kept, repairs), repairs)
    if not span:
        return _unrecoverable("no_answer", "nothing after the answer prefix", repairs)
    if _is_refusal(span):
        return _unrecoverable("refusal", span[:80], repairs)
    status = "truncated" if cut else ("repaired" if repairs else "clean")
    return SpanParse(status, span, None, None, repairs)


def parse_wote_responses(
    responses: Mapping[str, Any],
    questions: Sequence[Mapping[str, Any]],
    *,
    allow_truncated: bool = False,
    source: str = "responses",
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """Predictions ``[{id, prediction_text}]`` for the questions that have a response line,
    in split order, and the parse report (the ``.parse.json`` sidecar).

    Args:
        responses: ``{question id: Response}`` (:func:`.responses.read_responses`; a
            Response's ``wall_id`` is the line's ``custom_id``).
        questions: the split's rows (``id`` each).

    Returns:
        (predictions, report ``{task: "spans", mode: "robust", allow_truncated, counts:
        {status: n, "missing": n}, repairs: {kind: n}, unrecoverable: {reason: n},
        in_context: n, missing: [ids without a response line], questions: [{id, status,
        reason, detail, repairs, text, reasoning, in_context}]}``); ``in_context``: the
        prediction occurs in the question's ``context`` (:func:`in_context`; None without a
        prediction or a context). A failed request is ``no_response`` with
        ``prediction_text`` ``""``.

    Raises:
        PredictionsError: a response for a question not in ``questions`` (names ``source``
            and up to 5 ids).
    """
    ids = [str(q["id"]) for q in questions]
    known = set(ids)
    unknown = [qid for qid in responses if qid not in known]
    if unknown:
        raise PredictionsError(
            f"{source}: {len(unknown)} responses are for questions not in this split "
            f"({capped(unknown)}); check the config "
            "and the split"
        )
    entries = [_parse_entry(q, responses[q], allow_truncated) for q in ids if q in responses]
    predictions = [{"id": e["id"], "prediction_text": e.pop("prediction_text")} for e in entries]
    contexts = {str(q["id"]): q.get("context") for q in questions}
    for entry, prediction in zip(entries, predictions, strict=True):
        context, span = contexts[entry["id"]], prediction["prediction_text"]
        entry["in_context"] = (
            in_context(span, context) if span and isinstance(context, str) else None
        )
    missing = [qid for qid in ids if qid not in responses]
    report = _report(entries, missing)
    return predictions, {**report, "allow_truncated": allow_truncated}


def in_context(span: str, context: str) -> bool:
    """Whether ``span`` occurs in ``context`` ignoring case and runs of whitespace: the
    instruction asks for a span copied from the task text, which SQuAD's EM and F1 do not
    check."""
    return " ".join(span.casefold().split()) in " ".join(context.casefold().split())


def _report(entries: list[dict[str, Any]], missing: list[str]) -> dict[str, Any]:
    """The parse report of :func:`parse_wote_responses` but ``allow_truncated``."""
    counts = Counter(e["status"] for e in entries)
    return {
        "task": "spans",
        "mode": "robust",
        "counts": {**{s: counts.get(s, 0) for s in STATUSES}, "missing": len(missing)},
        "repairs": dict(sorted(Counter(r["kind"] for e in entries for r in e["repairs"]).items())),
        "unrecoverable": dict(sorted(Counter(e["reason"] for e in entries if e["reason"]).items())),
        "in_context": sum(e["in_context"] is True for e in entries),
        "missing": missing,
        "questions": entries,
    }


def _parse_entry(question_id: str, response: Any, allow_truncated: bool) -> dict[str, Any]:
    """One question's report entry, with its ``prediction_text``."""
    entry: dict[str, Any] = {
        "id": question_id,
        "text": response.text,
        "reasoning": response.reasoning,
    }
    if response.text is None:
        repairs = [{"kind": "no_response", "problem": response.problem}]
        return {
            **entry,
            "status": "no_response",
            "reason": None,
            "detail": None,
            "repairs": repairs,
            "prediction_text": "",
        }
    parsed = parse_wote_answer(
        response.text,
        response.finish_reason,
        reasoning=response.reasoning,
        allow_truncated=allow_truncated,
    )
    return {
        **entry,
        "status": parsed.status,
        "reason": parsed.reason,
        "detail": parsed.detail,
        "repairs": parsed.repairs,
        "prediction_text": parsed.prediction_text,
    }
