"""Scoring a play log (``ocw-hub evaluate PLAY_LOG``) by replaying it through the rules.

Per wall (``per_wall[*].play``) and over the walls played (``play``): ``groups_found`` (0-4,
the fourth completed by itself included), ``walls_solved``, ``guesses`` (valid),
``wrong_guesses``, ``lives_lost``, ``invalid``, ``frozen`` (over without being solved: a lost
life, a cap, the clock, given up; ``end_reasons`` tells them apart); under ``show``
``connections_right`` (connections named exactly, the connection metric's exact match) and
``points`` (the show's, 0-10). The contestants' figures on the same walls, from the data
(``human_performance`` per group: found, connection named), are under ``human.play`` with the
same names (what the data does not hold is None), and group by group ``both``,
``model_only``, ``contestants_only``, ``neither``. A log that plays part of the split
(``--walls N``, a person's session, scored with ``allow_missing``) is compared on its walls
only: ``play.n_played`` of ``n_walls``. The grouping figures (AMI, ARI, FMS, WD, correct
groups, full walls) are the metric's on the final partition
(:func:`ocw_hub.play.rules.final_partition`: the groups not found never stand whole) and the
connection figures the metric's on the connection round, both by
:func:`ocw_hub.scoring.runs.score_ocw` over the whole split (a wall not played scored as
wrong, counted in ``n_missing``), so one-shot and play results sit in one table. Means carry
95 % intervals over the walls played (``ci95.play``) when asked: Clopper-Pearson for the
counts (walls solved, frozen, groups found, connections right), the percentile bootstrap for
the rest (``bootstrap.method.play`` names each).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..configs import PathLike, config_spec
from ..errors import PlayLogError
from ..scoring.predictions import WallPrediction
from . import rules
from .log import PlayLog, read_play_log, replay, start_state

#: Per-wall play figures summed over the split (each also given as a mean, ``<name>_mean``).
TOTALS = (
    "groups_found",
    "walls_solved",
    "guesses",
    "wrong_guesses",
    "lives_lost",
    "invalid",
    "frozen",
    "connections_right",
    "points",
)
#: Group-by-group counts (the player's play against the contestants').
AGREEMENT = ("both", "model_only", "contestants_only", "neither")
#: Their labels (``model_only``: found by the player, a model or a person).
AGREEMENT_LABELS = (
    ("both", "both"),
    ("model_only", "player only"),
    ("contestants_only", "contestants only"),
    ("neither", "neither"),
)


def _connections(
    path: Path, wall_id: str, record: Mapping[str, Any], gold: Sequence[Sequence[str]]
) -> list[str]:
    """The connection round's answers in gold group order."""
    answers = [""] * len(gold)
    for group, answer in zip(record["groups"], record["answers"], strict=True):
        match = [i for i, g in enumerate(gold) if Counter(g) == Counter(group)]
        if not match:
            raise PlayLogError(
                f"{path} (wall {wall_id}): field groups: {group} is not a group of the wall"
            )
        answers[match[0]] = answer
    return answers


def _played(
    path: Path, log: PlayLog, wall: Mapping[str, Any]
) -> tuple[rules.WallState, WallPrediction]:
    """A wall's final state (replayed) and its prediction (final partition, connections)."""
    wall_id = str(wall["wall_id"])
    state, _ = replay(path, log.walls[wall_id], start_state(log.header, wall))
    connections = log.walls[wall_id].connections
    named = None
    if connections is not None:
        named = _connections(path, wall_id, connections[1], state.groups)
    elif state.rule_set.connection_round:
        named = [""] * 4  # the connection round not played: none named
    return state, WallPrediction(wall_id, rules.final_partition(state), named)


def _wall_figures(
    state: rules.WallState | None, connections: Mapping[str, Any] | None
) -> dict[str, Any]:
    if state is None:
        return {"played": False, **dict.fromkeys(TOTALS, 0), "end": None}
    found = len(state.found)
    right = None if connections is None else round(4 * connections["exact_match"])
    return {
        "played": True,
        "groups_found": found,
        "walls_solved": int(state.solved),
        "guesses": state.guesses,
        "wrong_guesses": state.wrong,
        "lives_lost": state.lives_lost,
        "invalid": state.invalid,
        "frozen": int(state.ended is not None and not state.solved),
        "end": state.ended,
        "connections_right": right,
        "points": None if right is None else rules.show_points(found, right),
    }


