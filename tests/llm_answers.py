"""Answers to ``ocw-hub prompts``'s requests in the Batch API output shape that ``ocw-hub parse``
reads, got from a scripted server through the package's client (which ``play`` uses), for the
tests of ``parse`` on answers produced outside inspect."""

from __future__ import annotations

from pathlib import Path


def answer_requests(requests: Path, out: Path, url: str, model: str = "fake") -> Path:
    """The answers, with a protocol record beside them: the requests' own, the model asked
    and the tokens used (what a tool that records its runs leaves)."""
    from ocw_hub.llm.client import run_requests
    from ocw_hub.llm.log import read_requests
    from ocw_hub.llm.usage import log_usage
    from ocw_hub.provenance import write_protocol

    run_requests(read_requests(requests), out, base_url=url, model=model, concurrency=2)
    write_protocol(out, {"model": model, "usage": log_usage(out, None)}, inputs=[requests])
    return out
