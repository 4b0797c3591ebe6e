"""``ocw-hub parse``: LLM answers turned into a predictions file, with a report of repairs
(walls for the OCW configs, ``{id, prediction_text}`` spans for ``--config wote``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..configs import config_spec
from ..errors import OptionError
from ..extras import require
from ..shown import capped
from ._common import (
    check_choice,
    check_config,
    console,
    data_dir_of,
    escape,
    load_split_rows,
    local_path,
    print_warning,
)
from .options import CacheDir, Config, DataDir, NoChecks, Split, Task

if TYPE_CHECKING:
    from rich.table import Table


def _parse_table(report: dict[str, Any]) -> Table:
    from rich.table import Table

    from ..llm.answer_text import NOT_REPORTED

    table = Table(title=f"parse ({report['task']}, {report['mode']} mode)")
    table.add_column("questions" if "questions" in report else "walls")
    table.add_column("count", justify="right")
    for status, count in report["counts"].items():
        table.add_row(status.replace("_", " "), str(count))
    for kind, count in report["repairs"].items():
        table.add_row(f"  repair: {kind}", str(count))
    for reason, count in report["unrecoverable"].items():
        table.add_row(f"  unrecoverable: {reason.replace('_', ' ')}", str(count))
    if "vote" in report:
        table.add_row("samples per wall (the vote's)", str(report["vote"]["samples"]))
    if "in_context" in report:
        table.add_row("span found in the task text", str(report["in_context"]))
    if report.get(NOT_REPORTED):
        table.add_row("finish_reason not reported (read as complete)", str(report[NOT_REPORTED]))
    return table


def _parse_ocw(
    answers: Any,
    rows: Any,
    task: str,
    mode: str,
    allow_truncated: bool,
    source: str,
    style: str,
) -> tuple[Any, dict[str, Any]]:
    from ..llm.responses import parse_responses

    return parse_responses(
        answers,
        rows,
        task=task,
        mode=mode,
        allow_truncated=allow_truncated,
        source=source,
        style=style,
    )


def _parse_wote(
    answers: Any,
    rows: Any,
    task: str,
    mode: str,
    allow_truncated: bool,
    source: str,
    style: str,
) -> tuple[Any, dict[str, Any]]:
    from ..llm.wote import parse_wote_responses

    return parse_wote_responses(answers, rows, allow_truncated=allow_truncated, source=source)


def _price(record: dict[str, Any], price_per_mtok: str | None) -> tuple[float, float] | None:
    """The price per million tokens: --price-per-mtok, else the record's (``record``: the
    answers' protocol record), else None."""
    from ..llm.usage import parse_price

    if price_per_mtok is not None:
        return parse_price(price_per_mtok)
    recorded = record.get("usage")
    price = recorded.get("price_per_mtok") if isinstance(recorded, dict) else None
    if isinstance(price, list) and len(price) == 2:
        return float(price[0]), float(price[1])
    return None


def _upstream(records: list[Path]) -> dict[str, Any]:
    """The protocol record of the answers: the records of ``records`` (the requests given with
    --requests, then the responses), later fields winning, as the output's record takes them."""
    from ..provenance import read_protocol

    merged: dict[str, Any] = {}
    for path in records:
        merged.update(read_protocol(path) or {})
    return merged


def _check_requests(requests: Path, answers: dict[str, Any]) -> None:
    """Raises OptionError: an answer whose id (before any ``#`` suffix) no request has."""
    from ..llm.log import read_requests
    from ..shown import inert

    asked = {str(r["custom_id"]).partition("#")[0] for r in read_requests(requests)}
    foreign = sorted(k for k in answers if str(k).partition("#")[0] not in asked)
    if foreign:
        raise OptionError(
            f"--requests {inert(str(requests))}: no request has the id of the answer "
            f"{inert(foreign[0])} (not the requests of these answers)"
        )


