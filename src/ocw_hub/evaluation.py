"""Scoring prediction files against a split (``ocw-hub evaluate``): I/O around ``ocw_metric``.

The figures themselves come from the ``metrics/ocw_metric`` evaluate module, loaded with
``evaluate.load`` from this install (never a copy of its code); this module reads and checks
prediction files, lines them up with the gold walls or questions, and breaks the results down.

Prediction formats:

* OCW (``default``, ``ocw_randomized``, ``ocw_wordnet``), the official format: a JSON list of
  ``{"wall_id": str, "predicted_groups": 4 lists of 4 clues | null,
  "predicted_connections": 4 strings in gold group order | null}``. A null field skips that task
  for that wall; a task no wall predicts is not reported.
* WoTe: a JSON list of ``{"id": str, "prediction_text": str}`` or an object ``{id: text}``
  (``id`` is the dataset's unique ``id`` column).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from .configs import PathLike
from .errors import PredictionsError
from .resources import metric_dir
from .sources import load_split

#: Placeholder clue of a missing wall scored with ``allow_missing``: never a real clue, so every
#: placed clue counts as wrong (no correct group, AMI/ARI/FMS of unrelated labels, WD 1).
MISSING_CLUE = "\x00missing clue {}"
#: Fields of an OCW prediction besides ``wall_id``; each must be present (null skips the task).
OCW_FIELDS = ("predicted_groups", "predicted_connections")


@cache
def load_metric(config_name: str) -> Any:
    """The ``ocw_metric`` evaluate module of this install (``grouping``, ``connections``,
    ``spans``), loaded offline from its folder."""
    import evaluate

    return evaluate.load(str(metric_dir()), config_name)


def _listing(ids: Sequence[str]) -> str:
    shown = ", ".join(map(str, ids[:10]))
    more = f", … ({len(ids)} in all)" if len(ids) > 10 else f" ({len(ids)})"
    return shown + more


def read_predictions(path: PathLike, config: str) -> dict[str, Any]:
    """Parse a predictions file into ``{id: prediction}`` (see the module docstring).

    Raises:
        PredictionsError: not JSON, wrong top-level shape, an entry without its id, a wrong
            field type, or duplicated ids (listed, first 10 and the count).
    """
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PredictionsError(f"{path}: no such file") from None
    except UnicodeDecodeError as err:
        raise PredictionsError(f"{path}: not UTF-8 text ({err})") from None
    except (ValueError, RecursionError) as err:  # JSONDecodeError is a ValueError
        raise PredictionsError(f"{path}: not valid JSON ({err})") from None
    if config == "wote":
        return _read_wote(path, raw)
    return _read_ocw(path, raw)


def _read_ocw(path: Path, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, list):
        raise PredictionsError(
            f"{path}: expected a JSON list of {{wall_id, predicted_groups, predicted_connections}}"
        )
    out: dict[str, dict] = {}
    duplicated: list[str] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("wall_id"), str):
            hint = (
                " (WoTe predictions have `id`: use --config wote)"
                if isinstance(entry, dict) and "id" in entry
                else ""
            )
            raise PredictionsError(f"{path}: entry {index} has no string `wall_id`{hint}")
        wall_id = entry["wall_id"]
        fields = set(entry) - {"wall_id"}
        if fields != set(OCW_FIELDS):
            unknown = sorted(fields - set(OCW_FIELDS))
            absent = sorted(set(OCW_FIELDS) - fields)
            raise PredictionsError(
                f"{path}: wall {wall_id} (entry {index}): "
                + "; ".join(
                    ([f"unknown field(s) {unknown}"] if unknown else [])
                    + ([f"missing field(s) {absent} (give null to skip a task)"] if absent else [])
                )
            )
        for field in OCW_FIELDS:
            if entry.get(field) is not None and not isinstance(entry[field], list):
                raise PredictionsError(
                    f"{path}: wall {wall_id} (entry {index}): `{field}` must be a list or null"
                )
        if wall_id in out:
            duplicated.append(wall_id)
        out[wall_id] = {
            "predicted_groups": entry.get("predicted_groups"),
            "predicted_connections": entry.get("predicted_connections"),
        }
    if duplicated:
        raise PredictionsError(f"{path}: duplicated wall_id: {_listing(duplicated)}")
    return out


def _read_wote(path: Path, raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        pairs = list(raw.items())
    elif isinstance(raw, list):
        pairs = []
        for index, entry in enumerate(raw):
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                hint = (
                    " (OCW predictions have `wall_id`: use --config default, ocw_randomized "
                    "or ocw_wordnet)"
                    if isinstance(entry, dict) and "wall_id" in entry
                    else ""
                )
                raise PredictionsError(f"{path}: entry {index} has no string `id`{hint}")
            if set(entry) != {"id", "prediction_text"}:
                raise PredictionsError(
                    f"{path}: question {entry['id']} (entry {index}): expected the fields "
                    f"id and prediction_text, got {sorted(entry)}"
                )
            pairs.append((entry["id"], entry["prediction_text"]))
    else:
        raise PredictionsError(
            f"{path}: expected a list of {{id, prediction_text}} or {{id: text}}"
        )
    out: dict[str, str] = {}
    duplicated = []
    for qid, text in pairs:
        if not isinstance(text, str):
            raise PredictionsError(f"{path}: question {qid}: `prediction_text` must be a string")
        if qid in out:
            duplicated.append(qid)
        out[qid] = text
    if duplicated:
        raise PredictionsError(f"{path}: duplicated id: {_listing(duplicated)}")
    return out


def _align(
    path: Path, predictions: dict[str, Any], gold_ids: list[str], allow_missing: bool, what: str
) -> list[str]:
    known = set(gold_ids)
    unknown = [i for i in predictions if i not in known]
    if unknown:
        hint = " (is --config / --split right?)" if len(unknown) == len(predictions) else ""
        raise PredictionsError(f"{path}: {what} not in the split: {_listing(unknown)}{hint}")
    missing = [i for i in gold_ids if i not in predictions]
    if missing and not allow_missing:
        raise PredictionsError(
            f"{path}: {what} missing from the predictions: {_listing(missing)}; "
            "pass --allow-missing to score them as wrong"
        )
    return missing


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _human(walls: Sequence[dict]) -> dict[str, Any]:
    """Human performance recorded in the dataset for these walls (contestants on the show)."""
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
        "full_wall": sum(full),
        "full_wall_rate": _mean(full),
        "connections_correct_rate": _mean(connection),
    }


def _score(metric_name: str, predictions: list, references: list, **kw: Any) -> dict[str, Any]:
    if not predictions:
        return {}
    return load_metric(metric_name).compute(
        predictions=predictions, references=references, return_per_item=True, **kw
    )


def _global(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "per_item"}


_OCW_TASKS = {
    # task: (prediction field, gold of a wall, prediction of a missing wall)
    "grouping": (
        "predicted_groups",
        lambda wall: [group["gt_words"] for group in wall["groups"].values()],
        [[MISSING_CLUE.format(4 * g + c) for c in range(4)] for g in range(4)],
    ),
    "connections": ("predicted_connections", lambda wall: list(wall["gt_connections"]), [""] * 4),
}


def evaluate_ocw(
    path: PathLike,
    walls: Sequence[dict],
    predictions: dict[str, Any],
    *,
    allow_missing: bool = False,
    bertscore: bool = False,
) -> dict[str, Any]:
    """Score OCW predictions (``{wall_id: {predicted_groups, predicted_connections}}``).

    Returns a dict with ``grouping`` and ``connections`` (the ``ocw_metric`` figures: wd, ami,
    ari, fms means on 0-1, full_wall and correct_groups totals and rates; exact_match and rouge1
    on 0-1), ``human`` (the dataset's human performance on the same walls), ``by_season`` (the
    same per season, each figure computed by the metric on that season's walls) and
    ``per_wall``. A missing wall (with ``allow_missing``) is scored as a prediction that places
    no clue of the wall and names every connection as the empty string.

    Raises:
        PredictionsError: unknown or (without ``allow_missing``) missing wall ids; a malformed
            prediction (the ``ValueError`` of the metric, with the wall id added).
    """
    path = Path(path)
    missing = set(
        _align(path, predictions, [w["wall_id"] for w in walls], allow_missing, "wall_id")
    )

    def prediction(task: str, wall: dict) -> Any:
        field, _, placeholder = _OCW_TASKS[task]
        return placeholder if wall["wall_id"] in missing else predictions[wall["wall_id"]][field]

    def score(task: str, subset: Sequence[dict]) -> dict[str, Any]:
        extra = {"bertscore": True} if task == "connections" and bertscore else {}
        try:
            return _score(
                task,
                [prediction(task, w) for w in subset],
                [_OCW_TASKS[task][1](w) for w in subset],
                **extra,
            )
        except ValueError as err:
            raise PredictionsError(f"{path}: {task}: {_with_wall_id(str(err), subset)}") from None

    seasons: dict[int, list[dict]] = defaultdict(list)
    for wall in walls:
        seasons[wall["season"]].append(wall)
    results: dict[str, Any] = {"n_walls": len(walls), "n_missing": len(missing)}
    by_season = {str(s): {"n_walls": len(ws)} for s, ws in sorted(seasons.items())}
    per_wall = {
        w["wall_id"]: {
            "wall_id": w["wall_id"],
            "season": w["season"],
            "episode": w["episode"],
            "missing": w["wall_id"] in missing,
        }
        for w in walls
    }
    for task in _OCW_TASKS:
        scored = [w for w in walls if prediction(task, w) is not None]
        if all(w["wall_id"] in missing for w in scored):
            continue  # no wall predicts this task: skipped
        result = score(task, scored)
        results[task] = _global(result)
        for wall, item in zip(scored, result["per_item"], strict=False):
            per_wall[wall["wall_id"]][task] = item
        for season, season_walls in sorted(seasons.items()):
            subset = [w for w in season_walls if prediction(task, w) is not None]
            if subset:
                by_season[str(season)][task] = _global(score(task, subset))
    if not any(task in results for task in _OCW_TASKS):
        raise PredictionsError(
            f"{path}: nothing to score: every predicted_groups and predicted_connections is null"
        )
    results["human"] = _human(walls)
    for season, season_walls in sorted(seasons.items()):
        by_season[str(season)]["human"] = _human(season_walls)
    for wall in walls:
        per_wall[wall["wall_id"]]["human"] = _human([wall])
    results["by_season"] = by_season
    results["per_wall"] = list(per_wall.values())
    return results


def _with_wall_id(message: str, rows: Sequence[dict]) -> str:
    """Add the wall id to a metric error that names a position (``predictions[3]``)."""
    match = re.search(r"\b(?:predictions|references)\[(\d+)\]", message)
    if match and int(match.group(1)) < len(rows):
        return f"wall_id {rows[int(match.group(1))]['wall_id']}: {message}"
    return message


def evaluate_wote(
    path: PathLike,
    questions: Sequence[dict],
    predictions: dict[str, str],
    *,
    allow_missing: bool = False,
) -> dict[str, Any]:
    """Score WoTe span predictions (``{id: prediction_text}``) against ``answers.text``.

    Returns ``spans`` (SQuAD v1.1 exact_match and f1 on 0-100, from ``ocw_metric``),
    ``by_question_type`` (a question with several types counts in each), ``by_domain``
    (cooking, diy) and ``per_question``. A missing question (with ``allow_missing``) is scored as
    the empty prediction.

    Raises:
        PredictionsError: unknown or (without ``allow_missing``) missing ids.
    """
    path = Path(path)
    missing = set(_align(path, predictions, [q["id"] for q in questions], allow_missing, "id"))

    def score(subset: Sequence[dict]) -> dict[str, Any]:
        return _score(
            "spans",
            ["" if q["id"] in missing else predictions[q["id"]] for q in subset],
            [list(q["answers"]["text"]) for q in subset],
        )

    result = score(questions)
    by_type: dict[str, list[dict]] = defaultdict(list)
    by_domain: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        for qtype in q["question_type"]:
            by_type[qtype].append(q)
        by_domain[q["domain"]].append(q)
    return {
        "n_questions": len(questions),
        "n_missing": len(missing),
        "spans": _global(result),
        "by_question_type": {
            t: {"n_questions": len(qs), "spans": _global(score(qs))}
            for t, qs in sorted(by_type.items())
        },
        "by_domain": {
            d: {"n_questions": len(qs), "spans": _global(score(qs))}
            for d, qs in sorted(by_domain.items())
        },
        "per_question": [
            {
                "id": q["id"],
                "question_id": q["question_id"],
                "domain": q["domain"],
                "question_type": list(q["question_type"]),
                "missing": q["id"] in missing,
                "prediction_text": "" if q["id"] in missing else predictions[q["id"]],
                "answers": list(q["answers"]["text"]),
                **item,
            }
            for q, item in zip(questions, result["per_item"], strict=False)
        ],
    }


def evaluate_file(
    predictions_path: PathLike,
    config: str,
    split: str = "test",
    data_dir: PathLike | None = None,
    *,
    allow_missing: bool = False,
    bertscore: bool = False,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
) -> dict[str, Any]:
    """Score a predictions file against a split of a config (what ``ocw-hub evaluate`` runs).

    The split is loaded as :func:`ocw_hub.load_dataset` does (from ``data_dir``, else the
    official download). Returns the dict of :func:`evaluate_ocw` or :func:`evaluate_wote`
    with ``config``, ``split`` and ``predictions`` added.

    Raises:
        PredictionsError: see :func:`read_predictions`, :func:`evaluate_ocw`, :func:`evaluate_wote`;
            a split the config does not have.
        SourceUnavailableError: no ``data_dir`` and no download (names ``--data-dir``).
    """
    predictions = read_predictions(predictions_path, config)
    rows = load_split(
        config, split, data_dir, cache_dir=cache_dir, verification_mode=verification_mode
    ).to_list()
    head = {"config": config, "split": split, "predictions": str(predictions_path)}
    if config == "wote":
        return {
            **head,
            **evaluate_wote(predictions_path, rows, predictions, allow_missing=allow_missing),
        }
    return {
        **head,
        **evaluate_ocw(
            predictions_path, rows, predictions, allow_missing=allow_missing, bertscore=bertscore
        ),
    }


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def summary_rows(results: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(task, figure, model, human) rows of the terminal table for a result of
    :func:`evaluate_file`."""
    rows: list[tuple[str, str, str, str]] = []
    if "spans" in results:
        rows.append(("questions", "in the split", str(results["n_questions"]), "-"))
        rows.append(("questions", "missing, scored as wrong", str(results["n_missing"]), "-"))
        for key in ("exact_match", "f1"):
            rows.append(("spans", key + " (0-100)", f"{results['spans'][key]:.2f}", "-"))
        return rows
    human = results["human"]
    rows.append(("walls", "in the split", str(results["n_walls"]), str(human["n_walls"])))
    rows.append(("walls", "missing, scored as wrong", str(results["n_missing"]), "-"))
    human_of = {
        "full_wall": human["full_wall"],
        "full_wall_rate": human["full_wall_rate"],
        "correct_groups": human["correct_groups"],
        "correct_groups_rate": human["correct_groups_rate"],
    }
    for task in ("grouping", "connections"):
        for key, value in results.get(task, {}).items():
            if key == "n_walls":
                continue
            rows.append((task, key, _fmt(value), _fmt(human_of.get(key))))
    if "connections" in results:
        rows.append(
            (
                "connections",
                "found by the contestants",
                "-",
                _fmt(human["connections_correct_rate"]),
            )
        )
    return rows
