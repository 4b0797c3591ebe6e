"""Child processes that receive Ctrl-C as a terminal's foreground job does.

A shell starts a background job (``bash .ci/run &``, a CI runner's script) with SIGINT ignored,
and an ignored signal stays ignored in every child: the ocw-hub program then keeps ignoring it
(as Python does), and a test of Ctrl-C would see the command run on. :func:`start` gives the
child SIGINT at its default and unblocked, whatever this process does with it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"


def default_sigint() -> None:
    """In the child, before ``exec``: SIGINT at its default disposition, not blocked."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def start(command: list[str], **kwargs: Any) -> subprocess.Popen:
    """``Popen(command)`` in a session of its own (Ctrl-C goes to its group, as a terminal's
    does), with SIGINT at its default (:func:`default_sigint`)."""
    return subprocess.Popen(command, start_new_session=True, preexec_fn=default_sigint, **kwargs)


def interrupted(
    args: list[str], delay: float, timeout: float = 300
) -> tuple[subprocess.CompletedProcess, float | None]:
    """``python -m ocw_hub ARGS`` (this checkout's), SIGINT to its group after ``delay``
    seconds if still running; the ended process and when the signal was sent (``time.time()``,
    None if it was not)."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = start(
        [sys.executable, "-m", "ocw_hub", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    sent = None
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        sent = time.time()
        os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), sent
