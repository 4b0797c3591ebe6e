"""Request and response files: the requests ``prompts`` writes and the responses ``parse`` reads.

The requests are JSON Lines in the OpenAI batch *input* shape (written by
:mod:`ocw_hub.llm.prompts`); the answers are JSON Lines in the batch *output* shape (OpenAI's
Batch API, vLLM's ``run_batch``; logs of the retired ``run-llm`` too), one line per request::

    {"custom_id": ..., "response": {"status_code": 200, "body": <chat completion>},
     "error": null}

A failed request is ``{"custom_id", "response": {"status_code", "body"} | null, "error":
{"code", "message"}}``. ``latency_s`` (optional) is the time of the try, in seconds.

Every JSON Lines file of the package (the requests, the answers) is read by
:func:`json_records`, with one rule: lines end at ``\\n`` only (an answer may hold U+2028 and
other Unicode line breaks, written as they are: ``ensure_ascii=False``); a last line cut short
by a crash (no newline at the end of the file, not JSON) is skipped with a
:class:`CutLineWarning`; any other line that is not a JSON object is an error naming the file
and the line. A request is answered when its line has status 200 and no error.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from .. import jsonio
from ..errors import OCWHubError
from .answer_text import completion_problem
from .prompts import CHAT_COMPLETIONS_URL

#: Endpoints a request line may name (the batch shape's ``url``).
ACCEPTED_URLS = (CHAT_COMPLETIONS_URL, "/chat/completions")
#: The names a chat-completion body may give its token limit (``max_completion_tokens`` is
#: OpenAI's newer name, the only one some of its models accept).
MAX_TOKENS_FIELDS = ("max_tokens", "max_completion_tokens")


class LLMInputError(OCWHubError, ValueError):
    """A requests file or response log that cannot be used: the message names the file, the
    line number (1-based) and the field."""


class CutLineWarning(UserWarning):
    """A JSON Lines file whose last line was cut short (what a crash while writing leaves): the
    line is skipped."""


#: The longest line a JSON Lines file of the package may hold, in bytes (a log line is one
#: chat completion; the longest prompt of the splits is 13.5 k characters): a longer line is
#: an error naming the file and the line, never read whole into memory.
MAX_LINE_BYTES = 64 * 2**20


#: ``<wall_id>#reprompt-<k>``: how the retired ``run-llm --reprompt`` named a follow-up.
REPROMPT_MARK = "#reprompt-"


def parse_follow_up_id(custom_id: str) -> tuple[str, int] | None:
    """(wall id, k) of a follow-up's ``custom_id``, else None."""
    wall_id, mark, number = custom_id.rpartition(REPROMPT_MARK)
    if mark and wall_id and number.isascii() and number.isdigit() and int(number) >= 1:
        return wall_id, int(number)
    return None


def _is_cut(line: bytes) -> bool:
    """Whether a last line without its newline is a record cut short by a crash: the start of
    a JSON object (every record is one) that is not yet JSON, or UTF-8 cut in two. Any other
    last line (a file that is no log: CSV, text) is no record to cut, and never cut."""
    if not line.startswith(b"{"):
        return False
    try:
        json.loads(line)
    except ValueError:
        return True
    return False


def _lines(path: Path, handle: IO[bytes], cap: int, error: type[OCWHubError]) -> Iterator[bytes]:
    """The lines of ``handle`` (with their ``\n``), each read with at most ``cap`` + 1 bytes
    in memory; a longer line is ``error`` naming the file and the line."""
    number = 0
    while line := handle.readline(cap + 1):
        number += 1
        if len(line) > cap and not (len(line) == cap + 1 and line.endswith(b"\n")):
            raise error(
                f"{path}, line {number}: longer than {cap} bytes (MAX_LINE_BYTES); a line is "
                "one request or one answer"
            )
        yield line


