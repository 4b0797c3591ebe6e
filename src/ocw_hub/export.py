"""The Parquet hub layout: what ``ocw-hub build`` writes and the Hub viewer reads.

An export folder holds::

    README.md                                   dataset card: YAML configs, dataset_info, license
    data/<config>/<split>-00000-of-00001.parquet

and no ``.py`` at its root, so ``datasets.load_dataset(<folder>, <config>)`` on any version from
3.x to 5.x and the Hub viewer read it without running code. Rows and features are exactly those
of the builders (the features are stored in each Parquet file's ``huggingface`` schema metadata
and in the card's ``dataset_info``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import datasets
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from .builders import prepare
from .configs import PathLike, config_spec
from .errors import ExportError
from .resources import assets_root

SPLITS = ("train", "validation", "test")
CARD_SPLIT_MARKER = "<!-- end of dataset card -->"

#: YAML metadata of the dataset card, besides ``configs`` and ``dataset_info``.
CARD_METADATA = {
    "pretty_name": "Only Connect Wall (OCW) and Wizard-of-Tasks Extractive (WoTe)",
    "language": ["en"],
    "task_categories": ["text-classification", "question-answering", "text-generation"],
    "task_ids": ["extractive-qa"],
    "size_categories": ["n<1K"],
    "tags": ["only-connect", "red-herrings", "creative-problem-solving", "wizard-of-tasks"],
}


@dataclass(frozen=True)
class ExportedSplit:
    """One written Parquet file: config, split, number of rows and path inside the export.

    ``answers_located`` (WoTe only, else None): how many rows have their extracted answer
    located in ``context`` (``answers.answer_start[0] >= 0``).
    """

    config: str
    split: str
    num_rows: int
    path: str
    answers_located: int | None = None


def answers_located(dataset: datasets.Dataset) -> int | None:
    """Rows of an extractive-QA split whose answer was found in the context (None: no
    ``answers`` column)."""
    if "answers" not in dataset.column_names:
        return None
    return sum(1 for starts in dataset["answers"] if starts["answer_start"][0] >= 0)


def parquet_path(config: str, split: str) -> str:
    """Path of a split's file inside an export, e.g. ``data/wote/test-00000-of-00001.parquet``."""
    return f"data/{config}/{split}-00000-of-00001.parquet"


def card_body() -> str:
    """The dataset card's Markdown: the root README.md up to :data:`CARD_SPLIT_MARKER`.

    One text serves the repository front page and every export, so they never disagree.
    """
    readme = (assets_root() / "README.md").read_text(encoding="utf-8")
    _, _, body = readme.partition("\n---\n") if readme.startswith("---\n") else ("", "", readme)
    return body.split(CARD_SPLIT_MARKER)[0].strip() + "\n"


def render_card(infos: Mapping[str, datasets.DatasetInfo]) -> DatasetCard:
    """The export's dataset card: ``configs`` (one per config, ``default`` marked default,
    one ``data_files`` entry per split), ``dataset_info`` (features, split sizes) and
    :data:`CARD_METADATA`."""
    data = DatasetCardData(**CARD_METADATA, **card_license(infos))
    MetadataConfigs(
        {
            name: {
                "data_files": [
                    {"split": split, "path": parquet_path(name, split)} for split in info.splits
                ],
                **({"default": True} if name == "default" else {}),
            }
            for name, info in infos.items()
        }
    ).to_dataset_card_data(data)
    DatasetInfosDict(infos).to_dataset_card_data(data)
    body = card_body()
    title, _, rest = body.partition("\n")
    held = ", ".join(f"`{name}`" for name in infos)
    note = f"This copy holds the config(s) {held}, in Parquet (written by `ocw-hub build`)."
    return DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{title}\n\n{note}\n{rest}")


def is_prerelease(dataset_dict: datasets.DatasetDict) -> bool:
    """Whether OCW walls carry the 6-character wall ids of the pre-release export (the
    official release uses 4, e.g. ``882c``): such a copy is not the official release."""
    ids = [i for split in dataset_dict.values() for i in split["wall_id"]]
    return bool(ids) and all(len(i) == 6 for i in ids)


def card_license(configs: Iterable[str]) -> dict[str, str]:
    """License metadata: MIT for OCW alone; with WoTe, whose authors state no licence, "other"
    with the details spelled out."""
    if all(config_spec(name).script == "OCW" for name in configs):
        return {"license": "mit"}
    return {
        "license": "other",
        "license_name": "ocw-mit-wote-unstated",
        "license_details": "OCW: MIT (TaatiTeam/OCW). WoTe: its authors (grill-lab/WoTe) "
        "state no licence.",
    }


