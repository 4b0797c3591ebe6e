"""Scoring predictions against a split (``ocw-hub evaluate``): alignment, figures, breakdowns.

The figures come from the metric's own scoring code (``grouping.py``, ``connections.py`` and
``spans.py`` of ``metrics/ocw_metric/``, imported once each by
:func:`ocw_hub.resources.load_metric_module`; ``evaluate.load`` of the metric runs the same
files), so ``ocw-hub evaluate`` and ``evaluate.load(...).compute`` agree exactly.
Each figure is computed once per wall (question); the global figures and the breakdowns by
season (question type, domain) are aggregated from the per-wall results with the metric's
``aggregate_*`` functions, as the paper's script averages per-wall figures.

Several predictions files of one config and split are runs (the paper's protocol: 16 runs,
reported as mean ± standard deviation, ``numpy.std``, population, as upstream
``task1_grouping_evaluation_batch``): :func:`evaluate_files` scores each against the split,
read and validated once, and adds ``mean`` and ``std`` of every figure over runs.
"""

from __future__ import annotations

import json
import os
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Protocol

from ..configs import CONFIGS, ConfigSpec, PathLike, config_spec
from ..errors import ChoiceError, PredictionsError
from ..resources import load_metric_module
from ..shown import capped
from .bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from .groups import add_group_figures, gold_facts
from .intervals import TWO_LEVEL, check_same_walls  # noqa: F401 (TWO_LEVEL kept importable)
from .over_runs import summarize_runs
from .predictions import WallPrediction, expand_prediction_paths, listing, read_predictions
from .slices import WallSlice, add_intervals, apply_slice

#: Placeholder clue of a missing wall scored with ``allow_missing``: never a real clue, so every
#: placed clue counts as wrong (no correct group, AMI/ARI/FMS of unrelated labels, WD 1).
MISSING_CLUE = "\x00missing clue {}"
_MISSING_GROUPS = [[MISSING_CLUE.format(4 * g + c) for c in range(4)] for g in range(4)]
_MISSING_CONNECTIONS = [""] * 4

#: The tasks of the OCW walls, in report order (``ConfigSpec.tasks``).
OCW_TASKS = CONFIGS["default"].tasks

Progress = Callable[[int], None]


class AnswerLog(Protocol):
    """Runs of answers read from a log (an inspect log: :mod:`ocw_hub.inspect_tasks.logs`):
    each epoch a run, scored on the walls (questions) it answers."""

    path: Path
    protocol: dict[str, Any]
    epochs: dict[int, dict[str, Any]]

    def run_paths(self) -> list[Path]: ...

    def own_rows(
        self, rows: Sequence[dict], id_key: str, units: str = "walls"
    ) -> tuple[list[dict], dict | None]: ...

    def predictions(self, rows: Sequence[dict], dataset: str) -> list[dict[str, Any]]: ...


#: Configs whose walls the contestants never played as such (``ConfigSpec.whole_walls_played``
#: false): ``ocw_randomized`` rebuilds its test walls from groups of different walls, so only
#: the per-group human figures carry over (a group found on its own wall); whole-wall ones
#: (``full_wall``) do not exist (None).
REBUILT_WALLS = frozenset(name for name, spec in CONFIGS.items() if not spec.whole_walls_played)


def _with_nearest(unknown: Sequence[str], ids: Sequence[str]) -> str:
    """Up to 10 unknown ids, each with the nearest of ``ids`` (``difflib``) when one is close,
    then how many more: ``a0o2 (nearest: a002), zzzz`` (:func:`ocw_hub.shown.capped`)."""
    import difflib

    shown: list[str] = []
    for wrong in unknown[:10]:
        close = difflib.get_close_matches(wrong, ids, n=1, cutoff=0.6)
        shown.append(f"{wrong} (nearest: {close[0]})" if close else wrong)
    return capped([*shown, *unknown[10:]], 10)


