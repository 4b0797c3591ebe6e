"""Wizard-of-Tasks Extractive (WoTe): a Hugging Face ``datasets`` loading script.

WoTe (https://github.com/grill-lab/WoTe) holds 829 questions asked by a user while
cooking or doing a DIY task, each with an answer span extracted from the task text.
The official release is three JSON files, ``data/{train,validation,test}.json``
(248 / 169 / 412 questions), each a JSON list of flat objects with 14 string fields.
This script keeps every original field, parses the three that are encoded as Python
literals or as a flat string, and adds SQuAD-style ``id``, ``context`` and ``answers``.

The parsing and validation live in the sibling modules ``wote_questions.py``,
``wote_answers.py`` and ``source_files.py`` (standard library only), imported relatively:
``datasets`` 3.x copies them with the script, from its folder or its Hub repo. It runs both
as a script (``datasets<4``: ``load_dataset("WoTe.py", "wote", data_dir=...,
trust_remote_code=True)``) and imported by the ``ocw_hub`` package on ``datasets>=4``
(``WoTe(config_name="wote", data_dir=..., cache_dir=...)``, ``.download_and_prepare()``,
``.as_dataset()``).

Source
    ``data_dir`` when given, else the official files downloaded from ``_URL``: a folder, or an
    archive (``.tar.gz``, ``.zip``, ...) extracted safely into ``<downloads cache>/ocw_extracted/
    <content digest>``, holding ``train.json``, ``validation.json`` and ``test.json`` (at any
    depth; each split's file is found by the split name as a token of its file name, as in
    ``OCW.py``: ``find_split_files`` of ``source_files``). A ``data_dir`` that does not exist
    raises ``FileNotFoundError`` (the same message shape in ``OCW.py``). The cache key (config
    id) includes the SHA-256 of the ``data_dir`` content, so an edited source file is read
    again even when its size and modification time are unchanged (``ContentKeyedConfigMixin``
    of ``source_files``).

Derived fields
    ``id``
        ``f"{conversation_id}/{question_id}"``, e.g. ``"Wizard-of-Task-food-3/food-3-0"``.
        ``question_id`` alone is NOT unique (``diy-63-5`` and ``diy-64-6`` each occur in
        two conversations of the validation split); the pair is unique across all three
        splits, which is checked at build time (:class:`WoTeFormatError` otherwise).
    ``task_data``
        The Python-literal string parsed with :func:`ast.literal_eval` (never ``eval``)
        into ``{title: str, description: str, ingredients: [str], steps: [str]}``.
    ``question_type``
        The Python-literal list string (``"['navigation', 'history']"``) as ``[str]``.
    ``history``
        The conversation before the question as a list of turns ``{role, text}``;
        the string ``"None"`` gives ``[]``. See :func:`parse_history` for the rule.
    ``context``
        :func:`render_context` of ``task_data``: the title, the description, each
        ingredient and each step, in that order, one per line, joined by ``"\\n"``.
    ``answers``
        SQuAD convention, always exactly one answer: ``{"text": [t], "answer_start": [s]}``
        from :func:`locate_answer` applied to ``extracted_answer``. ``s`` is a character
        (code point) offset with ``context[s:s + len(t)] == t``; ``s == -1`` means the
        extracted answer was not found in the context and ``t`` is the raw answer text.

Errors
    Every defect in a source file (missing split file, invalid or truncated JSON or JSON
    the parser cannot handle, a key repeated in one JSON object or in the ``task_data``
    literal, an empty split, a missing or non-string field, a string that is not valid
    Unicode (a lone surrogate such as ``"\\ud800"``, which JSON allows but Arrow cannot
    store), a blank ``question_id`` or ``conversation_id`` (empty, or only whitespace,
    control or format characters), an unparseable ``task_data`` / ``question_type`` /
    ``history``, a duplicate id) raises :class:`WoTeFormatError` naming the file, the
    question and conversation ids and the field: ``"<file>: question_id 'food-3-0'
    (conversation_id 'Wizard-of-Task-food-3', #0): field 'history': <problem>"``
    (``WoTeWhere`` of ``wote_questions``). All splits are read and validated in
    ``_split_generators``, before anything is written to the cache, and the validated rows
    reach ``_generate_examples`` through ``gen_kwargs``. Parsing takes time and memory linear
    in the input (a history of 200,000 spaces or a field of several MB parses in well under a
    second).

Kept as is
    ``data_split`` is copied verbatim; the file a question is in decides its split. A
    ``data_split`` that disagrees with the file (never the case in the release) is logged
    as a warning naming the file and the questions, and the rows are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import datasets

from .source_files import (
    SPLITS,
    ContentKeyedConfigMixin,
    archive_error,
    find_split_files,
    resolve_data_dir,
)
from .wote_answers import locate_answer
from .wote_questions import (
    FORMAT_ERROR,
    OFFICIAL_SPLIT_SIZES,
    RAW_FIELDS,
    WoTeFormatError,
    WoTeWhere,
    check_unique_ids,
    parse_history,
    parse_question_type,
    parse_task_data,
    read_questions,
    render_context,
)

__all__ = [
    "FEATURES",
    "FORMAT_ERROR",
    "OFFICIAL_SPLIT_SIZES",
    "RAW_FIELDS",
    "SPLITS",
    "WoTe",
    "WoTeFormatError",
    "locate_answer",
    "parse_history",
    "parse_question_type",
    "parse_task_data",
    "read_questions",
    "render_context",
]

logger = datasets.utils.logging.get_logger(__name__)

_CITATION = """\
@inproceedings{fischer2024grillbot,
  title     = {{GRILLBot} In Practice: Lessons and Tradeoffs Deploying Large Language Models
               for Adaptable Conversational Task Assistants},
  author    = {Fischer, Sophie and Gemmell, Carlos and Tecklenburg, Niklas and Mackie, Iain and
               Rossetto, Federico and Dalton, Jeffrey},
  year      = {2024},
  url       = {https://arxiv.org/abs/2402.07647}
}

@inproceedings{choi-etal-2022-wizard,
  title     = {Wizard of Tasks: A Novel Conversational Dataset for Solving Real-World
               Tasks in Conversational Settings},
  author    = {Choi, Jason Ingyu and Kuzi, Saar and Vedula, Nikhita and Zhao, Jie and
               Castellucci, Giuseppe and Collins, Marcus and Malmasi, Shervin and
               Rokhlenko, Oleg and Agichtein, Eugene},
  booktitle = {Proceedings of the 29th International Conference on Computational
               Linguistics (COLING 2022)},
  year      = {2022},
  url       = {https://aclanthology.org/2022.coling-1.310}
}
"""

_DESCRIPTION = """\
Wizard-of-Tasks Extractive (WoTe) extends the Wizard of Tasks conversations (Choi et al.,
2022) for task-specific, retrieval-augmented question answering: 829 user questions asked
while cooking or doing a DIY task (train 248, validation 169, test 412), each with the
crowd-worker answer, an annotated answer span extracted from the task text (title,
description, ingredients, steps), question-type labels, intents and the conversation
history. This loader adds a rendered `context` and SQuAD-style `answers`.
"""

_HOMEPAGE = "https://github.com/grill-lab/WoTe"

# The repository has no LICENSE file and its README states no licence.
_LICENSE = "Unknown: the grill-lab/WoTe repository states no licence."

_URL = "https://raw.githubusercontent.com/grill-lab/WoTe/main/data/{split}.json"

_string = datasets.Value("string")

FEATURES = datasets.Features(
    {
        "id": _string,
        "conversation_id": _string,
        "question_id": _string,
        "domain": _string,
        "data_split": _string,
        "document_url": _string,
        "question": _string,
        "text_question": _string,
        "history": [{"role": _string, "text": _string}],
        "question_type": datasets.Sequence(_string),
        "intent_question": _string,
        "intent_answer": _string,
        "original_answer": _string,
        "extracted_answer": _string,
        "task_data": {
            "title": _string,
            "description": _string,
            "ingredients": datasets.Sequence(_string),
            "steps": datasets.Sequence(_string),
        },
        "context": _string,
        "answers": datasets.Sequence({"text": _string, "answer_start": datasets.Value("int32")}),
    }
)


@dataclass
class WoTeConfig(ContentKeyedConfigMixin, datasets.BuilderConfig):
    """BuilderConfig for WoTe (its config id includes the content of a local ``data_dir``)."""


class WoTe(datasets.GeneratorBasedBuilder):
    """Builder for WoTe: one config ``wote``, splits train / validation / test.

    All splits are read and validated in ``_split_generators``; the rows reach
    ``_generate_examples`` through ``gen_kwargs``.
    """

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = WoTeConfig
    BUILDER_CONFIGS = [
        WoTeConfig(
            name="wote",
            version=datasets.Version("1.0.0"),
            description="All 829 WoTe questions with parsed fields, context and answers.",
        )
    ]
    DEFAULT_CONFIG_NAME = "wote"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=FEATURES,
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager: datasets.DownloadManager) -> list:
        if self.config.data_dir is None:
            urls = {split: _URL.format(split=split) for split in SPLITS}
            files = dl_manager.download(urls)
            rows = {split: read_questions(files[split], split) for split in SPLITS}
            check_unique_ids(rows, files)
        else:
            rows = self._local_rows(dl_manager)
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"rows": rows[split], "split": split})
            for split in SPLITS
        ]

    def _local_rows(self, dl_manager: datasets.DownloadManager) -> dict[str, list[dict]]:
        """Every split's validated rows from a local ``data_dir``: a folder, or an archive
        extracted safely (the one finder of ``source_files``, as ``OCW.py``)."""
        download_config = dl_manager.download_config
        cache_dir = download_config.cache_dir or datasets.config.DOWNLOADED_DATASETS_PATH
        root, archive = resolve_data_dir(
            self.config.data_dir, cache_dir, download_config.force_extract, WoTeWhere
        )
        try:
            found = find_split_files(root, WoTeWhere)
            files = {split: str(path) for split, path in found.items()}
            # Read and validate every split before anything is written.
            rows = {split: read_questions(files[split], split) for split in SPLITS}
            check_unique_ids(rows, files)
        except WoTeFormatError as error:
            if archive is None:
                raise
            raise archive_error(error, root, archive, WoTeWhere) from error
        return rows

    def _generate_examples(
        self, rows: list[dict[str, Any]], split: str
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Yield ``(id, row)`` for the validated rows of one split."""
        located = sum(row["answers"]["answer_start"][0] >= 0 for row in rows)
        logger.info(
            "WoTe %s: %d questions, extracted answer located in context for %d, not for %d",
            split,
            len(rows),
            located,
            len(rows) - located,
        )
        for row in rows:
            yield row["id"], row
