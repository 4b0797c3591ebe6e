"""Slices of a split's walls by season or air date (``--seasons``, ``--aired-after``), and the
intervals of the figures by season.

A wall has a season and an episode, no date; the release's ``season_to_walls_map`` gives each
season's first and last air dates (``start_date``, ``end_date``; null in the stand-in). So:

* ``seasons``: the walls of the seasons listed (``1-5``, ``1,3,7-9``);
* ``aired_after`` DATE: the walls of the seasons whose **first** air date (``start_date``) is
  after DATE, so every wall kept aired after DATE; a season that started on or before DATE is
  left out even when some of its episodes aired later (the release has no episode dates).

Both together: the seasons listed that also started after DATE. The slice taken is recorded in
the results (``slice``: the seasons kept, what was asked, the walls kept of the split) and
shown with every table. Definitions: ``docs/statistics.md`` ("Slices").
"""

from __future__ import annotations

import bisect
import datetime
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..configs import ConfigSpec, PathLike
from ..errors import SeasonDatesError, SliceError
from .over_runs import summarize_runs

SeasonMap = Mapping[int, Mapping[str, Any]]
#: The rule of ``aired_after``, as the results record it.
AIRED_AFTER_RULE = "seasons whose first air date (the release's start_date) is after the date"


#: Seasons as sorted, disjoint, non-adjacent ranges ``(first, last)``, both ends included: a
#: range is kept as its bounds, never as the set of its numbers (``1-300000000`` is two ints).
Spans = tuple[tuple[int, int], ...]
#: The most digits of a season number (a bound on the input, far above any season).
MAX_SEASON_DIGITS = 9
#: Every season a season list can name.
_EVERY_SEASON: Spans = ((1, 10**MAX_SEASON_DIGITS - 1),)
_SEASON = re.compile(rf"[0-9]{{1,{MAX_SEASON_DIGITS}}}", re.ASCII)


def spans_of(seasons: Iterable[int | Sequence[int]]) -> Spans:
    """Seasons and ranges (``3`` or ``(1, 5)`` / ``[1, 5]``) as :data:`Spans`, merged."""
    pairs = sorted(
        (int(s), int(s)) if isinstance(s, int) else (int(s[0]), int(s[-1])) for s in seasons
    )
    merged: list[tuple[int, int]] = []
    for low, high in pairs:
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def in_spans(spans: Spans, season: int) -> bool:
    """Whether a season lies in one of the ranges (a binary search: ranges stay bounds)."""
    at = bisect.bisect_right(spans, season, key=lambda span: span[0]) - 1
    return at >= 0 and spans[at][0] <= season <= spans[at][1]


def spans_minus(spans: Spans, cut: Spans) -> Spans:
    """The seasons of ``spans`` that are not in ``cut``, as ranges."""
    out: list[tuple[int, int]] = []
    for low, high in spans:
        for cut_low, cut_high in cut:
            if cut_high < low or cut_low > high:
                continue
            if cut_low > low:
                out.append((low, cut_low - 1))
            low = max(low, cut_high + 1)
            if low > high:
                break
        if low <= high:
            out.append((low, high))
    return spans_of(out)


@dataclass(frozen=True)
class WallSlice:
    """The walls asked for: ``seasons`` (None: every season; seasons or ranges, kept as
    :data:`Spans`) and ``aired_after`` (None: any date)."""

    seasons: Spans | None = None
    aired_after: datetime.date | None = None

    def __post_init__(self) -> None:
        if self.seasons is not None:
            object.__setattr__(self, "seasons", spans_of(self.seasons))

    def lists(self, season: int) -> bool:
        """Whether the season list keeps ``season`` (every season without one)."""
        return self.seasons is None or in_spans(self.seasons, season)

    @classmethod
    def parse(cls, seasons: str | None, aired_after: str | None) -> WallSlice | None:
        """The slice of the command-line texts, or None when neither is given.

        Raises:
            SliceError: a malformed season list or date.
        """
        if seasons is None and aired_after is None:
            return None
        return cls(
            parse_seasons(seasons) if seasons is not None else None,
            parse_date(aired_after) if aired_after is not None else None,
        )


