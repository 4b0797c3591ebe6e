"""The builders through the Python API: works on every ``datasets`` version, runs no script.

``datasets`` >= 4 refuses loading scripts (``load_dataset("OCW.py")`` raises "Dataset scripts
are no longer supported"), but a builder class is still an ordinary Python class: this module
imports ``OCW.py`` / ``WoTe.py`` by path and drives them the way ``load_dataset`` does, with the
same Arrow cache (``~/.cache/huggingface/datasets`` or ``HF_DATASETS_CACHE``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import datasets

from ..configs import PathLike, config_spec
from ..errors import OutputPathError, SourceUnavailableError, WrongSourceError
from ..outputs import write_json
from ..resources import load_script, load_sibling, script_files


def get_builder(
    name: str,
    data_dir: PathLike | None = None,
    cache_dir: PathLike | None = None,
    **builder_kwargs: Any,
) -> datasets.DatasetBuilder:
    """The ``datasets`` builder of a config, ready for ``download_and_prepare``.

    Args:
        name: ``default``, ``ocw_randomized``, ``ocw_wordnet`` (the three OCW copies) or ``wote``.
        data_dir: local source: a folder holding the split files (OCW's release, WoTe's
            ``train.json``, ``validation.json``, ``test.json``) or an archive of it (the release
            tarball itself); the builders find the split files in either the same way
            (``find_split_files`` of ``source_files.py``). ``None`` downloads the official
            files. The main OCW release given for an ablation config is refused.
        cache_dir: the ``datasets`` cache folder (default: ``HF_DATASETS_CACHE``).
        **builder_kwargs: passed to the builder class (e.g. ``writer_batch_size``).

    The cache is keyed on the content of the script and its siblings, the ``datasets`` major
    version and the source files' content (:func:`script_key`; ``source_digest`` of the
    scripts' ``source_files``, the hash the builders' config ids use too), so an edited builder
    or an edited, replaced or truncated source (even with the same size and modification time)
    never serves stale rows, and each ``datasets`` era prepares its own copy. The
    builder records the official split sizes (:func:`official_splits`), which
    ``download_and_prepare`` checks by default on every ``datasets`` version, as
    ``datasets`` 3.x does from ``dataset_infos.json`` for a script.

    Raises:
        ValueError: unknown ``name``.
    """
    spec = config_spec(name)
    module = load_script(spec.script)
    builder_cls = getattr(module, spec.script)
    key = script_key(name)
    if data_dir is not None:
        data_dir = str(Path(data_dir).expanduser().resolve())
        exists = Path(data_dir).exists()  # else the builder reports it
        key += load_sibling("source_files").source_digest(data_dir)[:8] if exists else "missing"
    else:
        key += "download"
    builder_kwargs.setdefault("hash", key)
    builder = builder_cls(
        config_name=spec.builder_config,
        data_dir=data_dir,
        cache_dir=None if cache_dir is None else str(cache_dir),
        **builder_kwargs,
    )
    if builder.info.splits is None:  # not prepared yet: record the sizes to check against
        builder.info.splits = official_splits(name)
    return builder


def official_splits(name: str) -> datasets.SplitDict:
    """The official split sizes of a config (``OFFICIAL_SPLIT_SIZES`` of its script): OCW
    configs 62 / 62 / 494 walls, WoTe 248 / 169 / 412 questions."""
    spec = config_spec(name)
    sizes = load_script(spec.script).OFFICIAL_SPLIT_SIZES
    return datasets.SplitDict(
        {split: datasets.SplitInfo(name=split, num_examples=n) for split, n in sizes.items()},
        dataset_name=spec.script.lower(),
    )


def script_key(name: str) -> str:
    """First part (8 hex digits) of a config's cache key: the content of the loading script and
    of the siblings it imports (:func:`ocw_hub.resources.script_files`), and the ``datasets``
    era. The second part names the source (its content hash, or ``download``), so the cache
    folder of every preparation by this script and era starts with this key."""
    spec = config_spec(name)
    digest = load_sibling("source_files").source_digest(*script_files(spec.script))
    return hashlib.sha256(f"{digest}:{datasets_era()}".encode()).hexdigest()[:8]


def datasets_era() -> str:
    """``datasets`` major version, e.g. ``"datasets5"``: part of the cache key, so that one
    ``HF_HOME`` shared by environments of different eras holds one prepared copy per era (data
    prepared by 5.x stores feature types that 3.x cannot read)."""
    return f"datasets{datasets.__version__.split('.')[0]}"


def prepare(
    name: str,
    data_dir: PathLike | None = None,
    cache_dir: PathLike | None = None,
    *,
    verification_mode: str | datasets.VerificationMode | None = None,
    download_mode: str | datasets.DownloadMode | None = None,
) -> datasets.DatasetDict:
    """Build (or read from the cache) every split of a config: :func:`load_dataset` with
    ``split=None``, typed as the ``DatasetDict`` it returns."""
    return load_dataset(
        name,
        data_dir=data_dir,
        cache_dir=cache_dir,
        verification_mode=verification_mode,
        download_mode=download_mode,
    )


def load_dataset(
    name: str,
    split: str | None = None,
    data_dir: PathLike | None = None,
    *,
    cache_dir: PathLike | None = None,
    download_mode: str | datasets.DownloadMode | None = None,
    verification_mode: str | datasets.VerificationMode | None = None,
    **builder_kwargs: Any,
) -> datasets.DatasetDict | datasets.Dataset:
    """Load a config as ``datasets.load_dataset`` would, on any ``datasets`` version.

    Args:
        name: ``default``, ``ocw_randomized``, ``ocw_wordnet`` or ``wote``.
        split: ``train``, ``validation``, ``test`` (or any split expression ``datasets``
            accepts); ``None`` returns all three in a ``DatasetDict``.
        data_dir: local source (see :func:`get_builder`); ``None`` downloads the official files.
        cache_dir, download_mode, verification_mode: as in ``datasets.load_dataset``. The
            default verification compares the split sizes with the official ones; pass
            ``verification_mode="no_checks"`` for a local copy of another size.

    Returns:
        A ``DatasetDict`` (train 62 / validation 62 / test 494 walls for the OCW configs;
        248 / 169 / 412 questions for WoTe) or one ``Dataset`` when ``split`` is given.

    Raises:
        ValueError: unknown ``name``; a malformed source file (the builders' ``OCWFormatError``
            / ``WoTeFormatError`` name the file, the wall or question id and the field).
        WrongSourceError: the main OCW release given for an ablation config.
        datasets.exceptions.NonMatchingSplitsSizesError: split sizes differ from the official
            ones (unless ``verification_mode="no_checks"``).
        SourceUnavailableError: ``data_dir`` does not exist, or it is None and the official
            files could not be downloaded (offline, or the link failed); the message says to
            give a local copy as ``data_dir``.
    """
    spec = config_spec(name)
    if data_dir is not None and not Path(data_dir).expanduser().exists():
        raise SourceUnavailableError(
            f"config {spec.name!r}: data_dir {data_dir}: no such file or folder",
            config=spec.name,
            data_dir=str(data_dir),
        )
    builder = get_builder(name, data_dir=data_dir, cache_dir=cache_dir, **builder_kwargs)
    try:
        builder.download_and_prepare(
            download_mode=download_mode, verification_mode=verification_mode
        )
    except load_sibling("ocw_releases").OCWSourceError as err:
        source = None if data_dir is None else str(data_dir)
        raise WrongSourceError(str(err), config=spec.name, data_dir=source) from err
    except (ConnectionError, OSError) as err:
        if data_dir is not None or isinstance(err, SourceUnavailableError):
            raise
        raise SourceUnavailableError(
            f"config {spec.name!r}: the official files could not be downloaded "
            f"({type(err).__name__}: {err}); give a local copy: data_dir=DIR "
            f"({spec.source})",
            config=spec.name,
        ) from err
    _record_source(name, data_dir, cache_dir)
    if data_dir is None:  # prepared from the official download: say so beside its files
        from .official import builder_urls, write_download_record

        write_download_record(spec.name, builder.cache_dir, builder_urls(spec.name, builder))
    return builder.as_dataset(split=split)


#: Folder of the package's records of local preparations, in the ``datasets`` cache folder:
#: one JSON file per config and local source, ``{"config", "data_dir"}``.
SOURCES_FOLDER = "ocw_hub_sources"


def _cache_root(cache_dir: PathLike | None) -> Path:
    """The ``datasets`` cache folder a builder writes under (``cache_dir``, else
    ``HF_DATASETS_CACHE``)."""
    return Path(cache_dir) if cache_dir is not None else Path(datasets.config.HF_DATASETS_CACHE)


def _record_source(name: str, data_dir: PathLike | None, cache_dir: PathLike | None) -> None:
    """Record that config ``name`` was prepared from the local ``data_dir`` (nothing for the
    official download), so that :func:`recorded_sources` can list it."""
    if data_dir is None:
        return
    spec = config_spec(name)
    source = str(Path(data_dir).expanduser().resolve())
    key = hashlib.sha256(f"{spec.name}\0{source}".encode()).hexdigest()[:16]
    record = _cache_root(cache_dir) / SOURCES_FOLDER / f"{spec.name}-{key}.json"
    try:
        write_json(record, {"config": spec.name, "data_dir": source})
    except (OSError, OutputPathError):  # a read-only cache still serves its rows
        pass


def recorded_sources(name: str, cache_dir: PathLike | None = None) -> list[str]:
    """The local ``data_dir`` folders config ``name`` was prepared from in this cache (by
    :func:`load_dataset`), most recently loaded first; unreadable records are skipped. A
    record names a source only: whether its preparation is still there, for its current
    content, is :func:`prepared`'s to tell."""
    spec = config_spec(name)
    folder = _cache_root(cache_dir) / SOURCES_FOLDER
    records = sorted(
        folder.glob(f"{spec.name}-*.json"), key=lambda p: p.stat().st_mtime, reverse=True
    )
    sources = []
    for record in records:
        try:
            entry = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(entry, dict) and entry.get("config") == spec.name:
            if isinstance(entry.get("data_dir"), str):
                sources.append(entry["data_dir"])
    return sources


