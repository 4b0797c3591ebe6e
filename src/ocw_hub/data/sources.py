"""One split of a config from wherever the user has it: raw sources, an export, the Hub, the
cache.

:func:`load_split` is what the scoring and experiment commands read. ``data_dir`` may be:

* the raw source files (a folder or a release tarball): built by the loading script through
  :func:`ocw_hub.load_dataset`, validated, cached;
* an export folder written by ``ocw-hub build`` (``README.md`` with ``configs`` and
  ``data/<config>/<split>-*.parquet``), or the build's ``--out`` holding one export per dataset
  (``ocw/``, ``wote/``): read with ``datasets.load_dataset`` as the Hub viewer would;
* a Hub repo id ``ORG/NAME`` of a published export (read from the ``datasets`` cache when
  offline);
* ``None``: the data already prepared in the ``datasets`` cache for this config (from any
  source, newest first), else the official download.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from ..configs import PathLike, config_spec
from ..errors import SourceUnavailableError, UnknownSplitError
from ..resources import load_sibling
from .builders import SOURCE_RECORD, get_builder, load_dataset, script_key
from .layout import export_of, is_export

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def looks_like_repo_id(text: str) -> bool:
    """``ORG/NAME`` as the Hub spells repo ids, and not a path that exists here."""
    return bool(_REPO_ID.match(text)) and not Path(text).exists()


def prepared_split(
    name: str, split: str, cache_dir: PathLike | None = None
) -> datasets.Dataset | None:
    """The split as already prepared in the cache by this install's builder for ``name``, or
    None when nothing is prepared.

    The official download's preparation when there is one; else the preparation from a local
    ``data_dir`` when all of them come from one source (the newest, with a ``UserWarning``
    naming it). Only preparations by the same script content and ``datasets`` era are seen:
    their cache folders are named by keys that start with
    :func:`ocw_hub.data.builders.script_key`
    (``<cache>/<dataset>/<config>[-<id>]/<version>/<key>``).

    Raises:
        SourceUnavailableError: preparations from several local sources and none from the
            download: which one is meant cannot be told (the message lists them and asks for
            ``data_dir``).
    """
    builder = get_builder(name, cache_dir=cache_dir)
    prepared = _prepared_folders(builder, name, split)
    if not prepared:
        return None
    sources = {folder: _recorded_source(folder) for folder in prepared}
    downloaded = [folder for folder, source in sources.items() if source is None]
    local = sorted({source for source in sources.values() if source is not None})
    if not downloaded and len(local) > 1:
        shown = ", ".join(local[:5]) + (f" and {len(local) - 5} more" if len(local) > 5 else "")
        raise SourceUnavailableError(
            f"config {name!r}: no data_dir given and the cache holds this split prepared from "
            f"{len(local)} local sources ({shown}); say which: data_dir=DIR",
            config=name,
        )
    folder = downloaded[0] if downloaded else prepared[0]
    if not downloaded:
        warnings.warn(
            f"config {name!r}: no data_dir given; using the split prepared in the cache from "
            f"{local[0]} (the official download was never prepared here)",
            UserWarning,
            stacklevel=3,
        )
    info = datasets.DatasetInfo.from_directory(str(folder))
    arrow = _split_arrow_files(folder, builder.dataset_name, split)
    parts = [datasets.Dataset.from_file(str(f), info=info, split=split) for f in arrow]
    return parts[0] if len(parts) == 1 else datasets.concatenate_datasets(parts)


def _prepared_folders(builder: datasets.DatasetBuilder, name: str, split: str) -> list[Path]:
    """The cache folders holding ``split`` prepared by this script and era, newest first."""
    version_dir = Path(builder.cache_dir).parent
    pattern = f"{version_dir.parent.name}*/{version_dir.name}/{script_key(name)}*"
    return sorted(
        (
            d
            for d in version_dir.parents[1].glob(pattern)
            if (d / "dataset_info.json").is_file()
            and _split_arrow_files(d, builder.dataset_name, split)
        ),
        key=lambda d: (d / "dataset_info.json").stat().st_mtime,
        reverse=True,
    )


def _recorded_source(folder: Path) -> str | None:
    """The ``data_dir`` a prepared cache folder was built from (None: the official download, or
    a preparation made before sources were recorded)."""
    record = folder / SOURCE_RECORD
    if not record.is_file():
        return None
    try:
        return json.loads(record.read_text(encoding="utf-8")).get("data_dir")
    except (OSError, ValueError, AttributeError):
        return None


def _split_arrow_files(folder: Path, dataset_name: str, split: str) -> list[Path]:
    """The Arrow file(s) of a split in a prepared cache folder: ``<name>-<split>.arrow`` or the
    shards ``<name>-<split>-NNNNN-of-NNNNN.arrow``, in shard order."""
    single = folder / f"{dataset_name}-{split}.arrow"
    if single.is_file():
        return [single]
    return sorted(folder.glob(f"{dataset_name}-{split}-[0-9]*-of-[0-9]*.arrow"))


def load_split(
    config: str,
    split: str,
    data_dir: PathLike | None = None,
    *,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    download_mode: str | None = None,
) -> datasets.Dataset:
    """One split of a config as a ``datasets.Dataset`` (see the module docstring for the forms
    of ``data_dir``).

    Raises:
        SourceUnavailableError: ``data_dir`` is neither an existing path nor a repo id; no
            prepared data and the download failed.
        UnknownSplitError: ``split`` is not train, validation or test.
        ValueError: unknown config; malformed source files or rows (the loading scripts'
            format errors name the file, the id and the field; rows from an export, the cache
            or the Hub go through the same checks, :func:`check_split`).
    """
    spec = config_spec(config)
    if split not in spec.splits:
        raise UnknownSplitError(spec.name, split, spec.splits)
    source = find_source(spec.name, data_dir)
    if source.kind in ("export", "hub"):
        assert source.location is not None
        ds = _from_export(source.location, spec.name, split, cache_dir, download_mode)
        return check_split(ds, spec.name, source.location, split)
    if data_dir is None and download_mode not in (
        "force_redownload",
        datasets.DownloadMode.FORCE_REDOWNLOAD,
    ):
        cached = prepared_split(spec.name, split, cache_dir)
        if cached is not None:
            return check_split(cached, spec.name, f"the prepared cache of {spec.name}", split)
    ds = load_dataset(
        spec.name,
        split=split,
        data_dir=data_dir,
        cache_dir=cache_dir,
        verification_mode=verification_mode,
        download_mode=download_mode,
    )
    assert isinstance(ds, datasets.Dataset)
    return ds


def check_split(ds: datasets.Dataset, config: str, source: object, split: str) -> datasets.Dataset:
    """``ds`` after the checks its loading script makes of the raw files (``check_rows`` of
    ``ocw_walls.py`` or ``wote_questions.py``): rows from an export, the cache or the Hub are
    held to the same rules before anything is scored or parsed.

    Raises:
        OCWFormatError, WoTeFormatError: as for the raw files, naming ``source``, the wall or
            question and the field.
    """
    sibling = load_sibling(config_spec(config).sibling)
    sibling.check_rows(ds.to_list(), f"{source} ({config}/{split})", split)
    return ds


@dataclass(frozen=True)
class Source:
    """What a ``data_dir`` is (:func:`find_source`).

    Attributes:
        kind: ``files`` (raw source files: a folder or an archive, read by the loading script),
            ``export`` (an ``ocw-hub build`` export folder), ``hub`` (a Hub repo id of one), or
            ``cache`` (no ``data_dir``: the prepared cache, else the official download).
        location: the folder, archive or repo id read (an export inside ``--out`` for
            ``export``); None for ``cache``.
    """

    kind: str
    location: str | None


def find_source(config: str, data_dir: PathLike | None) -> Source:
    """The one finder of a config's source, for every config: what ``data_dir`` is and where
    its rows are read (see the module docstring). The split files inside raw source files
    (a folder or an archive, of any config) are found by the loading scripts' one finder,
    ``find_split_files`` of ``source_files.py``.

    Raises:
        ValueError: unknown config.
    """
    if data_dir is None:
        return Source("cache", None)
    text = str(data_dir)
    path = Path(text).expanduser()
    if not path.exists() and looks_like_repo_id(text):
        return Source("hub", text)
    path = export_of(path, config_spec(config).name)
    return Source("export", str(path)) if is_export(path) else Source("files", str(path))


def _from_export(
    where: str, config: str, split: str, cache_dir: PathLike | None, download_mode: Any
) -> datasets.Dataset:
    try:
        return datasets.load_dataset(
            where,
            config,
            split=split,
            cache_dir=None if cache_dir is None else str(cache_dir),
            download_mode=download_mode,
        )
    except (ConnectionError, FileNotFoundError) as err:
        raise SourceUnavailableError(
            f"config {config!r}: cannot read {where} ({type(err).__name__}: {err}); give a "
            "local copy: data_dir=DIR",
            config=config,
            data_dir=where,
        ) from err
    except ValueError as err:
        if "BuilderConfig" in str(err) or "config" in str(err).lower():
            raise SourceUnavailableError(
                f"config {config!r}: {where} holds no such config ({err})",
                config=config,
                data_dir=where,
            ) from err
        raise
