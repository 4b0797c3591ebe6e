"""``ocw-hub prompts``, ``run-llm``, ``parse``: the paper's LLM protocol, offline-first.

``prompts`` writes one chat-completion request per wall (OpenAI batch input JSONL);
``run-llm`` sends them to any OpenAI-compatible server and appends the answers to a
resumable log (batch output JSONL); ``parse`` turns the answers into a predictions file for
``ocw-hub evaluate``, with a ``<out>.parse.json`` report of what it repaired.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import typer
from rich.markup import escape
from rich.table import Table

from ..llm.prompts import DEFAULT_MODEL
from . import app
from ._common import (
    DATA_DIR_HELP,
    SPLIT_HELP,
    check_config,
    console,
    err_console,
    fail,
    load_split_rows,
    progress,
    user_errors,
)

_CONFIG_HELP = "default (alias ocw), ocw_randomized or ocw_wordnet."
_TASK_HELP = "grouping (task 1: the 16 clues into 4 groups) or connections (task 2)."
_CACHE_HELP = "datasets cache folder."
_NO_CHECKS_HELP = "Skip the check of split sizes against the official ones."


def _check_ocw(config: str) -> str:
    config = check_config(config)
    if config == "wote":
        fail("--config wote: the LLM protocol is for the OCW configs (walls), not WoTe")
    return config


def _check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        fail(f"{option} {value}: expected one of {', '.join(choices)}")


def _local(data_dir: str | None) -> Path | None:
    """``--data-dir`` as a path when it is one (it may also be a Hub repo id)."""
    return Path(data_dir) if data_dir is not None and Path(data_dir).exists() else None


def _write_json(path: Path, value: Any) -> None:
    from ..outputs import write_text_atomic

    write_text_atomic(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n")


@app.command()
def prompts(
    task: str = typer.Option(..., "--task", "-t", help=_TASK_HELP),
    shots: int = typer.Option(
        ...,
        "--shots",
        "-k",
        help="In-context examples: whole train walls, the same for every wall (the paper ran "
        "0, 1, 3, 5 and 10).",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Requests JSONL file to write."),
    config: str = typer.Option("default", "--config", "-c", help=_CONFIG_HELP),
    split: str = typer.Option("test", "--split", "-s", help=SPLIT_HELP),
    seed: int = typer.Option(42, "--seed", help="Seed of the in-context example draw."),
    model: str = typer.Option(
        DEFAULT_MODEL,
        "--model",
        help="Model named in the requests (run-llm --model replaces it).",
    ),
    data_dir: str | None = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help=_CACHE_HELP),
    no_checks: bool = typer.Option(False, "--no-checks", help=_NO_CHECKS_HELP),
) -> None:
    """Write the paper's few-shot chat-completion requests, one per wall (OpenAI batch JSONL).

    Temperature 0, at most 144 new tokens; the in-context examples are
    random.Random(seed).sample(train walls, K), written one group per line with its
    connection.
    """
    from ..llm.prompts import TASKS, build_requests, requests_jsonl
    from ..outputs import check_output_file, write_text_atomic

    config = _check_ocw(config)
    _check_choice("--task", task, TASKS)
    with user_errors():
        out = check_output_file(out, inputs=[_local(data_dir)])
    walls = load_split_rows(config, split, data_dir, cache_dir=cache_dir, no_checks=no_checks)
    train = walls if split == "train" or shots == 0 else None
    if train is None:
        train = load_split_rows(config, "train", data_dir, cache_dir=cache_dir, no_checks=no_checks)
    with user_errors():
        requests = build_requests(walls, train, task=task, shots=shots, seed=seed, model=model)
    write_text_atomic(out, requests_jsonl(requests))
    console.print(
        f"{len(requests)} {task} requests ({config}/{split}, {shots} shots, seed {seed}) "
        f"written to {escape(str(out))}",
        highlight=False,
        soft_wrap=True,
    )


@contextmanager
def _plain_errors() -> Iterator[None]:
    """OCWHubError as a one-line error, without importing ``datasets`` (see user_errors)."""
    from ..errors import OCWHubError

    try:
        yield
    except OCWHubError as err:
        fail(str(err))


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
    requests: Path = typer.Argument(..., help="Requests JSONL (written by ocw-hub prompts)."),
    base_url: str = typer.Option(
        ...,
        "--base-url",
        help="OpenAI-compatible API root: http://localhost:8000/v1 (vLLM), "
        "http://localhost:8080/v1 (llama.cpp), https://api.openai.com/v1.",
    ),
    model: str = typer.Option(..., "--model", help="Model name sent in every request."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Response log JSONL: created, or resumed when it exists."
    ),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Requests in flight."),
    max_retries: int = typer.Option(
        5,
        "--max-retries",
        min=0,
        help="Retries of a request after a connection error, 408, 409, 429 or 5xx, with "
        "exponential backoff.",
    ),
    timeout: float = typer.Option(600.0, "--timeout", min=1.0, help="Seconds per answer."),
) -> None:
    """Send the requests to an OpenAI-compatible server; append each answer to the log.

    The key comes from OPENAI_API_KEY (a dummy for local servers when unset). A re-run with
    the same --out sends only the requests the log has no answer to.
    """
    from ..llm.client import LLMServerError, read_requests, run_requests
    from ..outputs import check_output_file

    _check_base_url(base_url)
    with _plain_errors():
        out = check_output_file(out, inputs=[requests])
        loaded = read_requests(requests)
    server_error: LLMServerError | None = None
    with progress() as bar, _plain_errors():
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


def _parse_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"parse ({report['task']}, {report['mode']} mode)")
    table.add_column("walls")
    table.add_column("count", justify="right")
    for status, count in report["counts"].items():
        table.add_row(status.replace("_", " "), str(count))
    for kind, count in report["repairs"].items():
        table.add_row(f"  repair: {kind}", str(count))
    return table


@app.command()
def parse(
    responses: Path = typer.Argument(
        ..., help="Responses JSONL: the run-llm log (batch output lines) or {wall_id, text} lines."
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Predictions JSON file to write."),
    config: str = typer.Option("default", "--config", "-c", help=_CONFIG_HELP),
    split: str = typer.Option("test", "--split", "-s", help=SPLIT_HELP),
    task: str = typer.Option("grouping", "--task", "-t", help=_TASK_HELP),
    mode: str = typer.Option(
        "robust",
        "--mode",
        help="robust: a partition of the wall's own clues whenever the answer allows; paper: "
        "the notebook's lenient parsing, to reproduce the paper's figures.",
    ),
    data_dir: str | None = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help=_CACHE_HELP),
    no_checks: bool = typer.Option(False, "--no-checks", help=_NO_CHECKS_HELP),
) -> None:
    """Turn LLM answers into a predictions file (official format) for ocw-hub evaluate.

    Also writes <out>.parse.json: per wall its status, the repairs made and the raw answer.
    """
    from ..llm.prompts import TASKS
    from ..llm.responses import MODES, parse_responses, read_responses
    from ..outputs import check_output_file

    config = _check_ocw(config)
    _check_choice("--task", task, TASKS)
    _check_choice("--mode", mode, MODES)
    inputs = [responses, _local(data_dir)]
    with user_errors():
        out = check_output_file(out, inputs=inputs)
        sidecar = check_output_file(out.with_name(out.name + ".parse.json"), inputs=inputs)
        answers = read_responses(responses)
    walls = load_split_rows(config, split, data_dir, cache_dir=cache_dir, no_checks=no_checks)
    with user_errors():
        predictions, report = parse_responses(
            answers, walls, task=task, mode=mode, source=str(responses)
        )
    report = {"responses": str(responses), "config": config, "split": split, **report}
    _write_json(out, predictions)
    _write_json(sidecar, report)
    console.print(_parse_table(report))
    if report["missing"]:
        shown = ", ".join(report["missing"][:5])
        err_console.print(
            f"[yellow]warning:[/] {len(report['missing'])} walls of {config}/{split} have no "
            f"response ({escape(shown)}{', …' if len(report['missing']) > 5 else ''}); "
            "evaluate scores them as wrong only with --allow-missing",
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"{len(predictions)} predictions written to {escape(str(out))}; report: "
        f"{escape(str(sidecar))}",
        highlight=False,
        soft_wrap=True,
    )
