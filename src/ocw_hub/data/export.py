"""``ocw-hub build``: prepare configs and write one Parquet export per dataset, with its card.

The layout is :mod:`ocw_hub.data.layout`'s, the card :mod:`ocw_hub.data.card`'s, the
leaderboard's ``eval.yaml`` :mod:`ocw_hub.data.leaderboard`'s, and the
destination is checked and replaced whole by :mod:`ocw_hub.data.staging`. Rows and features are
exactly those of the builders; the features are written in the notation ``datasets`` 3.x reads
(:func:`ocw_hub.data.infos.legacy_features`), both in each Parquet file's ``huggingface`` schema
metadata and in the card's ``dataset_info``, so ``load_dataset("parquet", data_files=...)`` and
``Dataset.from_parquet`` work on 3.x too.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets

from ..configs import PathLike, config_spec
from ..provenance import OFFICIAL
from .builders import prepare
from .card import (
    DATASET_CARDS,
    is_prerelease,
    provenance_markdown,
    provenance_notice,
    render_card,
    season_markdown,
    season_table,
    wote_counts_markdown,
)
from .layout import SPLITS, answers_located, export_folder, write_split
from .leaderboard import EVAL_FILE, eval_yaml_text
from .staging import ExportPathError, plan_export, staging

__all__ = ["ExportPathError", "ExportedSplit", "SPLITS", "build_export", "plan_export"]


@dataclass(frozen=True)
class ExportedSplit:
    """One written Parquet file: config, split, number of rows and path inside its export.

    ``export`` is the export folder (``ocw`` or ``wote``) inside ``out``; ``answers_located``
    (WoTe only, else None): how many rows have their extracted answer located in ``context``
    (``answers.answer_start[0] >= 0``).
    """

    config: str
    split: str
    num_rows: int
    path: str
    answers_located: int | None = None
    export: str = ""


@dataclass
class _DatasetExport:
    """What one export collects while its configs are written."""

    infos: dict[str, datasets.DatasetInfo] = field(default_factory=dict)
    files: dict[str, dict[str, str]] = field(default_factory=dict)  # config -> split -> path
    prerelease: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    official: dict[str, dict[str, Any]] = field(default_factory=dict)  # card's CARD_FIELD


def _ordered(splits: Iterable[str]) -> list[str]:
    splits = list(splits)
    return [s for s in SPLITS if s in splits] + [s for s in splits if s not in SPLITS]


def _write_config(
    name: str,
    dataset_dict: datasets.DatasetDict,
    folder: Path,
    on_split: Callable[[ExportedSplit], None] | None,
) -> tuple[datasets.DatasetInfo, list[ExportedSplit]]:
    """Write a config's splits; returns its info (sizes in bytes of the Parquet files) and
    the written files."""
    info = next(iter(dataset_dict.values())).info.copy()
    info.config_name = name
    written, parquet_bytes = [], 0
    for split in _ordered(dataset_dict):
        data = dataset_dict[split]
        rel, size = write_split(data, folder, name, split)
        parquet_bytes += size
        item = ExportedSplit(
            name, split, data.num_rows, rel, answers_located(data), export_folder(name)
        )
        written.append(item)
        if on_split:
            on_split(item)
    info.download_size = parquet_bytes
    info.dataset_size = sum(s.num_bytes or 0 for s in info.splits.values()) or None
    return info, written


def _card_sections(
    name: str,
    data_dir: PathLike | None,
    cache_dir: PathLike | None,
    dataset_dict: datasets.DatasetDict,
    collected: _DatasetExport,
) -> None:
    """The card sections a config contributes: OCW's season table (from the first OCW
    config that has one), WoTe's counts."""
    _CARD_SECTIONS[config_spec(name).dataset](name, data_dir, cache_dir, dataset_dict, collected)


def _season_section(
    name: str,
    data_dir: PathLike | None,
    cache_dir: PathLike | None,
    dataset_dict: datasets.DatasetDict,
    collected: _DatasetExport,
) -> None:
    if not collected.sections:
        seasons = season_table(name, data_dir, cache_dir)
        if seasons:
            collected.sections.append(season_markdown(seasons))


def _counts_section(
    name: str,
    data_dir: PathLike | None,
    cache_dir: PathLike | None,
    dataset_dict: datasets.DatasetDict,
    collected: _DatasetExport,
) -> None:
    rows = {split: dataset_dict[split].to_list() for split in _ordered(dataset_dict)}
    collected.sections.append(wote_counts_markdown(rows))


