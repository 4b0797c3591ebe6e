"""lm-evaluation-harness tasks ``ocw_grouping``, ``ocw_connections`` and ``wote`` (tag ``ocw``):
one YAML per task including ``_ocw_common.yaml``, the :mod:`.utils` hooks they name and a
``README.md`` in lm-eval's task README shape; ``lm_eval --include_path $(ocw-hub
lm-eval-tasks)`` finds them."""

from __future__ import annotations

from pathlib import Path

#: The folder holding the task YAML files (what ``ocw-hub lm-eval-tasks`` prints).
TASKS_DIR = Path(__file__).resolve().parent
