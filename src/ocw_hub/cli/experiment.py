"""``ocw-hub reproduce``: the grouping experiment end to end, offline, in one command."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from . import app
from ._common import console, err_console, quiet_datasets, user_errors


@app.command()
def reproduce(
    ocw_dir: Path = typer.Option(
        ..., "--ocw-dir", help="The OCW release: the `dataset/` folder or OCW.tar.gz."
    ),
    out: Path = typer.Option(Path("build"), "--out", "-o", help="Folder to write (see below)."),
    wote_dir: Path | None = typer.Option(
        None, "--wote-dir", help="The WoTe release folder, exported beside OCW."
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        help="sentence-transformers model name or local path for the embedding baseline "
        "(default: the built-in character n-gram TF-IDF encoder, a lexical baseline).",
    ),
    runs: int = typer.Option(16, "--runs", min=1, help="Runs per baseline (the paper: 16)."),
    jobs: int | None = typer.Option(None, "--jobs", min=1, help="Processes (default: all cores)."),
    cache_dir: Path | None = typer.Option(None, help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
) -> None:
    """Build the exports, derive ocw_randomized, run the embedding and random baselines (16
    runs each) on the test splits, score them and write the HTML report: OUT/hub,
    OUT/ocw_randomized, OUT/predictions, OUT/results, OUT/report.html."""
    from ..experiment import reproduce as run

    with user_errors({"default": "--ocw-dir", "wote": "--wote-dir"}), quiet_datasets():
        outcomes = run(
            ocw_dir,
            out,
            wote_dir=wote_dir,
            model=model,
            runs=runs,
            jobs=jobs,
            cache_dir=cache_dir,
            verification_mode="no_checks" if no_checks else None,
            on_step=lambda text: err_console.print(f"[bold]·[/] {text}", highlight=False),
        )
    table = Table(title=f"OCW grouping, test split, mean ± std over {runs} runs")
    for column in ("config", "method", "AMI", "WD", "correct groups", "full walls"):
        table.add_column(column, justify="left" if column in ("config", "method") else "right")
    for o in outcomes:
        mean, std = o.summary["mean"], o.summary["std"]
        cells = [f"{mean[k]:.3f} ± {std[k]:.3f}" for k in ("ami", "wd")]
        cells += [
            f"{mean['correct_groups']:.1f} ± {std['correct_groups']:.1f}",
            f"{mean['full_wall']:.1f} ± {std['full_wall']:.1f}",
        ]
        table.add_row(o.config, o.method, *cells)
    human = outcomes[0].summary["human"]
    table.add_row(
        "default", "contestants", "-", "-", str(human["correct_groups"]),
        str(human["full_wall"]),
    )  # fmt: skip
    console.print(table)
    console.print(
        f"ARI, FMS and every run: {Path(out) / 'results'}; report: {Path(out) / 'report.html'}"
    )