def _prompt_style(record: dict[str, Any], given: str | None, mode: str) -> str:
    """The prompt style of the answers: ``--prompt-style``, else the one the responses'
    protocol record names (``prompts`` writes it), else ``paper``.

    Raises:
        OptionError: an unknown style, a ``--prompt-style`` other than the record's, paper
            mode on a style not answered in text.
    """
    from ..llm.responses import paper_mode_reads
    from ..llm.styles import STYLE_NAMES

    recorded = record.get("prompt_style")
    if given is not None and recorded is not None and given != recorded:
        raise OptionError(
            f"--prompt-style {given}: the answers' protocol record says the requests were "
            f"written in style {recorded}"
        )
    style = given or (recorded if isinstance(recorded, str) else None) or "paper"
    check_choice("--prompt-style", style, STYLE_NAMES)
    if mode == "paper" and not paper_mode_reads(style):
        raise OptionError(
            f"--mode paper: the notebook's parsing reads answers in text, not {style} answers "
            "(use --mode robust)"
        )
    return style


#: The tie rule of ``--vote``, as the parse report states it.
TIE_RULE = "the tied answer given first, in choice order"


def _parse_vote(
    answers: Any,
    rows: Any,
    task: str,
    style: str,
    allow_truncated: bool,
    *,
    out: Path,
    inputs: list[Any],
    records: list[Path],
    usage: dict[str, Any],
) -> tuple[list[dict[str, Any]], dict[str, Any], int]:
    """``parse --vote``: the vote's predictions and report, and K; each sample's
    predictions written to ``<out stem>.sample-<i><suffix>`` with its protocol record
    (:mod:`ocw_hub.llm.vote`), whose ``usage`` is the whole log's (the samples of one log
    count it once when scored together). Every output path is checked before any is
    written."""
    from ..llm.responses import check_known, parse_report, predictions_of
    from ..llm.vote import fold_sample_lines, vote_responses
    from ..outputs import check_output_file, write_json
    from ..provenance import write_protocol

    answers = fold_sample_lines(answers, {str(w["wall_id"]) for w in rows})
    check_known(answers, rows, str(records[-1]))
    votes, samples = vote_responses(
        answers, rows, task=task, style=style, allow_truncated=allow_truncated
    )
    paths = [
        check_output_file(out.with_name(f"{out.stem}.sample-{i}{out.suffix}"), inputs=inputs)
        for i in range(1, len(samples) + 1)
    ]
    missing = [str(w["wall_id"]) for w in rows if str(w["wall_id"]) not in answers]
    report = parse_report(votes, missing, task=task, mode="robust")
    report["vote"] = {
        "samples": len(samples),
        "tie_rule": TIE_RULE,
        "files": [str(p) for p in paths],
        "sample_counts": [
            parse_report(s, missing, task=task, mode="robust")["counts"] for s in samples
        ],
    }
    report.update(prompt_style=style, allow_truncated=allow_truncated)
    for path, sample in zip(paths, samples, strict=True):
        write_json(path, predictions_of(sample))
        fields = {
            "task": task,
            "parse_mode": "robust",
            "samples": len(samples),
            "aggregate": "sample",
            "usage": usage,
        }
        write_protocol(path, fields, inputs=records)
    return predictions_of(votes), report, len(samples)


#: Each dataset's answer parser and the --mode values it takes (None: every one).
_PARSERS: dict[str, tuple[Any, tuple[str, ...] | None]] = {
    "ocw": (_parse_ocw, None),
    "wote": (_parse_wote, ("robust",)),
}


