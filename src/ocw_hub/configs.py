"""The public configs of this project and every per-dataset fact, in one table (no heavy
imports: the CLI reads it for its help texts and options).

Code that differs between OCW and WoTe asks the :class:`ConfigSpec` (``spec.unit``,
``spec.id_key``, a table keyed by ``spec.dataset``) instead of comparing config names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]

#: The splits of every config, in order (the builders' ``SPLITS`` of ``source_files.py``).
SPLITS: tuple[str, ...] = ("train", "validation", "test")


def has_walls(dataset: str) -> bool:
    """Whether the rows of ``dataset`` (a :attr:`ConfigSpec.dataset`) are walls."""
    return dataset == "ocw"


@dataclass(frozen=True)
class ConfigSpec:
    """One public config of this project.

    Attributes:
        name: the public config name (``default``, ``ocw_randomized``, ``ocw_wordnet``, ``wote``).
        dataset: the dataset it belongs to (``ocw``, ``wote``): its export folder inside
            ``ocw-hub build --out`` and its card.
        script: the loading script at the repository root that builds it (``OCW`` or ``WoTe``).
        builder_config: the config name inside that script.
        source: what a local ``data_dir`` of this config is (for help texts).
        unit, units: what one row is, for messages: ``wall`` / ``walls``, ``question`` /
            ``questions``.
        id_key: the row field that identifies a row (``wall_id``; WoTe's ``id``,
            ``conversation_id/question_id``).
        tasks: the metric configs that score it, in report order (``grouping``,
            ``connections``; WoTe's extractive QA ``spans``).
        sibling: the builder's standard-library module that reads and checks its rows
            (``check_rows``): ``ocw_walls`` or ``wote_questions``.
        human: whether rows carry the contestants' figures (OCW's ``human_performance``).
        whole_walls_played: whether the contestants played its test walls as such (False for
            ``ocw_randomized``, whose test walls are rebuilt from groups of different walls:
            only per-group human figures exist, no full-wall ones).
        ablation: an ablation copy of the main release (``ocw_randomized``, ``ocw_wordnet``):
            the main release given as its source is refused (``ocw_releases.py``).
        splits: its split names, in order.
        nested_figures: whether a row's entry in the results (``per_wall``) holds each task's
            figures under the task's name (OCW: ``{"grouping": {"ami": ...}}``); False: on
            the entry itself (WoTe's ``per_question``: ``{"id", "f1", ...}``).
        percent: whether its task figures are on 0-100 (WoTe's SQuAD exact_match and f1);
            OCW's are on 0-1, or counts.
    """

    name: str
    dataset: str
    script: str
    builder_config: str
    source: str
    unit: str
    units: str
    id_key: str
    tasks: tuple[str, ...]
    sibling: str
    human: bool = False
    whole_walls_played: bool = True
    ablation: bool = False
    splits: tuple[str, ...] = SPLITS
    nested_figures: bool = True
    percent: bool = False

    @property
    def export(self) -> str:
        """The export folder of its dataset inside ``ocw-hub build --out`` (``ocw``, ``wote``)."""
        return self.dataset

    @property
    def walls(self) -> bool:
        """Whether its rows are walls (OCW: grouped, played by the show's rules, released as one
        tarball) rather than questions (WoTe: one file a split)."""
        return has_walls(self.dataset)

    @property
    def size_key(self) -> str:
        """The results field counting its rows: ``n_walls`` or ``n_questions``."""
        return f"n_{self.units}"

    @property
    def items_key(self) -> str:
        """The results field listing its rows' figures: ``per_wall`` or ``per_question``."""
        return f"per_{self.unit}"


def _ocw(
    name: str, source: str, whole_walls_played: bool = True, ablation: bool = True
) -> ConfigSpec:
    return ConfigSpec(
        name,
        dataset="ocw",
        script="OCW",
        builder_config=name,
        source=source,
        unit="wall",
        units="walls",
        id_key="wall_id",
        tasks=("grouping", "connections"),
        sibling="ocw_walls",
        human=True,
        whole_walls_played=whole_walls_played,
        ablation=ablation,
    )


CONFIGS: dict[str, ConfigSpec] = {
    spec.name: spec
    for spec in (
        _ocw("default", "the OCW release: `dataset/` or OCW.tar.gz", ablation=False),
        _ocw("ocw_randomized", "the OCW_randomized folder or tarball", whole_walls_played=False),
        _ocw("ocw_wordnet", "the OCW_wordnet folder or tarball"),
        ConfigSpec(
            "wote",
            dataset="wote",
            script="WoTe",
            builder_config="wote",
            source="a folder or archive with WoTe train/validation/test.json",
            unit="question",
            units="questions",
            id_key="id",
            tasks=("spans",),
            sibling="wote_questions",
            nested_figures=False,
            percent=True,
        ),
    )
}

#: Other names of configs: ``ocw`` is the upstream name of ``default``.
ALIASES = {"ocw": "default"}

#: The export folder of each dataset inside ``ocw-hub build --out``, in config order.
EXPORT_FOLDERS: tuple[str, ...] = tuple(dict.fromkeys(s.export for s in CONFIGS.values()))


def config_spec(name: str) -> ConfigSpec:
    """The :class:`ConfigSpec` of a public config name.

    Raises:
        ValueError: ``name`` is not one of :data:`CONFIGS`.
    """
    try:
        return CONFIGS[ALIASES.get(name, name)]
    except KeyError:
        raise ValueError(f"unknown config {name!r}; expected one of {list(CONFIGS)}") from None


def verification_mode(no_checks: bool) -> str | None:
    """``datasets``' ``verification_mode`` of the ``no_checks`` flag (``--no-checks``, the
    lm-eval tasks' ``"no_checks"`` metadata): ``"no_checks"`` skips the split-size check, None
    keeps the default check."""
    return "no_checks" if no_checks else None
