"""``ocw-hub play``: play every wall of a split one group at a time against OpenAI-compatible
servers, as the contestants did (docs/experiment.md, "Playing the wall")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import OCWHubError, OptionError
from ..extras import require
from ..shown import inert
from ._common import (
    check_choice,
    check_ocw,
    console,
    data_dir_of,
    err_console,
    load_split_rows,
    local_path,
)
from .generation import MaxTokens, ReasoningEffort, Stop, Temperature, TopP, generation_of
from .options import AcceptModel, CacheDir, Config, DataDir, NoChecks, Split
from .run_llm import _check_base_url, _server_failure, _shown

EPILOG = """
Rules show (the Only Connect wall): wrong guesses are free until two groups are found, then
three lives; when three groups are found the fourth completes itself; the third lost life or
--max-guesses guesses freeze the wall; then the connection round. Rules nyt (NYT Connections):
four mistakes in all, "one away" feedback, no connection round. An answer that is no valid
guess is re-prompted with the reason and costs no life; --max-invalid of them freeze the wall.
Requests go through run-llm's client (retries, deadline, failover, per-server concurrency). A
re-run with the same --out resumes every unfinished wall; finished walls are never sent again.
Score the log with `ocw-hub evaluate LOG`.
"""

PLAY_PROFILE_HELP = (
    "Generation fields of each request: paper (max_tokens 144, temperature 0), reasoning "
    "(max_completion_tokens = --max-tokens, --reasoning-effort; no temperature, top_p or stop) "
    "or custom (exactly the fields given: --max-tokens and any of --temperature, --top-p, "
    "--stop, --reasoning-effort). Recorded in the log header. See docs/experiment.md."
)


def play(
    base_url: Annotated[
        list[str],
        typer.Option(
            "--base-url", help="OpenAI-compatible API root (repeatable: several servers)."
        ),
    ],
    model: Annotated[str, typer.Option("--model", help="Model name sent in every request.")],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Play log JSONL: created, or resumed when it exists."),
    ],
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    no_checks: NoChecks = False,
    rules_name: Annotated[
        str, typer.Option("--rules", help="show (the Only Connect wall) or nyt (NYT Connections).")
    ] = "show",
    max_guesses: Annotated[
        int | None,
        typer.Option(
            "--max-guesses",
            min=1,
            help="Guesses at most per wall (the show's 2 min 30 s; default 20 for show, 7 for "
            "nyt, where it never binds).",
        ),
    ] = None,
    max_invalid: Annotated[
        int, typer.Option("--max-invalid", min=1, help="Invalid answers at most per wall.")
    ] = 3,
    profile: Annotated[str, typer.Option("--profile", help=PLAY_PROFILE_HELP)] = "paper",
    max_tokens: MaxTokens = None,
    reasoning_effort: ReasoningEffort = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    stop: Stop = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", help="Sent as the requests' seed under every profile (none by default)."
        ),
    ] = None,
    walls: Annotated[
        int | None, typer.Option("--walls", min=1, help="Play only the split's first N walls.")
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Requests in flight on each server.")
    ] = 4,
    max_retries: Annotated[
        int, typer.Option("--max-retries", min=0, help="Tries after the first (as run-llm).")
    ] = 5,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1.0, help="Seconds for the whole answer of a try.")
    ] = 600.0,
    accept_model: AcceptModel = None,
    cache_dir: CacheDir = None,
) -> None:
    """Play the split's walls one group at a time; log every turn (resumable)."""
    from ..llm.client import LLMServerError
    from ..outputs import check_output_file
    from ..play import rules
    from ..play.generation import play_fields, token_budget
    from ..play.runner import Server, play_walls

    generation = generation_of(
        profile,
        max_tokens=max_tokens,
        reasoning_effort=reasoning_effort,
        temperature=temperature,
        top_p=top_p,
        stop=stop,
        seed=None,
        n=None,
    )
    fields = play_fields(generation, seed)

    for url in base_url:
        _check_base_url(url)
    if len(set(base_url)) != len(base_url):
        raise OptionError(f"--base-url: a server is given twice ({', '.join(base_url)})")
    check_choice("--rules", rules_name, rules.RULES)
    config = check_ocw(config)
    require("llm", "play")
    source = data_dir_of(data_dir, config)
    out = check_output_file(out, inputs=[local_path(source)])
    rows = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    if walls is not None:
        rows = rows[:walls]
    header: dict[str, Any] = {
        "rules": rules_name,
        "max_guesses": max_guesses or rules.default_max_guesses(rules_name),
        "max_invalid": max_invalid,
        "config": config,
        "split": split,
        "player": model,
        "player_kind": "model",
        "model": model,
        "base_urls": list(base_url),
        "seed": seed,
        "max_tokens": token_budget(fields),
        "profile": profile,
        "generation": fields,
    }
    if walls is not None:
        header["walls"] = walls
    accepted = sorted(set(accept_model or []))
    if accepted:
        header["accepted_models"] = accepted
    server = Server(
        base_url,
        model,
        concurrency,
        max_retries,
        timeout,
        None,
        seed,
        fields=fields,
        accept_models=accepted,
    )
    try:
        summary = play_walls(rows, out, header, server)
    except LLMServerError as err:
        raise _server_failure(err, out) from err
    console.print(
        f"{summary.finished} walls finished by this run, {summary.already_done} before, of "
        f"{summary.walls}; {summary.requests} requests answered; log {_shown(out)}",
        highlight=False,
        soft_wrap=True,
    )
    if summary.failures:
        for wall_id, message in summary.failures[:5]:
            err_console.print(
                f"  wall {_shown(wall_id)}: {_shown(message)}", highlight=False, soft_wrap=True
            )
        raise OCWHubError(
            f"{len(summary.failures)} walls left unfinished (a request failed); run the same "
            f"command again to resume them ({inert(str(out))})"
        )
