"""The gold walls of a results file from the source it records (``ocw-hub report`` without
``--data-dir``).

``ocw-hub evaluate`` records where the split was read and the SHA-256 of what was read
(:func:`ocw_hub.provenance.source_provenance`): a folder or archive of raw files, an export,
a Hub repo id (at a revision), or the prepared cache. The report reads the walls from there
when that source still exists with the same digest, so a cache that holds the split prepared
from several sources is no obstacle; when the source is gone or its content changed,
:class:`RecordedSourceError` says which, and the data must be given (``--data-dir``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..configs import PathLike
from ..errors import SourceUnavailableError
from ..provenance import arrow_digest
from ..resources import load_sibling
from ..shown import inert

if TYPE_CHECKING:
    import datasets

    from ..results import ResultsFile

#: Why a recorded source cannot be used (:attr:`RecordedSourceError.reason`).
GONE, CHANGED = "gone", "changed"


class RecordedSourceError(SourceUnavailableError):
    """The source a results file records is gone, or its content is not what was scored.

    Attributes:
        results: the results file.
        reason: :data:`GONE` or :data:`CHANGED`.
        recorded: the source record (``path``, ``sha256``, ...).
    """

    def __init__(
        self, message: str, *, config: str, results: Path, reason: str, recorded: Mapping
    ) -> None:
        super().__init__(message, config=config)
        self.results = results
        self.reason = reason
        self.recorded = dict(recorded)


def recorded_source(file: ResultsFile) -> Mapping[str, Any] | None:
    """The source a results file records, when it records one with a digest (results written
    before sources were recorded: None)."""
    source = file.data.get("source")
    if isinstance(source, Mapping) and isinstance(source.get("sha256"), str):
        return source
    return None


def local_candidates(file: ResultsFile, path: str) -> list[Path]:
    """Where a recorded local path may be: as written (absolute, or relative to the working
    folder), then relative to the results file's folder."""
    given = Path(path).expanduser()
    if given.is_absolute():
        return [given]
    return list(dict.fromkeys([given, file.path.parent / given]))


def _digest(*paths: PathLike) -> str:
    return str(load_sibling("source_files").source_digest(*paths))


def _error(file: ResultsFile, source: Mapping, reason: str, why: str) -> RecordedSourceError:
    where = source.get("path") or "the prepared cache"
    state = "is gone" if reason == GONE else "has changed"
    return RecordedSourceError(
        f"{inert(str(file.path))}: the source it records for {file.config}/{file.split} "
        f"({inert(str(where))}) {state}: {why}; give the data it was scored on: data_dir=DIR",
        config=file.config,
        results=file.path,
        reason=reason,
        recorded=source,
    )


def _local_split(
    file: ResultsFile, source: Mapping, cache_dir: PathLike | None, mode: str | None
) -> datasets.Dataset:
    from ..data.sources import load_split

    existing = [c for c in local_candidates(file, str(source["path"])) if c.exists()]
    if not existing:
        raise _error(file, source, GONE, "no such file or folder")
    digests = {c: _digest(c) for c in existing}
    for candidate, digest in digests.items():
        if digest == source["sha256"]:
            return load_split(
                file.config, file.split, candidate, cache_dir=cache_dir, verification_mode=mode
            )
    now = next(iter(digests.values()))
    why = f"sha256 now {now[:12]}, recorded {str(source['sha256'])[:12]}"
    raise _error(file, source, CHANGED, why)


def _hub_split(
    file: ResultsFile, source: Mapping, cache_dir: PathLike | None, mode: str | None
) -> datasets.Dataset:
    from ..data.sources import load_split

    try:
        dataset = load_split(
            file.config,
            file.split,
            str(source["path"]),
            cache_dir=cache_dir,
            verification_mode=mode,
        )
    except SourceUnavailableError as err:
        raise _error(file, source, GONE, f"it cannot be read ({err})") from err
    digest = arrow_digest(dataset.cache_files)
    if digest != source["sha256"]:
        why = f"the rows read now have sha256 {str(digest)[:12]}, recorded {source['sha256'][:12]}"
        raise _error(file, source, CHANGED, why)
    return dataset


def _cache_split(
    file: ResultsFile, source: Mapping, cache_dir: PathLike | None, mode: str | None
) -> datasets.Dataset:
    """The preparation in the cache (the download's, or one from a recorded local source)
    whose rows have the recorded digest."""
    from ..data.builders import check_split_sizes, prepared, recorded_sources

    origins: list[str | None] = [None]
    origins += [s for s in recorded_sources(file.config, cache_dir) if Path(s).exists()]
    for origin in origins:
        dataset = prepared(file.config, file.split, origin, cache_dir)
        if dataset is not None and arrow_digest(dataset.cache_files) == source["sha256"]:
            check_split_sizes(file.config, dataset.info.splits, mode)
            return dataset
    why = f"no preparation in the cache has sha256 {str(source['sha256'])[:12]}"
    raise _error(file, source, CHANGED if len(origins) > 1 else GONE, why)


_READERS = {"files": _local_split, "export": _local_split, "hub": _hub_split}


def recorded_split(
    file: ResultsFile, *, cache_dir: PathLike | None = None, verification_mode: str | None = None
) -> datasets.Dataset | None:
    """The split a results file was scored on, from the source it records, checked against
    the recorded SHA-256; None when the file records no source (then the caller reads the
    prepared cache as before).

    Raises:
        RecordedSourceError: the recorded source is gone (a path that no longer exists, a Hub
            repo that cannot be read, no such preparation in the cache) or changed (another
            digest); one line naming the results file, the source and why.
        As :func:`ocw_hub.data.sources.load_split` for a source that is there.
    """
    source = recorded_source(file)
    if source is None:
        return None
    reader = _READERS.get(str(source.get("kind")), _cache_split)
    if reader is not _cache_split and not source.get("path"):
        reader = _cache_split
    return reader(file, source, cache_dir, verification_mode)


def recorded_inputs(files: list[ResultsFile]) -> list[Path]:
    """The local sources the files record that exist (inputs a report never overwrites)."""
    found = []
    for file in files:
        source = recorded_source(file)
        if source and source.get("kind") in ("files", "export") and source.get("path"):
            found += [c for c in local_candidates(file, str(source["path"])) if c.exists()]
    return found
