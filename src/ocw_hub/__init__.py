"""ocw-hub: load, validate, score and publish the OCW and WoTe benchmarks.

The loading scripts ``OCW.py`` and ``WoTe.py`` and the ``ocw_metric`` evaluate module live at
the repository root (as the Hugging Face Hub expects them); this package imports them rather
than copying them. Entry points:

* :func:`load_dataset` / :func:`get_builder`: the builders through the Python API, on any
  ``datasets`` version (no script loading).
* :func:`load_metric`: the ``ocw_metric`` evaluate module of this install, from any folder.
* :func:`evaluate_files`: score predictions files (one run or several) as ``ocw-hub evaluate``.
* :func:`season_table`: the release's ``season_to_walls_map`` (walls, first and last air
  dates per season), dates parsed.
* :func:`wall`: one wall (with its prediction), drawn as a 4x4 grid in Jupyter and the terminal.
* :func:`ocw_hub.data.export.build_export`: the Parquet hub layout (``ocw-hub build``).
* :mod:`ocw_hub.scoring.runs`: scoring prediction files (``ocw-hub evaluate``).

Names are imported on first use, so ``import ocw_hub`` (and ``ocw-hub --help``) stays quick.
"""

from __future__ import annotations

from importlib import import_module

# ``import ocw_hub`` runs before the ``ocw-hub`` program can handle Ctrl-C
# (:mod:`ocw_hub.interrupts`): it imports nothing, not even ``typing``. mypy reads the names here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .configs import ALIASES as ALIASES
    from .configs import CONFIGS as CONFIGS
    from .errors import ExportError as ExportError
    from .errors import OCWHubError as OCWHubError
    from .errors import OutputPathError as OutputPathError
    from .errors import PredictionsError as PredictionsError
    from .errors import SourceUnavailableError as SourceUnavailableError
    from .errors import WrongSourceError as WrongSourceError

__version__ = "0.1.0"

_LAZY = {
    "ALIASES": "configs",
    "CONFIGS": "configs",
    "ExportError": "errors",
    "OCWHubError": "errors",
    "OutputPathError": "errors",
    "PredictionsError": "errors",
    "SourceUnavailableError": "errors",
    "WrongSourceError": "errors",
    "get_builder": "data.builders",
    "load_dataset": "data.builders",
    "official_splits": "data.builders",
    "load_metric": "scoring.metric",
    "wall": "views.wall",
    "season_table": "data.card",
    "evaluate_files": "evaluation",
}

__all__ = [*_LAZY]


#: Submodules reachable as attributes of ``import ocw_hub`` (``ocw_hub.resources.metric_dir()``),
#: imported on first use.
_SUBMODULES = ("baselines", "cli", "data", "experiment", "llm", "resources", "scoring", "views")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    if name in _SUBMODULES:
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
