"""``ocw-hub lm-eval-tasks``: the folder of the lm-evaluation-harness task files."""

from __future__ import annotations

import typer


def lm_eval_tasks() -> None:
    """Print the folder of the lm-evaluation-harness tasks ocw_grouping, ocw_connections, wote.

    Use: lm_eval --include_path "$(ocw-hub lm-eval-tasks)" --tasks ocw_grouping
    --apply_chat_template --metadata '{"data_dir": ..., "shots": 0}' (see docs/experiment.md).
    """
    from ..lm_eval_tasks import TASKS_DIR

    typer.echo(str(TASKS_DIR))