def parse_seasons(text: str) -> Spans:
    """``"1-5,7"`` -> ``((1, 5), (7, 7))``: comma-separated seasons and ranges (both ends
    included), as sorted, merged ranges (:data:`Spans`).

    Raises:
        SliceError: an empty part, a season that is not a whole number of 1 or more in ASCII
            digits (at most :data:`MAX_SEASON_DIGITS`), a range whose start is after its end.
    """
    out: list[tuple[int, int]] = []
    for part in text.split(","):
        ends = [e.strip() for e in part.split("-")]
        if not 1 <= len(ends) <= 2 or not all(_SEASON.fullmatch(e) and int(e) >= 1 for e in ends):
            raise SliceError(
                f"{text!r}: expected seasons and ranges such as 1-5,7 (seasons start at 1; "
                f"ASCII digits, at most {MAX_SEASON_DIGITS})",
                parameter="seasons",
            )
        low, high = int(ends[0]), int(ends[-1])
        if low > high:
            raise SliceError(f"{text!r}: the range {part.strip()} runs backwards", "seasons")
        out.append((low, high))
    return spans_of(out)


def parse_date(text: str) -> datetime.date:
    """An ISO date ``YYYY-MM-DD``.

    Raises:
        SliceError: not one.
    """
    try:
        return datetime.date.fromisoformat(text.strip())
    except ValueError:
        raise SliceError(f"{text!r}: expected a date YYYY-MM-DD", "aired_after") from None


def span_text(seasons: Iterable[int | Sequence[int]]) -> str:
    """``[1, 2, 3, 5]`` (or ranges, ``[(1, 3), (5, 5)]``) -> ``"1-3, 5"``."""
    parts = [str(low) if low == high else f"{low}-{high}" for low, high in spans_of(seasons)]
    return ", ".join(parts) or "none"


def season_dates(config: str, data_dir: PathLike | None, cache_dir: PathLike | None) -> SeasonMap:
    """The release's ``season_to_walls_map`` of a config's raw source files (a folder of
    split files, a split file or the release tarball): ``read_season_map`` of the scripts'
    ``ocw_walls``.

    Raises:
        SeasonDatesError: (given as ``aired_after`` ``?``: the caller names the date) no raw
            source files given (an export, a Hub copy or the cache keep no season map), or the
            map cannot be read.
    """
    from ..data.sources import find_source
    from ..resources import load_sibling

    source = find_source(config, data_dir)
    if source.kind != "files" or source.location is None:
        where = {"cache": "the prepared cache", "hub": "a Hub copy", "export": "an export"}
        raise SeasonDatesError(
            "?",
            f"the season dates are read from the release's split files (season_to_walls_map), "
            f"and {where.get(source.kind, source.kind)} holds none; give the release files "
            "with --data-dir",
        )
    path = Path(source.location)
    try:
        if path.is_dir() or path.suffix.lower() == ".json":
            return load_sibling("ocw_walls").read_season_map(path)
        from ..data.card import _ocw_source

        location, downloads = _ocw_source(config, str(path), cache_dir)
        return load_sibling("ocw_walls").read_season_map(location, downloads)
    except (OSError, ValueError) as err:
        raise SeasonDatesError("?", f"the season map of {path} cannot be read ({err})") from None


def chosen_seasons(
    present: Sequence[int], wanted: WallSlice, dates: Callable[[], SeasonMap]
) -> list[int]:
    """The seasons of ``present`` (the split's) that ``wanted`` keeps; ``dates`` is called
    only for ``aired_after``.

    Raises:
        SeasonDatesError: a season of the split without a start date in the map.
        SliceError: no season of the split is kept.
    """
    kept = [s for s in sorted(set(present)) if wanted.lists(s)]
    if wanted.aired_after is not None:
        day = wanted.aired_after.isoformat()
        try:
            known = dates()
        except SeasonDatesError as err:
            raise SeasonDatesError(day, err.reason) from None
        undated = [s for s in kept if known.get(s, {}).get("start_date") is None]
        if undated:
            raise SeasonDatesError(
                day,
                f"season_to_walls_map has no start date for seasons {span_text(undated)} (null "
                "in the stand-in, which records no dates); slice by --seasons instead",
            )
        kept = [s for s in kept if known[s]["start_date"] > wanted.aired_after]
    if not kept:
        asked = describe(wanted)
        raise SliceError(f"no wall of the split in {asked}: its seasons are {span_text(present)}")
    return kept


