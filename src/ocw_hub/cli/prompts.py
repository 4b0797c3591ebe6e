"""``ocw-hub prompts``: the paper's few-shot chat-completion requests, one per wall; for
``--config wote``, our extractive requests, one per question."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..configs import config_spec
from ..errors import OptionError
from ..llm.prompts import DEFAULT_MODEL
from ._common import (
    check_choice,
    check_config,
    console,
    data_dir_of,
    escape,
    load_split_rows,
    local_path,
    print_notes,
)
from .generation import (
    PROFILE_HELP,
    Choices,
    MaxTokens,
    ReasoningEffort,
    ResponseFormat,
    SamplingSeed,
    Stop,
    Temperature,
    TopP,
    generation_of,
)
from .options import TASK_HELP, CacheDir, Config, DataDir, NoChecks, Split

#: The note of ``--prompt-style cot`` under the paper profile (docs/experiment.md).
COT_BUDGET_NOTE = (
    "--prompt-style cot with the paper profile keeps max_tokens 144, which cuts most "
    "chain-of-thought answers; give --profile custom --max-tokens N or --profile reasoning"
)


def _note_cot_budget(prompt_style: str, profile: str) -> None:
    """:data:`COT_BUDGET_NOTE` on stderr for cot under the paper profile (a note only: the
    requests stay as asked)."""
    if prompt_style == "cot" and profile == "paper":
        print_notes([COT_BUDGET_NOTE])


def _list_styles(value: bool) -> None:
    """``--list-styles``: one line per prompt style, then exit."""
    if not value:
        return
    from ..llm.styles import style_lines

    for name, description in style_lines():
        console.print(f"{name}: {escape(description)}", highlight=False, soft_wrap=True)
    raise typer.Exit()


def _report(count: int, what: str, out: Path) -> None:
    console.print(f"{count} {what} written to {escape(str(out))}", highlight=False, soft_wrap=True)


def _wote_prompts(
    config: str,
    split: str,
    options: dict[str, Any],
    model: str,
    out: Path,
    *,
    generation: Any,
    source: str | None,
    cache_dir: Path | None,
    no_checks: bool,
) -> None:
    """``prompts --config wote``: one request per question (:mod:`ocw_hub.llm.wote`)."""
    from ..llm.prompts import requests_jsonl
    from ..llm.wote import build_wote_requests
    from ..outputs import check_output_file, write_text_atomic
    from ..provenance import write_protocol

    if options["task"] is not None:
        raise OptionError(
            f"--task {options['task']}: --config wote has one task (a span per question)"
        )
    if options["shots"]:
        raise OptionError(f"--shots {options['shots']}: WoTe requests have no in-context examples")
    if options["prompt_style"] not in (None, "ours"):
        raise OptionError(
            f"--prompt-style {options['prompt_style']}: WoTe has only our prompt (ours)"
        )
    if options.get("response_format") is not None:
        raise OptionError(f"--response-format {options['response_format']}: WoTe answers a span")
    out = check_output_file(out, inputs=[local_path(source)])
    rows = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    requests = build_wote_requests(rows, model=model, generation=generation)
    write_text_atomic(out, requests_jsonl(requests))
    fields = {"method": "llm", "task": "spans", "model": model, "prompt_style": "ours", "shots": 0}
    write_protocol(out, {**fields, **_generation_record(generation, requests)})
    _report(len(requests), f"{config} requests ({config}/{split}, our extractive prompt)", out)


def _generation_record(generation: Any, requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The protocol fields of the generation: the profile and every field the bodies send."""
    from ..llm.profiles import common_fields

    return {
        "profile": generation.profile,
        "generation": common_fields([r["body"] for r in requests]),
    }


#: The datasets whose requests are not the paper's walls (``ConfigSpec.dataset``).
_OTHER_PROMPTS = {"wote": _wote_prompts}


