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
        typer.Option("--model", help="Model named in the requests (run-llm --model replaces it)."),
    ] = DEFAULT_MODEL,
    data_dir: DataDir = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Write the paper's few-shot chat-completion requests, one per wall (OpenAI batch JSONL).

    Temperature 0, at most 144 new tokens; the in-context examples are
    random.Random(seed).sample(train walls, K), written one group per line with its
    connection.
    """
    from ..llm.prompts import TASKS, build_requests, requests_jsonl
    from ..outputs import check_output_file, write_text_atomic

    config = check_ocw(config)
    source = data_dir_of(data_dir, config)
    check_choice("--task", task, TASKS)
    with user_errors():
        out = check_output_file(out, inputs=[local_path(source)])
    walls = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    train = walls if split == "train" or shots == 0 else None
    if train is None:
        train = load_split_rows(config, "train", source, cache_dir=cache_dir, no_checks=no_checks)
    with user_errors():
        requests = build_requests(walls, train, task=task, shots=shots, seed=seed, model=model)
    write_text_atomic(out, requests_jsonl(requests))
    console.print(
        f"{len(requests)} {task} requests ({config}/{split}, {shots} shots, seed {seed}) "
        f"written to {escape(str(out))}",
        highlight=False,
        soft_wrap=True,
    )
