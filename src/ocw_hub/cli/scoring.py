"""``ocw-hub evaluate``: score predictions files as the paper did."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from ..configs import CONFIGS
from . import app
from ._common import console, fail, quiet_datasets, user_errors


@app.command()
def evaluate(
    predictions: Path = typer.Argument(..., help="Predictions JSON file."),
    config: str = typer.Option(
        "default", "--config", "-c", help="default, ocw_randomized, ocw_wordnet or wote."
    ),
    split: str = typer.Option("test", "--split", "-s", help="train, validation or test."),
    data_dir: Path | None = typer.Option(
        None, help="Local source of the config (default: download)."
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the full results JSON here."),
    allow_missing: bool = typer.Option(
        False, "--allow-missing", help="Score missing ids as wrong."
    ),
    bertscore: bool = typer.Option(False, "--bertscore", help="Also BERTScore F1 of connections."),
    cache_dir: Path | None = typer.Option(None, help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
) -> None:
    """Score predictions exactly as the paper did; print a table, optionally write JSON."""
    from ..evaluation import evaluate_file, summary_rows

    if config not in CONFIGS:
        fail(f"unknown config {config!r}; expected one of {list(CONFIGS)}")
    with user_errors(), quiet_datasets():
        results = evaluate_file(
            predictions,
            config,
            split=split,
            data_dir=data_dir,
            allow_missing=allow_missing,
            bertscore=bertscore,
            cache_dir=cache_dir,
            verification_mode="no_checks" if no_checks else None,
        )
    rows = summary_rows(results)
    columns = (
        ("task", "figure", "model", "human") if config != "wote" else ("task", "figure", "model")
    )
    table = Table(title=f"{config} / {split}: {predictions}")
    for column in columns:
        table.add_column(column, justify="left" if column in ("task", "figure") else "right")
    for row in rows:
        table.add_row(*row[: len(columns)])
    console.print(table)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(out)
        console.print(f"results written to {out}")
