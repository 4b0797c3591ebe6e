"""Hugging Face ``datasets`` loading script for the Only Connect Wall (OCW) dataset.

OCW holds 618 "Connecting Walls" from the quiz show *Only Connect* (Naeini et al., NeurIPS 2023
Datasets and Benchmarks, "Large Language Models are Fixated by Red Herrings"). Each wall is
16 clues (``words``) that form 4 groups of 4 clues; each group has a connection
(``gt_connection``) and the recorded human performance on it.

Configurations (each with splits ``train`` / ``validation`` / ``test``, official sizes
62 / 62 / 494 walls):

* ``default`` -- the main dataset, ``OCW.tar.gz`` (extracts to ``dataset/``);
* ``ocw_randomized`` -- the same train and validation walls, with test walls rebuilt from
  groups of different walls (so red herrings are removed), ``OCW_randomized.tar.gz``;
* ``ocw_wordnet`` -- the "easy" WordNet-based ablation copy, ``OCW_wordnet.tar.gz``.

Sources, in order of precedence: ``data_dir`` given and a folder, used as is; ``data_dir``
given and an archive (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``, ...), extracted safely into
``<downloads cache>/ocw_extracted/<content digest>``; no ``data_dir``, the configuration's
``url`` (see ``_URLS``) downloaded and extracted. A ``data_dir`` that does not exist raises
``FileNotFoundError``. The config id includes the digest of a local ``data_dir``'s content,
so ``load_dataset("OCW.py", data_dir=...)`` on ``datasets`` 3.x rebuilds when it changes.

Inside the source, each split's JSON file is found by the split name as a token of the file
name (``test.json``, ``easy_test_wordnet.json``; not ``contest.json`` or ``OCW.json``). An
ablation config given the main release (``ocw_wordnet`` with ``dataset/``) raises
:class:`OCWSourceError` instead of naming the main walls after the ablation (told by content:
``main_release_evidence`` of ``ocw_releases``). Every
wall is validated and every split read and cross-checked in ``_split_generators``, before any
example is written, so a bad input raises :class:`OCWFormatError` (naming the file, the wall
and the field) and leaves no prepared data in the cache.

The reading and validation live in the sibling modules ``ocw_walls.py``, ``ocw_releases.py``
and ``source_files.py`` (standard library only), imported relatively: ``datasets`` 3.x copies
them with the script, from its folder or its Hub repo. The script works as a script on
``datasets`` 3.x (``load_dataset("OCW.py", "default", data_dir=..., trust_remote_code=True)``)
and imported by the ``ocw_hub`` package on ``datasets`` 3.x-5.x.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from .ocw_releases import OCWSourceError, refuse_main_release
from .ocw_walls import (
    FORMAT_ERROR,
    GROUP_NAMES,
    MAX_CLUE_REPEATS,
    OFFICIAL_SPLIT_SIZES,
    OCWDataWarning,
    OCWFormatError,
    OCWWhere,
    find_wall_files,
    read_all_splits,
    read_season_map,
    read_walls,
)
from .source_files import (
    SPLITS,
    ContentKeyedConfigMixin,
    archive_error,
    extract_archive,
    resolve_data_dir,
)

__all__ = [
    "FEATURES",
    "FORMAT_ERROR",
    "MAX_CLUE_REPEATS",
    "OCW",
    "OCWDataWarning",
    "OCWFormatError",
    "OCWSourceError",
    "OFFICIAL_SPLIT_SIZES",
    "SPLITS",
    "read_season_map",
    "read_walls",
]

_CITATION = """\
@inproceedings{alavi-naeini2023large,
  title     = {Large Language Models are Fixated by Red Herrings: Exploring Creative Problem
               Solving and Einstellung Effect using the Only Connect Wall Dataset},
  author    = {Alavi Naeini, Saeid and Saqur, Raeid and Saeidi, Mozhgan and Giorgi, John and
               Taati, Babak},
  booktitle = {Advances in Neural Information Processing Systems},
  volume    = {36},
  series    = {Datasets and Benchmarks Track},
  year      = {2023},
  url       = {https://arxiv.org/abs/2306.11167}
}
"""

_DESCRIPTION = """\
The Only Connect Wall (OCW) dataset contains 618 "Connecting Walls" from Round 3 of the quiz
show Only Connect, collected from 15 seasons. Each wall has 16 clues that form 4 groups of 4
clues; each group has a ground-truth connection and the recorded human performance
(grouping solved, connection found). The benchmark tasks are grouping the 16 clues into the
4 groups and naming each group's connection. Red herrings (clues that plausibly fit more
than one group) make the walls hard for large language models.
"""

_HOMEPAGE = "https://github.com/TaatiTeam/OCW"

_LICENSE = "MIT"

_URLS = {
    "default": "https://www.cs.toronto.edu/~taati/OCW/OCW.tar.gz",
    "ocw_randomized": "https://www.cs.toronto.edu/~taati/OCW/OCW_randomized.tar.gz",
    "ocw_wordnet": "https://www.cs.toronto.edu/~taati/OCW/OCW_wordnet.tar.gz",
}


def _group_features() -> dict[str, Any]:
    return {
        "group_id": datasets.Value("string"),
        "gt_words": datasets.Sequence(datasets.Value("string")),
        "gt_connection": datasets.Value("string"),
        "human_performance": {
            "grouping": datasets.Value("int32"),
            "connection": datasets.Value("int32"),
        },
    }


FEATURES = datasets.Features(
    {
        "wall_id": datasets.Value("string"),
        "season": datasets.Value("int32"),
        "episode": datasets.Value("int32"),
        "words": datasets.Sequence(datasets.Value("string")),
        "gt_connections": datasets.Sequence(datasets.Value("string")),
        "groups": {name: _group_features() for name in GROUP_NAMES},
        "overall_human_performance": {
            "grouping": datasets.Sequence(datasets.Value("int32")),
            "connections": datasets.Sequence(datasets.Value("int32")),
        },
    }
)
"""Schema of one wall (one example).