def describe(wanted: WallSlice) -> str:
    """What was asked, in words: ``seasons 1-5``, ``seasons aired after 2015-01-01``."""
    parts = []
    if wanted.seasons is not None:
        parts.append(f"seasons {span_text(wanted.seasons)}")
    if wanted.aired_after is not None:
        parts.append(f"seasons aired after {wanted.aired_after.isoformat()}")
    return " and ".join(parts)


def slice_record(wanted: WallSlice, kept: Sequence[int], n_kept: int, n_all: int) -> dict:
    """What the results record as ``slice``: the seasons kept, what was asked, the rule of
    ``aired_after``, the walls kept and the walls of the (unsliced) split, and ``label``
    (the line every table shows)."""
    label = f"seasons {span_text(kept)} ({n_kept} of {n_all} walls)"
    if wanted.aired_after is not None:
        label = f"{describe(wanted)} (by the release's season start dates): {label}"
    return {
        "seasons": list(kept),
        "asked": {
            "seasons": None if wanted.seasons is None else [list(s) for s in wanted.seasons],
            "aired_after": None if wanted.aired_after is None else wanted.aired_after.isoformat(),
        },
        "rule": AIRED_AFTER_RULE if wanted.aired_after is not None else "seasons listed",
        "n_walls": n_kept,
        "n_walls_unsliced": n_all,
        "label": label,
    }


def _no_seasons(config: str) -> SliceError:
    return SliceError(f"config {config!r} has no seasons: seasons and aired_after slice OCW walls")


def apply_slice(
    spec: ConfigSpec,
    rows: Sequence[dict],
    parsed: Sequence[dict[str, Any]],
    wanted: WallSlice | None,
    data_dir: PathLike | None,
    cache_dir: PathLike | None,
) -> tuple[Sequence[dict], list[dict[str, Any]], dict | None]:
    """The split's rows and each run's predictions cut to the slice, and its record (None,
    and everything unchanged, without a slice). A prediction of a wall of the split outside
    the slice is dropped; one of a wall not in the split is kept (so it is still refused).

    Raises:
        SliceError, SeasonDatesError: see :func:`chosen_seasons`; a config without seasons.
    """
    if wanted is None:
        return rows, list(parsed), None
    if not rows or "season" not in rows[0]:
        raise _no_seasons(spec.name)
    kept = set(
        chosen_seasons(
            [r["season"] for r in rows],
            wanted,
            lambda: season_dates(spec.name, data_dir, cache_dir),
        )
    )
    inside = [r for r in rows if r["season"] in kept]
    outside = {r[spec.id_key] for r in rows if r["season"] not in kept}
    cut = [{k: v for k, v in p.items() if k not in outside} for p in parsed]
    return inside, cut, slice_record(wanted, sorted(kept), len(inside), len(rows))


def unsliced_play_log(is_play_log: bool, wanted: WallSlice | None) -> bool:
    """``is_play_log``, refusing a slice of a play log (not sliced here).

    Raises:
        SliceError: a play log with a slice.
    """
    if is_play_log and wanted is not None:
        raise SliceError(
            f"{describe(wanted)}: a play log is scored whole (slice its walls' "
            "predictions, or play only those walls)"
        )
    return is_play_log


# -- intervals by season ---------------------------------------------------------------------