def json_records(
    path: str | os.PathLike[str],
    error: type[OCWHubError] = OCWHubError,
    max_line_bytes: int | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line number, object) of each non-blank line of a UTF-8 JSON Lines file, split
    on ``\n`` only, read one line at a time (at most ``max_line_bytes`` a line, default
    :data:`MAX_LINE_BYTES`), each parsed
    strictly (:func:`ocw_hub.jsonio.load_line`); a last line cut short (no newline at the end,
    not JSON: what a crash leaves) is skipped with a :class:`CutLineWarning` naming the file
    and the line.

    Raises:
        error: no such file, a folder, not UTF-8; a line longer than ``max_line_bytes``; a
            line (other than a cut last one) that is not a JSON object, named with the file
            and the line number.
    """
    path = Path(path)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a JSON Lines file") from None
    cap = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    with handle:
        for number, line in enumerate(_lines(path, handle, cap, error), 1):
            if not line.endswith(b"\n") and _is_cut(line):
                warnings.warn(
                    CutLineWarning(
                        f"{path}, line {number}: cut short (no newline at the end of the file, "
                        "not JSON: what a crash leaves); skipped"
                    ),
                    stacklevel=2,
                )
                return
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as err:
                raise error(f"{path}, line {number}: not UTF-8 text ({err})") from None
            if text.strip():
                yield number, jsonio.load_line(path, number, text.rstrip("\n"), error)


def _check_request(path: Path, number: int, record: Mapping[str, Any]) -> None:
    where = f"{path}, line {number}"
    custom_id = record.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise LLMInputError(f"{where}: field custom_id: expected a non-empty string")
    if record.get("method", "POST") != "POST":
        raise LLMInputError(f"{where} ({custom_id}): field method: expected POST")
    if record.get("url", CHAT_COMPLETIONS_URL) not in ACCEPTED_URLS:
        raise LLMInputError(
            f"{where} ({custom_id}): field url: expected {CHAT_COMPLETIONS_URL}, "
            f"got {record.get('url')!r}"
        )
    body = record.get("body")
    if not isinstance(body, dict):
        raise LLMInputError(f"{where} ({custom_id}): field body: expected a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise LLMInputError(f"{where} ({custom_id}): field body.messages: expected a list")
    if not all(isinstance(m, dict) and "role" in m and "content" in m for m in messages):
        raise LLMInputError(
            f"{where} ({custom_id}): field body.messages: each message needs role and content"
        )
    if all(name in body for name in MAX_TOKENS_FIELDS):
        raise LLMInputError(
            f"{where} ({custom_id}): field body: gives both max_tokens and "
            "max_completion_tokens; keep one"
        )


def read_requests(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The requests of a JSON Lines file in the batch input shape, in file order.

    Raises:
        LLMInputError: no such file; a line that is not a JSON object, lacks ``custom_id``
            or ``body.messages``, names another method or endpoint, gives both token-limit
            fields; a ``custom_id`` given twice (both line numbers named).
    """
    path = Path(path)
    requests: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, record in json_records(path, LLMInputError):
        _check_request(path, number, record)
        custom_id = record["custom_id"]
        if custom_id in seen:
            raise LLMInputError(
                f"{path}, line {number}: custom_id {custom_id!r} already on line {seen[custom_id]}"
            )
        seen[custom_id] = number
        requests.append(record)
    if not requests:
        raise LLMInputError(f"{path}: no requests")
    return requests


def sent_body(
    request: Mapping[str, Any], model: str, max_tokens_field: str | None = None
) -> dict[str, Any]:
    """The JSON body to send for ``request`` (a Batch API input line's, docs/experiment.md):
    its ``body`` with ``model`` set, a ``stop`` string as a list of one (the OpenAI API takes
    both; TGI and other servers only a list, and answer 422 to a string) and, when
    ``max_tokens_field`` is given, its token limit (either name) under that name."""
    body = {**request["body"], "model": model}
    if isinstance(body.get("stop"), str):
        body["stop"] = [body["stop"]]
    if max_tokens_field is not None:
        for name in MAX_TOKENS_FIELDS:
            if name in body and name != max_tokens_field:
                body[max_tokens_field] = body.pop(name)
    return body


def is_success(record: Mapping[str, Any]) -> bool:
    """Whether a log line holds an answer: status 200, no error, and a usable chat completion
    (:func:`~ocw_hub.llm.answer_text.completion_problem`: a line of another producer, or of an
    older run, that ended with ``abort`` is sent again by a re-run)."""
    response = record.get("response")
    return (
        record.get("error") is None
        and isinstance(response, dict)
        and response.get("status_code") == 200
        and completion_problem(response.get("body")) is None
    )
