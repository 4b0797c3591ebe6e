"""``ocw-hub reproduce``: the grouping experiment end to end, offline, in one command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..configs import verification_mode
from ..errors import OptionError
from ..extras import require
from ..shown import inert
from ._common import console, data_dirs, err_console, quiet_datasets, worker_count
from .options import CacheDir, DataDir, Jobs, NoChecks, Runs


def reproduce(
    data_dir: DataDir = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write (see below).")] = Path(
        "build"
    ),
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="transformers model name or local path for the embedding baseline, embedded as "
            "the paper did (first token of the last layer) "
            "(default: the built-in character n-gram TF-IDF encoder, a lexical baseline).",
        ),
    ] = None,
    runs: Runs = 16,
    jobs: Jobs = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Build the exports, derive ocw_randomized, run the embedding and random baselines (16
    runs each) on the test splits, score them and write the HTML report: OUT/hub,
    OUT/ocw_randomized, OUT/predictions, OUT/results, OUT/report.html.

    --data-dir DIR is the OCW release (the `dataset/` folder or OCW.tar.gz); add
    --data-dir wote=DIR to export WoTe beside it."""
    from ..experiment import embedding_line
    from ..experiment import reproduce as run
    from ..provenance import provenance_lines

    dirs = data_dirs(data_dir)
    ocw_dir = dirs.pop("default", None) or dirs.pop("*", None)
    if ocw_dir is None:
        raise OptionError("--data-dir: give the OCW release (the dataset/ folder or OCW.tar.gz)")
    wote_dir = dirs.pop("wote", None)
    if dirs:
        raise OptionError(
            f"--data-dir {next(iter(dirs))}=...: reproduce reads default and wote only"
        )
    with quiet_datasets():
        require("baselines", "reproduce")
        require("report", "reproduce")
        if model is not None:
            require("encoders", "reproduce --model")
        outcomes = run(
            Path(ocw_dir),
            out,
            wote_dir=None if wote_dir is None else Path(wote_dir),
            model=model,
            runs=runs,
            jobs=worker_count(jobs),
            cache_dir=cache_dir,
            verification_mode=verification_mode(no_checks),
            on_step=lambda text: err_console.print(f"[bold]·[/] {text}", highlight=False),
        )
    lines = [f"OCW grouping, test split, mean ± std over {runs} runs"]
    lines += [
        f"{o.config}: {provenance_lines({'source': o.source})[0]}" for o in _by_config(outcomes)
    ]
    if (encoder := embedding_line(outcomes)) is not None:
        lines.append(encoder)
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text("\n".join(inert(line) for line in lines)))
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
        "default",
        "contestants",
        "-",
        "-",
        str(human["correct_groups"]),
        str(human["full_wall"]),
    )
    console.print(table)
    console.print(
        f"ARI, FMS and every run: {Path(out) / 'results'}; report: {Path(out) / 'report.html'}"
    )


def _by_config(outcomes: list[Any]) -> list[Any]:
    """The first outcome of each config (the methods of a config share its source)."""
    seen: dict[str, Any] = {}
    for o in outcomes:
        seen.setdefault(o.config, o)
    return list(seen.values())
