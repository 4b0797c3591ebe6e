"""A baseline's files: one predictions file per run (``run-00.json`` ...), the clue vectors of
``--keep-vectors`` and the runs' protocol record, written together into one folder."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import OutputPathError
from ..outputs import PathLike, check_output_dir, json_text, write_files_atomic
from ..provenance import write_protocol
from ..shown import capped
from .protocol import BaselineError, BaselineResult

#: Files of ``keep_vectors`` beside the runs (format: :func:`write_baseline`).
VECTORS_NPZ = "embeddings.npz"
VECTORS_JSON = "embeddings.json"

_RUN_FILE = re.compile(r"run-\d+\.json")


def run_file_names(runs: int) -> list[str]:
    """``run-00.json`` ... one name per run (two digits, more when there are over 100 runs)."""
    width = max(2, len(str(runs - 1)))
    return [f"run-{s:0{width}d}.json" for s in range(runs)]


def check_predictions_dir(
    out: PathLike,
    runs: int,
    *,
    keep_vectors: bool = False,
    inputs: Iterable[PathLike | None] = (),
    option: str = "--out",
) -> Path:
    """Check ``out`` as the folder of a baseline's files before any work: a safe output folder
    (:func:`ocw_hub.outputs.check_output_dir`) that holds no run file or vectors file that this
    call would leave behind (a stale ``run-20.json`` would be scored with the new runs).

    Returns:
        ``out`` resolved.

    Raises:
        OutputPathError: see ``check_output_dir``; stale files, named.
    """
    folder = check_output_dir(out, inputs, option=option)
    if not folder.is_dir():
        return folder
    written = set(run_file_names(runs))
    if keep_vectors:
        written |= {VECTORS_NPZ, VECTORS_JSON}
    stale = sorted(
        p.name
        for p in folder.iterdir()
        if (_RUN_FILE.fullmatch(p.name) or p.name in (VECTORS_NPZ, VECTORS_JSON))
        and p.name not in written
    )
    if stale:
        shown = capped(stale)
        raise OutputPathError(
            f"{option} {out}: holds {shown} from an earlier call, which this one would not "
            "replace; choose an empty folder or remove them"
        )
    return folder


def predictions_json(predictions: Sequence[dict[str, Any]]) -> str:
    """A predictions file's text: a JSON list, one wall per line (UTF-8, not ASCII-escaped)."""
    lines = ",\n".join("  " + json_text(p, indent=None, end="") for p in predictions)
    return f"[\n{lines}\n]\n" if predictions else "[]\n"


def vectors_npz(vectors: dict[str, np.ndarray]) -> bytes:
    """An ``.npz`` archive (deflated) with one float32 array per wall id, as ``numpy.load``
    reads it (written entry by entry, so any wall id is a valid key)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for wall_id, array in vectors.items():
            with archive.open(f"{wall_id}.npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, np.asarray(array, dtype=np.float32))
    return buffer.getvalue()


def write_baseline(result: BaselineResult, out: PathLike, *, keep_vectors: bool = False) -> list:
    """Write ``run-00.json`` ... (one predictions file per run) into ``out``, each whole or not
    at all; with ``keep_vectors`` (embedding only) also ``embeddings.npz`` (wall id -> float32
    array (16, d), rows in the order of the wall's ``words``) and ``embeddings.json``
    (``{"model", "encoder", "protocol", "clues": {wall_id: [16 clues in that order]}}``); and
    ``protocol.json``, the runs' protocol record (:func:`baseline_protocol`).

    Check ``out`` first with :func:`check_predictions_dir`.

    Returns:
        The paths written, runs first.

    Raises:
        BaselineError: ``keep_vectors`` for a result without vectors (the random baseline).
    """
    if keep_vectors and not result.vectors:
        raise BaselineError("only the embedding baseline has vectors to keep")
    folder = Path(out)
    names = run_file_names(len(result.runs))
    files = {
        folder / name: predictions_json(predictions).encode("utf-8")
        for name, predictions in zip(names, result.runs, strict=True)
    }
    if keep_vectors:
        meta = {
            "model": result.model,
            "encoder": result.encoder,
            "protocol": result.protocol,
            "clues": result.clues,
        }
        files[folder / VECTORS_NPZ] = vectors_npz(result.vectors)
        files[folder / VECTORS_JSON] = json_text(meta, indent=1).encode("utf-8")
    write_files_atomic(files)  # all or none: never a folder of runs half old, half new
    written = list(files)
    written.append(write_protocol(folder, baseline_protocol(result), files=written))
    return written


def baseline_protocol(result: BaselineResult) -> dict[str, Any]:
    """The protocol fields of a baseline's runs (:mod:`ocw_hub.provenance`): method, model,
    encoder, pooling and context (as the encoder's ``describe()`` names them), seed, runs."""
    described = result.protocol or {}
    return {
        "method": result.method,
        "model": result.model,
        "encoder": result.encoder,
        "pooling": described.get("pooling"),
        "context": described.get("context"),
        "seed": result.seed,
        "runs": len(result.runs),
    }