def align(
    path: PathLike,
    predicted_ids: Sequence[str],
    gold_ids: Sequence[str],
    allow_missing: bool,
    what: str,
) -> set[str]:
    """The gold ids that have no prediction (empty unless ``allow_missing``).

    Raises:
        PredictionsError: a predicted id is not in the split (hinting at ``--config`` /
            ``--split`` when none is); an id is missing and ``allow_missing`` is false.
    """
    known = set(gold_ids)
    unknown = [i for i in predicted_ids if i not in known]
    predicted = set(predicted_ids)
    missing = [i for i in gold_ids if i not in predicted]
    faults = []
    if unknown:
        hint = " (is --config / --split right?)" if len(unknown) == len(predicted_ids) else ""
        shown = _with_nearest(unknown, missing or list(gold_ids))
        faults.append(f"{what} not in the split: {shown}{hint}")
    if missing and (unknown or not allow_missing):
        faults.append(
            f"{what} missing from the predictions: {listing(missing)}"
            + ("" if unknown else "; pass --allow-missing to score them as wrong")
        )
    if faults:
        raise PredictionsError(f"{path}: " + "; ".join(faults))
    return set(missing)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def human_figures(walls: Sequence[dict], whole_walls: bool = True) -> dict[str, Any]:
    """Human performance recorded in the dataset for these walls (the contestants on the show):
    ``correct_groups`` (total) and ``correct_groups_rate`` (0-1), ``full_wall`` (walls with all
    4 groups found) and ``full_wall_rate`` (0-1), ``connections_correct_rate`` (0-1),
    ``n_walls``. Without ``whole_walls`` (walls rebuilt from groups of other walls, see
    :data:`REBUILT_WALLS`) ``full_wall`` and ``full_wall_rate`` are None."""
    grouping = [g["human_performance"]["grouping"] for w in walls for g in w["groups"].values()]
    connection = [g["human_performance"]["connection"] for w in walls for g in w["groups"].values()]
    full = [
        int(all(g["human_performance"]["grouping"] == 1 for g in w["groups"].values()))
        for w in walls
    ]
    return {
        "n_walls": len(walls),
        "correct_groups": sum(grouping),
        "correct_groups_rate": _mean(grouping),
        "full_wall": sum(full) if whole_walls else None,
        "full_wall_rate": _mean(full) if whole_walls else None,
        "connections_correct_rate": _mean(connection),
    }


class GoldWalls:
    """A split's walls with their gold groups checked once by the metric's validator, and
    what each wall's ``groups`` record needs of them (``group_facts``), shared by every run.

    Raises:
        PredictionsError: never for a split built by the loading script (it applies the same
            rules); kept for walls given by hand.
    """

    def __init__(self, walls: Sequence[dict], whole_walls: bool = True) -> None:
        code = load_metric_module("inputs")
        self.walls = list(walls)
        self.ids = [w["wall_id"] for w in self.walls]
        self.groups = [
            code.validate_reference_wall(
                [g["gt_words"] for g in w["groups"].values()], f"wall {w['wall_id']}: gold groups"
            )
            for w in self.walls
        ]
        self.connections = [list(w["gt_connections"]) for w in self.walls]
        #: each wall's clues lowercased (as the metric compares them), for every run
        self.clue_sets = [{c.lower() for g in groups for c in g} for groups in self.groups]
        self.group_facts = [gold_facts(w, g) for w, g in zip(self.walls, self.groups, strict=True)]
        self.seasons: dict[int, list[int]] = defaultdict(list)
        for index, wall in enumerate(self.walls):
            self.seasons[wall["season"]].append(index)
        self.human = human_figures(self.walls, whole_walls)
        self.human_by_season = {
            season: human_figures([self.walls[i] for i in indices], whole_walls)
            for season, indices in sorted(self.seasons.items())
        }
        self.human_per_wall = [human_figures([w], whole_walls) for w in self.walls]


def _grouping_items(
    gold: GoldWalls, preds: dict[str, WallPrediction], missing: set[str], on_wall: Progress | None
) -> dict[int, dict[str, Any]]:
    code = load_metric_module("grouping")
    items: dict[int, dict[str, Any]] = {}
    groups_given = not preds or any(p.groups is not None for p in preds.values())
    for index, wall_id in enumerate(gold.ids):
        if wall_id in missing and not groups_given:
            continue  # a file of connections only: its missing walls miss no grouping
        if wall_id in missing:
            predicted = _MISSING_GROUPS
        elif (groups := preds[wall_id].groups) is None:
            continue
        else:
            predicted = groups
        item = code.score_wall(predicted, gold.groups[index])
        items[index] = {**item, "full_wall": bool(item["full_wall"])}
        if on_wall is not None:
            on_wall(1)
    return items


