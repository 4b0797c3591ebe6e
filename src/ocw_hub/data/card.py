"""The dataset card of an export: YAML metadata (configs, dataset_info in the notation every
``datasets`` era reads), the README.md's section on the dataset, OCW's season table, WoTe's
counts, the citation and the licence."""

from __future__ import annotations

import json
import re
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..configs import PathLike, config_spec
from ..resources import assets_root, load_script, load_sibling
from .layout import SPLITS

if TYPE_CHECKING:  # imported where used: provenance reads are_prerelease_ids without them
    import datasets
    from huggingface_hub import DatasetCard

CARD_SPLIT_MARKER = "<!-- end of dataset card -->"

#: Wall ids of the pre-release export (TaatiTeam/OCW ``data/onlyconnect.json``) have this many
#: characters; the official release uses 4 (e.g. ``882c``).
PRERELEASE_ID_LENGTH = 6
_PRERELEASE_ID = re.compile(f"[0-9a-f]{{{PRERELEASE_ID_LENGTH}}}")

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


@dataclass(frozen=True)
class Season:
    """One row of the release's ``season_to_walls_map``: walls of the season in the whole
    release (all splits) and the dates it ran (None: not recorded)."""

    season: int
    num_walls: int
    start_date: date | str | None
    end_date: date | str | None


def are_prerelease_ids(wall_ids: Iterable[str]) -> bool:
    """Whether ids are the 6-hex-character wall ids of the OCW pre-release export (the official
    release uses 4, e.g. ``882c``): such a copy is not the official release. WoTe's ids
    (``conversation_id/question_id``) never are."""
    ids = list(wall_ids)
    return bool(ids) and all(_PRERELEASE_ID.fullmatch(i) for i in ids)


def is_prerelease(dataset_dict: datasets.DatasetDict, id_key: str = "wall_id") -> bool:
    """:func:`are_prerelease_ids` over every split of a config (ids in ``id_key``)."""
    return are_prerelease_ids(i for split in dataset_dict.values() for i in split[id_key])


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
    import datasets

    downloads = (  # where a builder with this cache_dir downloads (datasets.config's names)
        Path(cache_dir) / datasets.config.DOWNLOADED_DATASETS_DIR
        if cache_dir
        else datasets.config.DOWNLOADED_DATASETS_PATH
    )
    if data_dir is not None:
        return data_dir, downloads
    spec = config_spec(config)
    builder_config = getattr(load_script(spec.script), spec.script).builder_configs[
        spec.builder_config
    ]
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


def provenance_markdown(sources: Mapping[str, Mapping[str, Any]]) -> str:
    """The card's ``## Built from`` section: per config, what it was built from (the official
    release and how that is known, release-shaped data not verified as it, the ``stand-in``, a
    copy derived by ``ocw-hub derive`` and from what) and the
    SHA-256 of that content (``source_digest``), from
    :func:`ocw_hub.provenance.source_provenance`."""
    from ..provenance import NOT_VERIFIED, OFFICIAL, package_version, release_text

    lines = [
        "## Built from",
        "",
        f"Built by `ocw-hub build` (ocw-hub {package_version()}) from:",
        "",
        "| config | source | SHA-256 of the source |",
        "|---|---|---|",
    ]
    for name, source in sources.items():
        what = release_text(source)
        derived = source.get("derived")
        if isinstance(derived, Mapping):
            origin = derived.get("from_release")
            origin = NOT_VERIFIED if origin == OFFICIAL else origin  # judged from its ids alone
            what = (
                f"derived: `ocw-hub derive {derived.get('derived')}` (seed {derived.get('seed')}) "
                f"of the {origin} with SHA-256 `{derived.get('from_sha256')}`"
            )
        if source.get("stand_in") and source.get("release") != "stand-in":
            what += " (stand-in)"
        sha = source.get("sha256")
        lines.append(f"| `{name}` | {what} | {f'`{sha}`' if sha else '-'} |")
    return "\n".join(lines) + "\n"


def _card_data(
    spec: DatasetCardSpec,
    infos: Mapping[str, datasets.DatasetInfo],
    files: Mapping[str, Mapping[str, str]],
    official: Mapping[str, Any] | None = None,
) -> Any:
    """The card's YAML: the dataset's metadata, ``configs`` (one ``data_files`` entry per
    split, ``files[config][split]``; ``default``, else the first config, marked default),
    ``dataset_info`` with the features in the notation every ``datasets`` era reads, and
    ``ocw_hub_official`` for the configs built from the official download (``official``)."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    from .infos import legacy_yaml_features

    data = DatasetCardData(**spec.metadata)
    default = "default" if "default" in infos else next(iter(infos))
    MetadataConfigs(
        {
            name: {
                "data_files": [
                    {"split": split, "path": files[name][split]} for split in info.splits
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
    if official:
        from .official import CARD_FIELD

        data[CARD_FIELD] = dict(official)
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
    *,
    files: Mapping[str, Mapping[str, str]],
    official: Mapping[str, Any] | None = None,
) -> DatasetCard:
    """The dataset card of one export.

    Args:
        export: ``ocw`` or ``wote`` (see :data:`DATASET_CARDS`).
        infos: config name -> its ``DatasetInfo`` (features, split sizes, sizes in bytes).
        sections: extra Markdown sections (the season table, WoTe's counts).
        notice: a warning shown under the title (the stand-in's provenance).
        files: config -> split -> its Parquet file inside the export, named by content
            (:func:`ocw_hub.data.layout.parquet_path`); the card's ``configs`` list them, so
            the card differs whenever the rows do.
        official: config -> its record as built from the official download
            (:func:`ocw_hub.data.official.card_record`), kept in the card's metadata.
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
    from huggingface_hub import DatasetCard

    return DatasetCard(f"---\n{_card_data(spec, infos, files, official).to_yaml()}\n---\n\n{body}")


# --------------------------------------------------------------------------------------------
# Where the exports go: checked before any work
# --------------------------------------------------------------------------------------------
