"""The builders through the Python API: works on every ``datasets`` version, runs no script.

``datasets`` >= 4 refuses loading scripts (``load_dataset("OCW.py")`` raises "Dataset scripts
are no longer supported"), but a builder class is still an ordinary Python class: this module
imports ``OCW.py`` / ``WoTe.py`` by path and drives them the way ``load_dataset`` does, with the
same Arrow cache (``~/.cache/huggingface/datasets`` or ``HF_DATASETS_CACHE``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import datasets

from .resources import file_hash, hub_root, load_hub_module


@dataclass(frozen=True)
class ConfigSpec:
    """One public config of this project.

    Attributes:
        name: the public config name (``default``, ``ocw_randomized``, ``ocw_wordnet``, ``wote``).
        script: the loading script at the repository root that builds it (``OCW`` or ``WoTe``).
        builder_config: the config name inside that script.
        flag: the ``ocw-hub build`` flag that gives its local ``data_dir``.
    """

    name: str
    script: str
    builder_config: str
    flag: str


CONFIGS: dict[str, ConfigSpec] = {
    spec.name: spec
    for spec in (
        ConfigSpec("default", "OCW", "default", "--ocw-dir"),
        ConfigSpec("ocw_randomized", "OCW", "ocw_randomized", "--ocw-randomized-dir"),
        ConfigSpec("ocw_wordnet", "OCW", "ocw_wordnet", "--ocw-wordnet-dir"),
        ConfigSpec("wote", "WoTe", "wote", "--wote-dir"),
    )
}

PathLike = Union[str, "os.PathLike[str]"]


def config_spec(name: str) -> ConfigSpec:
    """The :class:`ConfigSpec` of a public config name.

    Raises:
        ValueError: ``name`` is not one of :data:`CONFIGS`.
    """
    try:
        return CONFIGS[name]
    except KeyError:
        raise ValueError(f"unknown config {name!r}; expected one of {sorted(CONFIGS)}") from None


def get_builder(
    name: str,
    data_dir: PathLike | None = None,
    cache_dir: PathLike | None = None,
    **builder_kwargs: Any,
) -> datasets.DatasetBuilder:
    """The ``datasets`` builder of a config, ready for ``download_and_prepare``.

    Args:
        name: ``default``, ``ocw_randomized``, ``ocw_wordnet`` (the three OCW copies) or ``wote``.
        data_dir: local source: for OCW a folder holding the split files or the release tarball
            itself; for WoTe a folder holding ``train.json``, ``validation.json``, ``test.json``.
            ``None`` downloads the official files.
        cache_dir: the ``datasets`` cache folder (default: ``HF_DATASETS_CACHE``).
        **builder_kwargs: passed to the builder class (e.g. ``writer_batch_size``).

    The cache is keyed on the script's content and the source files, so an edited builder or
    source never serves stale rows. The builder records the official split sizes
    (:func:`official_splits`), which ``download_and_prepare`` checks by default on every
    ``datasets`` version, as ``datasets`` 3.x does from ``dataset_infos.json`` for a script.

    Raises:
        ValueError: unknown ``name``.
    """
    spec = config_spec(name)
    module = load_hub_module(spec.script)
    builder_cls = getattr(module, spec.script)
    key = file_hash(hub_root() / f"{spec.script}.py")
    if data_dir is not None:
        data_dir = str(Path(data_dir).expanduser().resolve())
        key = hashlib.sha256(f"{key}:{source_fingerprint(data_dir)}".encode()).hexdigest()[:16]
    builder = builder_cls(
        config_name=spec.builder_config,
        data_dir=data_dir,
        cache_dir=None if cache_dir is None else str(cache_dir),
        hash=key,
        **builder_kwargs,
    )
    if builder.info.splits is None:  # not prepared yet: record the sizes to check against
        builder.info.splits = official_splits(name)
    return builder


def official_splits(name: str) -> datasets.SplitDict:
    """The official split sizes of a config (``OFFICIAL_SPLIT_SIZES`` of its script): OCW
    configs 62 / 62 / 494 walls, WoTe 248 / 169 / 412 questions."""
    spec = config_spec(name)
    sizes = load_hub_module(spec.script).OFFICIAL_SPLIT_SIZES
    return datasets.SplitDict(
        {split: datasets.SplitInfo(name=split, num_examples=n) for split, n in sizes.items()},
        dataset_name=spec.script.lower(),
    )


def source_fingerprint(data_dir: PathLike) -> str:
    """Path, size and modification time (ns) of every file under a local source.

    Part of the cache key of :func:`get_builder`, so that editing, replacing or truncating a
    source file rebuilds the cache instead of serving the old rows (``datasets`` itself keys a
    local ``data_dir`` on its path only). A missing path gives ``"missing"``; the builder then
    reports it.
    """
    root = Path(data_dir)
    if not root.exists():
        return "missing"
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    return ";".join(
        f"{p.relative_to(root) if p != root else p.name}:{st.st_size}:{st.st_mtime_ns}"
        for p in files
        for st in (p.stat(),)
    )


class SourceUnavailableError(RuntimeError):
    """A config's source data could not be had (no local ``data_dir`` and no download)."""


def prepare(
    name: str,
    data_dir: PathLike | None = None,
    cache_dir: PathLike | None = None,
    *,
    verification_mode: str | datasets.VerificationMode | None = None,
    flag: str | None = None,
) -> datasets.DatasetDict:
    """Build (or read from the cache) every split of a config, for the CLI commands.

    Like :func:`load_dataset`, with errors a user can act on: ``flag`` names the option that
    gives a local copy (default: the config's ``ocw-hub build`` flag, e.g. ``--wote-dir``).

    Raises:
        SourceUnavailableError: ``data_dir`` does not exist, or it is None and the official
            download failed; the message names ``flag``.
        ValueError: malformed source data (the builder's error names file, id and field).
    """
    spec = config_spec(name)
    flag = flag or spec.flag
    if data_dir is not None and not Path(data_dir).exists():
        raise SourceUnavailableError(f"{flag} {data_dir}: no such file or folder (config {name!r})")
    try:
        return load_dataset(
            name, data_dir=data_dir, cache_dir=cache_dir, verification_mode=verification_mode
        )
    except (ConnectionError, OSError) as err:
        if data_dir is not None:
            raise
        raise SourceUnavailableError(
            f"config {name!r}: the official files could not be downloaded "
            f"({type(err).__name__}: {err}); give a local copy with {flag} DIR"
        ) from err


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
        datasets.exceptions.NonMatchingSplitsSizesError: split sizes differ from the official
            ones (unless ``verification_mode="no_checks"``).
        FileNotFoundError / ConnectionError: the source cannot be had.
    """
    builder = get_builder(name, data_dir=data_dir, cache_dir=cache_dir, **builder_kwargs)
    builder.download_and_prepare(download_mode=download_mode, verification_mode=verification_mode)
    return builder.as_dataset(split=split)