#: The card sections each dataset contributes (``ConfigSpec.dataset``).
_CARD_SECTIONS = {"ocw": _season_section, "wote": _counts_section}


def _source_of(
    name: str, data_dir: PathLike | None, dataset_dict: datasets.DatasetDict
) -> dict[str, Any]:
    """:func:`ocw_hub.provenance.source_provenance` of a prepared config (all its splits)."""
    from .sources import source_provenance

    key = config_spec(name).id_key
    ids = [i for split in dataset_dict.values() for i in split[key]]
    cache_files = [f for split in dataset_dict.values() for f in split.cache_files]
    return source_provenance(name, data_dir, ids, cache_files)


def _official_entry(
    name: str, dataset_dict: datasets.DatasetDict, files: Mapping[str, str], folder: Path
) -> dict[str, Any]:
    """The card's record (:func:`ocw_hub.data.official.card_record`) of a config prepared from the
    official download: its URLs, and per split the Parquet file, its SHA-256 and the rows'
    digest."""
    from ..provenance import rows_digest
    from .official import card_record, official_urls

    key = config_spec(name).id_key
    rows = {split: rows_digest(dataset_dict[split].to_list(), key) for split in files}
    return card_record(official_urls(name), files, rows, folder)


def _warn_prerelease(name: str, data_dir: PathLike | None) -> None:
    warnings.warn(
        f"config {name!r}: the wall ids are the 6-character pre-release ones, so {data_dir} is "
        "not the official release (split membership may differ); the card says so and "
        "publishing it is refused unless forced",
        UserWarning,
        stacklevel=3,
    )


def build_export(
    sources: Mapping[str, PathLike | None],
    out: PathLike,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    on_split: Callable[[ExportedSplit], None] | None = None,
    on_config: Callable[[str], None] | None = None,
    download_mode: str | None = None,
) -> list[ExportedSplit]:
    """Prepare the given configs and write one export per dataset under ``out``.

    Args:
        sources: config name -> local ``data_dir`` (``None``: the official download), e.g.
            ``{"default": "../shared/data/ocw/dataset", "wote": "../shared/data/wote"}``.
        out: the folder of the exports: ``out/ocw`` (OCW configs) and ``out/wote``. Each is
            replaced as a whole only when every config succeeded, so a failure leaves the
            previous exports (or nothing) and no temporary files. Checked first
            (:func:`plan_export`).
        cache_dir: the ``datasets`` cache folder (not inside ``out``).
        on_config, on_split: progress callbacks (a config starts; a split file was written).
        download_mode: as in ``datasets.load_dataset``; ``"force_redownload"`` prepares
            every config again instead of reading the cache.

    Returns:
        One :class:`ExportedSplit` per written Parquet file, in config then split order.

    Raises:
        ValueError: unknown config; malformed source data (the loading scripts' format
            errors).
        ExportPathError: an ``out`` or ``cache_dir`` that is not safe (see
            :func:`plan_export`).
        SourceUnavailableError: a source cannot be had.
    """
    targets = plan_export(sources, out, cache_dir)
    written: list[ExportedSplit] = []
    collected = {export: _DatasetExport() for export in targets}
    with staging(targets) as staged:
        for name, data_dir in sources.items():
            if on_config:
                on_config(name)
            dataset_dict = prepare(
                name,
                data_dir,
                cache_dir,
                verification_mode=verification_mode,
                download_mode=download_mode,
            )
            export = collected[export_folder(name)]
            if is_prerelease(dataset_dict, config_spec(name).id_key):
                _warn_prerelease(name, data_dir)
                export.prerelease.append(name)
            info, files = _write_config(name, dataset_dict, staged[export_folder(name)], on_split)
            export.infos[name] = info
            export.files[name] = {item.split: item.path for item in files}
            written += files
            _card_sections(name, data_dir, cache_dir, dataset_dict, export)
            export.sources[name] = _source_of(name, data_dir, dataset_dict)
            if export.sources[name]["release"] == OFFICIAL:
                export.official[name] = _official_entry(
                    name, dataset_dict, export.files[name], staged[export_folder(name)]
                )
        for folder, export in collected.items():
            notice = provenance_notice(export.prerelease) if export.prerelease else None
            sections = [*export.sections, provenance_markdown(export.sources)]
            card = render_card(
                folder, export.infos, sections, notice, files=export.files, official=export.official
            )
            card.save(staged[folder] / "README.md")
            board = eval_yaml_text(DATASET_CARDS[folder].title, export.infos)
            (staged[folder] / EVAL_FILE).write_text(board, encoding="utf-8")
    return written