* ``wall_id`` (string), ``season`` (int32, 1 or more), ``episode`` (int32, 1 or more);
* ``words``: the 16 clues, in file order (shuffled in the release);
* ``gt_connections``: the 4 connections, in group order;
* ``groups``: struct ``group_1`` .. ``group_4``, each ``{group_id, gt_words (4 clues),
  gt_connection, human_performance: {grouping, connection}}`` with scores 0 or 1;
* ``overall_human_performance``: ``{grouping: 4 ints, connections: 4 ints}``, the groups'
  scores in group order.

Lists are variable-length in Arrow; their lengths (16 and 4) are enforced by validation.
"""


@dataclass
class OCWConfig(ContentKeyedConfigMixin, datasets.BuilderConfig):
    """BuilderConfig for OCW (its config id includes the content of a local ``data_dir``).

    Args:
        url: the release tarball downloaded when no ``data_dir`` is given.
        ablation: an ablation copy of the main release: the main release given as its source
            is refused (:func:`main_release_evidence`, :class:`OCWSourceError`).
    """

    url: str = ""
    ablation: bool = False


class OCW(datasets.GeneratorBasedBuilder):
    """Only Connect Wall: walls of 16 clues in 4 groups of 4, splits train/validation/test.

    ``data_dir`` may be a folder or an archive holding ``train``/``validation``/``test`` JSON
    files (see :func:`find_wall_files`); without it the configuration's ``url`` is
    downloaded. Examples are keyed by ``wall_id`` and yielded in file order, as returned by
    :func:`read_walls`. All splits are validated in ``_split_generators`` before any is
    written, and the validated walls are passed to ``_generate_examples`` in ``gen_kwargs``.
    """

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = OCWConfig
    BUILDER_CONFIGS = [
        OCWConfig(
            name="default",
            version=VERSION,
            description="The main OCW dataset (OCW.tar.gz).",
            url=_URLS["default"],
        ),
        OCWConfig(
            name="ocw_randomized",
            version=VERSION,
            description="OCW with a randomized test split: test walls rebuilt from groups of "
            "different walls, which removes red herrings (OCW_randomized.tar.gz).",
            url=_URLS["ocw_randomized"],
            ablation=True,
        ),
        OCWConfig(
            name="ocw_wordnet",
            version=VERSION,
            description="Easy WordNet-based OCW copy for ablations (OCW_wordnet.tar.gz).",
            url=_URLS["ocw_wordnet"],
            ablation=True,
        ),
    ]
    DEFAULT_CONFIG_NAME = "default"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=FEATURES,
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
        )

    def _source_root(self, dl_manager: datasets.DownloadManager) -> tuple[Path, str | None]:
        """Return ``(folder holding the split files, archive or URL it was extracted from)``."""
        download_config = dl_manager.download_config
        cache_dir = download_config.cache_dir or datasets.config.DOWNLOADED_DATASETS_PATH
        force = download_config.force_extract  # download_mode="force_redownload"
        if self.config.data_dir is None:
            url = self.config.url or _URLS.get(self.config.name, _URLS["default"])
            local = dl_manager.download(url)
            return extract_archive(url, local, cache_dir, force, OCWWhere), url
        return resolve_data_dir(self.config.data_dir, cache_dir, force, OCWWhere)

    def _split_generators(self, dl_manager: datasets.DownloadManager) -> list:
        root, archive = self._source_root(dl_manager)
        try:
            files = find_wall_files(root)
            # Validate every split (and cross-split ids) before any example is written.
            walls = read_all_splits(files)
        except OCWFormatError as error:
            if archive is None:
                raise
            raise archive_error(error, root, archive, OCWWhere) from error
        if self.config.ablation:
            refuse_main_release(
                self.config.name, files, walls, archive or str(root), self.config.url
            )
        return [
            datasets.SplitGenerator(
                name=split, gen_kwargs={"walls": walls[split], "filepath": str(files[split])}
            )
            for split in SPLITS
        ]

    def _generate_examples(
        self, walls: list[dict[str, Any]], filepath: str
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Yield ``(wall_id, wall)`` for the validated walls of one split file (``filepath``,
        named for the record only)."""
        for wall in walls:
            yield wall["wall_id"], wall
