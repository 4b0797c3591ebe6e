"""The one offline rule: whether this process may reach the Hugging Face Hub.

The Hub is off when ``HF_HUB_OFFLINE`` is set true (``1``, ``ON``, ``YES``, ``TRUE``, any case),
read when asked (also when set after ``huggingface_hub`` was imported), or when an imported
``huggingface_hub`` read it true at its import; ``datasets``' downloads are also off with
``HF_DATASETS_OFFLINE`` (which ``datasets`` reads besides). Imports nothing.
"""

from __future__ import annotations

import os
import sys

_TRUE = ("1", "ON", "YES", "TRUE")


def offline_variable(*, datasets: bool = False) -> str | None:
    """The variable that turns the Hub off (for ``datasets``' downloads when ``datasets``), or
    None when online (see the module docstring)."""
    names = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE") if datasets else ("HF_HUB_OFFLINE",)
    for name in names:
        if os.environ.get(name, "").upper() in _TRUE:
            return name
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None and getattr(constants, "HF_HUB_OFFLINE", False):
        return "HF_HUB_OFFLINE"
    return None


def offline(*, datasets: bool = False) -> bool:
    """Whether the Hub is off for this process (:func:`offline_variable`)."""
    return offline_variable(datasets=datasets) is not None