def _connection_items(
    gold: GoldWalls,
    preds: dict[str, WallPrediction],
    missing: set[str],
    bertscore: bool,
    rouge_tokenizer: str,
) -> dict[int, dict[str, Any]]:
    if preds and not any(p.connections is not None for p in preds.values()):
        return {}  # a file of groups only: its missing walls miss no connection
    indices = [
        i
        for i, wall_id in enumerate(gold.ids)
        if wall_id in missing or preds[wall_id].connections is not None
    ]
    if not indices:
        return {}
    predicted = [
        _MISSING_CONNECTIONS if gold.ids[i] in missing else preds[gold.ids[i]].connections
        for i in indices
    ]
    result = load_metric_module("connections").connection_scores(
        predicted,
        [gold.connections[i] for i in indices],
        return_per_item=True,
        bertscore=bertscore,
        rouge_tokenizer=rouge_tokenizer,
        validate=False,  # checked by predictions.py and GoldWalls
    )
    return dict(zip(indices, result["per_item"], strict=True))


def score_ocw(
    path: PathLike,
    gold: GoldWalls,
    predictions: dict[str, WallPrediction],
    *,
    allow_missing: bool = False,
    bertscore: bool = False,
    rouge_tokenizer: str = "default",
    on_wall: Progress | None = None,
) -> dict[str, Any]:
    """Score one run of OCW predictions against a split's walls.

    Returns a dict with ``n_walls``, ``n_missing``, ``grouping`` and ``connections`` (the
    metric's figures: wd, ami, ari, fms means on 0-1, full_wall and correct_groups totals and
    rates, n_walls scored; exact_match and rouge1 on 0-1, n_walls scored; a task no wall
    predicts is absent), ``human`` (the dataset's human performance on the same walls),
    ``by_season`` (the same per season) and ``per_wall``. A missing wall (with
    ``allow_missing``) is scored as a prediction that places no clue of the wall and names
    every connection as the empty string. ``rouge_tokenizer``: ``"default"`` (the paper's) or
    ``"unicode"`` (see the metric's card).

    Raises:
        PredictionsError: unknown or (without ``allow_missing``) missing wall ids; nothing to
            score (every prediction null).
    """
    missing = align(path, list(predictions), gold.ids, allow_missing, "wall_id")
    items = {
        "grouping": _grouping_items(gold, predictions, missing, on_wall),
        "connections": _connection_items(gold, predictions, missing, bertscore, rouge_tokenizer),
    }
    if not any(items.values()):
        raise PredictionsError(
            f"{path}: nothing to score: every predicted_groups and predicted_connections is null"
        )
    aggregate = {
        "grouping": load_metric_module("grouping").aggregate_grouping,
        "connections": load_metric_module("connections").aggregate_connections,
    }
    results: dict[str, Any] = {"n_walls": len(gold.ids), "n_missing": len(missing)}
    by_season: dict[str, dict[str, Any]] = {}
    for season, indices in sorted(gold.seasons.items()):
        by_season[str(season)] = {"n_walls": len(indices)}
    for task in OCW_TASKS:
        if not items[task]:
            continue
        results[task] = aggregate[task](list(items[task].values()))
        for season, indices in sorted(gold.seasons.items()):
            subset = [items[task][i] for i in indices if i in items[task]]
            if subset:
                by_season[str(season)][task] = aggregate[task](subset)
    for season, human in gold.human_by_season.items():
        by_season[str(season)]["human"] = human
    results["human"] = gold.human
    results["by_season"] = by_season
    foreign = _foreign_clues(path, gold, predictions, missing)
    results["per_wall"] = [
        {
            "wall_id": wall["wall_id"],
            "season": wall["season"],
            "episode": wall["episode"],
            "missing": wall["wall_id"] in missing,
            **{task: items[task][i] for task in OCW_TASKS if i in items[task]},
            **({"clues_not_in_wall": foreign[i]} if i in foreign else {}),
            "human": gold.human_per_wall[i],
        }
        for i, wall in enumerate(gold.walls)
    ]
    add_group_figures(results, gold, predictions, missing, _MISSING_GROUPS, items["grouping"])
    return results


