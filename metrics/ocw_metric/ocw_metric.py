"""OCW metric: Only Connect Wall grouping and connections, and WoTe extractive spans."""

from __future__ import annotations

from typing import Any

import datasets
import evaluate

# evaluate copies only the sibling modules this script imports itself (it does not follow the
# siblings' imports of each other), so every sibling is imported here; a comment on the line
# of a relative import would be read as the URL to fetch it from ("# From: URL").
from .connections import check_bertscore_options, check_rouge_tokenizer, connection_scores
from .grouping import grouping_scores
from .inputs import (
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
from .spans import span_scores

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

_KWARGS_DESCRIPTION = """\
Args:
    predictions:
        grouping: per wall, 4 groups of 4 clue strings (groups and clues in any order).
        connections: per wall, 4 connection strings in gold group order: prediction i
            names the connection of gold group i (gt_connections[i], group_{i+1}),
            whatever order the predicted groups came in (as the paper's script); reorder
            a model's connections to the gold groups they match before scoring.
        spans: per question, one answer string; or, as the squad metric,
            {"id": str, "prediction_text": str} per question.
    references:
        grouping: per wall, the gold 4 groups of 4 clue strings, in gold group order;
            no clue (lowercased) more than twice.
        connections: per wall, the 4 gold connections (gt_connections).
        spans: per question, a list of gold answer strings (or a single string); or, as
            the squad metric, {"id": str, "answers": {"text": [str], "answer_start":
            [int]}} per question. In the squad shape predictions are matched to
            references by id (every id on both sides, once).
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

CONFIGS = ("grouping", "connections", "spans")

_STRING = datasets.Value("string")
_STRINGS = datasets.Sequence(_STRING)
_FEATURES: dict[str, datasets.Features | list[datasets.Features]] = {
    "grouping": datasets.Features(
        {
            "predictions": datasets.Sequence(_STRINGS),
            "references": datasets.Sequence(_STRINGS),
        }
    ),
    "connections": datasets.Features({"predictions": _STRINGS, "references": _STRINGS}),
    # plain strings, or the squad metric's features (evaluate picks by the first item)
    "spans": [
        datasets.Features({"predictions": _STRING, "references": _STRINGS}),
        datasets.Features(
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
    ],
}


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


#: Options of compute() and the only config that takes each.
_OPTION_CONFIG = {
    "bertscore": "connections",
    "bertscore_kwargs": "connections",
    "rouge_tokenizer": "connections",
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class OcwMetric(evaluate.Metric):
    """``evaluate`` metric for OCW (``grouping``, ``connections``) and WoTe (``spans``).

    Inputs are validated *before* ``evaluate`` converts them to Arrow (in ``add``,
    ``add_batch`` and ``compute``), so a malformed item, e.g. a clue that is the number
    ``8.5``, raises ``ValueError`` naming its index instead of being cast or rejected with
    a generic message. Indices in ``add_batch`` errors are relative to that batch.
    For ``spans`` a single-string reference is wrapped into a one-element list before
    storage; the squad metric's shapes are stored as that metric stores them (ids, answers
    with their offsets) and matched by id when computing.
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
            features=_FEATURES[self.config_name],
            codebase_urls=["https://github.com/TaatiTeam/OCW"],
            reference_urls=[
                "https://arxiv.org/abs/2306.11167",
                "https://rajpurkar.github.io/SQuAD-explorer/",
            ],
        )

    # -- validation before evaluate's Arrow encoding ---------------------------------

    def _check_item(
        self, prediction: Any, reference: Any, index: int | None, squad: bool = False
    ) -> tuple[Any, Any]:
        suffix = "" if index is None else f"[{index}]"
        p_where, r_where = f"predictions{suffix}", f"references{suffix}"
        if self.config_name == "grouping":
            return validate_wall(prediction, p_where), validate_reference_wall(reference, r_where)
        if self.config_name == "connections":
            return (
                validate_connections(prediction, p_where),
                validate_connections(reference, r_where),
            )
        if squad:
            return (
                validate_squad_prediction(prediction, p_where),
                validate_squad_reference(reference, r_where),
            )
        return (
            validate_span_prediction(prediction, p_where),
            validate_span_reference(reference, r_where),
        )

    def _squad_shaped(self, predictions: Any, references: Any) -> bool:
        """Whether a ``spans`` batch uses the squad metric's shapes; the same shape as the
        batches already stored in this computation, if any."""
        squad = self.config_name == "spans" and is_squad_shaped(predictions, references)
        if self.writer is not None and self.config_name == "spans":
            stored = isinstance(self.selected_feature_format["predictions"], dict)
            if stored != squad:
                shapes = ("plain strings", "the squad metric's {'id', ...} dicts")
                raise ValueError(
                    f"spans: this input uses {shapes[squad]} but the batches already added "
                    f"use {shapes[stored]}; use one shape per computation"
                )
        return squad

    def _check_batch(self, predictions: Any, references: Any) -> tuple[list[Any], list[Any]]:
        squad = self._squad_shaped(predictions, references)
        if squad and _is_list(predictions) and _is_list(references):
            if len(predictions) != len(references):  # name the ids, as the squad metric would
                span_scores(predictions, references)  # raises ValueError naming them
        check_same_length(predictions, references)
        checked = [
            self._check_item(p, r, i, squad)
            for i, (p, r) in enumerate(zip(predictions, references, strict=True))
        ]
        return [p for p, _ in checked], [r for _, r in checked]

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Validate a batch (see :class:`OcwMetric`), then store it like ``evaluate``."""
        if predictions is not None or references is not None:
            predictions, references = self._check_batch(predictions, references)
            if self.config_name == "spans" and self.writer is None and len(predictions) == 0:
                # Nothing to pick the spans features from (evaluate reads the first item):
                # store the plain shape, so that compute fails as the other configs do.
                self.selected_feature_format = self.features[0]
                self._init_writer()
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Validate one item (see :class:`OcwMetric`), then store it like ``evaluate``."""
        if prediction is not None or reference is not None:
            squad = self._squad_shaped([prediction], [reference])
            prediction, reference = self._check_item(prediction, reference, None, squad)
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _check_options(
        self,
        bertscore: Any = False,
        bertscore_kwargs: Any = None,
        rouge_tokenizer: Any = "default",
    ) -> None:
        given = {
            "bertscore": bool(bertscore),
            "bertscore_kwargs": bertscore_kwargs is not None,
            "rouge_tokenizer": rouge_tokenizer != "default",
        }
        for option, used in given.items():
            if used and self.config_name != _OPTION_CONFIG[option]:
                raise ValueError(
                    f"{option} is only available with config {_OPTION_CONFIG[option]!r}, "
                    f"not {self.config_name!r}"
                )
        check_bertscore_options(bertscore, bertscore_kwargs)
        check_rouge_tokenizer(rouge_tokenizer)

    def compute(
        self, *, predictions: Any = None, references: Any = None, **kwargs: Any
    ) -> dict[str, Any] | None:
        """Validate the options, then compute like ``evaluate`` (see the module docstring).

        The options are checked before ``evaluate`` finalises the stored batches, so a bad
        option leaves them in place for a corrected call. Inputs given here are validated
        once, by :meth:`add_batch`, which ``evaluate``'s ``compute`` calls with them.
        """
        self._check_options(
            kwargs.get("bertscore", False),
            kwargs.get("bertscore_kwargs", None),
            kwargs.get("rouge_tokenizer", "default"),
        )
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(
        self,
        predictions: list[Any],
        references: list[Any],
        return_per_item: bool = False,
        bertscore: bool = False,
        bertscore_kwargs: dict[str, Any] | None = None,
        rouge_tokenizer: str = "default",
    ) -> dict[str, Any]:
        self._check_options(bertscore, bertscore_kwargs, rouge_tokenizer)
        # Every item was validated once, before evaluate stored it (add, add_batch, compute).
        if self.config_name == "grouping":
            return grouping_scores(
                predictions, references, return_per_item=return_per_item, validate=False
            )
        if self.config_name == "connections":
            return connection_scores(
                predictions,
                references,
                return_per_item=return_per_item,
                bertscore=bertscore,
                bertscore_kwargs=bertscore_kwargs,
                rouge_tokenizer=rouge_tokenizer,
                validate=False,
            )
        return span_scores(predictions, references, return_per_item=return_per_item, validate=False)
