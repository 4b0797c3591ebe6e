"""The Parquet hub layout: what ``ocw-hub build`` writes and the Hub viewer reads.

OCW is MIT and WoTe states no licence, so each dataset gets an export (and a card) of its own,
publishable to its own repository. ``build_export(sources, out)`` writes::

    <out>/ocw/README.md                                  card: configs, dataset_info, license mit
    <out>/ocw/data/<config>/<split>-00000-of-00001.parquet   default, ocw_randomized, ocw_wordnet
    <out>/wote/README.md                                 card: license other (none stated)
    <out>/wote/data/wote/<split>-00000-of-00001.parquet

(only the datasets whose configs were built). An export has no ``.py`` at its root, so
``datasets.load_dataset(<export>, <config>)`` on any version from 3.x to 5.x and the Hub viewer
read it without running code. Rows and features are exactly those of the builders; the
features are written in the notation ``datasets`` 3.x reads (:func:`ocw_hub.data.infos.
legacy_features`), both in each Parquet file's ``huggingface`` schema metadata and in the
card's ``dataset_info``, so ``load_dataset("parquet", data_files=...)`` and
``Dataset.from_parquet`` work on 3.x too.

An export folder is replaced as a whole, and only when every config succeeded; a symbolic link
given as (or found at) an export's place is kept and the export behind it is updated.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import stat
import sys
import tempfile
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import datasets
import pyarrow.parquet as pq
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from ..configs import PathLike, config_spec
from ..errors import OutputPathError
from ..outputs import check_output_dir
from ..resources import assets_root, load_script, load_sibling
from .builders import prepare
from .infos import legacy_features_of, legacy_yaml_features

SPLITS = load_sibling("source_files").SPLITS
CARD_SPLIT_MARKER = "<!-- end of dataset card -->"

#: The export folder of each loading script's configs, inside ``--out``.
EXPORT_FOLDERS = {"OCW": "ocw", "WoTe": "wote"}

#: Wall ids of the pre-release export (TaatiTeam/OCW ``data/onlyconnect.json``) have this many
#: characters; the official release uses 4 (e.g. ``882c``).
PRERELEASE_ID_LENGTH = 6

#: What the upstream WoTe README states: 826 questions, splits 248 / 167 / 412.
WOTE_README_QUESTIONS = 826
WOTE_README_SPLITS = {"train": 248, "validation": 167, "test": 412}


@dataclass(frozen=True)
class DatasetCardSpec:
    """What one dataset's card says besides its configs, features and citation (the loading
    script's ``_CITATION``, as the builder's ``DatasetInfo`` carries it).

    Attributes:
        export: the export folder name (``ocw`` or ``wote``).
        title: the card's title.
        metadata: YAML metadata besides ``configs`` and ``dataset_info``.
        readme_section: heading prefix of the README.md section that describes the dataset.
        licence: the card's licence paragraph.
    """

    export: str
    title: str
    metadata: dict[str, Any]
    readme_section: str
    licence: str


#: The card of each export. ``paperswithcode_id`` is left out: no Papers with Code dataset id
#: of OCW could be confirmed (TaatiTeam's own card on the Hub gives none).
DATASET_CARDS: dict[str, DatasetCardSpec] = {
    "ocw": DatasetCardSpec(
        export="ocw",
        title="Only Connect Wall (OCW)",
        metadata={
            "pretty_name": "Only Connect Wall (OCW)",
            "license": "mit",
            "language": ["en"],
            "language_creators": ["found"],
            "annotations_creators": ["found"],
            "multilinguality": ["monolingual"],
            "source_datasets": ["original"],
            "size_categories": ["n<1K"],
            "task_categories": ["text-classification", "text-generation"],
            "tags": ["only-connect", "red-herrings", "creative-problem-solving", "puzzles"],
        },
        readme_section="## OCW",
        licence="MIT, as the OCW release states (https://github.com/TaatiTeam/OCW).",
    ),
    "wote": DatasetCardSpec(
        export="wote",
        title="Wizard-of-Tasks Extractive (WoTe)",
        metadata={
            "pretty_name": "Wizard-of-Tasks Extractive (WoTe)",
            "license": "other",
            "license_name": "wote-no-licence-stated",
            "license_link": "https://github.com/grill-lab/WoTe",
            "license_details": "The WoTe authors state no licence: the grill-lab/WoTe "
            "repository has no licence file and its README names none.",
            "language": ["en"],
            "language_creators": ["crowdsourced", "found"],
            "annotations_creators": ["crowdsourced", "expert-generated"],
            "multilinguality": ["monolingual"],
            "source_datasets": ["extended|other-wizard-of-tasks"],
            "size_categories": ["n<1K"],
            "task_categories": ["question-answering"],
            "task_ids": ["extractive-qa"],
            "tags": ["wizard-of-tasks", "conversational-qa", "task-assistant", "cooking", "diy"],
        },
        readme_section="## WoTe",
        licence="None stated: the WoTe repository (https://github.com/grill-lab/WoTe) has no "
        "licence file and its README names none, so this card says `license: other`. The "
        "questions come from Wizard of Tasks (Choi et al., 2022).",
    ),
}


class ExportPathError(OutputPathError):
    """An export destination that is not safe to write, found before any work is done.

    Attributes:
        parameter: the :func:`build_export` argument at fault: ``"out"`` or ``"cache_dir"``.
    """

    def __init__(self, message: str, *, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


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


@dataclass(frozen=True)
class Season:
    """One row of the release's ``season_to_walls_map``: walls of the season in the whole
    release (all splits) and the dates it ran (None: not recorded)."""

    season: int
    num_walls: int
    start_date: date | str | None
    end_date: date | str | None


# --------------------------------------------------------------------------------------------
# Small facts about a built dataset
# --------------------------------------------------------------------------------------------


def answers_located(dataset: datasets.Dataset) -> int | None:
    """Rows of an extractive-QA split whose answer was found in the context (None: no
    ``answers`` column)."""
    if "answers" not in dataset.column_names:
        return None
    return sum(1 for starts in dataset["answers"] if starts["answer_start"][0] >= 0)


def parquet_path(config: str, split: str) -> str:
    """Path of a split's file inside an export, e.g. ``data/wote/test-00000-of-00001.parquet``."""
    return f"data/{config}/{split}-00000-of-00001.parquet"