def _foreign_clues(
    path: PathLike, gold: GoldWalls, preds: dict[str, WallPrediction], missing: set[str]
) -> dict[int, list[str]]:
    """Predicted clues that are not clues of their wall (compared lowercased, as the metric),
    by wall index; they score as wrong, as in the paper's script. A ``UserWarning`` says how
    many walls have some, with an example: usually a typo, or predictions of another config.
    An empty (or blank) clue places no clue, as ``parse`` writes an answer it could not
    recover: it scores as wrong too, but is no clue named."""
    foreign: dict[int, list[str]] = {}
    for index, wall_id in enumerate(gold.ids):
        groups = None if wall_id in missing else preds[wall_id].groups
        if groups is None:
            continue
        known = gold.clue_sets[index]
        unknown = [c for group in groups for c in group if c.strip() and c.lower() not in known]
        if unknown:
            foreign[index] = unknown
    if foreign:
        first = next(iter(foreign))
        example = capped(foreign[first], 3)
        warnings.warn(
            f"{path}: {len(foreign)} of {len(gold.ids)} walls have predicted clues that are not "
            f"clues of the wall (e.g. wall {gold.ids[first]}: {example}); they count "
            "as wrong. A typo, or predictions for another config?",
            UserWarning,
            stacklevel=2,
        )
    return foreign


def score_wote(
    path: PathLike,
    questions: Sequence[dict],
    predictions: dict[str, str],
    *,
    allow_missing: bool = False,
) -> dict[str, Any]:
    """Score one run of WoTe span predictions (``{id: prediction_text}``) against
    ``answers.text``.

    Returns ``spans`` (SQuAD v1.1 exact_match and f1 on 0-100, from the metric),
    ``by_question_type`` (a question with several types counts in each), ``by_domain``
    (cooking, diy) and ``per_question``. A missing question (with ``allow_missing``) is scored
    as the empty prediction.

    Raises:
        PredictionsError: unknown or (without ``allow_missing``) missing ids.
    """
    code = load_metric_module("spans")
    ids = [q["id"] for q in questions]
    missing = align(path, list(predictions), ids, allow_missing, "id")
    texts = ["" if q["id"] in missing else predictions[q["id"]] for q in questions]
    result = code.span_scores(
        texts,
        [list(q["answers"]["text"]) for q in questions],
        return_per_item=True,
        validate=False,  # predictions checked by predictions.py, answers by the builder
    )
    items = result["per_item"]
    by_type: dict[str, list[dict]] = defaultdict(list)
    by_domain: dict[str, list[dict]] = defaultdict(list)
    for q, item in zip(questions, items, strict=True):
        for qtype in q["question_type"]:
            by_type[qtype].append(item)
        by_domain[q["domain"]].append(item)

    def breakdown(groups: dict[str, list[dict]]) -> dict[str, Any]:
        return {
            key: {"n_questions": len(group), "spans": code.aggregate_spans(group)}
            for key, group in sorted(groups.items())
        }

    return {
        "n_questions": len(questions),
        "n_missing": len(missing),
        "spans": code.aggregate_spans(items),
        "by_question_type": breakdown(by_type),
        "by_domain": breakdown(by_domain),
        "per_question": [
            {
                "id": q["id"],
                "question_id": q["question_id"],
                "domain": q["domain"],
                "question_type": list(q["question_type"]),
                "missing": q["id"] in missing,
                "prediction_text": text,
                "answers": list(q["answers"]["text"]),
                **item,
            }
            for q, text, item in zip(questions, texts, items, strict=True)
        ],
    }


def memo_path() -> Path:
    """The file of the AMI margin memo: ``$OCW_HUB_CACHE`` (default
    ``$XDG_CACHE_HOME/ocw_hub``, i.e. ``~/.cache/ocw_hub``) / ``ami-margins-sklearn-<version>
    .json``, one per scikit-learn release (the values are its EMI routine's)."""
    from importlib.metadata import version

    root = os.environ.get("OCW_HUB_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "ocw_hub"
    )
    return Path(root) / f"ami-margins-sklearn-{version('scikit-learn')}.json"


@contextmanager
def margin_memo() -> Iterator[None]:
    """Restore the metric's AMI margin terms (EMI and mean entropy by table margins) from
    :func:`memo_path` before scoring and save the new ones after, so that a later run imports
    scikit-learn (half a second, most of a short run) only for margins never seen. Every value
    is computed by scikit-learn's routine in some run; floats round-trip exactly through JSON.
    An unreadable or unwritable memo is ignored: the figures are computed as usual."""
    from ..outputs import write_json

    memo = load_metric_module("partition").margin_terms()
    path = memo_path()
    try:
        for rows, cols, emi, entropy in json.loads(path.read_text(encoding="utf-8")):
            memo.setdefault((tuple(rows), tuple(cols)), (float(emi), float(entropy)))
    except (OSError, ValueError, TypeError):
        pass
    known = len(memo)
    yield
    if len(memo) > known:
        entries = [[list(r), list(c), emi, h] for (r, c), (emi, h) in sorted(memo.items())]
        with suppress(OSError):
            write_json(path, entries, indent=None)


