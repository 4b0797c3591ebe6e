"""One chat-completion request sent once to one OpenAI-compatible server, and what came of it.

The ``openai`` client (``AsyncOpenAI``, its own retries off) does the HTTP; the whole answer
must arrive within the deadline (``asyncio.wait_for``: a server trickling its body byte by byte
is cut there too, not only a silent one). :func:`attempt` sorts every result into one
:class:`Outcome` kind; :mod:`ocw_hub.llm.client` decides what to do with it.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import re
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from .answer_text import completion_problem, error_message

#: The answer is a chat completion (status 200, a JSON object with a non-empty ``choices``)
#: that ended with ``stop`` or ``length`` (or states no ``finish_reason``), whose content is
#: text, from the model asked (:func:`same_model`).
ANSWERED = "answered"
#: The request failed and sending it again now would fail alike (a 200 whose body is no
#: chat completion: not JSON, not an object, ``{"choices": []}``, an ``error`` body), or is
#: no usable answer: ended by another ``finish_reason`` (``abort``, ``error``,
#: ``content_filter``, ...), a content that is not text, answered by another model.
FAILED = "failed"
#: A passing fault: the connection closed before the whole answer, the deadline passed,
#: 408, 409, 429 or 5xx.
RETRY = "retry"
#: The server could not be reached at all (connection refused, no route, connect timeout).
REFUSED = "refused"
#: A deterministic client error (400, 401, 403, 404, 422 and other 4xx): never retried.
CLIENT_ERROR = "client_error"
#: A 400 asking for the token limit under its other name (``max_completion_tokens``).
WRONG_FIELD = "wrong_field"
#: The longest answer body kept (characters): written as JSON, escaped (``\\uXXXX``, 12
#: bytes for a character outside the BMP), its log line stays under the readers' cap
#: (``log.MAX_LINE_BYTES``, 64 MiB). A longer one is that request's failure.
MAX_ANSWER_CHARS = 4 * 2**20
#: A deterministic 4xx about this request alone (its prompt too long for the model's
#: context, or refused by a content policy: :func:`request_specific`): that request's
#: failure, which says nothing of the others (never counted toward stopping the run) and which
#: a re-run does not send again unless asked. Its logged error has ``"scope": "request"``.
REQUEST_FAILED = "request_failed"
#: The statuses a request-specific error comes with (TGI answers 422, some proxies 413).
REQUEST_SPECIFIC_STATUSES = (400, 413, 422)
#: Error codes about the request alone: OpenAI's and LiteLLM's context length, a string over
#: its limit, OpenAI's flagged prompt (``invalid_prompt``), Azure OpenAI's content filter
#: (``content_filter``, inner ``ResponsibleAIPolicyViolation``), ``content_policy_violation``.
REQUEST_CODES = frozenset(
    {"context_length_exceeded", "string_above_max_length", "invalid_prompt", "content_filter"}
    | {"content_policy_violation", "ResponsibleAIPolicyViolation"}
)
#: Error codes about the run: the model, the key, a field every request carries.
RUN_CODES = frozenset(
    {"model_not_found", "invalid_api_key", "unsupported_parameter", "unsupported_value"}
    | {"unknown_parameter", "invalid_request_parameter", "DeploymentNotFound"}
)
#: How servers say a request is too long for the model's context (vLLM's, SGLang's, TGI's,
#: llama.cpp's, Ollama's and Anthropic's messages) or was refused by a content policy
#: (Azure's "content management policy", OpenAI's "flagged as potentially violating").
REQUEST_SPECIFIC = re.compile(
    r"context[ _-]?(length|window|size)|maximum model length|max_model_len|"
    r"prompt is too long|longer than the (maximum|model)|"
    r"tokens \+ `?max_new_tokens`? must be|exceeds? (the )?available context|"
    r"content (management )?polic|content[ _]filter|flagged as potentially violating",
    re.IGNORECASE,
)
#: Broader wordings, about the request only when the message names no run-level thing
#: (:data:`RUN_LEVEL`): ``max_tokens ... exceeds the limit`` is about every request.
REQUEST_SPECIFIC_BROAD = re.compile(
    r"is too long|too many tokens|exceeds? (the )?(limit|maximum)", re.IGNORECASE
)
#: What a run-level error names: the model, the key, a generation field sent in every request.
RUN_LEVEL = re.compile(
    r"\bmodel\b|api[ _-]?key|deployment|max_(completion_|new_)?tokens|max_output_tokens|"
    r"temperature|top_p|\bstop\b|\bseed\b|\bn\b|reasoning_effort|parameter|argument|field",
    re.IGNORECASE,
)

#: 4xx statuses that are passing faults (request timeout, conflict, rate limit).
RETRIED_4XX = (408, 409, 429)
#: Backoff between tries of one request: the first wait, its cap. A server's Retry-After is
#: honoured up to the deadline of a try (``--timeout``, :func:`retry_wait`).
INITIAL_BACKOFF, MAX_BACKOFF = 0.5, 8.0
_CONNECT_ERRORS = ("ConnectError", "ConnectTimeout", "ConnectionRefusedError")


@dataclass(frozen=True)
class Outcome:
    """What one try of a request came to.

    Attributes:
        kind: one of the module's kinds (:data:`ANSWERED`, :data:`FAILED`, ...).
        status_code: the HTTP status, None when no answer came.
        body: the answer's JSON (its text when it is not JSON), None without one.
        error: ``{"code", "message"}`` for anything but :data:`ANSWERED`.
        retry_after: seconds the server asked to wait (``Retry-After``), else None.
    """

    kind: str
    status_code: int | None = None
    body: Any = None
    error: dict[str, str] | None = None
    retry_after: float | None = None


def make_client(base_url: str, api_key: str, timeout: float) -> Any:
    """An ``AsyncOpenAI`` client for ``base_url`` that never retries by itself."""
    from openai import AsyncOpenAI

    return AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout)


def backoff(tries: int) -> float:
    """Seconds to wait before try ``tries + 1`` (``tries`` >= 1): 0.5 s doubling up to 8 s,
    less up to 25 % of random jitter (the ``openai`` client's schedule)."""
    return min(INITIAL_BACKOFF * 2.0 ** (tries - 1), MAX_BACKOFF) * (1 - 0.25 * random.random())


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait a server asked for (``retry-after-ms``, or ``Retry-After`` in seconds or as an
    HTTP date), if any and not negative (any length: :func:`retry_wait` bounds it)."""
    value: float | None = None
    try:
        if "retry-after-ms" in headers:
            value = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" in headers:
            text = headers["retry-after"]
            try:
                value = float(text)
            except ValueError:
                when = email.utils.parsedate_to_datetime(text)
                value = when.timestamp() - time.time()
    except (TypeError, ValueError, OverflowError):
        return None
    return value if value is not None and 0 <= value < float("inf") else None


def retry_wait(asked: float | None, tries: int, deadline: float) -> tuple[float, str | None]:
    """Seconds to wait before try ``tries + 1`` and, when the server's wait was cut, why:
    the server's Retry-After (``asked``) honoured up to ``deadline`` (the deadline of one try,
    ``--timeout``: a server asking for more is waited for that long, and the request's
    failure, if it fails, says so), else :func:`backoff`."""
    if asked is None:
        return backoff(tries), None
    if asked <= deadline:
        return asked, None
    return deadline, (
        f"the server asked to wait {asked:g} s (Retry-After); waited {deadline:g} s, the "
        "deadline of a try (--timeout)"
    )


def _cannot_connect(err: BaseException) -> BaseException | None:
    """The connect error in ``err``'s chain of causes, if the server was never reached."""
    seen: BaseException | None = err
    for _ in range(8):
        if seen is None:
            return None
        if type(seen).__name__ in _CONNECT_ERRORS:
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _server_message(err: Any) -> str:
    """The server's own error message (:func:`error_message` of the answer's JSON; the
    ``openai`` client keeps only ``body["error"]``, a bare string for TGI), else the client's
    (``Error code: 400``)."""
    body = _response_json(err.response)
    if isinstance(body, str) and body.strip():
        return body.strip()[:2000]
    return error_message(body) or error_message(err.body) or str(err.message)


