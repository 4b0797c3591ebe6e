"""The Parquet hub layout of an export: where its files go, how a split is written, and how
an export folder is recognised.

``ocw-hub build`` writes one export per dataset (OCW is MIT, WoTe states no licence)::

    <out>/ocw/README.md                      card: configs, dataset_info, license mit
    <out>/ocw/data/<config>/<split>-<sha12>.parquet   default, ocw_randomized, ocw_wordnet
    <out>/wote/README.md                     card: license other (none stated)
    <out>/wote/data/wote/<split>-<sha12>.parquet

``<sha12>``: the first 12 hex digits of the file's SHA-256. ``datasets`` keys the cache of a
local folder on the folder's name and its card (``dataset_info``, ``configs``), not on the
files (huggingface/datasets#2956): naming the files by content makes the card, and so the
cache entry, differ whenever the rows do, on every ``datasets`` era.

An export has no ``.py`` at its root, so ``datasets.load_dataset(<export>, <config>)`` on any
version from 3.x to 5.x and the Hub viewer read it without running code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..configs import EXPORT_FOLDERS, PathLike, config_spec
from ..resources import load_sibling

if TYPE_CHECKING:
    import datasets

#: The splits of every config, in order (the scripts' ``SPLITS``).
SPLITS: tuple[str, ...] = load_sibling("source_files").SPLITS


def answers_located(dataset: datasets.Dataset) -> int | None:
    """Rows of an extractive-QA split whose answer was found in the context (None: no
    ``answers`` column)."""
    if "answers" not in dataset.column_names:
        return None
    return sum(1 for starts in dataset["answers"] if starts["answer_start"][0] >= 0)


#: Hex digits of the SHA-256 of a split's Parquet file in its name.
DIGEST_CHARS = 12


def parquet_path(config: str, split: str, sha256: str) -> str:
    """Path of a split's file inside an export, named by its content: ``sha256`` is the
    file's SHA-256 (hex), e.g. ``data/wote/test-1a2b3c4d5e6f.parquet``."""
    return f"data/{config}/{split}-{sha256[:DIGEST_CHARS]}.parquet"


def write_split(
    dataset: datasets.Dataset, export: Path, config: str, split: str
) -> tuple[str, int]:
    """Write one split into an export as :func:`write_parquet` does, under the name of its
    content (:func:`parquet_path`); returns ``(path inside the export, size in bytes)``."""
    partial = export / "data" / config / f"{split}.parquet.partial"
    partial.parent.mkdir(parents=True, exist_ok=True)
    from ..provenance import file_sha256

    size = write_parquet(dataset, partial)
    rel = parquet_path(config, split, file_sha256(partial))
    partial.replace(export / rel)
    return rel, size


def export_folder(config: str) -> str:
    """The export folder of a config inside ``out``: ``ocw`` for the three OCW configs,
    ``wote`` for WoTe.

    Raises:
        ValueError: unknown config.
    """
    return config_spec(config).export


def write_parquet(dataset: datasets.Dataset, path: PathLike) -> int:
    """Write one split as Parquet that every ``datasets`` era reads; returns its size in bytes.

    The rows and Arrow types are the dataset's; the ``huggingface`` schema metadata holds the
    features in the 3.x notation (``Sequence``; see :func:`ocw_hub.data.infos.legacy_features`),
    since ``datasets`` 3.x fails on the ``List`` that 4.x and 5.x write ("Feature type 'List'
    not found"). Row groups hold at most ``datasets.config.DEFAULT_MAX_BATCH_SIZE`` rows.
    """
    import datasets
    import pyarrow.parquet as pq

    from .infos import legacy_features_of

    table = dataset.with_format("arrow")[:]
    metadata = {"info": {"features": legacy_features_of(dataset.features)}}
    table = table.replace_schema_metadata({"huggingface": json.dumps(metadata)})
    pq.write_table(table, str(path), row_group_size=datasets.config.DEFAULT_MAX_BATCH_SIZE)
    return Path(path).stat().st_size


# --------------------------------------------------------------------------------------------
# Recognising exports
# --------------------------------------------------------------------------------------------


def is_export(folder: Path) -> bool:
    """Whether ``folder`` is a Parquet hub layout (a card and a ``data/`` folder of Parquet
    files) rather than raw source files."""
    return (
        folder.is_dir()
        and (folder / "README.md").is_file()
        and any((folder / "data").glob("**/*.parquet"))
    )


def export_of(path: Path, config: str) -> Path:
    """``path`` itself, or its dataset's export inside it when ``path`` is the ``--out`` of
    ``ocw-hub build`` (which writes one export per dataset: ``OUT/ocw``, ``OUT/wote``)."""
    inner = path / export_folder(config)
    return inner if not is_export(path) and is_export(inner) else path


def exports_in(folder: PathLike) -> list[Path]:
    """The exports a path holds: itself when it has a ``README.md`` (or is no folder), else
    its export subfolders (``ocw``, ``wote``) written by ``build_export``."""
    root = Path(folder)
    if not root.is_dir() or (root / "README.md").is_file():
        return [root]
    found = [root / name for name in EXPORT_FOLDERS if (root / name / "README.md").is_file()]
    return found or [root]


def holds_only_export_files(folder: Path) -> bool:
    """Whether ``folder`` holds only what :func:`build_export` writes in one export
    (``README.md``, ``eval.yaml``, ``data/**.parquet``, no symbolic link): only such a folder,
    or an empty one, is replaced by a new export."""
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.is_symlink():
            return False
        if path.is_dir():
            if rel.parts[0] != "data":
                return False
        elif rel.as_posix() not in ("README.md", "eval.yaml") and not (
            rel.parts[0] == "data" and path.suffix == ".parquet"
        ):
            return False
    return True
