"""Ctrl-C (SIGINT) at any moment of a command: one line, exit code 130, no traceback.

Python turns SIGINT into ``KeyboardInterrupt``, which ``click`` prints as ``Aborted!`` with exit
code 1, and which worker processes and helper threads print as tracebacks of their own. Here
SIGINT raises :class:`Interrupted` in the main thread instead: every ``finally`` on the way out
runs (a file being written is removed, see :mod:`ocw_hub.outputs`; a folder lock released),
then the worker processes are stopped and the program exits 130. Worker processes ignore
SIGINT (:func:`ocw_hub.baselines.protocol.workers_ignore_sigint`). Standard library only: it
is installed before the command's modules are imported.
"""

from __future__ import annotations

import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

#: The exit code of a command ended by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED_EXIT = 130


class Interrupted(BaseException):
    """SIGINT, raised in the main thread in place of ``KeyboardInterrupt``."""


def _on_sigint(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut the cleanup
    raise Interrupted


def _stop_workers() -> None:
    """End joblib's worker processes, if any were started (they would outlive us a while).
    Their tasks in flight (a chunk of walls each, well under a second) finish first: killing
    them races joblib's resource tracker, which then prints a traceback of its own."""
    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=False)


def run_interruptible(main: Callable[[], Any]) -> Any:
    """``main()``; Ctrl-C during it prints ``interrupted`` on stderr and exits 130.

    Raises:
        SystemExit: 130 after Ctrl-C (and whatever ``main`` raises).
    """
    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread:
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        return main()
    except (Interrupted, KeyboardInterrupt):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        threading.excepthook = lambda args: None  # a helper thread whose workers stop
        warnings.simplefilter("ignore")  # joblib's clean-up of its stopped pool, at exit
        _stop_workers()
        sys.stderr.write("\ninterrupted\n")
        raise SystemExit(INTERRUPTED_EXIT) from None
    finally:
        if main_thread:  # the command is over: a Ctrl-C in the exit hooks changes nothing
            signal.signal(signal.SIGINT, signal.SIG_IGN)
