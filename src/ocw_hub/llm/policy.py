"""The client's stopping rule, importable without the client (``run-llm --help`` states it and
imports no ``asyncio`` nor the response log)."""

from __future__ import annotations

#: Deterministic 4xx answers in a row after which the run stops.
CLIENT_ERRORS_TO_STOP = 3
