"""Finding one wall or WoTe question in a split, and its prediction in a predictions file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..configs import PathLike, config_spec
from ..errors import OCWHubError


class UnknownIdError(OCWHubError, KeyError):
    """A wall id or question id that the split does not hold.

    Attributes:
        item_id: the id asked for; config, split: where it was looked up.
    """

    def __init__(self, item_id: str, config: str, split: str, what: str = "wall") -> None:
        super().__init__(f"{what} {item_id!r} is not in config {config!r}, split {split!r}")
        self.item_id = item_id
        self.config = config
        self.split = split

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def find_row(rows: Sequence[Mapping[str, Any]], item_id: str, config: str, split: str) -> Any:
    """The row whose ``wall_id`` (OCW configs) or ``id`` (WoTe; its ``question_id`` is also
    accepted when it names one question) is ``item_id``.

    Raises:
        UnknownIdError: no such row; the message names the id, the config and the split.
    """
    spec = config_spec(config)
    for row in rows:
        if row[spec.id_key] == item_id:
            return row
    found = [row for row in rows if row.get("question_id") == item_id]  # OCW rows have none
    if len(found) == 1:
        return found[0]
    raise UnknownIdError(item_id, config, split, spec.unit)


def read_prediction(path: PathLike, config: str, item_id: str) -> Any:
    """The prediction for one wall or question in a predictions file (official OCW format, or
    WoTe's list of ``{id, prediction_text}`` / ``{id: text}``), or None if it has none.

    Raises:
        PredictionsError: the file cannot be read or has the wrong shape (the message names the
            file, the entry and the field); see
            :func:`ocw_hub.scoring.predictions.read_predictions`.
    """
    from ..scoring.predictions import read_predictions

    return read_predictions(Path(path), config).get(item_id)