def export_folder(config: str) -> str:
    """The export folder of a config inside ``out``: ``ocw`` for the three OCW configs,
    ``wote`` for WoTe.

    Raises:
        ValueError: unknown config.
    """
    return EXPORT_FOLDERS[config_spec(config).script]


def are_prerelease_ids(wall_ids: Iterable[str]) -> bool:
    """Whether OCW wall ids are the 6-character ids of the pre-release export (the official
    release uses 4, e.g. ``882c``): such a copy is not the official release."""
    ids = list(wall_ids)
    return bool(ids) and all(len(i) == PRERELEASE_ID_LENGTH for i in ids)


def is_prerelease(dataset_dict: datasets.DatasetDict) -> bool:
    """:func:`are_prerelease_ids` over every split of an OCW config."""
    return are_prerelease_ids(i for split in dataset_dict.values() for i in split["wall_id"])


def write_parquet(dataset: datasets.Dataset, path: PathLike) -> int:
    """Write one split as Parquet that every ``datasets`` era reads; returns its size in bytes.

    The rows and Arrow types are the dataset's; the ``huggingface`` schema metadata holds the
    features in the 3.x notation (``Sequence``; see :func:`ocw_hub.data.infos.legacy_features`),
    since ``datasets`` 3.x fails on the ``List`` that 4.x and 5.x write ("Feature type 'List'
    not found"). Row groups hold at most ``datasets.config.DEFAULT_MAX_BATCH_SIZE`` rows.
    """
    table = dataset.with_format("arrow")[:]
    metadata = {"info": {"features": legacy_features_of(dataset.features)}}
    table = table.replace_schema_metadata({"huggingface": json.dumps(metadata)})
    pq.write_table(table, str(path), row_group_size=datasets.config.DEFAULT_MAX_BATCH_SIZE)
    return Path(path).stat().st_size


# --------------------------------------------------------------------------------------------
# OCW's season_to_walls_map and WoTe's counts, for the cards
# --------------------------------------------------------------------------------------------


