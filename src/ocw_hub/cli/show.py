"""``ocw-hub show``: one wall or question drawn in the terminal, with a prediction if given."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from . import app
from ._common import (
    check_config,
    console,
    data_dir_of,
    fail,
    load_split_rows,
    print_notes,
    user_errors,
)
from .options import CacheDir, Config, DataDir, NoChecks, Split


def _find(item_id: str, config: str, split: str, load: Callable[[str], list]) -> tuple:
    """``(row, split)``: the row of ``item_id`` in ``split``, else in the first other split
    that holds it (a note says so); exits 1 when no split holds it."""
    from ..data.layout import SPLITS
    from ..views.lookup import UnknownIdError, find_row

    try:
        return find_row(load(split), item_id, config, split), split
    except UnknownIdError as err:
        for other in (s for s in SPLITS if s != split):
            try:
                row = find_row(load(other), item_id, config, other)
            except UnknownIdError:
                continue
            print_notes([f"{item_id!r} is in split {other!r}, not {split!r}: shown from there"])
            return row, other
        fail(f"{err}, nor in the other splits")
        raise  # fail() exits


@app.command()
def show(
    item_id: Annotated[
        str, typer.Argument(metavar="ID", help="A wall_id (OCW configs) or a WoTe id.")
    ],
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    predictions: Annotated[
        Path | None,
        typer.Option(
            "--predictions",
            "-p",
            help="A predictions file: its prediction for this wall (misplaced clues marked ✗, "
            "figures below) or this question (its span marked in the context).",
        ),
    ] = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Draw one wall (a 4x4 grid, one colour per gold group, the connections beside) or one WoTe
    question (the context with the gold answer span marked), with a prediction if given."""
    from ..views.lookup import read_prediction
    from ..views.question import Question
    from ..views.wall import Wall

    config = check_config(config)
    source = data_dir_of(data_dir, config)
    load = partial(load_split_rows, config, data_dir=source, cache_dir=cache_dir)
    row, split = _find(item_id, config, split, partial(load, no_checks=no_checks))
    with user_errors():
        prediction = (
            read_prediction(predictions, config, row["id" if config == "wote" else "wall_id"])
            if predictions is not None
            else None
        )
        if predictions is not None and prediction is None:
            fail(f"{predictions}: has no prediction for {item_id!r}")
        if config == "wote":
            view: Question | Wall = Question.from_row(row, prediction)
        else:
            try:
                view = Wall.from_row(row, prediction, config=config, split=split)
            except ValueError as err:
                fail(f"{predictions}: {err}")
    console.print(view)
