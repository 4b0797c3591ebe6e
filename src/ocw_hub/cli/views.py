"""``ocw-hub show`` and ``report``: walls and results drawn, in the terminal and in HTML."""

from __future__ import annotations

from pathlib import Path

import typer

from . import app
from ._common import (
    CONFIG_HELP,
    DATA_DIR_HELP,
    SPLIT_HELP,
    check_config,
    console,
    fail,
    load_split_rows,
    quiet_datasets,
    user_errors,
)


@app.command()
def show(
    item_id: str = typer.Argument(..., metavar="ID", help="A wall_id (OCW configs) or a WoTe id."),
    config: str = typer.Option("default", "--config", "-c", help=CONFIG_HELP),
    split: str = typer.Option("test", "--split", "-s", help=SPLIT_HELP),
    data_dir: Path | None = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    predictions: Path | None = typer.Option(
        None,
        "--predictions",
        "-p",
        help="A predictions file: its prediction for this wall (misplaced clues marked ✗, "
        "figures below) or this question (its span marked in the context).",
    ),
    cache_dir: Path | None = typer.Option(None, help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
) -> None:
    """Draw one wall (a 4x4 grid, one colour per gold group, the connections beside) or one WoTe
    question (the context with the gold answer span marked), with a prediction if given."""
    from ..views.wall import Question, Wall, find_row, read_prediction

    config = check_config(config)
    rows = load_split_rows(config, split, data_dir, cache_dir=cache_dir, no_checks=no_checks)
    with user_errors():
        row = find_row(rows, item_id, config, split)
        prediction = (
            read_prediction(predictions, config, row["id" if config == "wote" else "wall_id"])
            if predictions is not None
            else None
        )
        if predictions is not None and prediction is None:
            fail(f"{predictions}: has no prediction for {item_id!r}")
        if config == "wote":
            view = Question.from_row(row, prediction)
        else:
            try:
                view = Wall.from_row(row, prediction, config=config, split=split)
            except ValueError as err:
                fail(f"{predictions}: {err}")
    console.print(view)


def _data_dirs(values: list[str]) -> dict[str, str]:
    """``--data-dir`` values: ``DIR`` (every config) or ``CONFIG=DIR`` (one config)."""
    from ..configs import ALIASES, CONFIGS

    out: dict[str, str] = {}
    for value in values:
        name, sep, rest = value.partition("=")
        name = ALIASES.get(name, name)
        if sep and name in CONFIGS:
            out[name] = rest
        else:
            out["*"] = value
    return out


@app.command()
def report(
    results: list[Path] = typer.Argument(
        ...,
        metavar="RESULTS.json...",
        help="Results files of `ocw-hub evaluate --out` (one run or several); several files "
        "are models or configs side by side.",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="The HTML file to write."),
    data_dir: list[str] = typer.Option(
        [],
        "--data-dir",
        help="The gold walls, to draw the hardest walls and the embedding plot: DIR (every "
        "config) or CONFIG=DIR, repeatable; as for `show`. Default: the datasets cache when "
        "the split was prepared there, else the walls are listed only.",
    ),
    hardest: int = typer.Option(5, "--hardest", min=0, help="How many of the hardest walls."),
    wall: str | None = typer.Option(
        None, "--wall", help="The wall of the embedding plot (default: the hardest one)."
    ),
    title: str = typer.Option("ocw-hub report", "--title", help="The page's title."),
    cache_dir: Path | None = typer.Option(None, help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
) -> None:
    """Write one self-contained HTML report (headline table, plots, the hardest walls) of
    results files; it opens offline (inline SVG, no script, no web font)."""
    from ..outputs import check_output_file, write_text_atomic
    from ..views.report import build_report, load_walls, read_results

    dirs = _data_dirs(data_dir)
    with user_errors(), quiet_datasets():
        target = check_output_file(out, [*results, *dirs.values()])
        files = read_results(results)
        walls = load_walls(
            files, dirs, cache_dir=cache_dir, verification_mode="no_checks" if no_checks else None
        )
        page = build_report(files, walls=walls, n_hardest=hardest, wall_id=wall, title=title)
        write_text_atomic(target, page)
    console.print(f"report written to {out}")
