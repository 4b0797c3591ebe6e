"""K requests per wall instead of ``n`` choices (``prompts -n K --as-requests``), for servers
that ignore or refuse ``n`` (``transformers serve`` refuses it; some APIs send one choice).

Each request of wall ``W`` becomes K requests ``W#1`` … ``W#K`` (the naming
``parse --vote`` folds back into K samples of ``W``, :data:`.vote.SAMPLE_MARK`), with the
same body but no ``n``; when the body has a ``seed`` (``--sampling-seed S``), request
``W#i`` sends ``seed`` S + i - 1, so the first request is the one a single run would send
and each sample is reproducible on a server that honours ``seed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .vote import SAMPLE_MARK


def as_requests(requests: Sequence[Mapping[str, Any]], k: int) -> list[dict[str, Any]]:
    """Each request repeated ``k`` times as ``ID#1`` … ``ID#k`` (in that order, request by
    request), without ``n``; ``seed`` + i - 1 in request ``i`` when the body has a seed.

    Raises:
        ValueError: ``k`` below 1.
    """
    if k < 1:
        raise ValueError(f"k = {k}: expected at least 1")
    repeated: list[dict[str, Any]] = []
    for request in requests:
        body = {name: value for name, value in request["body"].items() if name != "n"}
        seed = body.get("seed")
        for i in range(1, k + 1):
            sample = dict(body)
            if isinstance(seed, int) and not isinstance(seed, bool):
                sample["seed"] = seed + i - 1
            custom_id = f"{request['custom_id']}{SAMPLE_MARK}{i}"
            repeated.append({**request, "custom_id": custom_id, "body": sample})
    return repeated
