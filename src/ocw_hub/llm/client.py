"""Sending chat-completion requests to any OpenAI-compatible server (``ocw-hub run-llm``).

The requests are JSON Lines in the OpenAI batch *input* shape (written by
:mod:`ocw_hub.llm.prompts`); the answers are appended to a log in the batch *output* shape, one
JSON line per request, flushed as soon as it is written::

    {"custom_id": ..., "response": {"status_code": 200, "body": <chat completion>},
     "error": null, "body_sha256": ...}

A failed request is logged as ``{"custom_id", "response": {"status_code", "body"} | null,
"error": {"code", "message"}}``. ``body_sha256`` is the SHA-256 of the request body as sent
(the model included; canonical JSON), so a log is never resumed with other prompts or another
model by mistake.

Resuming: a request counts as done when the log holds a line for its ``custom_id`` with
status 200 and no error; a re-run sends only the others (the failed ones included). A last
line cut short by a crash (no newline, not JSON) is dropped and its request sent again.

The ``openai`` client (``AsyncOpenAI``) does the HTTP: its ``max_retries`` retries
connection errors, 408, 409, 429 and 5xx answers with exponential backoff (0.5 s doubling up
to 8 s, with jitter; a server's ``Retry-After`` is honoured); an ``asyncio.Semaphore`` bounds
the requests in flight. The key comes from ``OPENAI_API_KEY``; local servers (vLLM,
llama.cpp, TGI) get a dummy key when it is unset.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .. import jsonio
from ..errors import OCWHubError
from .prompts import CHAT_COMPLETIONS_URL

#: Endpoints a request line may name (the batch shape's ``url``).
ACCEPTED_URLS = (CHAT_COMPLETIONS_URL, "/chat/completions")
#: Key sent to local servers when ``OPENAI_API_KEY`` is unset (they ignore it).
DUMMY_API_KEY = "sk-no-key-required"
#: HTTP statuses after which no other request can succeed: the run stops.
FATAL_STATUSES = (401, 403, 404)


class LLMInputError(OCWHubError, ValueError):
    """A requests file or response log that cannot be used: the message names the file, the
    line number (1-based) and the field."""


class LLMServerError(OCWHubError, ConnectionError):
    """The server cannot be used at all: unreachable after every retry, or it refused the key
    or the model (401, 403, 404). Responses logged before the error are kept.

    Attributes:
        base_url: the server's base URL as given.
        model: the model name sent.
        reason: what went wrong, without the URL (``cannot connect (ConnectError: ...)``).
        status_code: the HTTP status, or None when the server could not be reached.
    """

    def __init__(
        self, reason: str, *, base_url: str, model: str, status_code: int | None = None
    ) -> None:
        super().__init__(f"{base_url}: {reason}")
        self.base_url = base_url
        self.model = model
        self.reason = reason
        self.status_code = status_code


@dataclass
class RunSummary:
    """What :func:`run_requests` did.

    Attributes:
        total: requests in the requests file.
        already_done: requests answered in the log before this run (not sent again).
        sent: requests sent in this run.
        succeeded: of those, answered with status 200.
        failures: ``(custom_id, message)`` of the requests of this run that failed.
        dropped_partial_line: whether a last log line cut short by a crash was dropped.
    """

    total: int
    already_done: int
    sent: int = 0
    succeeded: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    dropped_partial_line: bool = False


# --------------------------------------------------------------------------------------
# Reading requests and logs
# --------------------------------------------------------------------------------------


def _json_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of the non-blank lines of a UTF-8 file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LLMInputError(f"{path}: no such file") from None
    except UnicodeDecodeError as err:
        raise LLMInputError(f"{path}: not UTF-8 text ({err})") from None
    except IsADirectoryError:
        raise LLMInputError(f"{path}: is a folder, not a JSON Lines file") from None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            yield number, line


def _load_object(path: Path, number: int, line: str) -> dict[str, Any]:
    return jsonio.load_line(path, number, line, LLMInputError)


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


def read_requests(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The requests of a JSON Lines file in the batch input shape, in file order.

    Raises:
        LLMInputError: no such file; a line that is not a JSON object, lacks ``custom_id``
            or ``body.messages``, names another method or endpoint; a ``custom_id`` given
            twice (both line numbers named).
    """
    path = Path(path)
    requests: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, line in _json_lines(path):
        record = _load_object(path, number, line)
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


