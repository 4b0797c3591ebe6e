"""What ``ocw-hub play`` shares of the retired ``run-llm`` command (one-shot runs are
``inspect eval ocw_hub/ocw_grouping``, docs/inspect.md): goes with ``play``'s own runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ..errors import OptionError
from ..shown import inert
from ._common import MESSAGE_LINE_CHARS, escape


def _shown(text: object) -> str:
    """Server or data text on one line of the terminal: made inert (escapes shown as
    ``\\x1b``, line breaks as ``\\n``), cut, ``rich`` markup escaped."""
    return escape(inert(text, limit=MESSAGE_LINE_CHARS))


def _check_base_url(base_url: str) -> None:
    parsed = urlparse(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise OptionError(
            f"--base-url {base_url}: expected an http(s) URL such as http://localhost:8000/v1"
        )


def _server_failure(err: Any, out: Path) -> OptionError:
    """The error that ends a run whose servers failed, naming the option at fault."""
    if err.status_code == 404:
        option, value = "--model", err.model
    elif err.status_code in (401, 403):
        option, value = "OPENAI_API_KEY for --base-url", err.base_url
    else:
        option, value = "--base-url", err.base_url
    kept = f"answers so far are kept in {out}" if out.exists() else f"{out} not written"
    return OptionError(f"{option} {value}: {inert(err.reason)} ({kept})")  # one line
