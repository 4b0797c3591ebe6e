"""``ocw-hub evaluate``: score predictions files as the paper did, one run or many."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from . import app
from ._common import (
    CONFIG_HELP,
    DATA_DIR_HELP,
    SPLIT_HELP,
    check_config,
    console,
    fail,
    progress,
    quiet_datasets,
    user_errors,
)


@app.command()
def evaluate(
    predictions: list[Path] = typer.Argument(
        ...,
        help="Predictions JSON file(s), or folder(s) of runs (run-*.json): several files are "
        "runs of one model, reported as mean ± std.",
    ),
    config: str = typer.Option("default", "--config", "-c", help=CONFIG_HELP),
    split: str = typer.Option("test", "--split", "-s", help=SPLIT_HELP),
    data_dir: str | None = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the full results JSON here."),
    allow_missing: bool = typer.Option(
        False, "--allow-missing", help="Score missing ids as wrong."
    ),
    bertscore: bool = typer.Option(False, "--bertscore", help="Also BERTScore F1 of connections."),
    cache_dir: Path | None = typer.Option(None, help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
    fresh: bool = typer.Option(
        False, "--fresh", help="Prepare the data again (download_mode=force_redownload)."
    ),
    rouge_tokenizer: str = typer.Option(
        "default",
        "--rouge-tokenizer",
        help="ROUGE-1 tokens of connections: default (the paper's: ASCII letters and digits "
        "only) or unicode (letters and digits of any script).",
    ),
) -> None:
    """Score predictions exactly as the paper did; print a table, optionally write JSON."""
    from ..outputs import check_output_file, write_text_atomic
    from ..resources import load_metric_code
    from ..scoring.runs import evaluate_files, summary_rows

    config = check_config(config)
    tokenizers = load_metric_code().ROUGE_TOKENIZERS
    if rouge_tokenizer not in tokenizers:
        fail(f"--rouge-tokenizer {rouge_tokenizer}: expected one of {list(tokenizers)}")
    with user_errors():
        if out is not None:
            out = check_output_file(out, [*predictions, data_dir])
        with quiet_datasets(), progress() as bar:
            task = bar.add_task("scoring", total=None)
            results = evaluate_files(
                predictions,
                config,
                split=split,
                data_dir=data_dir,
                allow_missing=allow_missing,
                bertscore=bertscore,
                cache_dir=cache_dir,
                verification_mode="no_checks" if no_checks else None,
                download_mode="force_redownload" if fresh else None,
                on_item=lambda n: bar.advance(task, n),
                rouge_tokenizer=rouge_tokenizer,
            )
    columns = ("task", "figure", "model") + (() if config == "wote" else ("human",))
    shown = ", ".join(map(str, predictions))
    table = Table(title=f"{config} / {split}: {shown}")
    for column in columns:
        table.add_column(column, justify="left" if column in ("task", "figure") else "right")
    for row in summary_rows(results):
        table.add_row(*row[: len(columns)])
    console.print(table)
    if out is not None:
        write_text_atomic(out, json.dumps(results, indent=2, ensure_ascii=False) + "\n")
        console.print(f"results written to {out}")
