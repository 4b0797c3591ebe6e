"""Request and response files: the requests ``prompts`` writes and the responses ``parse`` reads.

The requests are JSON Lines in the OpenAI batch *input* shape (written by
:mod:`ocw_hub.llm.prompts`); the answers are appended to a log in the batch *output* shape, one
JSON line per request, flushed as soon as it is written::

    {"custom_id": ..., "response": {"status_code": 200, "body": <chat completion>},
     "error": null, "body_sha256": ...}

A failed request is logged as ``{"custom_id", "response": {"status_code", "body"} | null,
"error": {"code", "message"}, "body_sha256"}``. ``body_sha256`` is the SHA-256 of the request
body as sent (the model included; canonical JSON), so a log is never resumed with other prompts
or another model by mistake. When the token limit was sent under another name than the
request's own (``max_completion_tokens`` for ``max_tokens``, or the reverse), the line says so
in ``max_tokens_field`` and its digest is that of the body as sent. ``latency_s`` (optional:
logs of older runs and of other producers lack it) is the wall-clock time in seconds of the
try that was logged, from sending the request to its whole answer.

Every JSON Lines file of the package (the requests, the log, ``parse``'s responses) is read by
:func:`json_records`, with one rule: lines end at ``\\n`` only (an answer may hold U+2028 and
other Unicode line breaks, written as they are: ``ensure_ascii=False``); a last line cut short
by a crash (no newline at the end of the file, not JSON) is skipped with a
:class:`CutLineWarning`; any other line that is not a JSON object is an error naming the file
and the line. A request counts as done when the log holds a line for its ``custom_id`` with
status 200 and no error.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .. import jsonio
from ..errors import OCWHubError
from ..outputs import exclusive
from ..shown import capped
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
    """The JSON body sent for ``request``: its ``body`` with ``model`` set, a ``stop`` string
    as a list of one (the OpenAI API takes both; TGI and other servers only a list, and answer
    422 to a string) and, when ``max_tokens_field`` is given, its token limit (either name)
    under that name."""
    body = {**request["body"], "model": model}
    if isinstance(body.get("stop"), str):
        body["stop"] = [body["stop"]]
    if max_tokens_field is not None:
        for name in MAX_TOKENS_FIELDS:
            if name in body and name != max_tokens_field:
                body[max_tokens_field] = body.pop(name)
    return body


def renamed_field(request: Mapping[str, Any], max_tokens_field: str | None) -> str | None:
    """``max_tokens_field`` when sending ``request`` with it renames the request's token
    limit (what a log line records), else None."""
    if max_tokens_field is None or max_tokens_field in request["body"]:
        return None
    return max_tokens_field if any(n in request["body"] for n in MAX_TOKENS_FIELDS) else None


def body_digest(body: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``body`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


def partial_tail(path: str | os.PathLike[str], max_line_bytes: int | None = None) -> int | None:
    """Where the last line that :func:`json_records` skips starts (cut short by a crash), as a
    byte offset; None when the file ends cleanly or does not exist. Reads at most the last
    ``max_line_bytes`` + 1 bytes (a longer last line is :func:`json_records`' error)."""
    path = Path(path)
    if not path.is_file():
        return None
    cap = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - cap - 1))
        tail = handle.read()
    if not tail or tail.endswith(b"\n"):
        return None
    newline = tail.rfind(b"\n")
    if newline < 0 and len(tail) < size:
        return None  # the last line is longer than a line may be
    start = size - len(tail) + newline + 1
    return start if _is_cut(tail[newline + 1 :]) else None