def human_play(wall: Mapping[str, Any]) -> dict[str, Any]:
    """The contestants' figures of a wall from ``human_performance`` (per group): groups
    found, solved, connections named, points; guesses and lives are not in the data (None)."""
    from ..llm.prompts import gold_groups

    groups = gold_groups(wall)
    found = sum(int(g["human_performance"]["grouping"]) for g in groups)
    right = sum(int(g["human_performance"]["connection"]) for g in groups)
    figures: dict[str, Any] = {k: None for k in TOTALS}
    figures.update(
        groups_found=found,
        walls_solved=int(found == 4),
        connections_right=right,
        points=rules.show_points(found, right),
    )
    return figures


def _agreement(state: rules.WallState | None, wall: Mapping[str, Any]) -> dict[str, int]:
    from ..llm.prompts import gold_groups

    counts = dict.fromkeys(AGREEMENT, 0)
    for index, group in enumerate(gold_groups(wall)):
        model = state is not None and index in state.found
        people = bool(group["human_performance"]["grouping"])
        key = {
            (True, True): "both",
            (True, False): "model_only",
            (False, True): "contestants_only",
            (False, False): "neither",
        }[(model, people)]
        counts[key] += 1
    return counts


def _split_figures(
    per_wall: Sequence[Mapping[str, Any]], whole_walls: bool = True
) -> dict[str, Any]:
    out: dict[str, Any] = {"n_walls": len(per_wall)}
    for name in TOTALS:
        values = [w[name] for w in per_wall]
        known = None in values
        out[name] = None if known else sum(values)
        out[f"{name}_mean"] = None if known or not values else sum(values) / len(values)
    if not whole_walls:  # walls rebuilt from groups of other walls: never played as such
        out.update(walls_solved=None, walls_solved_mean=None, points=None, points_mean=None)
    return out


def score_play_log(
    path: PathLike,
    rows: Sequence[Mapping[str, Any]],
    config: str,
    *,
    allow_missing: bool = False,
    rouge_tokenizer: str = "default",
    bootstrap: int = 0,
    bootstrap_seed: int = 0,
    log: PlayLog | None = None,
) -> dict[str, Any]:
    """The figures of a play log against a split's ``rows`` (see the module docstring): the
    one-run dict of :func:`ocw_hub.scoring.runs.score_ocw` with ``play``, ``human.play``,
    ``per_wall[*].play`` (with ``agreement``) and ``per_wall[*].human.play`` added; ``log`` is
    the file as :func:`read_play_log` read it, if already read (a file is read once).

    Raises:
        PlayLogError: a log of another config or split, walls not in the split, unfinished
            or missing walls (without ``allow_missing``), a replay that disagrees.
    """
    from ..scoring.intervals import run_intervals
    from ..scoring.runs import GoldWalls, score_ocw

    path = Path(path)
    log = read_play_log(path) if log is None else log
    if log.header["config"] != config:
        raise PlayLogError(f"{path}: a play log of config {log.header['config']}, not {config}")
    states, predictions = _replayed(path, log, rows, allow_missing)
    spec = config_spec(config)
    results = score_ocw(
        path,
        GoldWalls([dict(w) for w in rows], spec.whole_walls_played),
        predictions,
        allow_missing=allow_missing,
        rouge_tokenizer=rouge_tokenizer,
    )
    model_walls, people_walls = [], []  # the walls played: like for like
    for wall, item in zip(rows, results["per_wall"], strict=True):
        state = states.get(str(wall["wall_id"]))
        figures = _wall_figures(state, item.get("connections") if state else None)
        figures["agreement"] = _agreement(state, wall)
        item["play"] = figures
        item["human"] = {**item["human"], "play": human_play(wall)}
        if state is not None:
            model_walls.append(figures)
            people_walls.append(item["human"]["play"])
    results["play"] = _play_figures(model_walls, log.header["rules"])
    human = _split_figures(people_walls, spec.whole_walls_played)
    results["human"] = {**results["human"], "play": human}
    results["play_log"] = {k: v for k, v in log.header.items() if k not in ("record",)}
    if bootstrap:
        results["ci95"] = run_intervals(results, bootstrap, bootstrap_seed)
        results["ci95"]["play"] = play_intervals(model_walls, bootstrap, bootstrap_seed)
    return results


def _replayed(
    path: Path, log: PlayLog, rows: Sequence[Mapping[str, Any]], allow_missing: bool
) -> tuple[dict[str, rules.WallState], dict[str, WallPrediction]]:
    """Each finished wall's final state and prediction, by wall id."""
    foreign = sorted(set(log.walls) - {str(w["wall_id"]) for w in rows})
    if foreign:
        raise PlayLogError(f"{path}: wall {foreign[0]} is not a wall of this split")
    states: dict[str, rules.WallState] = {}
    predictions: dict[str, WallPrediction] = {}
    for wall in rows:
        wall_id = str(wall["wall_id"])
        records = log.walls.get(wall_id)
        if records is None or records.end is None:
            if not allow_missing:
                what = "not played" if records is None else "unfinished (no end record)"
                raise PlayLogError(f"{path}: wall {wall_id} is {what} (see --allow-missing)")
            continue
        states[wall_id], predictions[wall_id] = _played(path, log, wall)
    return states, predictions