def add_intervals(results: dict[str, Any], n_resamples: int, seed: int) -> None:
    """``ci95`` and ``bootstrap`` (what was resampled) of a results dict of
    :func:`ocw_hub.evaluation.evaluate_files`, the split's and every season's, in one
    computation (:func:`.intervals.segment_intervals`): one run, walls resampled; several
    (``runs``), the two-level interval of the mean over runs.

    By season (nothing without ``by_season``: WoTe), each season's walls resampled as a split
    of their own: one run, in ``by_season[s]["ci95"]``; several, in ``by_season[s]`` of the
    results, which holds ``n_walls`` and the interval (each run keeps its own figures)."""
    from .intervals import TWO_LEVEL, bootstrap_record, segment_intervals

    runs = results.get("runs")
    first = results if runs is None else runs[0]
    seasons: dict[str, list[int]] = {s: [] for s in first.get("by_season", {})}
    for position, wall in enumerate(first.get("per_wall", []) if seasons else []):
        seasons[str(wall["season"])].append(position)
    found = segment_intervals(
        [results] if runs is None else runs, {"": None, **seasons}, n_resamples, seed
    )
    results["ci95"] = found.pop("")
    results["bootstrap"] = bootstrap_record(
        n_resamples, seed, "walls" if runs is None else TWO_LEVEL, results["ci95"]
    )
    if runs is None:
        for season, ci in found.items():
            results["by_season"][season]["ci95"] = ci
    elif seasons:
        results["by_season"] = {
            season: {"n_walls": first["by_season"][season]["n_walls"], "ci95": ci}
            for season, ci in found.items()
        }


# -- slicing a results file (report, compare) ------------------------------------------------


def _human_of(walls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The contestants' figures of these walls from their per-wall ones (as
    :func:`ocw_hub.scoring.runs.human_figures` makes them from the rows)."""
    humans = [w["human"] for w in walls]
    n = len(humans)
    groups = sum(h["correct_groups"] for h in humans)
    whole = all(h.get("full_wall") is not None for h in humans)
    full = sum(h["full_wall"] for h in humans) if whole else None
    return {
        "n_walls": n,
        "correct_groups": groups,
        "correct_groups_rate": groups / (4 * n),
        "full_wall": full,
        "full_wall_rate": full / n if full is not None else None,
        "connections_correct_rate": sum(h["connections_correct_rate"] for h in humans) / n,
    }


def _slice_run(run: Mapping[str, Any], kept: set[int]) -> dict[str, Any]:
    from ..resources import load_metric_module
    from .groups import aggregate_groups

    walls = [w for w in run["per_wall"] if int(w["season"]) in kept]
    out = {k: v for k, v in run.items() if k not in ("ci95", "bootstrap")}
    out.update(n_walls=len(walls), n_missing=sum(bool(w.get("missing")) for w in walls))
    aggregate = {
        "grouping": load_metric_module("grouping").aggregate_grouping,
        "connections": load_metric_module("connections").aggregate_connections,
        "groups": aggregate_groups,
    }
    for task, combine in aggregate.items():
        items = [w[task] for w in walls if task in w]
        out.pop(task, None)
        if items:
            out[task] = combine(items)
    out["human"] = _human_of(walls)
    out["by_season"] = {s: v for s, v in run["by_season"].items() if int(s) in kept}
    out["per_wall"] = walls
    return out


def _asked(record: Mapping[str, Any]) -> WallSlice:
    """The slice a results file's ``slice`` record says was asked for."""
    asked = record.get("asked") or {}
    return WallSlice(
        None if asked.get("seasons") is None else spans_of(asked["seasons"]),
        None if asked.get("aired_after") is None else parse_date(asked["aired_after"]),
    )


def _known_dates(wanted: WallSlice, before: WallSlice, dates: Callable[[], SeasonMap]) -> SeasonMap:
    """The seasons' dates when either slice cuts by date (empty when they are unknown: the
    earlier cut by date then counts as cut), else none."""
    if wanted.aired_after is None and before.aired_after is None:
        return {}
    try:
        return dates()
    except SeasonDatesError:
        return {}


