"""Sending chat-completion requests to OpenAI-compatible servers (``ocw-hub run-llm``).

The requests file and the response log are described in :mod:`ocw_hub.llm.log`; one try of
one request in :mod:`ocw_hub.llm.transport`. This module spreads the requests over one or
more servers (one per vLLM, TGI or llama.cpp server), at most ``concurrency`` in flight on
each, and decides what each outcome means:

* an answer (status 200, a chat completion) is logged; a re-run does not send it again;
* a passing fault (the connection closed before the whole answer, no whole answer within the
  deadline, 408, 409, 429, 5xx) is tried again up to ``max_retries`` times, after 0.5 s
  doubling up to 8 s (less up to 25 % jitter) or the server's ``Retry-After`` (however long,
  up to ``timeout`` seconds: a longer one is cut to ``timeout``); then it is logged as a
  failure;
* a 200 that is no chat completion (not JSON, not an object, no ``choices``, an ``error``
  body) and a deterministic 4xx (400, 401, 403, 404, 422, ...) are logged as failures at once;
  after :data:`CLIENT_ERRORS_TO_STOP` 4xx in a row the run stops: the key, the model or the
  request is wrong for every request;
* a 4xx about one request alone (its prompt too long for the model's context:
  :data:`~.transport.REQUEST_FAILED`) is that request's failure, logged with the server's
  reason and ``"scope": "request"``; it does not count toward stopping the run, and a re-run
  does not send it again unless ``retry_failed`` (it would fail alike, and a run that sent the
  same failing requests first each time could never get past them);
* a server's ``Retry-After`` is honoured up to the deadline of a try (``timeout``); a longer
  one is waited for that long, and said in the request's failure if it fails;
* a 400 asking for ``max_completion_tokens`` instead of ``max_tokens`` switches the name for
  that request and every later one (recorded in each line sent so; see
  :func:`~ocw_hub.llm.log.renamed_field`), unless the name was given;
* a server that cannot be reached (connection refused) is marked down for the same backoff
  (0.5 s doubling up to 8 s) while the others take its requests, the refused one included;
  after 1 + ``max_retries`` refusals in a row it is given up, and when every server is given up
  the run stops (:class:`LLMServerError`).

A failed request is logged with its error and sent again by a re-run (but a request-specific
one, see above); lines logged before a stop stay in the log. One log is written by one run at a time
(:func:`~ocw_hub.llm.log.exclusive_log`), and it is created only when the first line is
written. The key comes from ``OPENAI_API_KEY``; local servers get a dummy key when it is unset.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import OCWHubError
from . import transport
from .log import (
    ACCEPTED_URLS,
    MAX_TOKENS_FIELDS,
    LLMInputError,
    LogWriter,
    body_digest,
    check_log_matches,
    exclusive_log,
    is_success,
    json_records,
    logged_field,
    output_line,
    partial_tail,
    read_log,
    read_requests,
    renamed_field,
    sent_body,
)
from .policy import CLIENT_ERRORS_TO_STOP

__all__ = [
    "ACCEPTED_URLS",
    "CLIENT_ERRORS_TO_STOP",
    "DUMMY_API_KEY",
    "MAX_TOKENS_FIELDS",
    "LLMInputError",
    "LLMServerError",
    "RunSummary",
    "answered_models",
    "body_digest",
    "failed_for_good",
    "is_success",
    "output_line",
    "partial_tail",
    "read_log",
    "read_requests",
    "run_requests",
    "send_batch",
    "sent_body",
]

#: Key sent to local servers when ``OPENAI_API_KEY`` is unset (they ignore it).
DUMMY_API_KEY = "sk-no-key-required"


class LLMServerError(OCWHubError, ConnectionError):
    """The servers cannot be used: none can be reached, or they answered deterministic 4xx
    (a refused key, an unknown model, a malformed request) to several requests in a row.
    Responses logged before the error are kept.

    Attributes:
        base_url: the server's base URL as given (every server's, comma-separated, when none
            can be reached).
        model: the model name sent.
        reason: what went wrong, without the URL (``cannot connect (ConnectError: ...)``,
            ``the server answered 404 for model 'x': ...``).
        status_code: the HTTP status, or None when no server could be reached.
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
        sent: requests of this run that were logged (answered or failed).
        succeeded: of those, answered with status 200.
        failures: ``(custom_id, message)`` of the requests of this run that failed.
        dropped_partial_line: whether a last log line cut short by a crash was dropped.
        answered_by: answers per server base URL.
        max_tokens_field: the token-limit name sent last when it was not the requests' own
            (switched on a server's 400, given, or taken from the log), else None.
        switched_max_tokens_field: whether a server's 400 made this run switch it.
        failed_for_good: ``(custom_id, message)`` of the requests not sent because their last
            line in the log is a request-specific failure (without ``retry_failed``).
        request_failures: of ``failures``, those about their request alone
            (:func:`is_request_failure`): a re-run sends them only with ``retry_failed``.
    """

    total: int
    already_done: int
    sent: int = 0
    succeeded: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    dropped_partial_line: bool = False
    answered_by: Counter[str] = field(default_factory=Counter)
    max_tokens_field: str | None = None
    switched_max_tokens_field: bool = False
    failed_for_good: list[tuple[str, str]] = field(default_factory=list)
    request_failures: int = 0


@dataclass
class _Server:
    """One server and what is known of it."""

    base_url: str
    client: Any
    refused: int = 0  # connection refusals in a row
    down_until: float = 0.0  # event-loop time
    given_up: bool = False
    reason: str = ""


@dataclass
class _Job:
    request: Mapping[str, Any]
    tries: int = 0  # failed tries so far (passing faults)
    waited: str | None = None  # why a server's Retry-After was not waited for in full


@dataclass(frozen=True)
class _Settings:
    model: str
    max_retries: int
    timeout: float
    max_tokens_field: str | None  # the name to send under, None: as written
    auto_field: bool  # switch on a server's 400
    accepted: tuple[str, ...] = ()  # other names the model may answer as (--accept-model)


class _Run:
    """The requests in flight over several servers (see the module docstring)."""

    def __init__(
        self,
        pending: Sequence[Mapping[str, Any]],
        servers: list[_Server],
        settings: _Settings,
        record: Callable[[dict[str, Any], str], None],
    ) -> None:
        self.servers, self.settings, self.record = servers, settings, record
        self.queue: asyncio.Queue[_Job] = asyncio.Queue()
        for request in pending:
            self.queue.put_nowait(_Job(request))
        self.left = len(pending)
        self.field = settings.max_tokens_field
        self.switched = False
        self.client_errors = 0
        self.finished = asyncio.Event()
        self.error: BaseException | None = None

    def _stop(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error
        self.finished.set()

    async def worker(self, server: _Server) -> None:
        """Take requests for ``server`` while it is not given up and the run goes on; wait while
        it is down. The run's end is checked too, not only the cancellation: on Python 3.11
        ``asyncio.wait_for`` can swallow a cancellation that arrives as its answer does."""
        loop = asyncio.get_running_loop()
        try:
            while not server.given_up and not self.finished.is_set():
                wait = server.down_until - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                job = await self.queue.get()
                await self._send(server, job)
        except asyncio.CancelledError:
            raise
        except BaseException as err:  # a bug or a full disk: the run stops with it
            self._stop(err)

    async def _send(self, server: _Server, job: _Job) -> None:
        settings, used = self.settings, self.field
        body = sent_body(job.request, settings.model, used)
        started = asyncio.get_running_loop().time()
        outcome = await transport.attempt(server.client, body, settings.timeout, settings.accepted)
        latency = asyncio.get_running_loop().time() - started
        if outcome.kind == transport.REFUSED:
            self._refused(server, outcome)
            self.queue.put_nowait(job)
            return
        server.refused = 0
        wrong_field = outcome.kind == transport.WRONG_FIELD and settings.auto_field
        if wrong_field and self._switch_field(used, body):
            self.queue.put_nowait(job)
            return
        if outcome.kind == transport.RETRY and job.tries < settings.max_retries:
            job.tries += 1
            wait, cut = transport.retry_wait(outcome.retry_after, job.tries, settings.timeout)
            job.waited = cut or job.waited
            await asyncio.sleep(wait)
            self.queue.put_nowait(job)
            return
        self._finish(server, job, outcome, used, latency)

    def _switch_field(self, used: str | None, body: Mapping[str, Any]) -> bool:
        """Send the token limit under its other name from now on; False when this run
        already switched once and the server refuses the new name too."""
        if self.field != used:  # another request in flight switched it already
            return True
        if self.switched:
            return False
        sent = next(name for name in MAX_TOKENS_FIELDS if name in body)
        self.field = next(name for name in MAX_TOKENS_FIELDS if name != sent)
        self.switched = True
        return True

    def _refused(self, server: _Server, outcome: transport.Outcome) -> None:
        """Mark ``server`` down (once for the tries in flight together), or give it up."""
        now = asyncio.get_running_loop().time()
        if server.given_up or server.down_until > now:
            return
        server.refused += 1
        server.reason = (outcome.error or {}).get("message", "cannot connect")
        if server.refused <= self.settings.max_retries:
            server.down_until = now + transport.backoff(server.refused)
            return
        server.given_up = True
        if all(s.given_up for s in self.servers):
            self._stop(self._unreachable(server))

    def _unreachable(self, last: _Server) -> LLMServerError:
        urls = [s.base_url for s in self.servers]
        reason = last.reason
        if len(urls) > 1:
            reason = f"none of the {len(urls)} servers can be reached; last: {reason}"
        return LLMServerError(reason, base_url=", ".join(urls), model=self.settings.model)

    def _finish(
        self,
        server: _Server,
        job: _Job,
        outcome: transport.Outcome,
        used: str | None,
        latency: float | None = None,
    ) -> None:
        """Log the request's outcome (with the seconds its last try took); stop after too
        many client errors in a row."""
        request = job.request
        error = outcome.error
        if error is not None and job.waited is not None:
            error = {**error, "message": f"{error.get('message', '')} ({job.waited})"}
        line = output_line(
            request["custom_id"],
            status_code=outcome.status_code,
            body=outcome.body,
            error=error,
            digest=body_digest(sent_body(request, self.settings.model, used)),
            max_tokens_field=renamed_field(request, used),
            latency_s=latency,
        )
        self.record(line, server.base_url)
        self.left -= 1
        if outcome.kind == transport.ANSWERED:
            self.client_errors = 0
        elif outcome.kind in (transport.CLIENT_ERROR, transport.WRONG_FIELD):
            self.client_errors += 1
            if self.client_errors >= CLIENT_ERRORS_TO_STOP:
                self._stop(self._client_error(server, outcome))
        if self.left == 0:
            self.finished.set()

    def _client_error(self, server: _Server, outcome: transport.Outcome) -> LLMServerError:
        message = (outcome.error or {}).get("message", "")
        reason = (
            f"the server answered {outcome.status_code} for model {self.settings.model!r} to "
            f"{self.client_errors} requests in a row: {message}"
        )
        return LLMServerError(
            reason,
            base_url=server.base_url,
            model=self.settings.model,
            status_code=outcome.status_code,
        )

    async def run(self, concurrency: int) -> None:
        """Send every request; raise what stopped the run, if anything did."""
        workers = [
            asyncio.create_task(self.worker(server))
            for server in self.servers
            for _ in range(concurrency)
        ]
        try:
            await self.finished.wait()
        finally:
            while pending := [task for task in workers if not task.done()]:
                for task in pending:  # again while one swallowed its cancellation
                    task.cancel()
                await asyncio.wait(pending, timeout=1)
            for server in self.servers:
                await server.client.close()
        if self.error is not None:
            raise self.error


def answered_models(log_path: str | os.PathLike[str]) -> list[str]:
    """The model names the answers of a response log were given by (their completions'
    ``model``, sorted; answers that name none left out). :func:`run_requests` logs only answers
    of the model asked or of a dated snapshot of it (:func:`~.transport.same_model`): these
    names say which snapshot answered."""
    names = set()
    for line in read_log(log_path).values():
        body = line["response"].get("body")
        if isinstance(body, dict) and isinstance(body.get("model"), str):
            names.add(body["model"])
    return sorted(names)


def failed_for_good(log_path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The requests of a response log whose last line is a request-specific failure
    (``error.scope == "request"``, :data:`~.transport.REQUEST_FAILED`): ``{custom_id: line}``.
    A missing log has none."""
    path = Path(log_path)
    if not path.exists():
        return {}
    import warnings

    last: dict[str, dict[str, Any]] = {}
    with warnings.catch_warnings():  # a cut last line: read_log has warned of it already
        warnings.simplefilter("ignore")
        for _number, record in json_records(path, LLMInputError):
            if isinstance(record.get("custom_id"), str):
                last[record["custom_id"]] = record
    return {cid: line for cid, line in last.items() if is_request_failure(line)}


def is_request_failure(line: Mapping[str, Any]) -> bool:
    """Whether a log line is a request-specific failure (``error.scope == "request"``,
    :data:`~.transport.REQUEST_FAILED`)."""
    error = line.get("error")
    return isinstance(error, dict) and error.get("scope") == "request"


def _check_arguments(
    base_urls: Sequence[str], concurrency: int, max_retries: int, max_tokens_field: str | None
) -> None:
    if not base_urls or concurrency < 1 or max_retries < 0:
        raise ValueError("give a base_url; concurrency must be >= 1 and max_retries >= 0")
    if len(set(base_urls)) != len(base_urls):
        raise ValueError(f"a base_url is given twice: {list(base_urls)}")
    if max_tokens_field not in (None, *MAX_TOKENS_FIELDS):
        raise ValueError(f"max_tokens_field: expected one of {MAX_TOKENS_FIELDS}")


def run_requests(
    requests: Sequence[Mapping[str, Any]],
    log_path: str | os.PathLike[str],
    *,
    base_url: str | Sequence[str],
    model: str,
    concurrency: int = 4,
    max_retries: int = 5,
    timeout: float = 600.0,
    max_tokens_field: str | None = None,
    api_key: str | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    retry_failed: bool = False,
    accept_models: Sequence[str] = (),
) -> RunSummary:
    """Send the requests not yet answered in the log at ``log_path`` and append each outcome.

    Args:
        requests: as :func:`read_requests` returns them.
        log_path: the response log (created at the first line logged; resumed if present).
        base_url: the OpenAI API root of one server, e.g. ``http://localhost:8000/v1``, or of
            several: the requests are spread over them.
        model: the model name sent in every request (replaces the requests' own).
        concurrency: requests in flight at most on each server (>= 1).
        max_retries: tries after the first of a request that met a passing fault (see the
            module docstring); a server is given up after 1 + ``max_retries`` refusals in a row.
        timeout: seconds within which the whole answer of one try must arrive.
        max_tokens_field: send the token limit as ``max_tokens`` or ``max_completion_tokens``;
            None sends it as the requests name it (or as the log's answers were sent) and
            switches on a server's 400 asking for the other name.
        api_key: the key; default ``OPENAI_API_KEY``, else a dummy for local servers.
        on_result: called with each logged line, as it is written (a progress bar).
        on_start: called once with the number of requests to send.
        retry_failed: send again the requests whose last line is a request-specific failure
            (:func:`failed_for_good`); by default they are not sent and are listed in the
            summary's ``failed_for_good``.
        accept_models: other model names an answer may name and count as the model's
            (``--accept-model``: ``model`` is an alias, :func:`~.transport.same_model`).

    Returns:
        A :class:`RunSummary`.

    Raises:
        LLMInputError: the log has a malformed line, or answers to other requests.
        OutputPathError: another run is writing the same log.
        LLMServerError: no server can be reached, or deterministic 4xx answers to several
            requests in a row; lines logged before stay in the log.
        ValueError: no ``base_url`` or one given twice, ``concurrency`` < 1,
            ``max_retries`` < 0, another ``max_tokens_field``.
    """
    base_urls = [base_url] if isinstance(base_url, str) else list(base_url)
    _check_arguments(base_urls, concurrency, max_retries, max_tokens_field)
    log_path = Path(log_path)
    with exclusive_log(log_path):
        done = read_log(log_path)
        check_log_matches(log_path, done, {r["custom_id"]: r for r in requests}, model)
        cut = partial_tail(log_path)
        if cut is not None:
            with log_path.open("r+b") as handle:
                handle.truncate(cut)
        pending = [r for r in requests if r["custom_id"] not in done]
        summary = RunSummary(total=len(requests), already_done=len(requests) - len(pending))
        if not retry_failed:
            pending = _skip_failed_for_good(pending, log_path, summary)
        summary.dropped_partial_line = cut is not None
        settings = _Settings(
            model=model,
            max_retries=max_retries,
            timeout=timeout,
            max_tokens_field=max_tokens_field or logged_field(done),
            auto_field=max_tokens_field is None,
            accepted=tuple(accept_models),
        )
        if on_start is not None:
            on_start(len(pending))
        if pending:
            key = api_key or os.environ.get("OPENAI_API_KEY") or DUMMY_API_KEY
            _send_pending(
                pending, log_path, base_urls, settings, concurrency, key, summary, on_result
            )
    return summary


def _skip_failed_for_good(
    pending: list[Mapping[str, Any]], log_path: Path, summary: RunSummary
) -> list[Mapping[str, Any]]:
    """``pending`` without the requests :func:`failed_for_good` names (listed in
    ``summary.failed_for_good``)."""
    given_up = failed_for_good(log_path)
    summary.failed_for_good = [
        (r["custom_id"], _line_message(given_up[r["custom_id"]]))
        for r in pending
        if r["custom_id"] in given_up
    ]
    return [r for r in pending if r["custom_id"] not in given_up]


def _line_message(line: Mapping[str, Any]) -> str:
    error = line.get("error") or {}
    return f"{error.get('code', '?')}: {error.get('message', '')}".strip()


def _send_pending(
    pending: Sequence[Mapping[str, Any]],
    log_path: Path,
    base_urls: Sequence[str],
    settings: _Settings,
    concurrency: int,
    api_key: str,
    summary: RunSummary,
    on_result: Callable[[dict[str, Any]], None] | None,
) -> None:
    with LogWriter(log_path) as writer:

        def record(line: dict[str, Any], base_url: str) -> None:
            writer.write(line)
            summary.sent += 1
            if is_success(line):
                summary.succeeded += 1
                summary.answered_by[base_url] += 1
            else:
                summary.failures.append((line["custom_id"], _line_message(line)))
                summary.request_failures += is_request_failure(line)
            if on_result is not None:
                on_result(line)

        async def main() -> None:
            servers = [
                _Server(url, transport.make_client(url, api_key, settings.timeout))
                for url in base_urls
            ]
            run = _Run(pending, servers, settings, record)
            try:
                await run.run(concurrency)
            finally:
                summary.max_tokens_field = run.field
                summary.switched_max_tokens_field = run.switched

        asyncio.run(main())


def send_batch(
    requests: Sequence[Mapping[str, Any]],
    *,
    base_url: str | Sequence[str],
    model: str,
    concurrency: int = 4,
    max_retries: int = 5,
    timeout: float = 600.0,
    max_tokens_field: str | None = None,
    auto_field: bool = True,
    api_key: str | None = None,
    into: dict[str, dict[str, Any]] | None = None,
    accept_models: Sequence[str] = (),
) -> tuple[dict[str, dict[str, Any]], str | None]:
    """Send each request once, as :func:`run_requests` does (the same retries, deadline,
    failover and per-server concurrency) but with no log: for a caller that keeps its own
    (``ocw-hub play``, one round of its conversations at a time).

    Returns:
        ``{custom_id: line}`` (the :func:`output_line` of each request: answered or failed),
        and the token-limit name sent last (to pass as ``max_tokens_field`` next time). The
        lines are also put in ``into`` as they come, so a caller keeps those that came before
        an error.

    Raises:
        LLMServerError, ValueError: as :func:`run_requests`.
    """
    base_urls = [base_url] if isinstance(base_url, str) else list(base_url)
    _check_arguments(base_urls, concurrency, max_retries, max_tokens_field)
    settings = _Settings(
        model, max_retries, timeout, max_tokens_field, auto_field, tuple(accept_models)
    )
    key = api_key or os.environ.get("OPENAI_API_KEY") or DUMMY_API_KEY
    lines: dict[str, dict[str, Any]] = {} if into is None else into
    used: list[str | None] = [max_tokens_field]

    def record(line: dict[str, Any], _base_url: str) -> None:
        lines[line["custom_id"]] = line

    async def main() -> None:
        servers = [_Server(url, transport.make_client(url, key, timeout)) for url in base_urls]
        run = _Run(requests, servers, settings, record)
        try:
            await run.run(concurrency)
        finally:
            used[0] = run.field

    if requests:
        asyncio.run(main())
    return lines, used[0]
