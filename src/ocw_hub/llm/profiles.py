"""Named generation profiles: the generation fields of a chat-completion body (everything but
``model`` and ``messages``), chosen by ``--profile`` on ``prompts`` (inspect tasks:
``-T profile=``).

* ``paper`` (the default): the fields each prompt style sends today, byte for byte; for the
  paper's style the notebook's ``max_tokens 144, temperature 0.0, top_p 1.0, n 1,
  stop "<|im_end|>", stream false`` (``gpt-4-0314``, ``gpt-3.5-turbo-0301``).
* ``reasoning``: for models that think before they answer (OpenAI's o-series and GPT-5,
  gpt-oss, DeepSeek-R1, Qwen3 on vLLM): ``max_completion_tokens`` = the budget
  (``--max-tokens``, reasoning and answer together) and ``reasoning_effort`` when given; no
  ``temperature``, ``top_p``, ``n`` or ``stop`` (OpenAI's reasoning models refuse them). The
  answer is read after the reasoning: ``parse`` drops ``<think>…</think>`` blocks and never
  reads ``reasoning_content``.
* ``custom``: exactly the fields given: ``max_tokens`` (required), and ``temperature``,
  ``top_p``, ``stop`` (a list), ``seed``, ``n``, ``reasoning_effort`` when given.

The fields sent are recorded in the protocol record (``profile`` and ``generation``), so runs
whose bodies differ in any of them are not runs of one protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import GenerationProfileError
from ..provenance import shown_value

#: The profiles, default first.
PROFILES = ("paper", "reasoning", "custom")
#: The values of ``reasoning_effort`` (OpenAI's; ``xhigh`` for the models that take it).
REASONING_EFFORTS = ("minimal", "low", "medium", "high", "xhigh")
#: The body fields that are not generation fields.
MESSAGE_FIELDS = ("model", "messages")
#: Body fields a prompt style sets, kept when a profile replaces the others (the JSON
#: schema of the ``json`` style).
STYLE_FIELDS = ("response_format",)
#: Generation field -> the option that sets it.
OPTIONS = {
    "max_tokens": "--max-tokens",
    "max_completion_tokens": "--max-tokens",
    "temperature": "--temperature",
    "top_p": "--top-p",
    "stop": "--stop",
    "seed": "--sampling-seed",
    "n": "-n",
    "reasoning_effort": "--reasoning-effort",
}
#: What the protocol record says when the requests of a file differ in their fields.
DIFFERS = "differs by request"


@dataclass(frozen=True)
class Generation:
    """A profile and the options given with it (None / empty: not given).

    Attributes:
        profile: one of :data:`PROFILES`.
        max_tokens: the token budget (``max_tokens``; ``max_completion_tokens`` for
            ``reasoning``).
        temperature, top_p, seed, n: as the OpenAI API names them (``custom`` only).
        stop: stop strings (``custom`` only), sent as a list.
        reasoning_effort: one of :data:`REASONING_EFFORTS` (``reasoning``, ``custom``).
    """

    profile: str = "paper"
    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: tuple[str, ...] = field(default_factory=tuple)
    seed: int | None = None
    n: int | None = None
    reasoning_effort: str | None = None

    def given(self) -> dict[str, Any]:
        """The options given, by generation field (``stop`` as a list)."""
        values = {
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "n": self.n,
            "stop": list(self.stop) if self.stop else None,
            "seed": self.seed,
            "reasoning_effort": self.reasoning_effort,
        }
        return {k: v for k, v in values.items() if v is not None}


#: The options each profile takes besides ``--profile``.
_TAKES = {
    "paper": (),
    "reasoning": ("max_tokens", "reasoning_effort"),
    "custom": ("max_tokens", "temperature", "top_p", "n", "stop", "seed", "reasoning_effort"),
}
_WHY_NOT = {
    "paper": "the paper profile sends the prompt style's own fields; give --profile custom "
    "(or reasoning) to set them",
    "reasoning": "the reasoning profile sends only max_completion_tokens and "
    "reasoning_effort (reasoning models refuse temperature, top_p, n and stop); give "
    "--profile custom to send it",
}


def check_generation(generation: Generation) -> None:
    """Refuse options the profile does not take, a missing budget and values out of range.

    Raises:
        GenerationProfileError: one line naming the option.
    """
    profile = generation.profile
    if profile not in PROFILES:
        raise GenerationProfileError(
            f"--profile {profile}: expected one of {', '.join(PROFILES)}", option="--profile"
        )
    given = generation.given()
    for name, value in given.items():
        if name not in _TAKES[profile]:
            option = OPTIONS[name]
            raise GenerationProfileError(
                f"{option} {shown_value(value)}: {_WHY_NOT[profile]}", option=option
            )
    if profile != "paper" and generation.max_tokens is None:
        what = " (reasoning and answer together)" if profile == "reasoning" else ""
        raise GenerationProfileError(
            f"--max-tokens: --profile {profile} needs a token budget{what}", option="--max-tokens"
        )
    _check_ranges(generation)


def _check_ranges(generation: Generation) -> None:
    checks = (
        ("max_tokens", generation.max_tokens, lambda v: v >= 1, "at least 1"),
        ("temperature", generation.temperature, lambda v: 0 <= v <= 2, "between 0 and 2"),
        ("top_p", generation.top_p, lambda v: 0 < v <= 1, "above 0 and at most 1"),
        ("n", generation.n, lambda v: v >= 1, "at least 1"),
    )
    for name, value, good, expected in checks:
        if value is not None and not good(value):
            option = OPTIONS[name]
            raise GenerationProfileError(f"{option} {value}: expected {expected}", option=option)
    if any(not s for s in generation.stop):
        raise GenerationProfileError("--stop '': a stop string must not be empty", option="--stop")
    effort = generation.reasoning_effort
    if effort is not None and effort not in REASONING_EFFORTS:
        raise GenerationProfileError(
            f"--reasoning-effort {effort}: expected one of {', '.join(REASONING_EFFORTS)}",
            option="--reasoning-effort",
        )


def generation_fields(
    generation: Generation | None, paper_fields: Mapping[str, Any]
) -> dict[str, Any]:
    """The generation fields of a body under ``generation`` (None: the paper profile).

    Args:
        generation: the profile and its options.
        paper_fields: what the prompt style sends under the paper profile, in body order.

    Raises:
        GenerationProfileError: see :func:`check_generation`.
    """
    if generation is None or generation.profile == "paper":
        if generation is not None:
            check_generation(generation)
        return dict(paper_fields)
    check_generation(generation)
    given = generation.given()
    if generation.profile == "reasoning":
        fields = {"max_completion_tokens": given.pop("max_tokens")}
        fields.update(given)  # reasoning_effort, when given
        return fields
    return given


def with_generation(request: Mapping[str, Any], generation: Generation) -> dict[str, Any]:
    """``request`` with its body's generation fields replaced by ``generation``'s (a reasoning
    or custom profile); the prompt style's :data:`STYLE_FIELDS` kept.

    Raises:
        GenerationProfileError: the paper profile (the requests' own fields are the
            paper's), or see :func:`check_generation`.
    """
    if generation.profile == "paper":
        raise GenerationProfileError(
            "--profile paper: the requests' own fields are the paper's; "
            "give --profile reasoning or custom to replace them",
            option="--profile",
        )
    kept = (*MESSAGE_FIELDS, *STYLE_FIELDS)
    body = {k: v for k, v in request["body"].items() if k in kept}
    body.update(generation_fields(generation, {}))
    return {**request, "body": body}


def sent_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    """The generation fields of a body: all but ``model`` and ``messages``."""
    return {k: v for k, v in body.items() if k not in MESSAGE_FIELDS}


def common_fields(bodies: Sequence[Mapping[str, Any]]) -> dict[str, Any] | str:
    """The generation fields every body sends (:func:`sent_fields`), or :data:`DIFFERS` when
    two bodies differ in them; bodies that differ in ``seed`` only (K requests per wall,
    ``prompts --as-requests``) give ``seed`` as the list of their seeds, first seen first."""
    first = sent_fields(bodies[0]) if bodies else {}
    if all(sent_fields(body) == first for body in bodies[1:]):
        return first
    unseeded = {k: v for k, v in first.items() if k != "seed"}
    seeds: list[Any] = []
    for body in bodies:
        fields = sent_fields(body)
        if "seed" not in fields or {k: v for k, v in fields.items() if k != "seed"} != unseeded:
            return DIFFERS
        if fields["seed"] not in seeds:
            seeds.append(fields["seed"])
    return {**first, "seed": seeds}