def _response_json(response: Any) -> Any:
    """The body of an HTTP answer: JSON when it is, else its text."""
    try:
        return response.json()
    except ValueError:
        return response.text


def _status_outcome(err: Any, body: Mapping[str, Any]) -> Outcome:
    """The outcome of an HTTP error status (4xx or 5xx)."""
    status, message = err.status_code, _server_message(err)
    kind = RETRY if status >= 500 or status in RETRIED_4XX else CLIENT_ERROR
    answer = _response_json(err.response)
    error = {"code": str(status), "message": message}
    if status == 400 and _asks_other_field(message, body):
        kind = WRONG_FIELD
    elif status in REQUEST_SPECIFIC_STATUSES and request_specific(message, answer):
        kind, error["scope"] = REQUEST_FAILED, "request"
    return Outcome(
        kind,
        status,
        answer,
        error,
        retry_after(err.response.headers) if kind == RETRY else None,
    )


def _error_codes(answer: Any) -> set[str]:
    """The ``code`` and inner code (Azure's ``innererror.code``) of an error body."""
    inner = answer.get("error") if isinstance(answer, dict) else None
    if not isinstance(inner, dict):
        return set()
    deeper = inner.get("innererror")
    codes = {inner.get("code"), deeper.get("code") if isinstance(deeper, dict) else None}
    return {c for c in codes if isinstance(c, str)}


