"""The one offline rule: whether this process may reach the Hugging Face Hub.

Downloads (``datasets``) and uploads (``huggingface_hub``) are off when ``HF_HUB_OFFLINE`` or
``HF_DATASETS_OFFLINE`` is set true (``1``, ``ON``, ``YES``, ``TRUE``, any case), read when asked
(also when set after ``datasets`` or ``huggingface_hub`` was imported), or when an imported
``huggingface_hub`` read ``HF_HUB_OFFLINE`` true at its import. Imports nothing.
"""

from __future__ import annotations

import os
import sys

#: The environment variables that turn the Hub off, in the order they are named.
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
_TRUE = ("1", "ON", "YES", "TRUE")


def offline_variable() -> str | None:
    """The variable that turns the Hub off (see the module docstring), or None when online."""
    for name in OFFLINE_VARIABLES:
        if os.environ.get(name, "").upper() in _TRUE:
            return name
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None and getattr(constants, "HF_HUB_OFFLINE", False):
        return OFFLINE_VARIABLES[0]
    return None


def offline() -> bool:
    """Whether the Hub is off for this process (:func:`offline_variable`)."""
    return offline_variable() is not None
