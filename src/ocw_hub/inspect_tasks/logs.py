"""``ocw-hub evaluate LOG.eval``: an inspect-ai log of ``ocw_grouping``, ``ocw_connections``
or ``wote`` read as runs of predictions, each answer parsed as ``ocw-hub parse`` parses it
(robust mode, the task's prompt style), each epoch a run of its own.

This module imports no inspect-ai until a log is read (:func:`read_inspect_log`), so
``evaluate`` works without the ``[inspect]`` extra, and says which extra it needs when given
a log without it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..configs import has_walls
from ..errors import PredictionsError
from ..shown import capped

#: The file suffix of inspect's log format (``--log-format eval``, its default).
SUFFIX = ".eval"
#: The metadata key of the tasks' protocol record (:data:`.ocw.ocw.PROTOCOL_KEY`).
PROTOCOL_KEY = "ocw_protocol"


def is_inspect_log(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an inspect log (its suffix)."""
    return Path(path).suffix == SUFFIX


@dataclass
class InspectRuns:
    """An inspect log's answers by epoch.

    Attributes:
        path: the log.
        protocol: the task's protocol record, with ``framework`` (``inspect-ai``), ``model``
            (inspect's), ``inspect_task`` and ``inspect_version`` added.
        epochs: epoch -> ``{sample id: Response}``, epochs in order.
        ids: the sample ids of the log, in log order.
    """

    path: Path
    protocol: dict[str, Any]
    epochs: dict[int, dict[str, Any]]
    ids: list[str]

    def run_paths(self) -> list[Path]:
        """One name per epoch (``LOG.eval#epoch-1``), for messages and the runs' names."""
        return [Path(f"{self.path}#epoch-{e}") for e in self.epochs]

    def own_rows(
        self, rows: Sequence[dict], id_key: str, units: str = "walls"
    ) -> tuple[list[dict], dict | None]:
        """The rows of the split the log answers, in split order, and the record of a log of
        part of the split (None for the whole split).

        Raises:
            PredictionsError: a sample id that is no id of the split.
        """
        known = {str(r[id_key]) for r in rows}
        unknown = [i for i in self.ids if i not in known]
        if unknown:
            raise PredictionsError(
                f"{self.path}: {len(unknown)} samples are not in the split "
                f"({capped(unknown)}); is --config / --split right?"
            )
        wanted = set(self.ids)
        own = [r for r in rows if str(r[id_key]) in wanted]
        if len(own) == len(rows):
            return own, None
        label = (
            f"{len(own)} of the split's {len(rows)} {units} (an inspect log of part of it: "
            "--limit or --sample-id); figures of those alone"
        )
        return own, {"n": len(own), "of": len(rows), "label": label}

    def predictions(self, rows: Sequence[dict], dataset: str) -> list[dict[str, Any]]:
        """Each epoch's predictions as ``read_predictions`` gives a file's: OCW ``{wall_id:
        WallPrediction}``, WoTe ``{id: prediction_text}``, parsed by ``parse``'s code."""
        return [self._parsed(answers, rows, dataset) for answers in self.epochs.values()]

    def _parsed(self, answers: Mapping[str, Any], rows: Sequence[dict], dataset: str) -> Any:
        source = str(self.path)
        if not has_walls(dataset):
            from ..llm.wote import parse_wote_responses

            found, _ = parse_wote_responses(answers, rows, source=source)
            return {p["id"]: p["prediction_text"] for p in found}
        from ..llm.responses import parse_responses
        from ..scoring.predictions import check_wall_prediction

        predictions, _ = parse_responses(
            answers,
            rows,
            task=self.protocol["task"],
            mode="robust",
            source=source,
            style=str(self.protocol.get("prompt_style") or "paper"),
        )
        return {p["wall_id"]: check_wall_prediction(source, p["wall_id"], p) for p in predictions}


def read_inspect_log(path: str | os.PathLike[str], config: str, split: str) -> InspectRuns:
    """The answers of an inspect log of one of the package's one-shot tasks.

    Raises:
        MissingExtraError: inspect-ai is not installed (the ``[inspect]`` extra).
        PredictionsError: not readable as an inspect log; not a log of these tasks; a log of
            another config or split; a log without samples.
    """
    from ..extras import require

    require("inspect", f"evaluate {Path(path).name} (an inspect log)")
    from inspect_ai.log import read_eval_log

    from ._common import response_of

    path = Path(path)
    try:
        log = read_eval_log(str(path))
    except Exception as err:  # inspect raises whatever its reader meets
        detail = " ".join(str(err).split())[:200]
        raise PredictionsError(f"{path}: not readable as an inspect log ({detail})") from None
    protocol = dict((log.eval.metadata or {}).get(PROTOCOL_KEY) or {})
    if not protocol:
        raise PredictionsError(
            f"{path}: not a log of ocw_hub/ocw_grouping, ocw_connections or wote (task "
            f"{log.eval.task}); an ocw_play log is scored through its play log"
        )
    if (protocol.get("config"), protocol.get("split")) != (config, split):
        raise PredictionsError(
            f"{path}: a log of config {protocol.get('config')} split {protocol.get('split')}; "
            f"give --config {protocol.get('config')} --split {protocol.get('split')}"
        )
    if not log.samples:
        raise PredictionsError(f"{path}: holds no samples (status {log.status})")
    epochs: dict[int, dict[str, Any]] = {}
    ids: list[str] = []
    for sample in log.samples:
        sample_id = str(sample.id)
        if sample_id not in ids:
            ids.append(sample_id)
        error = sample.error.message if sample.error is not None else None
        epochs.setdefault(sample.epoch, {})[sample_id] = response_of(
            sample_id, sample.output, error
        )
    protocol.update(
        framework="inspect-ai",
        model=log.eval.model,
        inspect_task=log.eval.task_registry_name or log.eval.task,
        inspect_version=(log.eval.packages or {}).get("inspect_ai"),
    )
    return InspectRuns(path, protocol, dict(sorted(epochs.items())), ids)