def request_specific(message: str, answer: Any = None) -> bool:
    """Whether a 4xx says the request itself cannot be served: its error code
    (:data:`REQUEST_CODES`, unless one of :data:`RUN_CODES`), else its message
    (:data:`REQUEST_SPECIFIC`, or :data:`REQUEST_SPECIFIC_BROAD` naming nothing of
    :data:`RUN_LEVEL`)."""
    codes = _error_codes(answer)
    if codes & RUN_CODES:
        return False
    if codes & REQUEST_CODES or REQUEST_SPECIFIC.search(message):
        return True
    return REQUEST_SPECIFIC_BROAD.search(message) is not None and not RUN_LEVEL.search(message)


def _asks_other_field(message: str, body: Mapping[str, Any]) -> bool:
    """Whether a 400's message names the token-limit field sent and the other name."""
    pairs = (("max_tokens", "max_completion_tokens"), ("max_completion_tokens", "max_tokens"))
    return any(sent in body and sent in message and other in message for sent, other in pairs)


_SNAPSHOT = re.compile(r"-\d{4}(?:-\d{2}-\d{2})?|:latest")


def same_model(asked: str, answered: Any, accepted: Collection[str] = ()) -> bool:
    """Whether a completion's ``model`` is the model asked: the same name, a dated snapshot of
    it (OpenAI answers ``gpt-4o`` as ``gpt-4o-2024-08-06``, ``gpt-4`` as ``gpt-4-0613``), its
    default tag (Ollama's ``:latest``), or a name the user accepted for it (``accepted``:
    ``--accept-model``, for a ``--model`` that is an alias: TGI answers as ``tgi``, an Azure
    deployment or a LiteLLM alias as the model behind it); a completion that names no model
    is taken as the one asked."""
    if answered is None or answered == asked or answered in accepted:
        return True
    if not isinstance(answered, str) or not answered.startswith(asked):
        return False
    return _SNAPSHOT.fullmatch(answered[len(asked) :]) is not None


def completion_outcome(
    status: int, text: str, model: str | None = None, accepted: Collection[str] = ()
) -> Outcome:
    """The outcome of a 2xx answer with body ``text`` to a request for ``model`` (or a model
    named in ``accepted``, :func:`same_model`): a usable chat completion, or why it is not
    (see :data:`ANSWERED`)."""
    if len(text) > MAX_ANSWER_CHARS:  # its log line could pass the readers' cap: not kept
        message = f"the answer is {len(text):,} characters, over {MAX_ANSWER_CHARS:,}: not logged"
        error = {"code": "answer_too_long", "message": message, "scope": "request"}
        return Outcome(REQUEST_FAILED, status, None, error)
    try:
        data = json.loads(text)
    except ValueError:
        message = f"the answer is not JSON: {text[:200]!r}"
        return Outcome(FAILED, status, text, {"code": "invalid_json", "message": message})
    problem = completion_problem(data)
    answered = data.get("model") if isinstance(data, dict) else None
    if problem is None and model is not None and not same_model(model, answered, accepted):
        problem = "other_model", f"answered by model {answered!r}, not the model asked {model!r}"
    if problem is None:
        return Outcome(ANSWERED, status, data)
    return Outcome(FAILED, status, data, {"code": problem[0], "message": problem[1]})


async def attempt(
    client: Any, body: Mapping[str, Any], deadline: float, accepted: Collection[str] = ()
) -> Outcome:
    """Send the chat-completion ``body`` (its model included) once; the whole answer must
    arrive within ``deadline`` seconds, from that model or one of ``accepted``."""
    import openai

    rest = dict(body)
    model, messages = rest.pop("model"), rest.pop("messages")
    call = client.chat.completions.with_raw_response.create(
        model=model, messages=messages, extra_body=rest
    )
    try:
        raw = await asyncio.wait_for(call, deadline)
    except asyncio.TimeoutError:
        return _timeout(deadline)
    except openai.APIStatusError as err:
        return _status_outcome(err, body)
    except openai.APIConnectionError as err:  # APITimeoutError included
        return _connection_outcome(err, deadline)
    return completion_outcome(raw.status_code, raw.text, model, accepted)


def _timeout(deadline: float) -> Outcome:
    message = f"no whole answer within the deadline ({deadline:g} s)"
    return Outcome(RETRY, error={"code": "timeout", "message": message})


def _connection_outcome(err: Exception, deadline: float) -> Outcome:
    """The outcome of a transport error: never connected, timed out, or cut off."""
    import openai

    cause = _cannot_connect(err)
    if cause is not None:
        message = f"cannot connect ({type(cause).__name__}: {cause})"
        return Outcome(REFUSED, error={"code": "cannot_connect", "message": message})
    if isinstance(err, openai.APITimeoutError):
        return _timeout(deadline)
    cause = err.__cause__ or err
    message = f"the connection closed before the whole answer ({type(cause).__name__}: {cause})"
    return Outcome(RETRY, error={"code": "connection_closed", "message": message})