def sent_body(request: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The JSON body sent for ``request``: its ``body`` with ``model`` set."""
    return {**request["body"], "model": model}


def body_digest(body: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``body`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_success(record: Mapping[str, Any]) -> bool:
    """Whether a log line holds an answer: status 200 and no error."""
    response = record.get("response")
    return (
        record.get("error") is None
        and isinstance(response, dict)
        and response.get("status_code") == 200
    )


def partial_tail(path: str | os.PathLike[str]) -> int | None:
    """Where a last line cut short by a crash starts (no newline and not JSON), as a byte
    offset; None when the file ends cleanly or does not exist."""
    path = Path(path)
    if not path.is_file():
        return None
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return None
    start = data.rfind(b"\n") + 1
    try:
        json.loads(data[start:])
    except ValueError:
        return start
    return None


def read_log(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The answered requests of a response log: ``{custom_id: line}`` of the lines with status
    200 and no error (a missing file is an empty log; a last line cut short by a crash is
    ignored, see :func:`partial_tail`).

    Raises:
        LLMInputError: a line that is not a JSON object with a string ``custom_id``.
    """
    path = Path(path)
    if not path.exists():
        return {}
    cut = partial_tail(path)
    last = None if cut is None else path.read_bytes()[:cut].count(b"\n")
    done: dict[str, dict[str, Any]] = {}
    for number, line in _json_lines(path):
        if last is not None and number > last:
            break
        record = _load_object(path, number, line)
        if not isinstance(record.get("custom_id"), str):
            raise LLMInputError(f"{path}, line {number}: field custom_id: expected a string")
        if is_success(record):
            done[record["custom_id"]] = record
    return done


def _check_log_matches(
    log_path: Path, done: Mapping[str, Mapping[str, Any]], digests: Mapping[str, str]
) -> None:
    """The log may only hold answers to these very requests (same ids, same bodies)."""
    foreign = sorted(cid for cid in done if cid not in digests)
    if foreign:
        raise LLMInputError(
            f"{log_path}: holds answers to custom_ids that are not in the requests "
            f"({', '.join(foreign[:5])}{', …' if len(foreign) > 5 else ''}); it is the log of "
            "another requests file: write to another file"
        )
    changed = [
        cid for cid, record in done.items() if record.get("body_sha256") not in (None, digests[cid])
    ]
    if changed:
        raise LLMInputError(
            f"{log_path}: its answer to {changed[0]!r} was for another request body (other "
            f"prompts or another model; {len(changed)} such lines): write to another file"
        )


# --------------------------------------------------------------------------------------
# Sending
# --------------------------------------------------------------------------------------


def output_line(
    custom_id: str,
    *,
    status_code: int | None,
    body: Any,
    error: Mapping[str, Any] | None,
    digest: str,
) -> dict[str, Any]:
    """One line of the response log in the batch output shape (see the module docstring)."""
    response = None if status_code is None else {"status_code": status_code, "body": body}
    return {"custom_id": custom_id, "response": response, "error": error, "body_sha256": digest}


@dataclass(frozen=True)
class _Target:
    """Where and how requests are sent."""

    base_url: str
    model: str
    concurrency: int
    max_retries: int
    timeout: float
    api_key: str


async def _send_one(
    client: Any, request: Mapping[str, Any], target: _Target, digest: str
) -> dict[str, Any]:
    """Send one request; a logged line on success or on a per-request failure.

    Raises:
        LLMServerError: connection failed after every retry, or a fatal status (401/403/404).
    """
    import openai

    custom_id = request["custom_id"]
    base_url, model = target.base_url, target.model
    body = sent_body(request, model)
    messages = body.pop("messages")
    body.pop("model")
    try:
        raw = await client.chat.completions.with_raw_response.create(
            model=model, messages=messages, extra_body=body
        )
    except openai.APITimeoutError as err:
        error = {"code": "timeout", "message": f"no answer after every retry ({err})"}
        return output_line(custom_id, status_code=None, body=None, error=error, digest=digest)
    except openai.APIConnectionError as err:
        cause = err.__cause__ or err
        raise LLMServerError(
            f"cannot connect ({type(cause).__name__}: {cause})",
            base_url=base_url,
            model=model,
        ) from err
    except openai.APIStatusError as err:
        if err.status_code in FATAL_STATUSES:
            raise LLMServerError(
                f"the server answered {err.status_code} for model {model!r}: "
                f"{_status_message(err)}",
                base_url=base_url,
                model=model,
                status_code=err.status_code,
            ) from err
        error = {"code": str(err.status_code), "message": _status_message(err)}
        return output_line(
            custom_id,
            status_code=err.status_code,
            body=_response_json(err.response),
            error=error,
            digest=digest,
        )
    try:
        completion = json.loads(raw.text)
    except ValueError:
        error = {"code": "invalid_json", "message": f"the answer is not JSON: {raw.text[:200]!r}"}
        return output_line(
            custom_id, status_code=raw.status_code, body=raw.text, error=error, digest=digest
        )
    return output_line(
        custom_id, status_code=raw.status_code, body=completion, error=None, digest=digest
    )


def _status_message(err: Any) -> str:
    """The server's own error message (``{"error": {"message": ...}}``), else the client's."""
    body = err.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return str(err.message)


def _response_json(response: Any) -> Any:
    """The body of an HTTP answer: JSON when it is, else its text."""
    try:
        return response.json()
    except ValueError:
        return response.text


def _write_line(handle: IO[str], record: Mapping[str, Any]) -> None:
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()


async def _send_all(
    pending: Sequence[Mapping[str, Any]],
    digests: Mapping[str, str],
    target: _Target,
    on_result: Callable[[dict[str, Any]], None],
) -> None:
    """Send ``pending`` with at most ``target.concurrency`` in flight; ``on_result`` gets
    each line as its answer arrives. A fatal error cancels the requests still in flight."""
    from openai import AsyncOpenAI

    semaphore = asyncio.Semaphore(target.concurrency)
    client = AsyncOpenAI(
        base_url=target.base_url,
        api_key=target.api_key,
        max_retries=target.max_retries,
        timeout=target.timeout,
    )

    async def one(request: Mapping[str, Any]) -> dict[str, Any]:
        async with semaphore:
            return await _send_one(client, request, target, digests[request["custom_id"]])

    async with client:
        tasks = [asyncio.create_task(one(request)) for request in pending]
        try:
            for finished in asyncio.as_completed(tasks):
                on_result(await finished)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def _error_text(record: Mapping[str, Any]) -> str:
    error = record.get("error") or {}
    return f"{error.get('code', '?')}: {error.get('message', '')}".strip()


def run_requests(
    requests: Sequence[Mapping[str, Any]],
    log_path: str | os.PathLike[str],
    *,
    base_url: str,
    model: str,
    concurrency: int = 4,
    max_retries: int = 5,
    timeout: float = 600.0,
    api_key: str | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> RunSummary:
    """Send the requests not yet answered in the log at ``log_path`` and append each answer.

    Args:
        requests: as :func:`read_requests` returns them.
        log_path: the response log (created if missing; resumed if present).
        base_url: the server's OpenAI API root, e.g. ``http://localhost:8000/v1``.
        model: the model name sent in every request (replaces the requests' own).
        concurrency: requests in flight at most (>= 1).
        max_retries: retries of one request (connection errors, 408, 409, 429, 5xx).
        timeout: seconds to wait for one answer.
        api_key: the key; default ``OPENAI_API_KEY``, else a dummy for local servers.
        on_result: called with each logged line, as it is written (a progress bar).
        on_start: called once with the number of requests to send.

    Returns:
        A :class:`RunSummary`.

    Raises:
        LLMInputError: the log has a malformed line, or answers to other requests.
        LLMServerError: the server cannot be reached or refuses the key or the model; lines
            logged before stay in the log.
        ValueError: ``concurrency`` < 1 or ``max_retries`` < 0.
    """
    if concurrency < 1 or max_retries < 0:
        raise ValueError("concurrency must be >= 1 and max_retries >= 0")
    log_path = Path(log_path)
    digests = {r["custom_id"]: body_digest(sent_body(r, model)) for r in requests}
    done = read_log(log_path)
    _check_log_matches(log_path, done, digests)
    cut = partial_tail(log_path)
    if cut is not None:
        with log_path.open("r+b") as handle:
            handle.truncate(cut)
    pending = [r for r in requests if r["custom_id"] not in done]
    summary = RunSummary(total=len(requests), already_done=len(requests) - len(pending))
    summary.dropped_partial_line = cut is not None
    if on_start is not None:
        on_start(len(pending))
    if not pending:
        return summary
    target = _Target(
        base_url=base_url,
        model=model,
        concurrency=concurrency,
        max_retries=max_retries,
        timeout=timeout,
        api_key=api_key or os.environ.get("OPENAI_API_KEY") or DUMMY_API_KEY,
    )
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("a", encoding="utf-8") as handle:

        def record(line: dict[str, Any]) -> None:
            _write_line(handle, line)
            summary.sent += 1
            if is_success(line):
                summary.succeeded += 1
            else:
                summary.failures.append((line["custom_id"], _error_text(line)))
            if on_result is not None:
                on_result(line)

        asyncio.run(_send_all(pending, digests, target, record))
    return summary
