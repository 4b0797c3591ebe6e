"""OCW metric: Only Connect Wall grouping and connections, and WoTe extractive spans.

A wrapper of the pure modules beside it, as ``evaluate``'s ``squad`` wraps its
``compute_score.py``: :data:`CONFIGS` gives each config's features, input checks, score
function and inputs description; nothing here branches on the config name.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import datasets
import evaluate

# evaluate copies only the sibling modules this script imports itself (it does not follow the
# siblings' imports of each other), so every sibling is imported here; a comment on the line
# of a relative import would be read as the URL to fetch it from ("# From: URL").
from .connections import check_connection_options, connection_scores
from .grouping import grouping_scores
from .inputs import (
    check_pairs,
    check_same_length,
    is_squad_shaped,
    validate_connections,
    validate_reference_wall,
    validate_span_prediction,
    validate_span_reference,
    validate_squad_prediction,
    validate_squad_reference,
    validate_wall,
)
from .partition import (
    partition_scores,  # noqa: F401
)
from .spans import check_squad_lengths, span_scores

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
@inproceedings{Rajpurkar2016SQuAD10,
  title={SQuAD: 100, 000+ Questions for Machine Comprehension of Text},
  author={Pranav Rajpurkar and Jian Zhang and Konstantin Lopyrev and Percy Liang},
  booktitle={EMNLP},
  year={2016}
}
"""

_DESCRIPTION = """\
Scores for the Only Connect Wall (OCW) benchmark and the Wizard-of-Tasks extractive (WoTe)
benchmark. Configurations:
- "grouping" (OCW task 1): Wasserstein distance, AMI, ARI, Fowlkes-Mallows, correct groups
  and solved walls, as in the paper's script evaluate_only_connect.py (TaatiTeam/OCW).
- "connections" (OCW task 2): exact match and ROUGE-1 F-measure (optional BERTScore F1).
- "spans" (WoTe): SQuAD v1.1 exact match and token F1 (0-100).
"""


@dataclass(frozen=True)
class InputShape:
    """One way a config's inputs are written: their ``evaluate`` features and item checks.

    ``check_prediction``/``check_reference`` take an item and its position (``predictions[3]``)
    and return the item as stored, or raise ``ValueError`` naming the position;
    ``check_lengths`` checks a batch's two lists; ``detect`` tells whether a batch is
    written in this shape (only asked of a config's alternative shapes).
    """

    label: str
    features: datasets.Features
    check_prediction: Callable[[Any, str], Any]
    check_reference: Callable[[Any, str], Any]
    check_lengths: Callable[[Any, Any], None] = check_same_length
    detect: Callable[[Any, Any], bool] | None = None


def _no_options() -> None:
    """The option check of a config whose scores take no option but ``return_per_item``."""


@dataclass(frozen=True)
class MetricConfig:
    """One config of the metric: its input shapes (the default first), its pure score
    function (``score(predictions, references, return_per_item=..., validate=False,
    **options)``, whose keyword defaults are the config's options), the check of those
    options, and the description of its inputs (for the docstring and the card)."""

    shapes: tuple[InputShape, ...]
    score: Callable[..., dict[str, Any]]
    predictions: str
    references: str
    check_options: Callable[..., None] = _no_options

    @property
    def features(self) -> datasets.Features | list[datasets.Features]:
        """``MetricInfo.features``: one ``Features``, or the list of every shape's."""
        if len(self.shapes) == 1:
            return self.shapes[0].features
        return [shape.features for shape in self.shapes]

    @property
    def options(self) -> dict[str, Any]:
        """The options of ``compute`` besides ``return_per_item``, with their defaults."""
        return {
            name: parameter.default
            for name, parameter in inspect.signature(self.score).parameters.items()
            if parameter.default is not inspect.Parameter.empty
            and name not in ("return_per_item", "validate")
        }

    def shape_of(self, predictions: Any, references: Any) -> InputShape:
        """The shape a batch is written in: the first alternative shape that detects it,
        else the default one."""
        default, *alternatives = self.shapes
        found = (
            s for s in alternatives if s.detect is not None and s.detect(predictions, references)
        )
        return next(found, default)