def _seasons_of(raw: Mapping[int, Mapping[str, Any]]) -> list[Season]:
    return [
        Season(season, info["num_walls"], info["start_date"], info["end_date"])
        for season, info in raw.items()
    ]


def _ocw_source(config: str, data_dir: PathLike | None, cache_dir: PathLike | None) -> tuple:
    """``(source, downloads folder)`` of an OCW config as its builder reads it: ``data_dir``,
    or the configuration's ``url`` fetched through the ``datasets`` downloads cache (already
    there once the config is prepared)."""
    downloads = (
        Path(cache_dir) / "downloads" if cache_dir else datasets.config.DOWNLOADED_DATASETS_PATH
    )
    if data_dir is not None:
        return data_dir, downloads
    builder_config = load_script("OCW").OCW.builder_configs[config_spec(config).builder_config]
    manager = datasets.DownloadManager(
        download_config=datasets.DownloadConfig(cache_dir=str(downloads))
    )
    return manager.download(builder_config.url), downloads


def season_table(
    config: str, data_dir: PathLike | None, cache_dir: PathLike | None = None
) -> list[Season] | None:
    """The release's ``season_to_walls_map`` of an OCW config's source, one row per season
    (``read_season_map`` of the scripts' ``ocw_walls``: when the split files disagree, the
    test split's map, with a warning). None (with a warning) when the source has no map or
    it cannot be read.
    """
    try:
        source, downloads = _ocw_source(config, data_dir, cache_dir)
        seasons = load_sibling("ocw_walls").read_season_map(source, downloads)
    except (OSError, ValueError) as err:
        warnings.warn(
            f"config {config!r}: season_to_walls_map not read ({err}); the card has no season "
            "table",
            UserWarning,
            stacklevel=2,
        )
        return None
    return _seasons_of(seasons) or None


def _date_cell(value: date | str | None) -> str:
    if value is None:
        return "not recorded"
    return value.isoformat() if isinstance(value, date) else value


def season_markdown(seasons: list[Season]) -> str:
    """The card's table of seasons: walls per season (whole release) and dates."""
    lines = [
        "## Seasons",
        "",
        "The release's `season_to_walls_map`: walls per season in the whole release (all "
        "splits together) and the dates the season ran (day/month/year in the release, "
        "ISO dates here).",
        "",
        "| season | walls | start date | end date |",
        "|---:|---:|---|---|",
    ]
    lines += [
        f"| {s.season} | {s.num_walls} | {_date_cell(s.start_date)} | {_date_cell(s.end_date)} |"
        for s in seasons
    ]
    total = sum(s.num_walls for s in seasons)
    lines += ["", f"{len(seasons)} seasons, {total} walls."]
    if any(s.start_date is None or s.end_date is None for s in seasons):
        lines.append("Dates marked *not recorded* are null in this copy's source files.")
    return "\n".join(lines) + "\n"


_REPEAT_KEY = ("conversation_id", "question", "extracted_answer")