def parse(
    responses: Annotated[
        Path,
        typer.Argument(
            help="Responses JSONL: batch output lines (Batch API, run_batch), or {wall_id, text} "
            "lines ({id, text} for WoTe)."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Predictions JSON file to write.")],
    config: Config = "default",
    split: Split = "test",
    task: Task = "grouping",
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="robust: the partition the answer states, or none (unrecoverable, scored as "
            "wrong); paper: the notebook's lenient parsing, to reproduce the paper's figures.",
        ),
    ] = "robust",
    allow_truncated: Annotated[
        bool,
        typer.Option(
            "--allow-truncated",
            help="Robust mode: read answers cut at the token limit (finish_reason length) "
            "without their last line, completing a fourth group from 3 stated (WoTe: the cut "
            "span as it stands); counted apart as truncated. Default: such answers are "
            "unrecoverable.",
        ),
    ] = False,
    price_per_mtok: Annotated[
        str | None,
        typer.Option(
            "--price-per-mtok",
            metavar="IN,OUT",
            help="Price per million prompt and completion tokens for the cost in the report "
            "(default: the one in the responses' protocol record, if any); tokens as the "
            "responses' usage says.",
        ),
    ] = None,
    prompt_style: Annotated[
        str | None,
        typer.Option(
            "--prompt-style",
            help="The style the requests were written in (prompts --list-styles), which says "
            "which block of the answer is parsed; default: the one the responses' protocol "
            "record names, else paper.",
        ),
    ] = None,
    vote: Annotated[
        bool,
        typer.Option(
            "--vote",
            help="Self-consistency: each of the n choices of an answer (requests sent with "
            "n = K) is parsed as a sample, written to <out stem>.sample-<i>.json; --out gets "
            "the vote: the partition most samples state (task 2: each group's most frequent "
            f"connection), ties to {TIE_RULE}. Robust mode only.",
        ),
    ] = False,
    requests: Annotated[
        Path | None,
        typer.Option(
            "--requests",
            help="The requests file the answers are for (ocw-hub prompts): its protocol record "
            "(profile, style, every field sent) goes with the answers when they have none of "
            "their own, e.g. a Batch API output. Every answer's id must be a request's.",
        ),
    ] = None,
    data_dir: DataDir = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Turn LLM answers into a predictions file (official format) for ocw-hub evaluate.

    Robust mode never invents a partition: a wall is clean, repaired (each repair
    unambiguous and recorded) or unrecoverable (with the reason). Also writes
    <out>.parse.json: per wall its status, reason, the repairs made and the raw answer.

    --config wote: {id, prediction_text} per question, the span the answer states (robust
    mode only; --task is not used). An unrecoverable answer (empty, reasoning only,
    truncated, a refusal) gets prediction_text "" (scored 0) and is counted apart.
    """
    from ..llm.answer_text import NOT_REPORTED
    from ..llm.prompts import TASKS
    from ..llm.responses import MODES, finish_not_reported, read_responses
    from ..llm.usage import log_usage, usage_line
    from ..outputs import check_output_file, write_json
    from ..provenance import write_protocol

    config = check_config(config)
    source = data_dir_of(data_dir, config)
    check_choice("--task", task, TASKS)
    check_choice("--mode", mode, MODES)
    spec = config_spec(config)
    modes = _PARSERS[spec.dataset][1]
    if modes is not None and mode not in modes:
        raise OptionError(f"--mode {mode}: {spec.name} answers are parsed in robust mode only")
    records = [responses] if requests is None else [requests, responses]
    upstream = _upstream(records)
    style = _prompt_style(upstream, prompt_style, mode)
    price = _price(upstream, price_per_mtok)
    usage = log_usage(responses, price)
    if vote and (mode != "robust" or task not in spec.tasks):
        raise OptionError("--vote: OCW answers in robust mode only")
    inputs = [*records, local_path(source)]
    require("llm", "parse")
    out = check_output_file(out, inputs=inputs)
    sidecar = check_output_file(out.with_name(out.name + ".parse.json"), inputs=inputs)
    answers = read_responses(responses, spec.unit)
    if requests is not None:
        _check_requests(requests, answers)
    rows = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    voted: dict[str, Any] = {}
    if vote:
        predictions, report, k = _parse_vote(
            answers,
            rows,
            task,
            style,
            allow_truncated,
            out=out,
            inputs=inputs,
            records=records,
            usage=usage,
        )
        voted = {"samples": k, "aggregate": "vote"}
    else:
        predictions, report = _PARSERS[spec.dataset][0](
            answers, rows, task, mode, allow_truncated, str(responses), style
        )
    report = {"responses": str(responses), "config": config, "split": split, **report}
    report[NOT_REPORTED] = finish_not_reported(answers)
    report["usage"] = usage
    write_json(out, predictions)
    write_json(sidecar, report)
    task_done = task if task in spec.tasks else spec.tasks[0]  # WoTe: its one task
    fields = {
        "task": task_done,
        "parse_mode": mode,
        "prompt_style": prompt_style,
        **voted,
        "usage": report["usage"],
    }
    write_protocol(out, fields, inputs=records)
    console.print(_parse_table(report))
    console.print(f"usage: {escape(usage_line(report['usage']))}", highlight=False, soft_wrap=True)
    if report["missing"]:
        print_warning(
            f"{len(report['missing'])} {spec.units} of {config}/{split} have no response "
            f"({capped(report['missing'])}); evaluate scores them as wrong only with "
            "--allow-missing"
        )
    console.print(
        f"{len(predictions)} predictions written to {escape(str(out))}; report: "
        f"{escape(str(sidecar))}",
        highlight=False,
        soft_wrap=True,
    )
