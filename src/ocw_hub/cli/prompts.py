"""``ocw-hub prompts``: the paper's few-shot chat-completion requests, one per wall."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..llm.prompts import DEFAULT_MODEL
from . import app
from ._common import (
    check_choice,
    check_ocw,
    console,
    data_dir_of,
    load_split_rows,
    local_path,
    user_errors,
)
from .options import CacheDir, Config, DataDir, NoChecks, Split, Task


@app.command()
def prompts(
    task: Task,
    shots: Annotated[
        int,
        typer.Option(
            "--shots",
            "-k",
            help="In-context examples: whole train walls, the same for every wall (the paper "
            "ran 0, 1, 3, 5 and 10).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Requests JSONL file to write.")],
    config: Config = "default",
    split: Split = "test",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the in-context example draw.")] = 42,
    model: Annotated[
        str,
        typer.Option(
            "--model",
            help="Model named in the requests (run-llm --model replaces it); the paper ran "
            "gpt-4-0314 and gpt-3.5-turbo-0301.",
        ),
    ] = DEFAULT_MODEL,
    prompt_style: Annotated[
        str,
        typer.Option(
            "--prompt-style",
            help="paper: the notebook's messages and parameters byte for byte; ours: our own "
            "wording of the same instructions (same examples and wall layout).",
        ),
    ] = "paper",
    data_dir: DataDir = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Write the paper's few-shot chat-completion requests, one per wall (OpenAI batch JSONL).

    Temperature 0, at most 144 new tokens; the in-context examples are
    random.Random(seed).sample(train walls, K), written one group per line with its
    connection. With --split train a wall is never its own example: its draw is made from
    the other train walls. --prompt-style ours is our own wording, not the paper's.
    """
    from ..llm.prompts import STYLES, TASKS, build_requests, requests_jsonl
    from ..outputs import check_output_file, write_text_atomic
    from ..provenance import write_protocol

    config = check_ocw(config)
    source = data_dir_of(data_dir, config)
    check_choice("--task", task, TASKS)
    check_choice("--prompt-style", prompt_style, STYLES)
    with user_errors():
        out = check_output_file(out, inputs=[local_path(source)])
    walls = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    train = walls if split == "train" or shots == 0 else None
    if train is None:
        train = load_split_rows(config, "train", source, cache_dir=cache_dir, no_checks=no_checks)
    with user_errors():
        requests = build_requests(
            walls, train, task=task, shots=shots, seed=seed, model=model, style=prompt_style
        )
    write_text_atomic(out, requests_jsonl(requests))
    write_protocol(
        out,
        {"method": "llm", "task": task, "model": model, "prompt_style": prompt_style,
         "shots": shots, "seed": seed},
    )  # fmt: skip
    console.print(
        f"{len(requests)} {task} requests ({config}/{split}, {shots} shots, seed {seed}, "
        f"{prompt_style} prompts) "
        f"written to {escape(str(out))}",
        highlight=False,
        soft_wrap=True,
    )