def _left_out(
    record: Any, wanted: WallSlice, dates: Callable[[], SeasonMap], held: set[int]
) -> Spans:
    """The seasons ``wanted`` keeps that a results file's own slice (its ``slice`` record)
    left out, so the file no longer holds them, as ranges: none when the file is not
    sliced. Ranges stay bounds: a season list alone is never counted out season by season."""
    if not isinstance(record, Mapping):
        return ()
    before = _asked(record)
    known = _known_dates(wanted, before, dates)

    def keeps(cut: WallSlice, season: int) -> bool:
        start = known.get(season, {}).get("start_date")
        dated = cut.aired_after is None or (start is not None and start > cut.aired_after)
        return cut.lists(season) and dated

    if wanted.aired_after is not None or wanted.seasons is None:  # the dated seasons only
        left = [s for s in known if s not in held and keeps(wanted, s) and not keeps(before, s)]
        return spans_of(left)
    # seasons listed alone: their ranges less the ones held and the ones ``before`` kept
    kept_before = (
        (before.seasons if before.seasons is not None else _EVERY_SEASON)
        if before.aired_after is None
        else spans_of(s for s in known if keeps(before, s))
    )
    return spans_minus(spans_minus(wanted.seasons, spans_of(held)), kept_before)


def _refuse_widening(
    record: Any, wanted: WallSlice, dates: Callable[[], SeasonMap], held: set[int], name: str
) -> None:
    """Refuse a slice of a sliced results file that asks for seasons its own slice cut off.

    Raises:
        SliceError: naming the file and the seasons it holds.
    """
    missing = _left_out(record, wanted, dates, held)
    if missing:
        raise SliceError(
            f"{name} holds {record['label']} only: seasons {span_text(missing)} of "
            f"{describe(wanted)} were cut from it; slice the predictions with evaluate instead"
        )


def slice_results(
    data: Mapping[str, Any],
    wanted: WallSlice,
    dates: Callable[[], SeasonMap],
    name: str | None = None,
) -> dict[str, Any]:
    """A results dict of ``evaluate`` (one run or several) cut to the slice: every figure
    recomputed from the per-wall ones of the walls kept (the metric's ``aggregate_*``), mean
    and std over runs again, ``ci95`` and the seasons' intervals again with the results'
    recorded resamples and seed (none when it had none), and ``slice`` recorded. A results
    file already sliced is cut further, its record keeping the walls of the whole split; one
    that would need seasons its slice left out is refused (``name``: the file, in the error).

    Raises:
        SliceError, SeasonDatesError: see :func:`chosen_seasons`; WoTe results; a play
            result (``ocw-hub evaluate PLAY_LOG``: a play log is scored whole); a sliced file
            asked for seasons it no longer holds.
    """
    runs = list(data["runs"]) if "runs" in data else [dict(data)]
    if "per_wall" not in runs[0]:
        raise _no_seasons(str(data.get("config")))
    if "play" in runs[0]:  # its play figures are the whole log's, as evaluate scores it
        raise SliceError(
            f"{describe(wanted)}: {data.get('predictions')} is a play result, "
            "reported whole (play only the walls of the slice)"
        )
    present = [int(w["season"]) for w in runs[0]["per_wall"]]
    kept = set(chosen_seasons(present, wanted, dates))
    before = data.get("slice")
    _refuse_widening(before, wanted, dates, set(present), name or "the results file")
    cut = [_slice_run(run, kept) for run in runs]
    n_all = before["n_walls_unsliced"] if isinstance(before, Mapping) else len(present)
    record = slice_record(wanted, sorted(kept), cut[0]["n_walls"], n_all)
    boot = data.get("bootstrap")
    n, seed = (boot["resamples"], boot["seed"]) if isinstance(boot, Mapping) else (0, 0)
    if "runs" not in data:
        out = {**cut[0], "slice": record}
        if n:
            add_intervals(out, n, seed)
        return out
    summary = {k: v for k, v in data.items() if k not in ("ci95", "bootstrap", "by_season")}
    summary.update(runs=cut, n_walls=cut[0]["n_walls"], human=cut[0]["human"], slice=record)
    summary.update(summarize_runs(cut))
    if n:
        add_intervals(summary, n, seed)
    return summary
