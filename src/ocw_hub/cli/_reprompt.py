"""``run-llm --reprompt N`` and ``parse`` of its log (:mod:`ocw_hub.llm.reprompt`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import OptionError

Reprompt = Annotated[
    int,
    typer.Option(
        "--reprompt",
        min=0,
        help="Re-prompt an answer that robust parsing cannot read, up to N times per wall: "
        "the answer and the reason (the package's own text) are sent back, asking again in "
        "the same format; follow-ups are logged as <wall_id>#reprompt-<k>. Needs the walls "
        "(--data-dir, --config, --split). Default 0: the paper's, no re-prompt.",
    ),
]


def reprompt_fields(n: int) -> dict[str, Any]:
    """The protocol fields of ``--reprompt n`` (none for 0: the record stays as before)."""
    from ..llm.reprompt import FOLLOW_UP_VERSION

    return {"reprompt": n, "follow_up_version": FOLLOW_UP_VERSION} if n else {}


def check_log(out: Path, n: int) -> None:
    """Raises RepromptError: the log holds follow-ups beyond ``n``."""
    from ..llm.reprompt import RepromptError, log_follow_ups

    found = log_follow_ups(out)
    if found > n:
        raise RepromptError(
            f"{out}: holds follow-ups up to #reprompt-{found}, this run has --reprompt {n}: "
            "give the same --reprompt, or write to another file"
        )


def parsing_of(
    requests: Path,
    config: str,
    split: str,
    data_dir: list[str] | None,
    cache_dir: Path | None,
    no_checks: bool,
) -> Any:
    """How run-llm tells an invalid answer: the walls of the split, the task and prompt style
    the requests' protocol record names (``ocw-hub prompts`` writes them).

    Raises:
        OptionError: no record naming an OCW task, or a config without grouping/connections.
    """
    from ..configs import config_spec
    from ..llm.prompts import TASKS
    from ..llm.reprompt import Parsing
    from ..provenance import read_protocol
    from ._common import check_config, data_dir_of, load_split_rows

    config = check_config(config)
    record = read_protocol(requests) or {}
    task = record.get("task")
    if task not in TASKS or task not in config_spec(config).tasks:
        raise OptionError(
            f"--reprompt: the protocol record of {requests} names no task of {config} "
            "(write the requests with ocw-hub prompts)"
        )
    style = record.get("prompt_style") if isinstance(record.get("prompt_style"), str) else "paper"
    rows = load_split_rows(
        config, split, data_dir_of(data_dir, config), cache_dir=cache_dir, no_checks=no_checks
    )
    return Parsing({str(r["wall_id"]): r for r in rows}, str(task), str(style))


def reprompt_setup(
    requests: Path,
    out: Path,
    n: int,
    config: str,
    split: str,
    data_dir: list[str] | None,
    cache_dir: Path | None,
    no_checks: bool,
) -> Any:
    """The :func:`parsing_of` the requests for ``--reprompt n`` (None for 0), once the log is
    checked (:func:`check_log`)."""
    parsing = parsing_of(requests, config, split, data_dir, cache_dir, no_checks) if n else None
    check_log(out, n)
    return parsing


def check_reprompted(summary: Any) -> None:
    """Raises OCWHubError: follow-ups failed (a re-run sends them again)."""
    from ..errors import OCWHubError

    if summary is not None and summary.failures:
        raise OCWHubError(
            f"{len(summary.failures)} follow-ups failed (logged with their error); run the "
            "same command again to send them again"
        )


def send_reprompts(
    loaded: list[dict[str, Any]], out: Path, parsing: Any, n: int, send: dict[str, Any]
) -> Any:
    """The rounds of follow-ups (:func:`ocw_hub.llm.reprompt.reprompt_rounds`), reported;
    None when ``parsing`` is (no ``--reprompt``)."""
    from ..llm.reprompt import reprompt_rounds
    from ._common import console

    if parsing is None:
        return None

    summary = reprompt_rounds(loaded, out, parsing, n, send=send)
    console.print(
        f"re-prompts: {summary.answered} of {summary.sent} follow-ups sent were answered "
        f"(per round: {', '.join(str(r) for r in summary.rounds)})",
        highlight=False,
    )
    return summary


def has_follow_ups(answers: dict[str, Any]) -> bool:
    from ..llm.log import parse_follow_up_id

    return any(parse_follow_up_id(key) is not None for key in answers)


#: The file of the first answers beside ``--out``: ``<out stem>.first-answer<suffix>``.
FIRST_ANSWER = ".first-answer"


def first_answer_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}{FIRST_ANSWER}{out.suffix}")


def _write_first_record(
    path: Path, fields: dict[str, Any], records: list[Path], price: tuple[float, float] | None
) -> None:
    """The first answers' record: the responses' own without ``reprompt`` and
    ``follow_up_version`` (what a ``--reprompt 0`` run records), with the usage of the first
    requests alone (no follow-up line), bound to ``path``."""
    from ..llm.log import parse_follow_up_id
    from ..llm.usage import log_usage
    from ..outputs import write_json
    from ..provenance import bind_record, protocol_record, record_path

    def first(line: Any) -> bool:
        return parse_follow_up_id(str(line.get("custom_id"))) is None

    first_usage = log_usage(records[-1], price, lines=("first answers", first))
    record = protocol_record({**fields, "usage": first_usage}, inputs=records)
    for name in ("reprompt", "follow_up_version"):
        record.pop(name, None)
    write_json(record_path(path), bind_record(record, [path]))


def parse_reprompted(
    answers: dict[str, Any],
    rows: Any,
    *,
    task: str,
    mode: str,
    allow_truncated: bool,
    style: str,
    out: Path,
    inputs: list[Any],
    responses: Path,
    fields: dict[str, Any],
    price: tuple[float, float] | None,
    records: list[Path],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``parse`` of a log with follow-ups: the predictions and report of each wall's last
    answer (with re-prompts), and the first answers' (without: the paper's figure) written to
    :func:`first_answer_path` with the record of a run without re-prompts. The report's
    ``reprompt`` says per wall the follow-ups answered and how many walls became valid."""
    from ..llm.reprompt import split_reprompts
    from ..llm.responses import parse_responses
    from ..outputs import check_output_file, write_json
    from ..provenance import read_protocol

    split = split_reprompts(answers)
    first_path = check_output_file(first_answer_path(out), inputs=inputs)
    options: dict[str, Any] = {
        "task": task,
        "mode": mode,
        "allow_truncated": allow_truncated,
        "source": str(responses),
        "style": style,
    }
    first, first_report = parse_responses(split.first, rows, **options)
    last, report = parse_responses(split.last, rows, **options)
    bad = ("unrecoverable", "no_response")
    before = {w["wall_id"]: w["status"] for w in first_report["walls"]}
    became = [
        w["wall_id"]
        for w in report["walls"]
        if before[w["wall_id"]] in bad and w["status"] not in bad
    ]
    for wall in report["walls"]:
        wall["reprompts"] = split.used.get(wall["wall_id"], 0)
    recorded = (read_protocol(responses) or {}).get("reprompt")
    report["reprompt"] = {
        "max": recorded,
        "follow_ups": sum(split.used.values()),
        "walls_reprompted": sum(1 for k in split.used.values() if k),
        "became_valid": len(became),
        "first_answer_file": str(first_path),
        "first_answer_counts": first_report["counts"],
        "first_answer_unrecoverable": first_report["unrecoverable"],
    }
    write_json(first_path, first)
    _write_first_record(first_path, fields, records, price)
    return last, report
