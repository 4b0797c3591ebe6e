"""``ocw-hub lm-eval-tasks``: the folder of the lm-evaluation-harness task files, or (``--out``)
a folder of tasks for a prompt style and a generation profile
(:mod:`ocw_hub.lm_eval_tasks.variants`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import OptionError
from .generation import (
    PROFILE_HELP,
    MaxTokens,
    ReasoningEffort,
    ResponseFormat,
    SamplingSeed,
    Stop,
    Temperature,
    TopP,
    generation_of,
)


def lm_eval_tasks(
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write a task folder for --prompt-style and --profile here (one YAML per "
            "task, including the shipped one) and print it. Default: print the shipped "
            "folder (the paper's style and profile).",
        ),
    ] = None,
    prompt_style: Annotated[
        str | None,
        typer.Option(
            "--prompt-style",
            help="paper, ours, cot or json (see ocw-hub prompts --list-styles); the OCW "
            "tasks only (WoTe is written only when no style is given).",
        ),
    ] = None,
    response_format: ResponseFormat = None,
    profile: Annotated[str, typer.Option("--profile", help=PROFILE_HELP)] = "paper",
    max_tokens: MaxTokens = None,
    reasoning_effort: ReasoningEffort = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    stop: Stop = None,
    sampling_seed: SamplingSeed = None,
) -> None:
    """Print the folder of the lm-evaluation-harness tasks ocw_grouping, ocw_connections, wote.

    Use: lm_eval --include_path "$(ocw-hub lm-eval-tasks)" --tasks ocw_grouping
    --apply_chat_template --metadata '{"data_dir": ..., "shots": 0}' (see docs/experiment.md).

    With --out DIR: write tasks for a prompt style and a generation profile (e.g.
    --prompt-style cot --profile custom --max-tokens 1024), named with the style and profile
    (ocw_grouping_cot_custom, tag ocw_cot_custom), the settings in each YAML file.
    """
    from ..lm_eval_tasks import TASKS_DIR

    generation = generation_of(
        profile,
        max_tokens=max_tokens,
        reasoning_effort=reasoning_effort,
        temperature=temperature,
        top_p=top_p,
        stop=stop,
        seed=sampling_seed,
        n=None,
    )
    if out is None:
        if prompt_style is not None or response_format is not None or profile != "paper":
            raise OptionError(
                "--prompt-style, --response-format and --profile write a task folder: give "
                "--out DIR"
            )
        typer.echo(str(TASKS_DIR))
        return
    from ..lm_eval_tasks.variants import command_line, variant_configs, write_variant
    from ..outputs import check_output_dir

    folder = check_output_dir(out, [TASKS_DIR])
    configs = variant_configs(prompt_style, response_format, generation)
    write_variant(folder, configs, command_line(out, prompt_style, response_format, generation))
    typer.echo(str(folder))
