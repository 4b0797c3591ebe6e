"""``ocw-hub evaluate``: score predictions files as the paper did, one run or many."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from . import app
from ._common import (
    CONFIG_HELP,
    DATA_DIR_HELP,
    SPLIT_HELP,
    check_config,
    console,
    progress,
    quiet_datasets,
    user_errors,
)

#: Figures of the human performance shown beside the model's, by figure name.
_HUMAN_FIGURES = ("full_wall", "full_wall_rate", "correct_groups", "correct_groups_rate")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _fmt_spread(mean: float, std: float, scale: str) -> str:
    digits = 2 if scale == "0-100" else 4
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def _wote_rows(results: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [("questions", "in the split", str(results["n_questions"]), "-")]
    if "runs" in results:
        rows.append(("questions", "runs", str(results["n_runs"]), "-"))
        for key in ("exact_match", "f1"):
            mean, std = results["mean"]["spans"][key], results["std"]["spans"][key]
            rows.append(("spans", f"{key} (0-100)", _fmt_spread(mean, std, "0-100"), "-"))
        return rows
    rows.append(("questions", "missing, scored as wrong", str(results["n_missing"]), "-"))
    for key in ("exact_match", "f1"):
        rows.append(("spans", f"{key} (0-100)", f"{results['spans'][key]:.2f}", "-"))
    return rows


def _task_rows(task: str, figures: dict[str, Any], human: dict[str, Any]) -> list[tuple[str, ...]]:
    return [
        (task, key, _fmt(value), _fmt(human.get(key) if key in _HUMAN_FIGURES else None))
        for key, value in figures.items()
        if key != "n_walls"
    ]


def summary_rows(results: dict[str, Any]) -> list[tuple[str, ...]]:
    """(task, figure, model, human) rows of the terminal table for a result of
    :func:`ocw_hub.scoring.evaluate_files`: one run's figures, or mean ± std over runs."""
    if results["config"] == "wote":
        return _wote_rows(results)
    human = results["human"]
    rows: list[tuple[str, ...]] = [
        ("walls", "in the split", str(results["n_walls"]), str(human["n_walls"]))
    ]
    runs = results.get("runs", [results])
    if "runs" in results:
        rows.append(("walls", "runs", str(results["n_runs"]), "-"))
    else:
        rows.append(("walls", "missing, scored as wrong", str(results["n_missing"]), "-"))
    for task in ("grouping", "connections"):
        if task not in runs[0]:
            continue
        rows.append((task, "walls scored", str(runs[0][task]["n_walls"]), "-"))
        if "runs" in results:
            mean, std = results["mean"][task], results["std"][task]
            spread = {k: _fmt_spread(mean[k], std[k], "0-1") for k in mean}
            rows += _task_rows(task, spread, {k: _fmt(human[k]) for k in _HUMAN_FIGURES})
        else:
            rows += _task_rows(task, results[task], human)
    if "connections" in runs[0]:
        found = _fmt(human["connections_correct_rate"])
        rows.append(("connections", "found by the contestants", "-", found))
    return rows


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
) -> None:
    """Score predictions exactly as the paper did; print a table, optionally write JSON."""
    from ..outputs import check_output_file, write_text_atomic
    from ..scoring import evaluate_files

    config = check_config(config)
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