_STRING = datasets.Value("string")
_STRINGS = datasets.Sequence(_STRING)

#: The configs: config name -> features, input checks, score function, inputs described.
CONFIGS: dict[str, MetricConfig] = {
    "grouping": MetricConfig(
        shapes=(
            InputShape(
                label="walls",
                features=datasets.Features(
                    {
                        "predictions": datasets.Sequence(_STRINGS),
                        "references": datasets.Sequence(_STRINGS),
                    }
                ),
                check_prediction=validate_wall,
                check_reference=validate_reference_wall,
            ),
        ),
        score=grouping_scores,
        predictions="per wall, 4 groups of 4 clue strings (groups and clues in any order).",
        references="per wall, the gold 4 groups of 4 clue strings, in gold group order; no "
        "clue (lowercased) more than twice.",
    ),
    "connections": MetricConfig(
        shapes=(
            InputShape(
                label="connection strings",
                features=datasets.Features({"predictions": _STRINGS, "references": _STRINGS}),
                check_prediction=validate_connections,
                check_reference=validate_connections,
            ),
        ),
        score=connection_scores,
        check_options=check_connection_options,
        predictions="per wall, 4 connection strings in gold group order: prediction i names "
        "the connection of gold group i (gt_connections[i], group_{i+1}), whatever order the "
        "predicted groups came in (as the paper's script); reorder a model's connections to "
        "the gold groups they match before scoring.",
        references="per wall, the 4 gold connections (gt_connections).",
    ),
    "spans": MetricConfig(
        shapes=(
            InputShape(
                label="plain strings",
                features=datasets.Features({"predictions": _STRING, "references": _STRINGS}),
                check_prediction=validate_span_prediction,
                check_reference=validate_span_reference,
            ),
            InputShape(
                label="the squad metric's {'id', ...} dicts",
                features=datasets.Features(
                    {
                        "predictions": {"id": _STRING, "prediction_text": _STRING},
                        "references": {
                            "id": _STRING,
                            "answers": datasets.Sequence(
                                {"text": _STRING, "answer_start": datasets.Value("int32")}
                            ),
                        },
                    }
                ),
                check_prediction=validate_squad_prediction,
                check_reference=validate_squad_reference,
                check_lengths=check_squad_lengths,
                detect=is_squad_shaped,
            ),
        ),
        score=span_scores,
        predictions='per question, one answer string; or, as the squad metric, {"id": str, '
        '"prediction_text": str} per question.',
        references="per question, a list of gold answer strings (or a single string); or, as "
        'the squad metric, {"id": str, "answers": {"text": [str], "answer_start": [int]}} per '
        "question. In the squad shape predictions are matched to references by id (every id "
        "on both sides, once).",
    ),
}


def _described(side: str) -> str:
    """The ``predictions:`` or ``references:`` part of the inputs description, per config."""
    lines = [f"    {side}:"]
    for name, config in CONFIGS.items():
        text = f"{name}: {getattr(config, side)}"
        lines.append(textwrap.fill(text, 92, initial_indent=" " * 8, subsequent_indent=" " * 12))
    return "\n".join(lines) + "\n"


