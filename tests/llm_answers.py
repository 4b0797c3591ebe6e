"""Answers to ``ocw-hub prompts``'s requests in the Batch API output shape that ``ocw-hub parse``
reads (OpenAI's Batch API, vLLM's ``run_batch``), got from a scripted server on 127.0.0.1 one
request at a time, for the tests of ``parse`` on answers produced outside inspect."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any


def make_requests(n: int, model: str = "gpt-3.5-turbo") -> list[dict[str, Any]]:
    """``n`` requests of a batch input file (``custom_id`` ``w0``, ``w1``, ...)."""
    return [
        {
            "custom_id": f"w{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": model,
                "messages": [
                    {"role": "system", "content": "Solve it."},
                    {"role": "user", "content": f"q{i}"},
                ],
                "temperature": 0,
                "max_tokens": 144,
            },
        }
        for i in range(n)
    ]


def log_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of a file."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def batch_line(custom_id: str, body: Any, status: int = 200) -> dict[str, Any]:
    """One line of a batch output file: the answer ``body`` to request ``custom_id``."""
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": {"status_code": status, "request_id": custom_id, "body": body},
        "error": None,
    }


def answer_requests(requests: Path, out: Path, url: str, model: str = "fake") -> Path:
    """The server's answer to each request of ``requests`` as a batch output file ``out``, with
    a protocol record beside it (the requests' own, the model asked and the tokens used: what a
    tool that records its runs leaves)."""
    from ocw_hub.llm.log import read_requests
    from ocw_hub.llm.usage import log_usage
    from ocw_hub.provenance import write_protocol

    lines = []
    for request in read_requests(requests):
        body = json.dumps({**request["body"], "model": model}).encode("utf-8")
        sent = urllib.request.Request(
            f"{url.rstrip('/')}/chat/completions",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": "Bearer none"},
        )
        with urllib.request.urlopen(sent, timeout=30) as answer:  # 127.0.0.1 only
            lines.append(batch_line(request["custom_id"], json.load(answer)))
    out.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    write_protocol(out, {"model": model, "usage": log_usage(out, None)}, inputs=[requests])
    return out