def is_export(folder: Path) -> bool:
    """Whether ``folder`` holds only what :func:`build_export` writes (``README.md``,
    ``data/**.parquet``): only such a folder, or an empty one, is replaced by a new export."""
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.is_dir():
            if rel.parts[0] != "data":
                return False
        elif rel.as_posix() != "README.md" and not (
            rel.parts[0] == "data" and path.suffix == ".parquet"
        ):
            return False
    return True


def check_out(out: Path, sources: Iterable[PathLike | None]) -> None:
    """Refuse an ``--out`` whose replacement would destroy something else.

    Raises:
        ExportError: ``out`` is a file; ``out`` holds a source of the build; ``out`` is a
            folder with files that are not a previous export (nothing is deleted).
    """
    out = out.resolve()
    if out.exists() and not out.is_dir():
        raise ExportError(f"export folder {out}: is a file, not an export folder")
    for source in sources:
        if source is not None and Path(source).resolve().is_relative_to(out):
            raise ExportError(
                f"export folder {out}: holds the source {source}; choose another folder"
            )
    if out.is_dir() and not is_export(out):
        raise ExportError(
            f"export folder {out}: the folder holds files that are not an ocw-hub export; "
            "remove them or choose another folder (it would be replaced as a whole)"
        )


@contextlib.contextmanager
def _staging(out: Path) -> Iterator[Path]:
    """A temporary folder beside ``out`` that replaces ``out`` only if the block succeeds."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; an export is an ordinary folder
    try:
        yield tmp
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            out.rename(old / out.name)
            tmp.rename(out)
            shutil.rmtree(old)
        else:
            tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def build_export(
    sources: Mapping[str, PathLike | None],
    out: PathLike,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    on_split: Callable[[ExportedSplit], None] | None = None,
    on_config: Callable[[str], None] | None = None,
) -> list[ExportedSplit]:
    """Prepare the given configs and write the hub export folder ``out``.

    Args:
        sources: config name -> local ``data_dir`` (``None``: the official download), e.g.
            ``{"default": "../shared/data/ocw/dataset", "wote": "../shared/data/wote"}``.
        out: the export folder; replaced as a whole only when every config succeeded, so a
            failure leaves the previous export (or nothing) and no partial files. Only an
            empty folder or a previous export is replaced (see :func:`check_out`).
        cache_dir: the ``datasets`` cache folder.
        on_config, on_split: progress callbacks (a config starts; a split file was written).

    Returns:
        One :class:`ExportedSplit` per written Parquet file, in config then split order.

    Raises:
        ValueError: unknown config; malformed source data; an ``out`` that is not safe to
            replace.
        SourceUnavailableError: a source cannot be had (names the flag to give).
    """
    for name in sources:
        config_spec(name)
    check_out(Path(out), sources.values())
    written: list[ExportedSplit] = []
    infos: dict[str, datasets.DatasetInfo] = {}
    with _staging(Path(out)) as tmp:
        for name, data_dir in sources.items():
            if on_config:
                on_config(name)
            dataset_dict = prepare(name, data_dir, cache_dir, verification_mode=verification_mode)
            if config_spec(name).script == "OCW" and is_prerelease(dataset_dict):
                warnings.warn(
                    f"config {name!r}: the wall ids are the 6-character pre-release ones, so "
                    f"{data_dir} is not the official release (split membership may differ); "
                    "do not publish this export or figures on it as OCW",
                    UserWarning,
                    stacklevel=2,
                )
            info = next(iter(dataset_dict.values())).info.copy()
            info.config_name = name
            infos[name] = info
            for split in _ordered(dataset_dict):
                rel = parquet_path(name, split)
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                dataset_dict[split].to_parquet(str(tmp / rel))
                split_data = dataset_dict[split]
                item = ExportedSplit(
                    name, split, split_data.num_rows, rel, answers_located(split_data)
                )
                written.append(item)
                if on_split:
                    on_split(item)
        render_card(infos).save(tmp / "README.md")
    return written


def _ordered(splits: Iterable[str]) -> list[str]:
    splits = list(splits)
    return [s for s in SPLITS if s in splits] + [s for s in splits if s not in SPLITS]
