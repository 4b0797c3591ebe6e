"""``ocw-hub parse``: LLM answers turned into a predictions file, with a report of repairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..extras import require
from . import app
from ._common import (
    check_choice,
    check_ocw,
    console,
    data_dir_of,
    err_console,
    load_split_rows,
    local_path,
    shown_message,
    user_errors,
)
from .options import CacheDir, Config, DataDir, NoChecks, Split, Task


def _write_json(path: Path, value: Any) -> None:
    from ..outputs import write_text_atomic

    write_text_atomic(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _parse_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"parse ({report['task']}, {report['mode']} mode)")
    table.add_column("walls")
    table.add_column("count", justify="right")
    for status, count in report["counts"].items():
        table.add_row(status.replace("_", " "), str(count))
    for kind, count in report["repairs"].items():
        table.add_row(f"  repair: {kind}", str(count))
    for reason, count in report["unrecoverable"].items():
        table.add_row(f"  unrecoverable: {reason.replace('_', ' ')}", str(count))
    return table


@app.command()
def parse(
    responses: Annotated[
        Path,
        typer.Argument(
            help="Responses JSONL: the run-llm log (batch output lines) or {wall_id, text} lines."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Predictions JSON file to write.")],
    config: Config = "default",
    split: Split = "test",
    task: Task = "grouping",
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="robust: the partition the answer states, or none (unrecoverable, scored as "
            "wrong); paper: the notebook's lenient parsing, to reproduce the paper's figures.",
        ),
    ] = "robust",
    allow_truncated: Annotated[
        bool,
        typer.Option(
            "--allow-truncated",
            help="Robust mode: read answers cut at the token limit (finish_reason length) "
            "without their last line, completing a fourth group from 3 stated; counted "
            "apart as truncated. Default: such answers are unrecoverable.",
        ),
    ] = False,
    data_dir: DataDir = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Turn LLM answers into a predictions file (official format) for ocw-hub evaluate.

    Robust mode never invents a partition: a wall is clean, repaired (each repair
    unambiguous and recorded) or unrecoverable (with the reason). Also writes
    <out>.parse.json: per wall its status, reason, the repairs made and the raw answer.
    """
    from ..llm.prompts import TASKS
    from ..llm.responses import MODES, parse_responses, read_responses
    from ..outputs import check_output_file

    config = check_ocw(config)
    source = data_dir_of(data_dir, config)
    check_choice("--task", task, TASKS)
    check_choice("--mode", mode, MODES)
    inputs = [responses, local_path(source)]
    with user_errors():
        require("llm", "parse")
        out = check_output_file(out, inputs=inputs)
        sidecar = check_output_file(out.with_name(out.name + ".parse.json"), inputs=inputs)
        answers = read_responses(responses)
    walls = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    with user_errors():
        predictions, report = parse_responses(
            answers,
            walls,
            task=task,
            mode=mode,
            allow_truncated=allow_truncated,
            source=str(responses),
        )
    report = {"responses": str(responses), "config": config, "split": split, **report}
    _write_json(out, predictions)
    _write_json(sidecar, report)
    console.print(_parse_table(report))
    if report["missing"]:
        shown = ", ".join(report["missing"][:5])
        err_console.print(
            f"[yellow]warning:[/] {len(report['missing'])} walls of {config}/{split} have no "
            f"response ({shown_message(shown)}{', …' if len(report['missing']) > 5 else ''}); "
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
