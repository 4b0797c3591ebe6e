"""Reading predictions files, checking their shape with the wall or question id in hand.

Formats:

* OCW (``default``, ``ocw_randomized``, ``ocw_wordnet``), the official format: a JSON list of
  ``{"wall_id": str, "predicted_groups": 4 lists of 4 clues | null,
  "predicted_connections": 4 strings in gold group order | null}``. Both fields must be
  present; ``null`` skips that task for that wall.
* WoTe: a JSON list of ``{"id": str, "prediction_text": str}`` (the input shape of
  ``evaluate``'s ``squad`` metric) or an object ``{id: text}``; ``id`` is the dataset's unique
  ``id`` column (``conversation_id/question_id``).

Every JSON object is read strictly: a key given twice (``{"wall_id": "a", "wall_id": "b"}``)
is an error naming the file, the id and the key, never "last wins". The shape checks are the
metric's own (``ocw_metric``'s ``inputs`` module), run once per prediction; the errors name the
file, the wall or question id and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import jsonio
from ..configs import PathLike, config_spec
from ..errors import PredictionsError
from ..resources import load_metric_module
from ..shown import capped

#: Fields of an OCW prediction besides ``wall_id``; each must be present (null skips the task).
OCW_FIELDS = ("predicted_groups", "predicted_connections")


@dataclass(frozen=True)
class WallPrediction:
    """One wall's prediction, shape-checked.

    Attributes:
        wall_id: the wall.
        groups: 4 groups of 4 clue strings (any order), or None (task 1 not predicted).
        connections: 4 connection strings in gold group order, or None (task 2 not predicted).
    """

    wall_id: str
    groups: list[list[str]] | None
    connections: list[str] | None


def listing(ids: Sequence[str]) -> str:
    """Up to 10 ids, then how many more (:func:`ocw_hub.shown.capped`)."""
    return capped(ids, 10)


#: The largest predictions file ``evaluate`` reads, in bytes (a file of the splits' 494 walls
#: with long connections is under 1 MiB): a larger one is refused before it is read.
MAX_PREDICTIONS_BYTES = 64 * 2**20


def read_predictions(
    path: PathLike, config: str, max_bytes: int = MAX_PREDICTIONS_BYTES
) -> dict[str, Any]:
    """Parse and shape-check a predictions file: ``{wall_id: WallPrediction}`` for the OCW
    configs, ``{id: prediction_text}`` for ``wote``.

    Raises:
        PredictionsError: no such file, over ``max_bytes``, not UTF-8, not valid JSON, a key
            given twice (strict :func:`ocw_hub.jsonio.read_json`); wrong top-level shape; an
            entry without its id; unknown or missing fields; a prediction that is not 4 groups
            of 4 clue strings or 4 connection strings (names the wall and the field);
            duplicated ids (listed).
    """
    raw = jsonio.read_json(path, PredictionsError, "predictions file", max_bytes)
    return _READERS[config_spec(config).dataset](Path(path), raw)


def _entry_wall_id(path: Path, index: int, entry: Any) -> str:
    if isinstance(entry, dict) and isinstance(entry.get("wall_id"), str):
        return entry["wall_id"]
    hint = (
        " (WoTe predictions have `id`: use --config wote)"
        if isinstance(entry, dict) and "id" in entry
        else ""
    )
    raise PredictionsError(f"{path}: entry {index} has no string `wall_id`{hint}")


def _check_fields(path: Path, index: int, wall_id: str, entry: dict[str, Any]) -> None:
    fields = set(entry) - {"wall_id"}
    if fields == set(OCW_FIELDS):
        return
    unknown = sorted(fields - set(OCW_FIELDS))
    absent = sorted(set(OCW_FIELDS) - fields)
    problems = [f"unknown field(s) {unknown}"] if unknown else []
    if absent:
        problems.append(f"missing field(s) {absent} (give null to skip a task)")
    raise PredictionsError(f"{path}: wall {wall_id} (entry {index}): " + "; ".join(problems))


def check_wall_prediction(path: PathLike, wall_id: str, entry: dict[str, Any]) -> WallPrediction:
    """Shape-check one wall's prediction with the metric's own validators.

    Raises:
        PredictionsError: ``predicted_groups`` is not null nor 4 groups of 4 clue strings, or
            ``predicted_connections`` not null nor 4 strings; the message names the file, the
            wall and the field, e.g. ``wall 882c: predicted_groups[1]: expected a group of 4
            clues, got 5 clues``.
    """
    code = load_metric_module("inputs")
    groups = entry.get("predicted_groups")
    connections = entry.get("predicted_connections")
    try:
        if groups is not None:
            groups = code.validate_wall(groups, "predicted_groups")
        if connections is not None:
            connections = code.validate_connections(connections, "predicted_connections")
    except ValueError as err:
        raise PredictionsError(f"{path}: wall {wall_id}: {err}") from None
    return WallPrediction(wall_id, groups, connections)


def _read_ocw(path: Path, raw: Any) -> dict[str, WallPrediction]:
    if not isinstance(raw, list):
        raise PredictionsError(
            f"{path}: expected a JSON list of {{wall_id, predicted_groups, predicted_connections}}"
        )
    out: dict[str, WallPrediction] = {}
    duplicated: list[str] = []
    faults: list[str] = []
    for index, entry in enumerate(raw):
        try:
            wall_id = _entry_wall_id(path, index, entry)
            _check_fields(path, index, wall_id, entry)
            prediction = check_wall_prediction(path, wall_id, entry)
        except PredictionsError as err:
            faults.append(str(err).removeprefix(f"{path}: "))
            continue
        if wall_id in out:
            duplicated.append(wall_id)
        out[wall_id] = prediction
    if duplicated:
        faults.append(f"duplicated wall_id: {listing(duplicated)}")
    raise_faults(path, faults)
    return out


#: Faults of one predictions file listed in its error (with the count of all).
MAX_FAULTS = 10


def raise_faults(path: PathLike, faults: Sequence[str]) -> None:
    """Raise one error for every fault found in a file (up to :data:`MAX_FAULTS` listed).

    Raises:
        PredictionsError: ``path: fault`` for one fault; ``path: N faults:`` and one line per
            fault for several.
    """
    if not faults:
        return
    if len(faults) == 1:
        raise PredictionsError(f"{path}: {faults[0]}")
    listed = capped(faults, MAX_FAULTS, show=str, lines=True)
    raise PredictionsError(f"{path}: {len(faults)} faults:\n{listed}")


def _wote_pairs(path: Path, raw: Any) -> list[tuple[str, Any]]:
    if isinstance(raw, dict):
        return list(raw.items())
    if not isinstance(raw, list):
        raise PredictionsError(
            f"{path}: expected a list of {{id, prediction_text}} or {{id: text}}"
        )
    pairs = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            hint = (
                " (OCW predictions have `wall_id`: use --config default, ocw_randomized "
                "or ocw_wordnet)"
                if isinstance(entry, dict) and "wall_id" in entry
                else ""
            )
            raise PredictionsError(f"{path}: entry {index} has no string `id`{hint}")
        if set(entry) != {"id", "prediction_text"}:
            raise PredictionsError(
                f"{path}: question {entry['id']} (entry {index}): expected the fields "
                f"id and prediction_text, got {sorted(entry)}"
            )
        pairs.append((entry["id"], entry["prediction_text"]))
    return pairs


def _read_wote(path: Path, raw: Any) -> dict[str, str]:
    code = load_metric_module("inputs")
    out: dict[str, str] = {}
    duplicated = []
    faults = []
    for qid, text in _wote_pairs(path, raw):
        try:
            code.validate_span_prediction(text, "prediction_text")
        except ValueError as err:
            faults.append(f"question {qid}: {err}")
            continue
        if qid in out:
            duplicated.append(qid)
        out[qid] = text
    if duplicated:
        faults.append(f"duplicated id: {listing(duplicated)}")
    raise_faults(path, faults)
    return out


#: Files beside runs that are not runs: ``parse``'s record of repairs (``<out>.parse.json``),
#: the embedding baseline's vectors (``embeddings.json``) and the protocol records
#: (``protocol.json``, ``<out>.protocol.json``: :mod:`ocw_hub.provenance`).
SIDECAR_SUFFIXES = (".parse.json", ".protocol.json")
SIDECAR_NAMES = ("embeddings.json", "protocol.json")


def _runs_in(folder: Path, pattern: str) -> list[Path]:
    return sorted(
        p
        for p in folder.glob(pattern)
        if p.is_file()
        and not p.is_symlink()
        and not p.name.startswith(".")
        and not p.name.endswith(SIDECAR_SUFFIXES)
        and p.name not in SIDECAR_NAMES
    )


def expand_prediction_paths(paths: Sequence[PathLike]) -> list[Path]:
    """The predictions files of a run list: each path is a file, or a folder of runs: its
    ``run-*.json`` files when it has some (as ``ocw-hub predict`` writes them), else its
    ``*.json`` files; never a sidecar (``*.parse.json``, ``*.protocol.json``, ``embeddings.json``,
    ``protocol.json``), a hidden file or
    a symlink; sorted by name.

    Raises:
        PredictionsError: a path does not exist; a folder holds no JSON file; a file is given
            twice.
    """
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            runs = _runs_in(path, "run-*.json") or _runs_in(path, "*.json")
            if not runs:
                raise PredictionsError(f"{path}: a folder with no predictions file (*.json)")
            files.extend(runs)
        elif path.is_file():
            files.append(path)
        else:
            raise PredictionsError(f"{path}: no such file or folder")
    resolved = [f.resolve() for f in files]
    twice = sorted({str(f) for f in files if resolved.count(f.resolve()) > 1})
    if twice:
        raise PredictionsError(f"predictions given twice: {listing(twice)}")
    return files


#: The predictions reader of each dataset (``ConfigSpec.dataset``).
_READERS: dict[str, Callable[[Path, Any], dict[str, Any]]] = {
    "ocw": _read_ocw,
    "wote": _read_wote,
}
