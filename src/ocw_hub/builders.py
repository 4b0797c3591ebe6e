"""The builders through the Python API: works on every ``datasets`` version, runs no script.

``datasets`` >= 4 refuses loading scripts (``load_dataset("OCW.py")`` raises "Dataset scripts
are no longer supported"), but a builder class is still an ordinary Python class: this module
imports ``OCW.py`` / ``WoTe.py`` by path and drives them the way ``load_dataset`` does, with the
same Arrow cache (``~/.cache/huggingface/datasets`` or ``HF_DATASETS_CACHE``).
"""

from __future__ import annotations

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

    The cache is keyed on the script's content, so an edited builder never serves stale rows.

    Raises:
        ValueError: unknown ``name``.
    """
    spec = config_spec(name)
    module = load_hub_module(spec.script)
    builder_cls = getattr(module, spec.script)
    if data_dir is not None:
        data_dir = str(Path(data_dir).expanduser().resolve())
    return builder_cls(
        config_name=spec.builder_config,
        data_dir=data_dir,
        cache_dir=None if cache_dir is None else str(cache_dir),
        hash=file_hash(hub_root() / f"{spec.script}.py"),
        **builder_kwargs,
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
            default verification compares split sizes with the official ones when the builder
            records them (``datasets`` 3.x does, from ``dataset_infos.json``); pass
            ``verification_mode="no_checks"`` for a local copy of another size.

    Returns:
        A ``DatasetDict`` (train 62 / validation 62 / test 494 walls for the OCW configs;
        248 / 169 / 412 questions for WoTe) or one ``Dataset`` when ``split`` is given.

    Raises:
        ValueError: unknown ``name``; a malformed source file (the builders' ``OCWFormatError``
            / ``WoTeFormatError`` name the file, the wall or question id and the field).
        FileNotFoundError / ConnectionError: the source cannot be had.
    """
    builder = get_builder(name, data_dir=data_dir, cache_dir=cache_dir, **builder_kwargs)
    builder.download_and_prepare(download_mode=download_mode, verification_mode=verification_mode)
    return builder.as_dataset(split=split)
