"""lm-eval's request cache (``--cache_requests true``) kept in step with the task settings.

lm-eval names a task's cached requests by the task name, ``num_fewshot``, the chat-template
flags and the tokenizer (``requests-ocw_grouping-Noneshot-rank0-world_size1-tokenizer…``), not
by ``--metadata`` (``data_dir``, ``split``, ``shots``, ``seed``, ``no_checks``) nor by the data:
a run with other settings would send the prompts cached by an earlier run. So each task
records, beside lm-eval's entries, a digest of its settings and of the docs it built (which
hold the prompts, so the digest sees the data too), and deletes its own entries with
lm-eval's ``delete_cache`` when the digest differs, before lm-eval looks them up (the docs are
built when the task is made, the requests later).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..outputs import write_text_atomic

#: The suffix of the digest file beside lm-eval's entries of a task.
DIGEST_SUFFIX = ".ocw-hub-digest"

_TASK_NAME = re.compile(r"[A-Za-z0-9_.]+")


def settings_digest(settings: Mapping[str, Any], docs: Sequence[Mapping[str, Any]]) -> str:
    """SHA-256 (hex) of the settings and the docs, as canonical JSON (keys sorted)."""
    payload = json.dumps(
        {"settings": settings, "docs": docs}, sort_keys=True, ensure_ascii=False, default=str
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def forget_stale_requests(settings: Mapping[str, Any], docs: Sequence[Mapping[str, Any]]) -> bool:
    """Delete lm-eval's cached requests of the task ``settings["lm_eval_task"]`` unless they
    were built from these settings and docs; record their digest. Nothing happens without
    that key (the hooks called outside lm-eval), without lm-eval, or when lm-eval's cache
    folder does not exist (no entry to be stale).

    Returns:
        Whether the task's entries were deleted.

    Raises:
        ValueError: a task name that is not a plain name (letters, digits, ``_``, ``.``).
        ocw_hub.errors.OutputPathError: the digest file is a link or not a regular file.
    """
    task = settings.get("lm_eval_task")
    if task is None:
        return False
    if not isinstance(task, str) or not _TASK_NAME.fullmatch(task):
        raise ValueError(f"lm_eval_task must be a plain task name, got {task!r}")
    try:
        from lm_eval.caching import cache
    except ImportError:
        return False
    folder = Path(cache.PATH)
    if not folder.is_dir():
        return False
    digest = settings_digest(settings, docs)
    record = folder / f"requests-{task}{DIGEST_SUFFIX}"
    if not record.is_symlink() and record.is_file():
        if record.read_text(encoding="utf-8").strip() == digest:
            return False
    cache.delete_cache(key=f"requests-{task}-")
    write_text_atomic(record, digest + "\n")
    return True
