"""``ocw-hub show``: one wall or question drawn in the terminal, with a prediction if given."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from ..configs import config_spec
from ..errors import OCWHubError, PredictionsError
from ._common import check_config, console, data_dir_of, load_split_rows, print_notes
from .options import CacheDir, Config, DataDir, NoChecks, Split


def _find(item_id: str, config: str, split: str, load: Callable[[str], list]) -> tuple:
    """``(row, split)``: the row of ``item_id`` in ``split``, else in the first other split
    that holds it (a note says so).

    Raises:
        OCWHubError: no split holds it.
    """
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
        raise OCWHubError(f"{err}, nor in the other splits") from None


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
    play: Annotated[
        Path | None,
        typer.Option(
            "--play",
            help="A play log (of ocw_play, of the play page): the wall's turns replayed (guess, "
            "verdict, lives).",
        ),
    ] = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Draw one wall (a 4x4 grid, one colour per gold group, the connections beside) or one WoTe
    question (the context with the gold answer span marked), with a prediction if given."""
    from ..views.lookup import read_prediction

    config = check_config(config)
    source = data_dir_of(data_dir, config)
    if play is not None:  # the log read and checked before the wall is drawn
        from ..play.log import read_play_log

        log = read_play_log(play)
    load = partial(load_split_rows, config, data_dir=source, cache_dir=cache_dir)
    row, split = _find(item_id, config, split, partial(load, no_checks=no_checks))
    prediction = (
        read_prediction(predictions, config, row[config_spec(config).id_key])
        if predictions is not None
        else None
    )
    if predictions is not None and prediction is None:
        raise PredictionsError(f"{predictions}: has no prediction for {item_id!r}")
    view = _VIEWS[config_spec(config).dataset](row, prediction, config, split, predictions)
    console.print(view)
    if play is not None:
        from ..play.view import play_table

        console.print(play_table(log, row))


def _wall_view(row: dict, prediction: Any, config: str, split: str, predictions: Any) -> Any:
    from ..views.wall import Wall

    try:
        return Wall.from_row(row, prediction, config=config, split=split)
    except ValueError as err:
        raise PredictionsError(f"{predictions}: {err}") from err


def _question_view(row: dict, prediction: Any, config: str, split: str, predictions: Any) -> Any:
    from ..views.question import Question

    return Question.from_row(row, prediction)


#: How each dataset's row is drawn (``ConfigSpec.dataset``).
_VIEWS = {"ocw": _wall_view, "wote": _question_view}