def _rouge_tokenizer(rouge_tokenizer: str) -> str:
    """``rouge_tokenizer`` as the metric checks it (its ``check_rouge_tokenizer``).

    Raises:
        ChoiceError: not one of the metric's ``ROUGE_TOKENIZERS``.
    """
    connections = load_metric_module("connections")
    try:
        return str(connections.check_rouge_tokenizer(rouge_tokenizer))
    except ValueError:
        choices = tuple(connections.ROUGE_TOKENIZERS)
        raise ChoiceError("rouge_tokenizer", rouge_tokenizer, choices) from None


def score_files(
    predictions: Sequence[PathLike],
    config: str,
    split: str = "test",
    data_dir: PathLike | None = None,
    *,
    allow_missing: bool = False,
    bertscore: bool = False,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    download_mode: str | None = None,
    on_item: Progress | None = None,
    rows: Sequence[dict] | None = None,
    rouge_tokenizer: str = "default",
    bootstrap: int = DEFAULT_RESAMPLES,
    bootstrap_seed: int = DEFAULT_SEED,
    as_runs: bool = False,
    walls_slice: WallSlice | None = None,
    log: AnswerLog | None = None,
) -> dict[str, Any]:
    """Score predictions files (or folders of runs), or the runs of an answer ``log``, against a
    split of a config (what ``ocw-hub evaluate`` runs for them: :mod:`ocw_hub.evaluation`).

    Several files must be runs of one protocol (:func:`ocw_hub.provenance.check_one_protocol`)
    unless ``as_runs``. With ``bootstrap`` resamples (0: none) every headline figure gets its 95 %
    percentile bootstrap interval (:mod:`ocw_hub.scoring.intervals`, seeded by
    ``bootstrap_seed``): ``ci95`` (``{task: {figure: [low, high]}}``) and ``bootstrap`` (what
    was resampled) beside the figures of one run, or beside ``mean`` and ``std`` over runs
    (the two-level interval of the mean over runs; the runs have none of their own), and by
    season (:func:`.slices.add_intervals`). ``walls_slice``: some seasons only (:mod:`.slices`).

    Every file is read and shape-checked before the split is loaded, so a bad file costs no
    loading time. ``rouge_tokenizer`` (OCW): ``"default"``, the paper's ROUGE tokenizer, or
    ``"unicode"`` for connections in any script. AMI's margin terms are memoised on disk
    (:func:`margin_memo`). The split comes from :func:`ocw_hub.data.sources.load_split` (raw source
    files, an export folder, a Hub repo id, or the prepared cache) unless ``rows`` gives it.

    Returns:
        One file: the single-run dict of :func:`score_ocw` / :func:`score_wote` with
        ``config``, ``split``, ``source`` (:func:`ocw_hub.provenance.source_provenance`),
        ``predictions`` (the path), ``run`` (the file's stem) and ``protocol`` (the file's
        record, :func:`ocw_hub.provenance.read_protocol`, or None) added. Several:
        ``{config, split, source, protocol (the runs' common one, else None), n_runs,
        n_walls | n_questions, runs: [single-run dicts], mean, std, human (OCW)}`` (see
        :func:`summarize_runs`), and ``ci95``, ``bootstrap`` when ``bootstrap``.

    Raises:
        PredictionsError: a bad predictions file (see :mod:`ocw_hub.scoring.predictions`), an id
            mismatch, nothing to score.
        MixedRunsError: several files that are not runs of one protocol (without ``as_runs``).
        SourceUnavailableError, UnknownSplitError: the split cannot be had.
    """
    from ..provenance import check_one_protocol

    spec = config_spec(config)
    files, parsed, protocols = _inputs(predictions, spec, log)
    if not as_runs:
        check_one_protocol(predictions, files, protocols)
    from ..data.sources import rows_and_source

    rows, source = rows_and_source(
        spec.name,
        split,
        data_dir,
        rows,
        cache_dir=cache_dir,
        verification_mode=verification_mode,
        download_mode=download_mode,
    )
    part = None
    if log is not None:
        rows, part = log.own_rows(rows, spec.id_key, spec.units)
        parsed = log.predictions(rows, spec.dataset)
    rows, parsed, sliced = apply_slice(spec, rows, parsed, walls_slice, data_dir, cache_dir)
    options: dict[str, Any] = {"allow_missing": allow_missing, "bertscore": bertscore}
    if "connections" in spec.tasks:
        options["rouge_tokenizer"] = _rouge_tokenizer(rouge_tokenizer)
    with margin_memo():
        runs = _score_runs(spec, files, parsed, rows, options, on_item)
    for run, protocol in zip(runs, protocols, strict=True):
        run["protocol"] = protocol
    if log is not None:  # every run of a log has its stem: name each by its epoch
        for run, epoch in zip(runs, log.epochs, strict=True):
            run["run"] = f"{log.path.stem} epoch {epoch}"
    head: dict[str, Any] = {"config": spec.name, "split": split, "source": source}
    head.update({"slice": sliced} if sliced else {})
    head.update({"part": part} if part else {})
    if len(runs) == 1:
        if bootstrap:
            add_intervals(runs[0], bootstrap, bootstrap_seed)
        return {**head, **runs[0]}
    return _summary(head, runs, protocols, spec, bootstrap, bootstrap_seed)