_KWARGS_DESCRIPTION = (
    "Args:\n"
    + _described("predictions")
    + _described("references")
    + """\
    return_per_item (bool, default False): also return "per_item", a list with one dict
        per wall/question holding the per-item values of the same keys (and "id" with
        the squad shape).
    rouge_tokenizer (str, default "default"; "connections" only): "default" is
        rouge_score's tokenizer (the paper's: only ASCII letters and digits make tokens,
        so text in other scripts scores 0); "unicode" tokenizes any script (NFC,
        lowercase, runs of Unicode letters, marks and digits).
    bertscore (bool, default False; "connections" only): also compute BERTScore F1
        (lang="en", rescale_with_baseline=True); needs the optional package bert_score
        and its model (roberta-large); RuntimeError when either is unavailable.
    bertscore_kwargs (dict, optional; "connections" only, needs bertscore=True): extra
        arguments for bert_score.score.
Returns:
    grouping: wd, ami, ari, fms (means over walls, 0-1; wd lower is better),
        full_wall and correct_groups (totals), full_wall_rate and correct_groups_rate
        (0-1), n_walls.
    connections: exact_match, rouge1 (means of per-wall means, 0-1), n_walls, and
        bertscore_f1 when requested.
    spans: exact_match, f1 (0-100), n_questions.
Raises:
    ValueError: malformed input (nothing to score, not 4 groups of 4 strings, not 4
        connection strings, wrong types, different lengths, text with a lone surrogate, a
        gold wall with a clue more than twice, squad-shaped ids that differ or repeat); the
        message names the index or id, e.g.
        "predictions[3][1]: expected a group of 4 clues, got 5 clues". Also options
        given to the wrong config, bertscore_kwargs without bertscore=True, and an
        unknown rouge_tokenizer.
    TypeError: an option that no config takes.
Examples:
    Installed with ocw-hub (from any folder, offline): ocw_hub.load_metric("grouping"),
    the same as evaluate.load(str(ocw_hub.resources.metric_dir()), "grouping"). From a copy
    of this folder (a clone, a Space): evaluate.load("path/to/ocw_metric", "grouping").

    >>> import ocw_hub
    >>> grouping = ocw_hub.load_metric("grouping")
    >>> wall = [["a", "b", "c", "d"], ["e", "f", "g", "h"],
    ...         ["i", "j", "k", "l"], ["m", "n", "o", "p"]]
    >>> r = grouping.compute(predictions=[wall[::-1]], references=[wall])
    >>> r["full_wall"], r["wd"], r["ami"]
    (1, 0.0, 1.0)
    >>> swap = [["a", "b", "c", "e"], ["d", "f", "g", "h"], wall[2], wall[3]]
    >>> r = grouping.compute(predictions=[swap], references=[wall])
    >>> r["correct_groups"], r["wd"], r["ari"], round(r["ami"], 4)
    (2, 0.125, 0.6875, 0.7173)
    >>> connections = ocw_hub.load_metric("connections")
    >>> connections.compute(
    ...     predictions=[["Famous Mel", "tools", "cocktails", "monkey"]],
    ...     references=[["Famous Mels", "Household tools", "Cocktails", "Monkey ___"]],
    ... )
    {'exact_match': 0.25, 'rouge1': 0.7916666666666666, 'n_walls': 1}
    >>> connections.compute(predictions=[["Ζώα"] * 4], references=[["ζώα"] * 4])
    {'exact_match': 1.0, 'rouge1': 0.0, 'n_walls': 1}
    >>> connections.compute(predictions=[["Ζώα"] * 4], references=[["ζώα"] * 4],
    ...                     rouge_tokenizer="unicode")
    {'exact_match': 1.0, 'rouge1': 1.0, 'n_walls': 1}
    >>> spans = ocw_hub.load_metric("spans")
    >>> spans.compute(predictions=["the oven"], references=[["oven", "in the oven"]])
    {'exact_match': 100.0, 'f1': 100.0, 'n_questions': 1}
    >>> spans.compute(  # the squad metric's shapes, matched by id
    ...     predictions=[{"id": "q2", "prediction_text": "a pan"},
    ...                  {"id": "q1", "prediction_text": "the oven"}],
    ...     references=[{"id": "q1", "answers": {"text": ["oven"], "answer_start": [7]}},
    ...                 {"id": "q2", "answers": {"text": ["a wok"], "answer_start": [0]}}],
    ... )
    {'exact_match': 50.0, 'f1': 50.0, 'n_questions': 2}
"""
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class OcwMetric(evaluate.Metric):
    """``evaluate`` metric for OCW (``grouping``, ``connections``) and WoTe (``spans``): a
    wrapper of the pure modules, driven by the config's row of :data:`CONFIGS`.

    Inputs are validated *before* ``evaluate`` converts them to Arrow (in ``add``,
    ``add_batch`` and ``compute``), so a malformed item, e.g. a clue that is the number
    ``8.5``, raises ``ValueError`` naming its index instead of being cast or rejected with
    a generic message. Indices in ``add_batch`` errors are relative to that batch. Items are
    stored as the checks return them (a single-string ``spans`` reference as a one-element
    list; the squad metric's shapes with their ids and answers, matched by id when
    computing); one shape per computation.
    """

    def _info(self) -> evaluate.MetricInfo:
        if self.config_name not in CONFIGS:
            raise ValueError(
                f"unknown config_name {self.config_name!r} for ocw_metric; "
                f"choose one of {list(CONFIGS)}, e.g. evaluate.load(path, 'grouping')"
            )
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=CONFIGS[self.config_name].features,
            codebase_urls=["https://github.com/TaatiTeam/OCW"],
            reference_urls=[
                "https://arxiv.org/abs/2306.11167",
                "https://rajpurkar.github.io/SQuAD-explorer/",
            ],
        )

    @property
    def _config(self) -> MetricConfig:
        return CONFIGS[self.config_name]

    # evaluate stores what it is given after casting it to the features' types (the clue
    # 8.5 becomes "8.5") and checks the type of the first item only; it has no per-item
    # hook, so add and add_batch are overridden to check every item first.

    def _check_shape(self, shape: InputShape) -> None:
        """Raise ``ValueError`` unless ``shape`` is the shape of the batches already stored."""
        if self.writer is not None and self.selected_feature_format != shape.features:
            stored = next(
                s for s in self._config.shapes if s.features == self.selected_feature_format
            )
            raise ValueError(
                f"{self.config_name}: this input uses {shape.label} but the batches already "
                f"added use {stored.label}; use one shape per computation"
            )

    def _open_writer(self, shape: InputShape) -> None:
        """Open evaluate's writer with the features of ``shape`` (checked items only):
        evaluate would infer them from the first item, which an empty batch does not have."""
        if self.writer is None:
            self.selected_feature_format = shape.features
            self._init_writer()

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Validate a batch (see :class:`OcwMetric`), then store it like ``evaluate``."""
        if predictions is not None or references is not None:
            shape = self._config.shape_of(predictions, references)
            self._check_shape(shape)
            shape.check_lengths(predictions, references)
            predictions, references = check_pairs(
                predictions, references, shape.check_prediction, shape.check_reference
            )
            self._open_writer(shape)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Validate one item (see :class:`OcwMetric`), then store it like ``evaluate``."""
        if prediction is not None or reference is not None:
            shape = self._config.shape_of([prediction], [reference])
            self._check_shape(shape)
            prediction = shape.check_prediction(prediction, "predictions")
            reference = shape.check_reference(reference, "references")
            self._open_writer(shape)
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options of this config among ``options`` (``compute``'s keywords but the
        inputs and ``return_per_item``), after their config's check.

        Raises:
            ValueError: an option of another config set to other than its default, or the
                config's own check fails.
            TypeError: an option of no config.
        """
        own = self._config.options
        for name, value in options.items():
            if name in own:
                continue
            takers = [c for c, config in CONFIGS.items() if name in config.options]
            if not takers:
                raise TypeError(f"compute() got an unexpected keyword argument {name!r}")
            if value != CONFIGS[takers[0]].options[name]:
                raise ValueError(
                    f"{name} is only available with config {takers[0]!r}, not {self.config_name!r}"
                )
        given = {name: value for name, value in options.items() if name in own}
        self._config.check_options(**given)
        return given

    def compute(
        self, *, predictions: Any = None, references: Any = None, **kwargs: Any
    ) -> dict[str, Any] | None:
        """Check the options, then compute like ``evaluate`` (see the module docstring).

        Overridden because ``evaluate`` finalises the stored batches (and drops them) before
        it calls ``_compute``: checked here first, a bad option leaves them in place for a
        corrected call. Inputs given here are validated once, by :meth:`add_batch`, which
        ``evaluate``'s ``compute`` calls with them.
        """
        self._check_options({k: v for k, v in kwargs.items() if k != "return_per_item"})
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(
        self,
        predictions: list[Any],
        references: list[Any],
        return_per_item: bool = False,
        **options: Any,
    ) -> dict[str, Any]:
        # Every item was validated once, before evaluate stored it (add, add_batch, compute).
        return self._config.score(
            predictions,
            references,
            return_per_item=return_per_item,
            validate=False,
            **self._check_options(options),
        )
