"""lm-evaluation-harness tasks ``ocw_grouping``, ``ocw_connections`` and ``wote``: YAML files
and the :mod:`.utils` hooks they name; ``lm_eval --include_path $(ocw-hub lm-eval-tasks)``
finds them."""

from __future__ import annotations

from pathlib import Path

#: The folder holding the task YAML files (what ``ocw-hub lm-eval-tasks`` prints).
TASKS_DIR = Path(__file__).resolve().parent