def prompts(
    out: Annotated[Path, typer.Option("--out", "-o", help="Requests JSONL file to write.")],
    task: Annotated[
        str | None,
        typer.Option("--task", "-t", help=TASK_HELP + " Required except with --config wote."),
    ] = None,
    shots: Annotated[
        int | None,
        typer.Option(
            "--shots",
            "-k",
            help="In-context examples: whole train walls, the same for every wall (the paper "
            "ran 0, 1, 3, 5 and 10). Required except with --config wote (none there).",
        ),
    ] = None,
    config: Config = "default",
    split: Split = "test",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the in-context example draw.")] = 42,
    model: Annotated[
        str,
        typer.Option(
            "--model",
            help="Model named in the requests; the paper ran gpt-4-0314 and gpt-3.5-turbo-0301.",
        ),
    ] = DEFAULT_MODEL,
    prompt_style: Annotated[
        str | None,
        typer.Option(
            "--prompt-style",
            help="paper (the default): the notebook's messages and parameters byte for byte; "
            "ours: our own wording of the same instructions (same examples and wall layout); "
            "cot: think step by step, answer after 'Final answer:'; json: one JSON object "
            "checked against a schema. See --list-styles. WoTe: ours only.",
        ),
    ] = None,
    profile: Annotated[str, typer.Option("--profile", help=PROFILE_HELP)] = "paper",
    max_tokens: MaxTokens = None,
    reasoning_effort: ReasoningEffort = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    stop: Stop = None,
    sampling_seed: SamplingSeed = None,
    n: Choices = None,
    as_requests: Annotated[
        bool,
        typer.Option(
            "--as-requests",
            help="Send -n K as K requests per wall, WALL#1 ... WALL#K (no n field; seed "
            "--sampling-seed + i - 1 in WALL#i), for servers that ignore or refuse n; "
            "parse --vote reads them as K samples.",
        ),
    ] = False,
    response_format: ResponseFormat = None,
    list_styles: Annotated[
        bool,
        typer.Option(
            "--list-styles",
            is_eager=True,
            callback=_list_styles,
            help="List the prompt styles, one line each, and exit.",
        ),
    ] = False,
    data_dir: DataDir = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Write the paper's few-shot chat-completion requests, one per wall (OpenAI batch JSONL).

    Temperature 0, at most 144 new tokens (the paper profile; --profile reasoning or custom
    sends other generation fields, recorded in the protocol record); the in-context examples are
    random.Random(seed).sample(train walls, K), written one group per line with its
    connection. With --split train a wall is never its own example: its draw is made from
    the other train walls. --prompt-style ours is our own wording, not the paper's; cot and
    json ask for a final-answer block or a JSON object, which parse reads (--list-styles).

    --config wote: one request per question (custom_id its id) with our extractive prompt
    (GRILLBot's prompt is not available): the task text, the conversation so far and the
    question; answer with a span copied from the task text. Temperature 0, at most 256 new
    tokens; no --task, no --shots.
    """
    from ..llm.prompts import STYLES, TASKS, build_requests, requests_jsonl
    from ..outputs import check_output_file, write_text_atomic
    from ..provenance import write_protocol

    generation = generation_of(
        profile,
        max_tokens=max_tokens,
        reasoning_effort=reasoning_effort,
        temperature=temperature,
        top_p=top_p,
        stop=stop,
        seed=sampling_seed,
        n=n,
    )
    config = check_config(config)
    source = data_dir_of(data_dir, config)
    other = _OTHER_PROMPTS.get(config_spec(config).dataset)
    if as_requests and (n is None or other is not None):
        raise OptionError("--as-requests: give -n K (profile custom); OCW walls only")
    if other is not None:
        options = {
            "task": task,
            "shots": shots,
            "prompt_style": prompt_style,
            "response_format": response_format,
        }
        other(
            config,
            split,
            options,
            model,
            out,
            generation=generation,
            source=source,
            cache_dir=cache_dir,
            no_checks=no_checks,
        )
        return
    if task is None or shots is None:
        raise OptionError(f"--config {config}: --task and --shots are required")
    prompt_style = prompt_style or "paper"
    check_choice("--task", task, TASKS)
    check_choice("--prompt-style", prompt_style, STYLES)
    from ..llm.styles import response_format_of

    response_format = response_format_of(prompt_style, response_format)
    out = check_output_file(out, inputs=[local_path(source)])
    _note_cot_budget(prompt_style, profile)
    walls = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    train = walls if split == "train" or shots == 0 else None
    if train is None:
        train = load_split_rows(config, "train", source, cache_dir=cache_dir, no_checks=no_checks)
    requests = build_requests(
        walls,
        train,
        task=task,
        shots=shots,
        seed=seed,
        model=model,
        style=prompt_style,
        response_format=response_format or "schema",
        generation=generation,
    )
    if as_requests:
        from ..llm.sample_requests import as_requests as repeated

        requests = repeated(requests, int(n or 1))
    write_text_atomic(out, requests_jsonl(requests))
    write_protocol(
        out,
        {
            "method": "llm",
            "task": task,
            "model": model,
            "prompt_style": prompt_style,
            "response_format": response_format,
            "shots": shots,
            "seed": seed,
            **_generation_record(generation, requests),
        },
    )
    what = (
        f"{task} requests ({config}/{split}, {shots} shots, seed {seed}, {prompt_style} "
        f"prompts, {profile} profile)"
    )
    _report(len(requests), what, out)
