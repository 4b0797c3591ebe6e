"""The generation options of ``prompts`` (``--profile`` and the fields a
profile takes; :mod:`ocw_hub.llm.profiles`), each declared once."""

from __future__ import annotations

from typing import Annotated, Any

import typer

PROFILE_HELP = (
    "Generation fields of the bodies: paper (the style's own; the notebook's for the paper "
    "style: max_tokens 144, temperature 0, stop <|im_end|>), reasoning (max_completion_tokens "
    "= --max-tokens, --reasoning-effort; no temperature, top_p, n or stop) or custom (exactly "
    "the fields given: --max-tokens and any of --temperature, --top-p, --stop, "
    "--sampling-seed, -n, --reasoning-effort). See docs/experiment.md."
)

ResponseFormat = Annotated[
    str | None,
    typer.Option(
        "--response-format",
        help="--prompt-style json: send the JSON schema as the request's response_format "
        "(schema, the default: servers with structured output) or write it in the "
        "prompt (prompt).",
    ),
]
MaxTokens = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        min=1,
        help="Token budget (reasoning, custom): max_completion_tokens (reasoning: thinking "
        "and answer together) or max_tokens (custom).",
    ),
]
ReasoningEffort = Annotated[
    str | None,
    typer.Option(
        "--reasoning-effort",
        help="reasoning_effort sent (reasoning, custom): minimal, low, medium, high or xhigh. "
        "Default: not sent (the server's default).",
    ),
]
Temperature = Annotated[
    float | None, typer.Option("--temperature", help="temperature sent (custom), 0 to 2.")
]
TopP = Annotated[float | None, typer.Option("--top-p", help="top_p sent (custom), (0, 1].")]
Stop = Annotated[
    list[str] | None,
    typer.Option("--stop", help="A stop string (custom; repeatable), sent as a list."),
]
SamplingSeed = Annotated[
    int | None,
    typer.Option(
        "--sampling-seed",
        help="seed sent (custom): the server's sampling seed, a field of each run (not the "
        "in-context example draw of prompts --seed).",
    ),
]
Choices = Annotated[
    int | None,
    typer.Option(
        "-n",
        "--n",
        help="n sent (custom): completions per request; parse reads the first choice, "
        "parse --vote votes over them.",
    ),
]


def generation_of(profile: str, **options: Any) -> Any:
    """The :class:`~ocw_hub.llm.profiles.Generation` of the options, checked.

    Raises:
        GenerationProfileError: options the profile does not take (one line).
    """
    from ..llm.profiles import Generation, check_generation

    stop = tuple(options.pop("stop") or ())
    generation = Generation(profile=profile, stop=stop, **options)
    check_generation(generation)
    return generation