def _repeat_groups(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Rows of one conversation with the same question, answer and history, in file order."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        key = (*(row[k] for k in _REPEAT_KEY), json.dumps(row["history"], sort_keys=True))
        groups[key].append(row)
    return [group for group in groups.values() if len(group) > 1]


def _differing_fields(group: list[dict[str, Any]]) -> list[str]:
    return sorted(
        key
        for key in group[0]
        if key != "id" and any(row[key] != group[0][key] for row in group[1:])
    )


def _sizes_text(sizes: Mapping[str, int]) -> str:
    return ", ".join(f"{split} {n}" for split, n in sizes.items())


def _repeats_text(
    splits: Mapping[str, list[dict[str, Any]]],
) -> tuple[str | None, dict[str, int]]:
    """The sentence on rows that repeat an earlier row of their conversation (None: none) and
    the rows per split with each repeated row counted once."""
    repeats = {split: _repeat_groups(rows) for split, rows in splits.items()}
    kept = {
        split: len(rows) - sum(len(g) - 1 for g in repeats[split]) for split, rows in splits.items()
    }
    details = [
        f"conversation `{group[0]['conversation_id']}` ({split}): question ids "
        + ", ".join(f"`{row['question_id']}`" for row in group)
        + f" (they differ in {', '.join(f'`{k}`' for k in _differing_fields(group))})"
        for split, groups in repeats.items()
        for group in groups
    ]
    if not details:
        return None, kept
    repeated = sum(len(rows) for rows in splits.values()) - sum(kept.values())
    return (
        f"{repeated} rows repeat an earlier row of the same conversation (same `question`, "
        "`extracted_answer` and `history`) under another `question_id`: "
        + "; ".join(details)
        + f". Counting each repeated row once gives {sum(kept.values())} rows "
        f"({_sizes_text(kept)})."
    ), kept


def _relations_text(questions: int, kept: Mapping[str, int]) -> str | None:
    """Which of the README's counts equal a measured count (None: none does)."""
    relations = []
    if questions == WOTE_README_QUESTIONS:
        relations.append(
            f"the README's {WOTE_README_QUESTIONS} questions equal the distinct `question` strings"
        )
    same = [split for split, n in WOTE_README_SPLITS.items() if kept.get(split) == n]
    if same:
        relations.append(
            f"its {', '.join(same)} sizes equal the rows with each repeated row counted once"
        )
    if not relations:
        return None
    return "Measured: " + "; ".join(relations) + ". This copy keeps every row as released."


def wote_counts_markdown(splits: Mapping[str, list[dict[str, Any]]]) -> str:
    """The card's section relating the WoTe README's counts (826 questions, validation 167) to
    the rows of this copy: rows, distinct question strings and repeated rows, as measured, and
    which of the README's counts equal which measured count.

    Args:
        splits: split name -> the WoTe rows of that split (the builder's rows).
    """
    sizes = {split: len(rows) for split, rows in splits.items()}
    questions = len({row["question"] for rows in splits.values() for row in rows})
    lines = [
        "## Counts",
        "",
        f"The upstream README states {WOTE_README_QUESTIONS} questions and splits of "
        f"{_sizes_text(WOTE_README_SPLITS)}. The files of this copy, kept as released, hold "
        f"{sum(sizes.values())} rows ({_sizes_text(sizes)}), as measured by `ocw-hub build`; "
        f"they hold {questions} distinct `question` strings.",
    ]
    repeats, kept = _repeats_text(splits)
    relations = _relations_text(questions, kept)
    lines += [f"\n{text}" for text in (repeats, relations) if text]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# The card
# --------------------------------------------------------------------------------------------


def card_body() -> str:
    """The README.md's dataset-card part: the text after its YAML, up to
    :data:`CARD_SPLIT_MARKER`."""
    readme = (assets_root() / "README.md").read_text(encoding="utf-8")
    _, _, body = readme.partition("\n---\n") if readme.startswith("---\n") else ("", "", readme)
    return body.split(CARD_SPLIT_MARKER)[0].strip() + "\n"


def readme_section(prefix: str) -> str:
    """The README.md section whose ``## `` heading starts with ``prefix``, heading included,
    up to the next ``## `` heading: one text for the repository page and the export's card.

    Raises:
        LookupError: README.md has no such section (a packaging error, not a user error).
    """
    lines = card_body().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(prefix)]
    if not starts:
        raise LookupError(f"README.md has no section starting with {prefix!r}")
    end = next(
        (i for i in range(starts[0] + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
    )
    return "\n".join(lines[starts[0] : end]).strip() + "\n"


def provenance_notice(configs: Iterable[str]) -> str:
    """The card's warning for configs built from the pre-release stand-in."""
    held = ", ".join(f"`{name}`" for name in configs)
    return (
        "> **Provenance: not the official OCW release.** The walls of "
        f"{held} carry the {PRERELEASE_ID_LENGTH}-character wall ids of the pre-release export "
        "(TaatiTeam/OCW `data/onlyconnect.json`); the official release uses 4-character ids "
        "(e.g. `882c`), and its split membership may differ from this copy's. Do not publish "
        "this copy, or figures measured on it, as OCW.\n"
    )


def _card_data(spec: DatasetCardSpec, infos: Mapping[str, datasets.DatasetInfo]) -> Any:
    """The card's YAML: the dataset's metadata, ``configs`` (one ``data_files`` entry per
    split; ``default``, else the first config, marked default) and ``dataset_info`` with the
    features in the notation every ``datasets`` era reads."""
    data = DatasetCardData(**spec.metadata)
    default = "default" if "default" in infos else next(iter(infos))
    MetadataConfigs(
        {
            name: {
                "data_files": [
                    {"split": split, "path": parquet_path(name, split)} for split in info.splits
                ],
                **({"default": True} if name == default else {}),
            }
            for name, info in infos.items()
        }
    ).to_dataset_card_data(data)
    DatasetInfosDict(infos).to_dataset_card_data(data)
    entries = data["dataset_info"]
    for entry in entries if isinstance(entries, list) else [entries]:
        name = entry.get("config_name", "default")
        entry["features"] = legacy_yaml_features(infos[name].features)
    return data


def _sizes_markdown(infos: Mapping[str, datasets.DatasetInfo]) -> str:
    lines = ["| config | train | validation | test |", "|---|---:|---:|---:|"]
    for name, info in infos.items():
        sizes = {split: info.splits[split].num_examples for split in info.splits}
        lines.append(f"| `{name}` | " + " | ".join(str(sizes.get(s, "")) for s in SPLITS) + " |")
    return "\n".join(lines) + "\n"


def render_card(
    export: str,
    infos: Mapping[str, datasets.DatasetInfo],
    sections: Iterable[str] = (),
    notice: str | None = None,
) -> DatasetCard:
    """The dataset card of one export.

    Args:
        export: ``ocw`` or ``wote`` (see :data:`DATASET_CARDS`).
        infos: config name -> its ``DatasetInfo`` (features, split sizes, sizes in bytes).
        sections: extra Markdown sections (the season table, WoTe's counts).
        notice: a warning shown under the title (the stand-in's provenance).
    """
    spec = DATASET_CARDS[export]
    held = ", ".join(f"`{name}`" for name in infos)
    first = next(iter(infos))
    parts = [
        f"# {spec.title}",
        *([notice] if notice else []),
        f"This copy holds the config(s) {held}, in Parquet written by `ocw-hub build`: any "
        "`datasets` version from 3.x to 5.x reads it without running code.",
        "```python\nimport datasets\n\n"
        f'ds = datasets.load_dataset("ORG/NAME", "{first}")  # this repository, or its folder\n'
        "```",
        _sizes_markdown(infos),
        readme_section(spec.readme_section),
        *sections,
        f"## Citation\n\n```bibtex\n{infos[first].citation.strip()}\n```\n",
        f"## Licence\n\n{spec.licence}\n",
    ]
    body = "\n\n".join(part.strip() for part in parts) + "\n"
    return DatasetCard(f"---\n{_card_data(spec, infos).to_yaml()}\n---\n\n{body}")


# --------------------------------------------------------------------------------------------
# Where the exports go: checked before any work
# --------------------------------------------------------------------------------------------


def is_export(folder: Path) -> bool:
    """Whether ``folder`` holds only what :func:`build_export` writes in one export
    (``README.md``, ``data/**.parquet``, no symbolic link): only such a folder, or an empty
    one, is replaced by a new export."""
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.is_symlink():
            return False
        if path.is_dir():
            if rel.parts[0] != "data":
                return False
        elif rel.as_posix() != "README.md" and not (
            rel.parts[0] == "data" and path.suffix == ".parquet"
        ):
            return False
    return True


def _unwritable_folders(folder: Path) -> list[str]:
    """Folders of an existing export whose entries could not be removed (not writable)."""
    folders = [folder, *(p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink())]
    return [
        p.relative_to(folder).as_posix() or "."
        for p in folders
        if not os.access(p, os.W_OK | os.X_OK)
    ]


def _check_out_folder(out: Path, sources: Iterable[PathLike | None]) -> None:
    """``out`` is a folder (or missing) that holds no source and lies in no source folder."""
    if out.exists() and not out.is_dir():
        raise ExportPathError(f"export folder {out}: is a file, not a folder", parameter="out")
    for source in sources:
        if source is None:
            continue
        resolved = Path(source).expanduser().resolve()
        if resolved == out or resolved.is_relative_to(out):
            raise ExportPathError(
                f"export folder {out}: holds the source {source}; choose another folder",
                parameter="out",
            )
        if resolved.is_dir() and out.is_relative_to(resolved):
            raise ExportPathError(
                f"export folder {out}: lies inside the source folder {source}; choose another "
                "folder",
                parameter="out",
            )


def _check_cache_dir(cache_dir: PathLike | None, out: Path) -> None:
    if cache_dir is None:
        return
    cache = Path(cache_dir).expanduser().resolve()
    if cache == out or cache.is_relative_to(out) or out.is_relative_to(cache):
        raise ExportPathError(
            f"cache folder {cache_dir}: overlaps the export folder {out}, whose exports a "
            "build replaces; choose a cache folder outside it",
            parameter="cache_dir",
        )


def _check_out_contents(out: Path) -> None:
    """``out`` holds only export folders (and hidden entries): nothing a build could harm or
    that would be mistaken for part of an export."""
    if not out.is_dir():
        return
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    others = [name for name in names if name not in EXPORT_FOLDERS.values()]
    if {"README.md", "data"} & set(others):
        raise ExportPathError(
            f"export folder {out}: holds an export of the earlier one-folder layout "
            "(README.md, data/); remove them: exports now go to "
            + " and ".join(f"{out / name}/" for name in EXPORT_FOLDERS.values()),
            parameter="out",
        )
    if others:
        raise ExportPathError(
            f"export folder {out}: the folder holds files that are not an ocw-hub export "
            f"({', '.join(others[:5])}); remove them or choose another folder",
            parameter="out",
        )


def _check_target(target: Path, sources: Iterable[PathLike | None]) -> None:
    """One export's place: empty, missing or a previous export that can be removed."""
    try:
        check_output_dir(target, inputs=sources, option="export folder")
    except OutputPathError as err:
        raise ExportPathError(str(err), parameter="out") from err
    if not target.is_dir():
        return
    if not is_export(target):
        raise ExportPathError(
            f"export folder {target}: the folder holds files that are not an ocw-hub export; "
            "remove them or choose another folder (it would be replaced as a whole)",
            parameter="out",
        )
    locked = _unwritable_folders(target)
    if locked:
        raise ExportPathError(
            f"export folder {target}: {', '.join(locked[:5])} is read-only, so the previous "
            f"export cannot be replaced; make it writable (chmod -R u+w {target}) or choose "
            "another folder",
            parameter="out",
        )


def _check_linked_target(
    link: Path, target: Path, sources: Iterable[PathLike | None], cache_dir: PathLike | None
) -> None:
    """An export's place that is a symbolic link: its target is updated, so it gets the
    checks of ``out`` itself; a dangling link is refused."""
    if not target.exists():
        raise ExportPathError(
            f"export folder {link}: a symbolic link to {target}, which does not exist; "
            "remove the link or create its target",
            parameter="out",
        )
    _check_out_folder(target, sources)
    _check_cache_dir(cache_dir, target)


def plan_export(
    sources: Mapping[str, PathLike | None],
    out: PathLike,
    cache_dir: PathLike | None = None,
) -> dict[str, Path]:
    """Check where :func:`build_export` would write, before any work; returns export folder
    name (``ocw``, ``wote``) -> the folder it replaces (symbolic links resolved: a link at
    ``out`` or at ``out/<export>`` is kept and the export behind it is updated).

    Raises:
        ValueError: unknown config.
        ExportPathError: ``out`` is a file, holds or lies inside a source folder, or holds
            files that are not exports; an export's place holds other files or read-only
            folders; ``cache_dir`` lies inside ``out`` (it would be deleted).
    """
    exports = sorted({export_folder(name) for name in sources})
    root = Path(out).expanduser().resolve()
    if Path(out).expanduser().is_symlink() and not root.exists():
        raise ExportPathError(
            f"export folder {out}: a symbolic link to {root}, which does not exist; remove the "
            "link or create its target",
            parameter="out",
        )
    _check_out_folder(root, sources.values())
    _check_cache_dir(cache_dir, root)
    _check_out_contents(root)
    targets = {export: (root / export).resolve() for export in exports}
    for export, target in targets.items():
        if (root / export).is_symlink():
            _check_linked_target(root / export, target, sources.values(), cache_dir)
        _check_target(target, sources.values())
    return targets


# --------------------------------------------------------------------------------------------
# Staging and installing
# --------------------------------------------------------------------------------------------


def _make_writable_and_retry(func: Callable[[str], Any], path: str, _exc: Any) -> None:
    """``shutil.rmtree`` error handler: make the folder holding ``path`` writable, retry."""
    parent = os.path.dirname(path)
    os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
    func(path)


def _remove_tree(folder: Path) -> None:
    """Remove a replaced export; a failure is a warning (the new export is in place)."""
    handler = "onexc" if sys.version_info >= (3, 12) else "onerror"  # same signature
    try:
        shutil.rmtree(folder, **{handler: _make_writable_and_retry})
    except OSError as err:
        warnings.warn(
            f"the previous export moved to {folder} could not be removed ({err}); remove it "
            "by hand",
            UserWarning,
            stacklevel=3,
        )


def _aside_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.old-{os.getpid()}-{secrets.token_hex(4)}")


def _install(staged: Mapping[Path, Path]) -> None:
    """Move each staged export into its place (target -> staged folder), all or none: a
    failure puts every previous export back. The replaced exports are removed last."""
    aside: dict[Path, Path] = {}
    installed: list[Path] = []
    try:
        for target, tmp in staged.items():
            if target.exists():
                aside[target] = _aside_name(target)
                target.rename(aside[target])
            tmp.rename(target)
            installed.append(target)
    except BaseException as err:
        for target in installed:
            shutil.rmtree(target, ignore_errors=True)
        for target, old in aside.items():
            old.rename(target)
        if isinstance(err, OSError):
            raise ExportPathError(
                f"export folder {err.filename or target}: cannot be replaced "
                f"({type(err).__name__}: {err.strerror or err}); the previous exports are kept",
                parameter="out",
            ) from err
        raise
    for old in aside.values():
        _remove_tree(old)


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet (a build creates them)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


@contextmanager
def _staging(targets: Mapping[str, Path]) -> Iterator[dict[str, Path]]:
    """One temporary folder beside each export's place; installed only if the block succeeds.
    Temporary folders, and an ``out`` folder this build created, never outlive a failure."""
    created = sorted(
        {folder for t in targets.values() for folder in _missing_folders(t.parent)},
        key=lambda folder: len(folder.parts),
        reverse=True,
    )
    staged: dict[str, Path] = {}
    umask = os.umask(0)
    os.umask(umask)
    try:
        for export, target in targets.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            staged[export] = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
            staged[export].chmod(0o777 & ~umask)  # mkdtemp makes it private
        yield staged
        _install({targets[export]: tmp for export, tmp in staged.items()})
    finally:
        for tmp in staged.values():
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        for folder in created:
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()


# --------------------------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------------------------


@dataclass
class _DatasetExport:
    """What one export collects while its configs are written."""

    infos: dict[str, datasets.DatasetInfo] = field(default_factory=dict)
    prerelease: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)


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
        rel = parquet_path(name, split)
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        parquet_bytes += write_parquet(dataset_dict[split], folder / rel)
        data = dataset_dict[split]
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
    if config_spec(name).script == "WoTe":
        rows = {split: dataset_dict[split].to_list() for split in _ordered(dataset_dict)}
        collected.sections.append(wote_counts_markdown(rows))
    elif not collected.sections:
        seasons = season_table(name, data_dir, cache_dir)
        if seasons:
            collected.sections.append(season_markdown(seasons))


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
    with _staging(targets) as staged:
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
            if config_spec(name).script == "OCW" and is_prerelease(dataset_dict):
                _warn_prerelease(name, data_dir)
                export.prerelease.append(name)
            info, files = _write_config(name, dataset_dict, staged[export_folder(name)], on_split)
            export.infos[name] = info
            written += files
            _card_sections(name, data_dir, cache_dir, dataset_dict, export)
        for folder, export in collected.items():
            notice = provenance_notice(export.prerelease) if export.prerelease else None
            card = render_card(folder, export.infos, export.sections, notice)
            card.save(staged[folder] / "README.md")
    return written
