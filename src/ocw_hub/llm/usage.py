"""Cost and latency of a run, from its responses file (the parse report and the predictions'
protocol record, the ``evaluate`` table).

* **Requests**: the log's lines (one per request logged: an answer or a failure; a request
  failed and sent again by a re-run is two lines, both billed).
* **Tokens**: summed from each line's ``response.body.usage`` (the server's count):
  ``prompt_tokens``, ``completion_tokens`` and ``completion_tokens_details.reasoning_tokens``
  (OpenAI counts reasoning tokens inside ``completion_tokens``; so does the cost). A figure no
  line reports is None ("not reported"); ``usage_reported`` says how many lines had a
  ``usage`` object.
* **Latency**: the wall-clock seconds of each logged try (the log's ``latency_s``, written by
  the retired ``run-llm``), as percentiles (NumPy's default, linear
  interpolation); None when no line is timed.
* **Cost**: with a price per million tokens ``(in, out)``: ``prompt_tokens * in / 1e6 +
  completion_tokens * out / 1e6``, in the price's currency (US dollars for OpenAI's list).
* **Per wall** (``by_wall``): the same figures for each wall's lines (its id with the
  ``#reprompt-k`` and ``#i`` marks removed), so that a slice of the walls (``--seasons``) is
  costed by its own walls.
* **Several runs** are summed, each log once: the samples of one ``-n K`` log (``parse
  --vote``) are K runs of one set of requests, so their usage records name the same log
  (``log_sha256``, ``lines``) and count once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..errors import OCWHubError

#: The latency percentiles reported.
PERCENTILES = (50, 90, 95, 99)
#: What a figure no server reported is shown as.
NOT_REPORTED = "not reported"
_TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")


class PriceError(OCWHubError, ValueError):
    """A ``--price-per-mtok`` that is not two non-negative numbers ``IN,OUT``."""


def parse_price(text: str) -> tuple[float, float]:
    """``"2.5,10"`` -> ``(2.5, 10.0)``: the price per million prompt and completion tokens.

    Raises:
        PriceError: not two comma-separated finite non-negative numbers.
    """
    import math

    parts = text.split(",")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 2 or not all(math.isfinite(v) and v >= 0 for v in values):
        raise PriceError(
            f"--price-per-mtok {text}: expected IN,OUT, the price per million prompt and "
            "completion tokens (two non-negative numbers, e.g. 2.5,10)"
        )
    return values[0], values[1]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _line_usage(line: Mapping[str, Any]) -> dict[str, int | None] | None:
    """The token counts of one log line, or None when its answer has no ``usage`` object."""
    response = line.get("response")
    body = response.get("body") if isinstance(response, Mapping) else None
    usage = body.get("usage") if isinstance(body, Mapping) else None
    if not isinstance(usage, Mapping):
        return None
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
    return {
        "prompt_tokens": _count(usage.get("prompt_tokens")),
        "completion_tokens": _count(usage.get("completion_tokens")),
        "reasoning_tokens": _count(reasoning),
    }


def latency_percentiles(seconds: Sequence[float]) -> dict[str, float] | None:
    """``{"p50", "p90", "p95", "p99", "mean", "max", "timed"}`` of latencies in seconds
    (NumPy's linear percentiles), or None for none."""
    if not seconds:
        return None
    import numpy as np

    values = np.asarray(seconds, dtype=float)
    found = {f"p{q}": round(float(np.percentile(values, q)), 6) for q in PERCENTILES}
    found.update(mean=round(float(values.mean()), 6), max=float(values.max()))
    return {**found, "timed": len(values)}


def usage_wall_id(custom_id: Any) -> str | None:
    """The wall (or question) a log line is for: its ``custom_id`` less a follow-up's
    ``#reprompt-k`` and a sample's ``#i``; None for a line without a ``custom_id``."""
    from .log import parse_follow_up_id
    from .vote import SAMPLE_MARK

    if not isinstance(custom_id, str) or not custom_id:
        return None
    follow_up = parse_follow_up_id(custom_id)
    wall_id = follow_up[0] if follow_up is not None else custom_id
    base, mark, number = wall_id.rpartition(SAMPLE_MARK)
    return base if mark and base and number.isascii() and number.isdigit() else wall_id


def _tally(lines: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Requests, answers, lines with usage, token sums (None: no line reports one) and
    latencies of log lines."""
    from .log import is_success  # the log module is heavier than ``evaluate``'s cost line

    tally: dict[str, Any] = {"requests": 0, "answered": 0, "usage_reported": 0}
    tally.update(dict.fromkeys(_TOKEN_FIELDS), latencies=[])
    for line in lines:
        tally["requests"] += 1
        tally["answered"] += is_success(line)
        latency = line.get("latency_s")
        if isinstance(latency, int | float) and not isinstance(latency, bool) and latency >= 0:
            tally["latencies"].append(float(latency))
        counts = _line_usage(line)
        if counts is None:
            continue
        tally["usage_reported"] += 1
        for name, value in counts.items():
            if value is not None:
                tally[name] = (tally[name] or 0) + value
    return tally


def _cost(tally: Mapping[str, Any], price: Sequence[float] | None) -> float | None:
    prompt, completion = tally["prompt_tokens"], tally["completion_tokens"]
    if price is None or prompt is None or completion is None:
        return None
    return float(prompt * price[0] / 1e6 + completion * price[1] / 1e6)


def _record(tally: Mapping[str, Any], price: Sequence[float] | None) -> dict[str, Any]:
    prompt, completion = tally["prompt_tokens"], tally["completion_tokens"]
    return {
        **{k: tally[k] for k in ("requests", "answered", "usage_reported", *_TOKEN_FIELDS)},
        "total_tokens": None if prompt is None or completion is None else prompt + completion,
        "latency_s": latency_percentiles(tally["latencies"]),
        "price_per_mtok": None if price is None else list(price),
        "cost": _cost(tally, price),
    }


def usage_of(
    lines: Iterable[Mapping[str, Any]], price: tuple[float, float] | None = None
) -> dict[str, Any]:
    """The usage of the log lines (see the module docstring).

    Returns:
        ``{requests, answered, usage_reported, prompt_tokens, completion_tokens,
        reasoning_tokens, total_tokens, latency_s, price_per_mtok, cost, by_wall}``; a token
        figure no line reports, the latency of an untimed log and the cost without a price
        (or without both token counts) are None. ``by_wall``: per wall
        (:func:`usage_wall_id`) its ``requests``, ``answered``, ``usage_reported``, token
        sums, ``latency_s`` (the list of its latencies) and ``cost``, so that a slice of the
        walls can be costed (:func:`usage_over`); None when a line names no wall.
    """
    lines = list(lines)
    by_line: dict[str, list[Mapping[str, Any]]] | None = {}
    for line in lines:
        wall_id = usage_wall_id(line.get("custom_id"))
        if wall_id is None or by_line is None:
            by_line = None
            continue
        by_line.setdefault(wall_id, []).append(line)
    by_wall = None
    if by_line is not None:
        by_wall = {}
        for wall_id, wall_lines in by_line.items():
            tally = _tally(wall_lines)
            latencies = tally.pop("latencies")
            by_wall[wall_id] = {**tally, "latency_s": latencies, "cost": _cost(tally, price)}
    return {**_record(_tally(lines), price), "by_wall": by_wall}


def usage_over(usage: Mapping[str, Any], walls: Iterable[str]) -> dict[str, Any] | None:
    """The usage record of only ``walls`` (a slice, the walls scored), summed from the
    record's ``by_wall`` (walls the log has no line for count nothing); None when the record
    has no per-wall usage (written before it, or a line naming no wall)."""
    by_wall = usage.get("by_wall")
    if not isinstance(by_wall, Mapping):
        return None
    tally: dict[str, Any] = {"requests": 0, "answered": 0, "usage_reported": 0}
    tally.update(dict.fromkeys(_TOKEN_FIELDS), latencies=[])
    for wall_id in walls:
        wall = by_wall.get(wall_id)
        if not isinstance(wall, Mapping):
            continue
        for name in ("requests", "answered", "usage_reported"):
            tally[name] += int(wall.get(name) or 0)
        for name in _TOKEN_FIELDS:
            if wall.get(name) is not None:
                tally[name] = (tally[name] or 0) + wall[name]
        tally["latencies"] += list(wall.get("latency_s") or [])
    price = usage.get("price_per_mtok")
    return _record(tally, price if isinstance(price, list) and len(price) == 2 else None)


def log_usage(
    path: str | os.PathLike[str],
    price: tuple[float, float] | None = None,
    lines: tuple[str, Callable[[Mapping[str, Any]], bool]] | None = None,
) -> dict[str, Any]:
    """:func:`usage_of` the lines of a response log (read by
    :func:`~ocw_hub.llm.log.json_records`; lines of other producers without ``response``
    count as requests whose usage is not reported), with ``log_sha256`` (the log's digest)
    and ``lines`` (``"all"``, or the name of ``lines = (name, keep)``: only the lines ``keep``
    accepts), which say what was counted.

    Raises:
        LLMInputError: no such file, a line that is not a JSON object.
    """
    from ..provenance import file_sha256
    from .log import LLMInputError, json_records

    name, keep = lines if lines is not None else ("all", None)
    records = (r for _, r in json_records(path, LLMInputError) if keep is None or keep(r))
    return {**usage_of(records, price), "log_sha256": file_sha256(path), "lines": name}


def _tokens(value: Any) -> str:
    return NOT_REPORTED if value is None else f"{value:,}"


def usage_line(usage: Mapping[str, Any]) -> str:
    """One line: ``62 requests; tokens in 12,345, out 3,456 (reasoning 2,000); latency p50
    1.20 s, p90 …; cost 0.0123``."""
    line = (
        f"{usage.get('requests', 0)} requests; tokens in {_tokens(usage.get('prompt_tokens'))}, "
        f"out {_tokens(usage.get('completion_tokens'))} "
        f"(reasoning {_tokens(usage.get('reasoning_tokens'))})"
    )
    reported, requests = usage.get("usage_reported"), usage.get("requests")
    if isinstance(reported, int) and isinstance(requests, int) and 0 < reported < requests:
        line += f", usage reported for {reported} of {requests} requests"
    latency = usage.get("latency_s")
    if isinstance(latency, Mapping):
        shown = ", ".join(f"p{q} {latency[f'p{q}']:.2f} s" for q in PERCENTILES)
        line += f"; latency {shown}"
    elif latency != "by run":
        line += f"; latency {NOT_REPORTED}"
    if usage.get("cost") is not None:
        line += f"; cost {usage['cost']:.4f}"
    return line


def _runs(results: Mapping[str, Any]) -> list[Any]:
    runs = results.get("runs")
    return runs if isinstance(runs, list) else [results]


def _run_usages(results: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """The usage record of each log the runs of a results dict were parsed from (runs of one
    log, the samples of ``-n K``, give it once), or None when a run has none."""
    found: dict[Any, Mapping[str, Any]] = {}
    for i, run in enumerate(_runs(results)):
        protocol = run.get("protocol") if isinstance(run, Mapping) else None
        usage = protocol.get("usage") if isinstance(protocol, Mapping) else None
        if not isinstance(usage, Mapping):
            return None
        digest = usage.get("log_sha256")  # records before it: one log per run
        found.setdefault((digest, usage.get("lines")) if isinstance(digest, str) else i, usage)
    return list(found.values()) or None


def _summed(usages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The usage of several runs: counts, tokens and cost summed (None when a run lacks
    one); latency percentiles do not add up, so several runs' are left to the results JSON."""
    summed: dict[str, Any] = {
        name: sum(int(u.get(name) or 0) for u in usages) for name in ("requests", "usage_reported")
    }
    for name in (*_TOKEN_FIELDS, "cost"):
        values = [u.get(name) for u in usages]
        summed[name] = None if any(v is None for v in values) else sum(values)
    summed["latency_s"] = usages[0].get("latency_s") if len(usages) == 1 else "by run"
    return summed


def _per_solved(results: Mapping[str, Any], cost: float) -> str:
    """``; per solved wall 0.0060; per correct group 0.0015`` (grouping runs), else ``""``."""
    shown = ""
    runs = _runs(results)
    for figure, what in (("full_wall", "solved wall"), ("correct_groups", "correct group")):
        totals = [(r.get("grouping") or {}).get(figure) for r in runs]
        counts = [t for t in totals if isinstance(t, int)]
        if len(counts) == len(totals):
            solved: int = sum(counts)
            shown += f"; per {what} " + (f"{cost / solved:.4f}" if solved else "none solved")
    return shown


def _slice_walls(results: Mapping[str, Any]) -> list[str] | None:
    """The wall ids of a sliced result (``slice``, :mod:`ocw_hub.scoring.slices`), else None."""
    if not isinstance(results.get("slice"), Mapping):
        return None
    per_wall = _runs(results)[0].get("per_wall") or []
    return [str(w["wall_id"]) for w in per_wall]


def cost_line(results: Mapping[str, Any]) -> str | None:
    """The usage of the runs scored (summed over runs) and, with a price, the cost per solved
    wall and per correct group (total cost over the totals of every run; grouping runs);
    None when a run has no usage record (a run not parsed from a responses file, an older one).

    A slice of the walls (``evaluate --seasons``) is costed by its own walls (the log's
    per-wall usage, :func:`usage_over`): a usage record without it gives the whole log's
    usage and says the slice's is unknown, with no cost per solved wall.
    """
    usages = _run_usages(results)
    if usages is None:
        return None
    walls = _slice_walls(results)
    if walls is not None:
        parts = [usage_over(u, walls) for u in usages]
        if any(p is None for p in parts):
            return (
                f"the slice's usage and cost are unknown (no per-wall usage in the record: "
                f"parse the log again); whole log: {usage_line(_summed(usages))}"
            )
        usages = [p for p in parts if p is not None]
    summed = _summed(usages)
    line = usage_line(summed)
    return line if summed["cost"] is None else line + _per_solved(results, summed["cost"])
