"""ocw-hub: load, validate, score and publish the OCW and WoTe benchmarks.

The loading scripts ``OCW.py`` and ``WoTe.py`` and the ``ocw_metric`` evaluate module live at
the repository root (as the Hugging Face Hub expects them); this package imports them rather
than copying them. Entry points:

* :func:`load_dataset` / :func:`get_builder`: the builders through the Python API, on any
  ``datasets`` version (no script loading).
* :func:`ocw_hub.export.build_export`: the Parquet hub layout (``ocw-hub build``).
* :mod:`ocw_hub.evaluation`: scoring prediction files (``ocw-hub evaluate``).
"""

from __future__ import annotations

from .builders import CONFIGS, get_builder, load_dataset, official_splits

__all__ = ["CONFIGS", "get_builder", "load_dataset", "official_splits"]
__version__ = "0.1.0"
