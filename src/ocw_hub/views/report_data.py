"""What the report needs beside the results files (:mod:`ocw_hub.results`): the gold walls and
the predictions files they refer to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..configs import PathLike
from ..errors import OCWHubError
from ..results import ReportError, ResultsFile, by_key


def resolve_predictions(run: Mapping[str, Any], results_path: Path) -> Path | None:
    """The predictions file of a run (its ``predictions`` path as evaluated: absolute, else
    relative to the working folder or to the results file's folder), or None if not found."""
    given = run.get("predictions")
    if not isinstance(given, str) or not given:
        return None
    path = Path(given)
    candidates = [path] if path.is_absolute() else [path, results_path.parent / path]
    return next((c for c in candidates if c.is_file()), None)


class PredictionsCache:
    """Predictions files read once each (the report draws several walls of one run)."""

    def __init__(self) -> None:
        self._read: dict[tuple[Path, str], dict[str, Any] | None] = {}

    def get(self, path: Path | None, config: str, wall_id: str) -> Any:
        if path is None:
            return None
        key = (path.resolve(), config)
        if key not in self._read:
            from ..scoring.predictions import read_predictions

            try:
                self._read[key] = read_predictions(path, config)
            except OCWHubError:
                self._read[key] = None
        found = self._read[key]
        return None if found is None else found.get(wall_id)


def load_walls(
    files: Sequence[ResultsFile],
    data_dirs: Mapping[str, PathLike | None],
    *,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The gold walls of every OCW (config, split) of the files: from ``data_dirs[config]``
    (or ``data_dirs["*"]``, allowed when the files hold one OCW config only) when given
    (:func:`ocw_hub.data.sources.load_split`), else from the source the files record, when it
    is unchanged (:func:`ocw_hub.views.report_source.recorded_split`), else (results that record
    none) from the ``datasets`` cache when the split was prepared there (never a download).

    Raises:
        ReportError: ``data_dirs["*"]`` with files of several OCW configs (``default`` and
            ``ocw_randomized`` hold different test walls: each needs its own folder); files of
            one (config, split) that record different sources, without ``data_dirs``.
        RecordedSourceError: the recorded source is gone or changed (without ``data_dirs``).
        SourceUnavailableError, UnknownSplitError, format errors: a given data folder cannot be
            read.
    """
    groups = by_key(f for f in files if not f.is_wote)
    keys = list(groups)
    unnamed = sorted({c for c, _ in keys if c not in data_dirs})
    if "*" in data_dirs and len({c for c, _ in keys}) > 1 and unnamed:
        raise ReportError(
            f"results of several configs ({', '.join(sorted({c for c, _ in keys}))}): give each "
            f"its data as CONFIG=DIR (missing: {', '.join(unnamed)}); their walls differ"
        )
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for key, group in groups.items():
        data_dir = data_dirs.get(key[0], data_dirs.get("*"))
        dataset = _split_walls(group, data_dir, cache_dir, verification_mode)
        if dataset is not None:
            out[key] = dataset.to_list()
    return out


def _split_walls(
    files: Sequence[ResultsFile],
    data_dir: PathLike | None,
    cache_dir: PathLike | None,
    verification_mode: str | None,
) -> Any:
    """The walls of one (config, split) of :func:`load_walls` (a ``datasets.Dataset``, or
    None): from ``data_dir``, else the recorded source, else the prepared cache."""
    from ..data.sources import load_split, prepared_split

    config, split = files[0].key
    if data_dir is not None:
        return load_split(
            config, split, data_dir, cache_dir=cache_dir, verification_mode=verification_mode
        )
    dataset = _recorded_walls(files, cache_dir, verification_mode)
    if dataset is None:  # results that record no source: the prepared cache
        dataset = prepared_split(
            config, split, cache_dir=cache_dir, verification_mode=verification_mode
        )
    return dataset


def _recorded_walls(
    files: Sequence[ResultsFile], cache_dir: PathLike | None, verification_mode: str | None
) -> Any:
    """The split the files of one (config, split) were scored on, from the source they record
    (None when none records one).

    Raises:
        ReportError: two files record sources of different content.
        RecordedSourceError: that source is gone or changed.
    """
    from ..provenance import source_content
    from .report_source import recorded_source, recorded_split

    recorded = [(f, s) for f in files if (s := recorded_source(f)) is not None]
    if not recorded:
        return None
    first, source = recorded[0]
    content = str(source_content(source))
    other = next(((f, s) for f, s in recorded if str(source_content(s)) != content), None)
    if other is not None:
        raise ReportError(
            f"{first.path} and {other[0].path} ({first.config}/{first.split}) were scored on "
            f"sources of different content (sha256 {content[:12]} and "
            f"{str(source_content(other[1]))[:12]}); give the walls to draw: "
            f"--data-dir {first.config}=DIR"
        )
    return recorded_split(first, cache_dir=cache_dir, verification_mode=verification_mode)
