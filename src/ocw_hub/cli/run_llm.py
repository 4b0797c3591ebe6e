"""``ocw-hub run-llm``: requests sent to an OpenAI-compatible server, answers logged."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlparse

import typer

from ..errors import OCWHubError, OptionError
from ..extras import require
from ..llm.policy import CLIENT_ERRORS_TO_STOP
from ..shown import inert
from ._common import MESSAGE_LINE_CHARS, console, err_console, escape, progress
from ._reprompt import Reprompt
from .generation import (
    Choices,
    MaxTokens,
    ReasoningEffort,
    SamplingSeed,
    Stop,
    Temperature,
    TopP,
    generation_of,
)
from .options import AcceptModel, CacheDir, Config, DataDir, NoChecks, Split


def _shown(text: object) -> str:
    """Server or data text on one line of the terminal: made inert (escapes shown as
    ``\\x1b``, line breaks as ``\\n``), cut, ``rich`` markup escaped."""
    return escape(inert(text, limit=MESSAGE_LINE_CHARS))


class MaxTokensField(str, Enum):
    """The names a chat-completion body may give its token limit."""

    max_tokens = "max_tokens"
    max_completion_tokens = "max_completion_tokens"


def _check_base_url(base_url: str) -> None:
    parsed = urlparse(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise OptionError(
            f"--base-url {base_url}: expected an http(s) URL such as http://localhost:8000/v1"
        )


def _report_failed_for_good(summary: Any) -> None:
    """The requests a re-run skipped: each failed before for a reason of its own."""
    skipped = summary.failed_for_good
    if not skipped:
        return
    for custom_id, message in skipped[:5]:
        err_console.print(f"  {_shown(custom_id)}: {_shown(message)}", highlight=False)
    err_console.print(
        f"[yellow]warning:[/] {len(skipped)} requests were not sent: each failed before for a "
        "reason of its own that a new try would meet alike (above; logged in full); "
        "--retry-failed sends them again",
        highlight=False,
        soft_wrap=True,
    )


def _report_run(summary: Any, out: Path) -> None:
    _report_failed_for_good(summary)
    console.print(
        f"{summary.succeeded} of {summary.sent} requests sent were answered; "
        f"{summary.already_done} of {summary.total} were already answered in "
        f"{_shown(out)}",
        highlight=False,
        soft_wrap=True,
    )
    if len(summary.answered_by) > 1:
        shares = ", ".join(f"{url} {n}" for url, n in sorted(summary.answered_by.items()))
        console.print(f"answered by server: {_shown(shares)}", highlight=False, soft_wrap=True)
    if summary.failures:
        for custom_id, message in summary.failures[:5]:
            err_console.print(
                f"  {_shown(custom_id)}: {_shown(message)}", highlight=False, soft_wrap=True
            )
        own = summary.request_failures
        later = (
            f"; {own} of them failed for a reason of their own (e.g. a prompt too long for the "
            "model's context): a re-run sends them again only with --retry-failed"
            if own
            else ""
        )
        raise OCWHubError(
            f"{len(summary.failures)} requests failed (logged with their error); run the same "
            f"command again to send them again{later}"
        )


#: After the help: timeouts and retries.
EPILOG = f"""
Each try of a request must bring its whole answer within --timeout seconds (a deadline, not a
per-read window). A try that meets a passing fault (the connection closed before the whole
answer, the deadline passed, 408, 409, 429, 5xx) is tried again up to --max-retries times,
after 0.5 s doubling up to 8 s (less up to 25 % jitter) or the server's Retry-After, honoured
up to --timeout (a longer one is waited for --timeout seconds, and a request that then fails
says so in the log): a hung server costs at most (1 + max retries) x timeout per request. A 200
that is no usable chat completion (not JSON, no choices, an error body, a finish_reason other
than stop and length, content that is not text, a model other than --model, a dated snapshot
of it or an --accept-model name) and a 4xx (400, 401, 403, 404, 422) are logged as failures at
once, and
{CLIENT_ERRORS_TO_STOP} such 4xx in a row stop the run. A 4xx about one request alone (its prompt
too long for the model's context, or refused by a content policy: Azure's content_filter,
OpenAI's invalid_prompt) is that request's failure: it never stops the run, and a re-run does
not send it again unless --retry-failed. A server that refuses the connection is
left alone for the same backoff while the others take its requests; after 1 + --max-retries
refusals in a row it is given up, and when every server is, the run stops. Other failed
requests are logged with their error and sent again by a re-run.
"""


def _report_switch(summary: Any) -> None:
    if summary.switched_max_tokens_field:
        err_console.print(
            f"[yellow]note:[/] the server asked for {summary.max_tokens_field}: the token "
            "limit was sent under that name (recorded in the log's lines)",
            highlight=False,
            soft_wrap=True,
        )


def _server_failure(err: Any, out: Path) -> OptionError:
    """The error that ends a run whose servers failed, naming the option at fault."""
    if err.status_code == 404:
        option, value = "--model", err.model
    elif err.status_code in (401, 403):
        option, value = "OPENAI_API_KEY for --base-url", err.base_url
    else:
        option, value = "--base-url", err.base_url
    kept = f"answers so far are kept in {out}" if out.exists() else f"{out} not written"
    return OptionError(f"{option} {value}: {inert(err.reason)} ({kept})")  # one line


def _profile_of(profile: str | None, options: dict[str, Any]) -> Any:
    """The ``Generation`` that replaces the requests' fields, or None (send them as written).

    Raises:
        OptionError: a field option without --profile.
        GenerationProfileError: options the profile does not take.
    """
    from ..llm.profiles import OPTIONS

    if profile is not None:
        return generation_of(profile, **options)
    given = next((k for k, v in options.items() if v is not None), None)
    if given is not None:
        raise OptionError(f"{OPTIONS[given]}: give --profile custom or reasoning with it")
    return None


def _write_record(
    out: Path,
    requests: Path,
    model: str,
    sent: dict[str, Any],
    price: tuple[float, float] | None,
) -> None:
    """The log's protocol record: the requests' own, the model asked and the one that
    answered, the generation fields sent and the run's usage (:mod:`ocw_hub.llm.usage`)."""
    from ..llm.client import answered_models
    from ..llm.usage import log_usage
    from ..provenance import write_protocol

    answered = answered_models(out)  # a snapshot's name (gpt-4o-2024-08-06), if named
    shown = ", ".join(answered) if answered and answered != [model] else None
    fields = {"model": model, "answered_model": shown, **sent, "usage": log_usage(out, price)}
    write_protocol(out, fields, inputs=[requests])


def _accepted_before(out: Path) -> list[str]:
    """The ``accepted_models`` of the record of a log being resumed (the names its answers
    were accepted under), else ``[]``: also none from a record that no longer describes the
    log (a run killed before writing it), whose answers ``parse`` then judges by the model
    alone."""
    from ..provenance import ProvenanceError, read_protocol, record_path

    if not (out.is_file() and record_path(out).is_file()):
        return []
    try:
        record = read_protocol(out) or {}
    except ProvenanceError:  # ProtocolMismatchError too
        return []
    names = record.get("accepted_models")
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _generation_record(
    loaded: list[dict[str, Any]],
    model: str,
    generation: Any,
    field: str | None,
) -> dict[str, Any]:
    """The protocol fields of what was sent: the profile (when --profile replaced the
    requests' own) and the generation fields of the bodies as sent (a stop string as a list,
    the token limit under the name sent)."""
    from ..llm.client import sent_body
    from ..llm.profiles import common_fields

    bodies = [sent_body(r, model, field) for r in loaded]
    record: dict[str, Any] = {"generation": common_fields(bodies)}
    if generation is not None:
        record["profile"] = generation.profile
    return record


def run_llm(
    requests: Annotated[Path, typer.Argument(help="Requests JSONL (written by ocw-hub prompts).")],
    base_url: Annotated[
        list[str],
        typer.Option(
            "--base-url",
            help="OpenAI-compatible API root: http://localhost:8000/v1 (vLLM), "
            "http://localhost:8080/v1 (llama.cpp), https://api.openai.com/v1. Repeat it for "
            "several servers of one model (one per GPU node): the requests are spread over "
            "them, and a server that goes away leaves its requests to the others.",
        ),
    ],
    model: Annotated[str, typer.Option("--model", help="Model name sent in every request.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Response log JSONL: created at the first answer, or resumed when it exists; "
            "one run at a time.",
        ),
    ],
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Requests in flight on each server.")
    ] = 4,
    max_retries: Annotated[
        int,
        typer.Option(
            "--max-retries",
            min=0,
            help="Tries after the first of a request that met a passing fault (connection "
            "closed, deadline, 408, 409, 429, 5xx), with exponential backoff; also refusals in "
            "a row, plus one, before a server is given up. See below.",
        ),
    ] = 5,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", min=1.0, help="Seconds within which the whole answer of a try arrives."
        ),
    ] = 600.0,
    max_tokens_field: Annotated[
        MaxTokensField | None,
        typer.Option(
            "--max-tokens-field",
            help="Send the token limit as max_tokens or max_completion_tokens (newer OpenAI "
            "models accept only the latter). Default: as the requests name it, switched when "
            "the server answers 400 asking for the other name.",
        ),
    ] = None,
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed",
            help="Also send again the requests whose last try failed for a reason of their "
            "own (a prompt too long for the model's context): by default a re-run skips them.",
        ),
    ] = False,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            help="Replace the generation fields of every request: reasoning "
            "(max_completion_tokens = --max-tokens, --reasoning-effort; no temperature, top_p, "
            "n or stop) or custom (exactly the fields given). Default: the requests' own "
            "(written by prompts --profile). A stop string is always sent as a list.",
        ),
    ] = None,
    max_tokens: MaxTokens = None,
    reasoning_effort: ReasoningEffort = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    stop: Stop = None,
    sampling_seed: SamplingSeed = None,
    n: Choices = None,
    price_per_mtok: Annotated[
        str | None,
        typer.Option(
            "--price-per-mtok",
            metavar="IN,OUT",
            help="Price per million prompt and completion tokens (e.g. 2.5,10): the run's "
            "cost is recorded with its token counts and latency, and evaluate shows the cost "
            "per solved wall.",
        ),
    ] = None,
    reprompt: Reprompt = 0,
    accept_model: AcceptModel = None,
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Send the requests to OpenAI-compatible servers; append each answer to the log.

    The key comes from OPENAI_API_KEY (a dummy for local servers when unset). A re-run with
    the same --out sends only the requests the log has no answer to. The protocol record
    beside the log holds the generation fields sent and the run's usage: requests, tokens
    (as the servers report them), latency percentiles and, with --price-per-mtok, the cost.
    """
    from ..llm.client import LLMServerError, read_requests, run_requests
    from ..llm.usage import parse_price
    from ..outputs import check_output_file
    from ._reprompt import check_reprompted, reprompt_fields, reprompt_setup, send_reprompts

    options = {
        "max_tokens": max_tokens,
        "reasoning_effort": reasoning_effort,
        "temperature": temperature,
        "top_p": top_p,
        "stop": stop,
        "seed": sampling_seed,
        "n": n,
    }
    generation = _profile_of(profile, options)
    accepted = sorted(set(accept_model or []))
    price = None if price_per_mtok is None else parse_price(price_per_mtok)
    for url in base_url:
        _check_base_url(url)
    if len(set(base_url)) != len(base_url):
        raise OptionError(f"--base-url: a server is given twice ({', '.join(base_url)})")
    require("llm", "run-llm")
    out = check_output_file(out, inputs=[requests])
    recorded = sorted(set(accepted) | set(_accepted_before(out)))
    loaded = read_requests(requests)
    parsing = reprompt_setup(requests, out, reprompt, config, split, data_dir, cache_dir, no_checks)
    if generation is not None:
        from ..llm.profiles import with_generation

        loaded = [with_generation(r, generation) for r in loaded]
    server_error: LLMServerError | None = None
    summary: Any = None
    reprompted: Any = None
    with progress() as bar:
        state: dict[str, Any] = {}

        def on_start(total: int) -> None:
            state["task"] = bar.add_task("run-llm", total=total)

        def on_result(_line: dict[str, Any]) -> None:
            bar.advance(state["task"])

        try:
            summary = run_requests(
                loaded,
                out,
                base_url=base_url,
                model=model,
                concurrency=concurrency,
                max_retries=max_retries,
                timeout=timeout,
                max_tokens_field=None if max_tokens_field is None else max_tokens_field.value,
                on_start=on_start,
                on_result=on_result,
                retry_failed=retry_failed,
                accept_models=accepted,
            )
            send = {
                "base_url": base_url,
                "model": model,
                "concurrency": concurrency,
                "max_retries": max_retries,
                "timeout": timeout,
                "max_tokens_field": summary.max_tokens_field,
                "auto_field": max_tokens_field is None,
            }
            reprompted = send_reprompts(loaded, out, parsing, reprompt, send)
        except LLMServerError as err:
            server_error = err
        finally:  # Ctrl-C too: the record always describes the log as it now is
            if out.exists():  # a run that answered nothing leaves no file, nor a record
                sent_field = None if max_tokens_field is None else max_tokens_field.value
                if sent_field is None and summary is not None:  # switched on a server's 400
                    sent_field = summary.max_tokens_field
                sent = _generation_record(loaded, model, generation, sent_field)
                sent.update(reprompt_fields(reprompt))
                if recorded:  # a resumed log's answers stay accepted as they were
                    sent["accepted_models"] = recorded
                _write_record(out, requests, model, sent, price)
    if server_error is not None:
        raise _server_failure(server_error, out) from server_error
    _report_switch(summary)
    _report_run(summary, out)
    check_reprompted(reprompted)
