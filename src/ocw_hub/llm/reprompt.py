"""Re-prompting an invalid answer (``ocw-hub run-llm --reprompt N``; the paper's default is 0,
no re-prompt; Missed Connections re-prompts up to 5 times).

* **What is invalid**: an answer that robust parsing (:func:`.responses.parse_wall`, the
  style's answer block) finds ``unrecoverable`` (no partition of the 16 clues, 3 groups, a
  clue twice, a truncated answer, ...). A request that failed is not re-prompted: a re-run
  sends it again as ``run-llm`` does.
* **The follow-up** ``k`` (1 … N) of a wall is the request before it (the wall's request for
  ``k`` = 1) with two more messages: the assistant's answer (its ``content`` as the server
  sent it) and a user message of the package's own text, :func:`follow_up_text`: the reason
  code and a fixed sentence (:data:`REASON_SENTENCES`); no server text goes into it. Its
  ``custom_id`` is ``<wall_id>#reprompt-<k>`` (:data:`REPROMPT_MARK`; distinct from the
  vote's ``WALL#<i>``, whose ``i`` is a bare number, :data:`.vote.SAMPLE_MARK`).
* **Rounds**: round ``k`` sends, through :func:`.client.send_batch`, follow-up ``k`` of every
  wall whose answer ``k - 1`` is invalid, then appends the lines in the requests' order to the
  same log. Everything is rebuilt from the log, so a re-run resumes: a follow-up answered is
  never sent again, a failed one is sent again.
* **Parsing** (:func:`split_reprompts`): a wall's first answer gives the predictions without
  re-prompts (the paper's figure), its last answer those with re-prompts.

:data:`FOLLOW_UP_VERSION` names the follow-up text; it is recorded with N in the protocol
record, so runs with another N or another text are other protocols.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import OCWHubError
from .log import (
    REPROMPT_MARK,
    LLMInputError,
    LogWriter,
    body_digest,
    exclusive_log,
    is_success,
    json_records,
    parse_follow_up_id,
    partial_tail,
    read_log,
    sent_body,
)
from .responses import Response, parse_wall

#: The version of :func:`follow_up_text` (recorded as ``follow_up_version``).
FOLLOW_UP_VERSION = 1

#: The fixed sentence said for each reason of an unrecoverable answer.
REASON_SENTENCES = {
    "no_answer": "no groups of clues were found in it",
    "refusal": "it gave no answer",
    "reasoning_only": "it held reasoning but no answer",
    "unclosed_reasoning": "it ended inside its reasoning",
    "truncated": "it was cut at the token limit",
    "group_count": "it did not give exactly four groups",
    "group_size": "a group did not hold exactly four clues",
    "duplicate": "a clue was given twice",
    "unknown_item": "it named an item that is not one of the clues",
    "ambiguous_item": "an item could be more than one clue",
    "incomplete": "it ended before it was complete",
    "no_final_answer": "it had no final answer block",
    "invalid_json": "its answer was not valid JSON",
    "schema_mismatch": "its JSON did not have the asked shape",
}
_OTHER = "it could not be read"


def follow_up_text(reason: str | None) -> str:
    """The user message of a follow-up: the package's text only (the reason code, when it
    is one of :data:`REASON_SENTENCES`, and its sentence)."""
    code = reason if reason in REASON_SENTENCES else "unreadable"
    sentence = REASON_SENTENCES.get(code, _OTHER)
    return (
        f"Your answer could not be used ({code}: {sentence}). Answer again, in exactly the "
        "format asked for above."
    )


def follow_up_id(wall_id: str, k: int) -> str:
    return f"{wall_id}{REPROMPT_MARK}{k}"


def max_follow_up(ids: Sequence[str]) -> int:
    """The largest ``k`` among follow-up ids (0 when there is none)."""
    return max((p[1] for c in ids if (p := parse_follow_up_id(c)) is not None), default=0)


def line_response(line: Mapping[str, Any], number: int = 0) -> Response:
    """The :class:`Response` of one log line (as ``parse`` reads it)."""
    from .responses import _batch_response

    return _batch_response(Path("log"), number, line)


def _answer_text(line: Mapping[str, Any]) -> str:
    from .answer_text import content_text

    choice = line["response"]["body"]["choices"][0]
    message = choice.get("message")
    return content_text(message.get("content") if isinstance(message, dict) else None) or ""


@dataclass
class RepromptSummary:
    """What :func:`reprompt_rounds` did: follow-ups ``sent`` and ``answered``, ``failures``
    (``(custom_id, message)``: sent again by a re-run), and per round the follow-ups sent."""

    sent: int = 0
    answered: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Parsing:
    """How the answers are read to tell an invalid one: the split's walls by id, the task,
    the prompt style."""

    walls: Mapping[str, Mapping[str, Any]]
    task: str
    style: str

    def reason(self, line: Mapping[str, Any]) -> str | None | bool:
        """False when the answer is valid, else its unrecoverable reason (maybe None)."""
        wall_id = str(line["custom_id"]).partition(REPROMPT_MARK)[0]
        parsed = parse_wall(
            self.walls[wall_id],
            line_response(line),
            task=self.task,
            mode="robust",
            style=self.style,
        )
        return parsed.reason if parsed.status == "unrecoverable" else False


def follow_up(
    request: Mapping[str, Any], line: Mapping[str, Any], reason: str | None, k: int
) -> dict[str, Any]:
    """Follow-up ``k`` of the wall whose request (or follow-up ``k - 1``) is ``request`` and
    whose answer to it is ``line``."""
    wall_id = str(request["custom_id"]).partition(REPROMPT_MARK)[0]
    messages = [
        *request["body"]["messages"],
        {"role": "assistant", "content": _answer_text(line)},
        {"role": "user", "content": follow_up_text(reason)},
    ]
    return {
        **request,
        "custom_id": follow_up_id(wall_id, k),
        "body": {**request["body"], "messages": messages},
    }


def _check_digest(
    path: Path, request: Mapping[str, Any], line: Mapping[str, Any], model: str
) -> None:
    digest = line.get("body_sha256")
    if digest is None:
        return
    if digest != body_digest(sent_body(request, model, line.get("max_tokens_field"))):
        raise LLMInputError(
            f"{path}: its answer to {request['custom_id']!r} was for another follow-up (other "
            "requests, another model or another --reprompt text): write to another file"
        )


def _round(
    requests: Sequence[Mapping[str, Any]],
    done: Mapping[str, Mapping[str, Any]],
    parsing: Parsing,
    k: int,
    path: Path,
    model: str,
) -> tuple[list[dict[str, Any]], list[Mapping[str, Any]]]:
    """(follow-ups ``k`` to send, the request of every wall's latest answer up to ``k``)."""
    pending, latest = [], []
    for request in requests:
        answer = done.get(str(request["custom_id"]))
        if answer is None:  # not answered (yet): nothing to re-prompt
            latest.append(request)
            continue
        reason = parsing.reason(answer)
        if reason is False:
            latest.append(request)
            continue
        wanted = follow_up(request, answer, reason if isinstance(reason, str) else None, k)
        logged = done.get(wanted["custom_id"])
        if logged is None:
            pending.append(wanted)
        else:
            _check_digest(path, wanted, logged, model)
        latest.append(wanted)
    return pending, latest


def reprompt_rounds(
    requests: Sequence[Mapping[str, Any]],
    log_path: str | os.PathLike[str],
    parsing: Parsing,
    n: int,
    *,
    send: Mapping[str, Any],
    on_round: Callable[[int, int], None] | None = None,
) -> RepromptSummary:
    """Send up to ``n`` follow-ups per wall whose answer in the log is invalid (module
    docstring), appending them to the log at ``log_path``.

    Args:
        requests: the run's requests (as sent: after ``--profile``).
        send: :func:`.client.send_batch`'s keyword arguments (``base_url``, ``model``, ...).
        on_round: called with (round, follow-ups sent in it) before each round is sent.

    Raises:
        LLMInputError: a follow-up in the log for another body, or a wall not in the split.
        OutputPathError: another run is writing the log.
        LLMServerError: as ``run-llm`` (the lines answered before stay in the log).
    """
    from .client import send_batch

    path = Path(log_path)
    unknown = [str(r["custom_id"]) for r in requests if str(r["custom_id"]) not in parsing.walls]
    if unknown:
        raise LLMInputError(f"{path}: wall {unknown[0]} of the requests is not in the split")
    summary = RepromptSummary()
    options = dict(send)
    current: Sequence[Mapping[str, Any]] = requests
    with exclusive_log(path):
        cut = partial_tail(path)
        if cut is not None:
            with path.open("r+b") as handle:
                handle.truncate(cut)
        for k in range(1, n + 1):
            pending, current = _round(current, read_log(path), parsing, k, path, options["model"])
            summary.rounds.append(len(pending))
            if on_round is not None:
                on_round(k, len(pending))
            if not pending:
                continue
            lines: dict[str, dict[str, Any]] = {}
            try:
                _, options["max_tokens_field"] = send_batch(pending, into=lines, **options)
            finally:  # a server error: the answers that came first are kept
                _write_round(path, pending, lines, summary)
    return summary


def _write_round(
    path: Path,
    pending: Sequence[Mapping[str, Any]],
    lines: Mapping[str, dict[str, Any]],
    summary: RepromptSummary,
) -> None:
    """Append a round's lines in the requests' order."""
    with LogWriter(path) as writer:
        for request in pending:
            line = lines.get(str(request["custom_id"]))
            if line is None:
                continue
            writer.write(line)
            summary.sent += 1
            if is_success(line):
                summary.answered += 1
            else:
                error = line.get("error") or {}
                summary.failures.append((line["custom_id"], str(error.get("message", ""))))


def log_follow_ups(log_path: str | os.PathLike[str]) -> int:
    """The largest follow-up number ``k`` among the lines of a log (0: none)."""
    path = Path(log_path)
    if not path.is_file():
        return 0
    ids = [
        record["custom_id"]
        for _, record in json_records(path, LLMInputError)
        if isinstance(record.get("custom_id"), str)
    ]
    return max_follow_up(ids)


class RepromptError(OCWHubError, ValueError):
    """A log and a ``--reprompt`` that do not go together."""


# --------------------------------------------------------------------------------------
# Parsing a log with follow-ups
# --------------------------------------------------------------------------------------


@dataclass
class Reprompted:
    """A log's answers split by wall: ``first`` (each wall's first answer), ``last`` (its last
    answered follow-up, else its first answer) and ``used`` (follow-ups answered per wall)."""

    first: dict[str, Response]
    last: dict[str, Response]
    used: dict[str, int]


def split_reprompts(answers: Mapping[str, Response]) -> Reprompted:
    """Responses keyed by ``custom_id`` split into first and last answers per wall (a
    follow-up without text, a failed one, is not an answer)."""
    first: dict[str, Response] = {}
    follow: dict[str, list[tuple[int, Response]]] = {}
    for key, response in answers.items():
        parsed = parse_follow_up_id(key)
        if parsed is None:
            first[key] = response
        else:
            follow.setdefault(parsed[0], []).append((parsed[1], response))
    last, used = dict(first), {}
    for wall_id, numbered in follow.items():
        if wall_id not in first:
            raise LLMInputError(f"follow-up {numbered[0][1].wall_id} of a wall with no answer")
        answered = sorted(((k, r) for k, r in numbered if r.text is not None), key=lambda p: p[0])
        used[wall_id] = len(answered)
        if answered:
            response = answered[-1][1]
            last[wall_id] = Response(
                wall_id,
                response.text,
                response.line,
                response.problem,
                response.finish_reason,
                response.reasoning,
                response.samples,
            )
    return Reprompted(first, last, used)
