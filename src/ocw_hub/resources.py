"""Where the hub files (builders, metric, ``dataset_infos.json``) are on this install.

In a source checkout or an editable install they are at the repository root; a wheel carries
copies of the same files under ``ocw_hub/_hub/`` (see ``[tool.hatch...force-include]`` in
``pyproject.toml``). Either way there is one source of truth: the files at the repository root.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def hub_root() -> Path:
    """The folder holding ``OCW.py``, ``WoTe.py``, ``metrics/`` and ``dataset_infos.json``.

    Raises:
        FileNotFoundError: neither a wheel copy nor a source checkout is found.
    """
    for candidate in (_PACKAGE_DIR / "_hub", _PACKAGE_DIR.parents[1]):
        if (candidate / "OCW.py").is_file() and (candidate / "WoTe.py").is_file():
            return candidate
    raise FileNotFoundError(
        f"OCW.py and WoTe.py not found next to the ocw_hub package ({_PACKAGE_DIR}); "
        "reinstall ocw-hub from a checkout of the repository"
    )


def metric_dir() -> Path:
    """The ``metrics/ocw_metric`` folder (the evaluate module and its card)."""
    return hub_root() / "metrics" / "ocw_metric"


def dataset_infos_path() -> Path:
    """The root ``dataset_infos.json`` (features and official split sizes of every config)."""
    return hub_root() / "dataset_infos.json"


def file_hash(path: Path) -> str:
    """First 16 hex digits of the SHA-256 of a file (keys the builder cache on the script)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@cache
def load_hub_module(name: str) -> ModuleType:
    """Import a root loading script (``"OCW"`` or ``"WoTe"``) by path, once per process.

    The scripts import only the standard library and ``datasets``, so the same file serves the
    Hub (as a script on ``datasets`` 3.x) and this package (as a module on any version).
    """
    path = hub_root() / f"{name}.py"
    module_name = f"ocw_hub._hub.{name}"  # last part names the builder: "ocw", "wo_te"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - only on a broken install
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
