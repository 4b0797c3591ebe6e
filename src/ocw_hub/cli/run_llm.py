"""``ocw-hub run-llm``: requests sent to an OpenAI-compatible server, answers logged."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlparse

import typer
from rich.markup import escape

from ..extras import require
from . import app
from ._common import console, err_console, fail, plain_errors, progress


def _check_base_url(base_url: str) -> None:
    parsed = urlparse(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        fail(f"--base-url {base_url}: expected an http(s) URL such as http://localhost:8000/v1")


def _report_run(summary: Any, out: Path) -> None:
    if summary.dropped_partial_line:
        err_console.print(
            "[yellow]warning:[/] the last line of the log was cut short; its request was sent "
            "again",
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"{summary.succeeded} of {summary.sent} requests sent were answered; "
        f"{summary.already_done} of {summary.total} were already answered in "
        f"{escape(str(out))}",
        highlight=False,
        soft_wrap=True,
    )
    if summary.failures:
        for custom_id, message in summary.failures[:5]:
            err_console.print(
                f"  {escape(custom_id)}: {escape(message)}", highlight=False, soft_wrap=True
            )
        fail(
            f"{len(summary.failures)} requests failed (logged with their error); run the same "
            "command again to send them again"
        )


@app.command("run-llm")
def run_llm(
    requests: Annotated[Path, typer.Argument(help="Requests JSONL (written by ocw-hub prompts).")],
    base_url: Annotated[
        str,
        typer.Option(
            "--base-url",
            help="OpenAI-compatible API root: http://localhost:8000/v1 (vLLM), "
            "http://localhost:8080/v1 (llama.cpp), https://api.openai.com/v1.",
        ),
    ],
    model: Annotated[str, typer.Option("--model", help="Model name sent in every request.")],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Response log JSONL: created, or resumed when it exists."),
    ],
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Requests in flight.")
    ] = 4,
    max_retries: Annotated[
        int,
        typer.Option(
            "--max-retries",
            min=0,
            help="Retries of a request after a connection error, 408, 409, 429 or 5xx, with "
            "exponential backoff.",
        ),
    ] = 5,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1.0, help="Seconds per answer.")
    ] = 600.0,
) -> None:
    """Send the requests to an OpenAI-compatible server; append each answer to the log.

    The key comes from OPENAI_API_KEY (a dummy for local servers when unset). A re-run with
    the same --out sends only the requests the log has no answer to.
    """
    from ..llm.client import LLMServerError, read_requests, run_requests
    from ..outputs import check_output_file

    _check_base_url(base_url)
    with plain_errors():
        require("llm", "run-llm")
        out = check_output_file(out, inputs=[requests])
        loaded = read_requests(requests)
    server_error: LLMServerError | None = None
    with progress() as bar, plain_errors():
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
                on_start=on_start,
                on_result=on_result,
            )
        except LLMServerError as err:
            server_error = err
    if server_error is not None:
        err = server_error
        option, value = (
            ("--model", err.model) if err.status_code == 404 else ("--base-url", err.base_url)
        )
        fail(f"{option} {value}: {err.reason} (answers so far are kept in {out})")
    _report_run(summary, out)
