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
    requests: Path, config: str, split: str, data_dir: list[str] | None,
    cache_dir: Path | None, no_checks: bool,
) -> Any:  # fmt: skip
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


def send_reprompts(
    loaded: list[dict[str, Any]], out: Path, parsing: Any, n: int, send: dict[str, Any]
) -> Any:
    """The rounds of follow-ups (:func:`ocw_hub.llm.reprompt.reprompt_rounds`), reported."""
    from ..llm.reprompt import reprompt_rounds
    from ._common import console

    summary = reprompt_rounds(loaded, out, parsing, n, send=send)
    console.print(
        f"re-prompts: {summary.answered} of {summary.sent} follow-ups sent were answered "
        f"(per round: {', '.join(str(r) for r in summary.rounds)})",
        highlight=False,
    )
    return summary