def _play_figures(model_walls: Sequence[Mapping[str, Any]], rules_name: str) -> dict[str, Any]:
    """The split-level ``play`` figures of the per-wall ones."""
    play = _split_figures([_nulls_as_zero(w) for w in model_walls])
    if not rules.rule_set(rules_name).connection_round:
        no_round = ("connections_right", "connections_right_mean", "points", "points_mean")
        play.update(dict.fromkeys(no_round))
    play["n_played"] = len(model_walls)
    play["agreement"] = {k: sum(w["agreement"][k] for w in model_walls) for k in AGREEMENT}
    play["lives_lost_distribution"] = _counts(w["lives_lost"] for w in model_walls)
    play["end_reasons"] = _counts(w["end"] for w in model_walls)
    return play


def _nulls_as_zero(figures: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (0 if v is None and k in TOTALS else v) for k, v in figures.items()}


def _counts(values: Any) -> dict[str, int]:
    return dict(sorted(Counter(str(v) for v in values).items()))


def play_intervals(
    per_wall: Sequence[Mapping[str, Any]], n_resamples: int, seed: int
) -> dict[str, list[float]]:
    """95 % intervals over walls of each play mean (``<name>_mean``): Clopper-Pearson for the
    counts (walls solved and frozen: exact; groups found and connections right: on an
    effective n), the percentile bootstrap for the rest
    (:func:`ocw_hub.scoring.intervals.play_interval`)."""
    from ..scoring.intervals import play_interval

    out = {}
    for name in TOTALS:
        values = [w[name] for w in per_wall]
        if values and None not in values:
            out[f"{name}_mean"] = play_interval(name, values, n_resamples, seed)
    return out


def play_protocol(header: Mapping[str, Any]) -> dict[str, Any]:
    """The protocol of a play log: ``method play`` and its header's fields (rules, player,
    profile, generation, max_guesses, ...; a log from before profiles with the paper's
    implied), without ``record``, ``config`` and ``split`` (the results' own fields)."""
    from .log import with_implied_fields

    fields = with_implied_fields(header)
    return {"method": "play", **{k: v for k, v in fields.items() if k not in _NOT_PROTOCOL}}


#: Header fields that are not the play protocol.
_NOT_PROTOCOL = ("record", "config", "split", "method")


def evaluate_play(
    path: PathLike,
    config: str,
    split: str,
    data_dir: PathLike | None = None,
    *,
    allow_missing: bool = False,
    rouge_tokenizer: str = "default",
    bootstrap: int = 0,
    bootstrap_seed: int = 0,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    download_mode: str | None = None,
    rows: Sequence[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """:func:`score_play_log` of a play log against a split loaded as ``evaluate`` loads it,
    with ``config``, ``split``, ``source``, ``predictions`` (the path), ``run`` and
    ``protocol`` (:func:`play_protocol` of the log's header) as for predictions files.

    Raises:
        PlayLogError: a log of another split (and as :func:`score_play_log`).
    """
    from ..data.sources import rows_and_source
    from ..scoring.intervals import bootstrap_record
    from ..scoring.runs import margin_memo

    spec = config_spec(config)
    played = read_play_log(path)
    header = played.header
    if header["split"] != split:
        raise PlayLogError(
            f"{path}: a play log of split {header['split']} (config {header['config']}); "
            f"give --split {header['split']} --config {header['config']}"
        )
    rows, source = rows_and_source(
        spec.name,
        split,
        data_dir,
        rows,
        cache_dir=cache_dir,
        verification_mode=verification_mode,
        download_mode=download_mode,
    )
    with margin_memo():
        scored = score_play_log(
            path,
            rows,
            spec.name,
            allow_missing=allow_missing,
            rouge_tokenizer=rouge_tokenizer,
            bootstrap=bootstrap,
            bootstrap_seed=bootstrap_seed,
            log=played,
        )
    result: dict[str, Any] = {"config": spec.name, "split": split, "source": source}
    protocol = play_protocol(header)
    result.update(predictions=str(path), run=Path(path).stem, protocol=protocol, **scored)
    if bootstrap:
        result["bootstrap"] = bootstrap_record(
            bootstrap, bootstrap_seed, "walls", result.get("ci95", {})
        )
    return result