def read_log(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The answered requests of a response log: ``{custom_id: line}`` of the lines with status
    200 and no error (a missing file is an empty log; a last line cut short by a crash is
    skipped, see :func:`json_records`).

    Raises:
        LLMInputError: a line that is not a JSON object with a string ``custom_id``, or whose
            ``max_tokens_field`` is neither name of the token limit.
    """
    path = Path(path)
    if not path.exists():
        return {}
    done: dict[str, dict[str, Any]] = {}
    for number, record in json_records(path, LLMInputError):
        if not isinstance(record.get("custom_id"), str):
            raise LLMInputError(f"{path}, line {number}: field custom_id: expected a string")
        if record.get("max_tokens_field", MAX_TOKENS_FIELDS[0]) not in MAX_TOKENS_FIELDS:
            raise LLMInputError(
                f"{path}, line {number} ({record['custom_id']}): field max_tokens_field: "
                f"expected one of {', '.join(MAX_TOKENS_FIELDS)}"
            )
        if is_success(record):
            done[record["custom_id"]] = record
    return done


def logged_field(done: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The token-limit name the log's answers were last sent with, when they were renamed."""
    fields = [r["max_tokens_field"] for r in done.values() if r.get("max_tokens_field")]
    return fields[-1] if fields else None


def check_log_matches(
    log_path: Path,
    done: Mapping[str, Mapping[str, Any]],
    requests: Mapping[str, Mapping[str, Any]],
    model: str,
) -> None:
    """The log may only hold answers to these very ``requests`` (``{custom_id: request}``):
    same ids, same bodies as sent to ``model`` (under the token-limit name the line records).

    Raises:
        LLMInputError: an answer to another ``custom_id`` or to another body.
    """
    done = {
        c: r
        for c, r in done.items()
        if (parse_follow_up_id(c) or (c,))[0] not in requests or c in requests
    }
    foreign = sorted(cid for cid in done if cid not in requests)
    if foreign:
        raise LLMInputError(
            f"{log_path}: holds answers to custom_ids that are not in the requests "
            f"({capped(foreign)}); it is the log of "
            "another requests file: write to another file"
        )
    changed = [
        cid
        for cid, record in done.items()
        if record.get("body_sha256") is not None
        and record["body_sha256"]
        not in _digests(requests[cid], model, record.get("max_tokens_field"))
    ]
    if changed:
        raise LLMInputError(
            f"{log_path}: its answer to {changed[0]!r} was for another request body (other "
            f"prompts or another model; {len(changed)} such lines): write to another file"
        )


def _digests(request: Mapping[str, Any], model: str, max_tokens_field: str | None) -> set[str]:
    """The digests an answer to ``request`` may record: of the body as sent now, and as runs
    before ``stop`` was sent as a list sent it (a string), so their logs resume."""
    body = sent_body(request, model, max_tokens_field)
    found = {body_digest(body)}
    if isinstance(request["body"].get("stop"), str):
        found.add(body_digest({**body, "stop": request["body"]["stop"]}))
    return found


def output_line(
    custom_id: str,
    *,
    status_code: int | None,
    body: Any,
    error: Mapping[str, Any] | None,
    digest: str,
    max_tokens_field: str | None = None,
    latency_s: float | None = None,
) -> dict[str, Any]:
    """One line of the response log in the batch output shape (see the module docstring),
    with ``latency_s`` (wall-clock seconds of the try logged, when timed)."""
    response = None if status_code is None else {"status_code": status_code, "body": body}
    line: dict[str, Any] = {
        "custom_id": custom_id,
        "response": response,
        "error": error,
        "body_sha256": digest,
    }
    if max_tokens_field is not None:
        line["max_tokens_field"] = max_tokens_field
    if latency_s is not None:
        line["latency_s"] = round(latency_s, 6)
    return line


class LogWriter:
    """Appends lines to a response log, opening (and so creating) it only for the first line:
    a run that answers nothing leaves no file behind. Use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def write(self, record: Mapping[str, Any]) -> None:
        """Append ``record`` as one JSON line (``ensure_ascii=False``) and flush it."""
        if self._handle is None:
            self._handle = self.path.open("a", encoding="utf-8", newline="\n")
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            self._handle.close()


def lock_folder(path: str | os.PathLike[str]) -> Path:
    """The folder :func:`exclusive_log` holds for the log ``path``: ``.NAME.lock`` beside it."""
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


@contextmanager
def exclusive_log(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the log ``path`` (which need not exist) for this process: a second run on the same
    log fails at once. :func:`~ocw_hub.outputs.exclusive` holds :func:`lock_folder`; that folder
    and the parent folders made for it are removed afterwards when empty, and ``path`` itself is
    neither created nor opened.

    Raises:
        OutputPathError: another process holds the log (or its lock cannot be made).
    """
    path = Path(path).absolute()
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        with exclusive(lock_folder(path)):
            yield
    finally:
        folder = lock_folder(path)
        while folder != existing and folder.is_relative_to(existing):
            try:
                folder.rmdir()  # only when empty
            except FileNotFoundError:
                pass  # exclusive() removed it already
            except OSError:
                break
            folder = folder.parent