def prepared(
    name: str, split: str, data_dir: PathLike | None = None, cache_dir: PathLike | None = None
) -> datasets.Dataset | None:
    """``split`` of config ``name`` as prepared in the cache from ``data_dir`` (None: the
    official download) by this script and ``datasets`` era, or None when it is not prepared
    there (``DatasetBuilder.as_dataset`` of the builder :func:`get_builder` makes, which
    prepares nothing). A ``data_dir`` whose content changed since is not prepared."""
    builder = get_builder(name, data_dir=data_dir, cache_dir=cache_dir)
    try:
        dataset = builder.as_dataset(split=split)
    except FileNotFoundError:
        return None
    assert isinstance(dataset, datasets.Dataset)
    return dataset


def check_split_sizes(
    name: str,
    recorded: datasets.SplitDict,
    verification_mode: str | datasets.VerificationMode | None,
) -> None:
    """Compare a preparation's split sizes with the official ones (:func:`official_splits`),
    as ``download_and_prepare`` does, unless ``verification_mode`` is ``no_checks``.

    Raises:
        datasets.exceptions.NonMatchingSplitsSizesError: a split of another size.
    """
    from datasets.utils.info_utils import verify_splits

    mode = datasets.VerificationMode(verification_mode or "basic_checks")
    if mode != datasets.VerificationMode.NO_CHECKS:
        verify_splits(official_splits(name), recorded)
