"""The generation fields of ``ocw-hub play``'s requests under a profile
(:mod:`ocw_hub.llm.profiles`, ``--profile`` as on ``prompts`` and ``run-llm``).

* ``paper`` (the default): ``max_tokens 144, temperature 0`` (the paper's budget and
  decoding; no ``stop``: each turn is a short chat answer), byte for byte what ``play`` sent
  before it had profiles.
* ``reasoning``: ``max_completion_tokens`` = ``--max-tokens`` and ``reasoning_effort`` when
  given; no ``temperature``, ``top_p`` or ``stop``.
* ``custom``: exactly the fields given.

``play --seed S`` adds ``seed`` S to every request under each profile. The fields sent are
the play log header's ``generation`` (with ``profile``), so a resumed run must send the same
ones (:data:`ocw_hub.play.runner.SAME_RUN`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..llm.profiles import Generation, generation_fields
from ..provenance import describe_generation

#: What ``play`` sends under the paper profile (before the seed).
PAPER_FIELDS: dict[str, Any] = {"max_tokens": 144, "temperature": 0}


def play_fields(generation: Generation, seed: int | None = None) -> dict[str, Any]:
    """The generation fields of every request of a play run, in body order.

    Raises:
        GenerationProfileError: options the profile does not take (one line).
    """
    fields = generation_fields(generation, PAPER_FIELDS)
    if seed is not None:
        fields["seed"] = seed
    return fields


def with_implied_fields(header: Mapping[str, Any]) -> dict[str, Any]:
    """A log header with ``profile`` and ``generation``: those of a log written before play
    had profiles are implied (``paper``: its ``max_tokens``, temperature 0, its ``seed``)."""
    if "profile" in header or not isinstance(header.get("max_tokens"), int):
        return dict(header)
    fields: dict[str, Any] = {"max_tokens": header["max_tokens"], "temperature": 0}
    if header.get("seed") is not None:
        fields["seed"] = header["seed"]
    return {**header, "profile": "paper", "generation": fields}


def token_budget(fields: Mapping[str, Any]) -> int | None:
    """The token limit among ``fields`` (either name), None when there is none."""
    for name in ("max_tokens", "max_completion_tokens"):
        if isinstance(fields.get(name), int):
            return int(fields[name])
    return None


def play_lines(results: Mapping[str, Any]) -> list[str]:
    """``[play: rules show, profile reasoning (max_completion_tokens 800), model M]`` for the
    results of a play log (a line of evaluate's table title); ``[]`` for other results. Only
    what the log recorded: a person's log has no generation (``human player NAME``), a
    model's log without a profile shows its generation fields as recorded (a log converted
    from inspect-ai), or says it has none."""
    from .log import describe_player

    header = results.get("play_log")
    if not isinstance(header, Mapping):
        return []
    header = with_implied_fields(header)
    parts = [f"rules {header.get('rules')}"]
    if header.get("player_kind") != "human":
        fields = header.get("generation")
        if "profile" in header:
            parts.append(f"profile {describe_generation(header['profile'], fields)}")
        elif isinstance(fields, Mapping):  # no profile: the fields as recorded (inspect-ai)
            sent = ", ".join(f"{k} {v}" for k, v in fields.items())
            parts.append(f"generation {sent or 'not set (the server defaults)'}")
        else:
            parts.append("generation not recorded")
    parts.append(describe_player(header))
    return [f"play: {', '.join(parts)}"]