def _inputs(
    predictions: Sequence[PathLike], spec: ConfigSpec, log: AnswerLog | None
) -> tuple[list[Path], list[dict[str, Any]], list[dict[str, Any] | None]]:
    """(run files, their predictions, their protocol records): of the files and folders given,
    or of an answer log (its runs named by epoch; their predictions come with the split)."""
    from ..provenance import read_protocol

    if log is not None:
        files = log.run_paths()
        return files, [], [dict(log.protocol) for _ in files]
    paths = expand_prediction_paths(predictions)
    parsed = [read_predictions(path, spec.name) for path in paths]
    return list(paths), parsed, [read_protocol(path) for path in paths]


def _summary(
    head: dict[str, Any],
    runs: list[dict[str, Any]],
    protocols: Sequence[Mapping[str, Any] | None],
    spec: ConfigSpec,
    bootstrap: int,
    bootstrap_seed: int,
) -> dict[str, Any]:
    """The results of several runs: mean and std over them, their intervals when
    ``bootstrap``."""
    from ..provenance import common_protocol

    check_same_walls(runs, spec)
    head["protocol"] = common_protocol(protocols)
    summary: dict[str, Any] = {
        **head,
        "n_runs": len(runs),
        spec.size_key: runs[0][spec.size_key],
        "runs": runs,
        **summarize_runs(runs),
    }
    if "human" in runs[0]:
        summary["human"] = runs[0]["human"]
    if bootstrap:
        add_intervals(summary, bootstrap, bootstrap_seed)
    return summary


def _score_runs(
    spec: ConfigSpec,
    files: Sequence[Path],
    parsed: Sequence[dict[str, Any]],
    rows: Sequence[dict],
    options: dict[str, Any],
    on_item: Progress | None,
) -> list[dict[str, Any]]:
    score = _SCORERS[spec.dataset](spec, rows, options, on_item)
    runs = []
    for path, preds in zip(files, parsed, strict=True):
        result = score(path, preds)
        runs.append({"predictions": str(path), "run": Path(path).stem, **result})
    return runs


Scorer = Callable[[Path, dict[str, Any]], dict[str, Any]]


def _wall_scorer(
    spec: ConfigSpec, rows: Sequence[dict], options: dict[str, Any], on_item: Progress | None
) -> Scorer:
    """Scores each run of walls against the gold walls, read once."""
    gold = GoldWalls(rows, spec.whole_walls_played)
    return lambda path, preds: score_ocw(path, gold, preds, on_wall=on_item, **options)


def _question_scorer(
    spec: ConfigSpec, rows: Sequence[dict], options: dict[str, Any], on_item: Progress | None
) -> Scorer:
    """Scores each run of WoTe spans."""

    def score(path: Path, preds: dict[str, Any]) -> dict[str, Any]:
        result = score_wote(path, rows, preds, allow_missing=options["allow_missing"])
        if on_item is not None:
            on_item(len(rows))
        return result

    return score


#: How each dataset's runs are scored (``ConfigSpec.dataset``).
_SCORERS = {"ocw": _wall_scorer, "wote": _question_scorer}
