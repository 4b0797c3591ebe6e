"""Ctrl-C (SIGINT) at any moment of a command: one line, exit code 130, no traceback.

Python turns SIGINT into ``KeyboardInterrupt``, which ``click`` prints as ``Aborted!`` with exit
code 1, and which worker processes and helper threads print as tracebacks of their own. Here
SIGINT is recorded and raises :class:`Interrupted` in the main thread instead: every ``finally``
on the way out runs (a file being written is removed, see :mod:`ocw_hub.outputs`; a folder lock
released), then the worker processes are stopped and the program exits 130.

Once recorded, an interrupt is final: library code that swallows it (an optional import in a
``try``/``except ImportError`` whose C extension failed with it, a ``__del__``) cannot let the
command run on to exit 0. The command ends 130 whatever it raises or returns afterwards, and
:func:`check` (called before each output is moved into place) raises it again, so nothing is
written after it. Worker processes ignore SIGINT
(:func:`ocw_hub.baselines.protocol.workers_ignore_sigint`).

A SIGINT ignored when the program starts stays ignored (a shell starts a background job so;
Python then installs no handler either): only an interrupt the program was meant to receive
ends it. Standard library only: it is installed before the command's modules are imported.
"""

from __future__ import annotations

import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: The exit code of a command ended by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED_EXIT = 130


class Interrupted(BaseException):
    """SIGINT, raised in the main thread in place of ``KeyboardInterrupt``."""


class _State:
    recorded = False  # a SIGINT arrived during the command
    holding = 0  # depth of held() blocks: the SIGINT is raised at the end of the outermost
    active = False  # run_interruptible installed the handler (nested calls leave it to it)


def _on_sigint(signum: int, frame: Any) -> None:
    _State.recorded = True
    if _State.holding:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut the cleanup
    raise Interrupted


def check() -> None:
    """Raise :class:`Interrupted` if Ctrl-C arrived during the command, even when the exception
    it raised was swallowed on the way (called before an output is moved into place)."""
    if _State.recorded:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # as _on_sigint
        raise Interrupted


@contextmanager
def held() -> Iterator[None]:
    """Ctrl-C during the block is raised at its end (the renames that put several outputs in
    place at once). Works whatever thread the signal reaches: Python runs the handler in the
    main thread, which records it. Outside the main thread (which no signal interrupts) the
    block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _State.holding += 1
    try:
        yield
    finally:
        _State.holding -= 1
    if not _State.holding:
        check()


def _stop_workers() -> None:
    """End joblib's worker processes, if any were started (they would outlive us a while).
    Their tasks in flight (a chunk of walls each, well under a second) finish first: killing
    them races joblib's resource tracker, which then prints a traceback of its own."""
    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=False)


def _quiet_unraisable(previous: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An interrupt raised where Python can only print it (``__del__``, a callback) is not
    printed: it is recorded and ends the command all the same."""

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, (Interrupted, KeyboardInterrupt)):
            previous(unraisable)

    return hook


def _interrupted_exit() -> SystemExit:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.excepthook = lambda args: None  # a helper thread whose workers stop
    warnings.simplefilter("ignore")  # joblib's clean-up of its stopped pool, at exit
    _stop_workers()
    sys.stderr.write("\ninterrupted\n")
    return SystemExit(INTERRUPTED_EXIT)


def run_interruptible(main: Callable[[], Any]) -> Any:
    """``main()``; Ctrl-C during it prints ``interrupted`` on stderr and exits 130, whatever
    ``main`` raises or returns once it has arrived. SIGINT ignored at the start stays ignored.

    Raises:
        SystemExit: 130 after Ctrl-C (and whatever ``main`` raises).
    """
    outer = threading.current_thread() is threading.main_thread() and not _State.active
    if not outer:
        return main()
    _State.recorded, _State.holding = False, 0
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # started so: a background job
        return main()
    _State.active = True
    sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        result = main()
    except BaseException as err:
        if _State.recorded or isinstance(err, KeyboardInterrupt):
            raise _interrupted_exit() from None
        raise
    else:
        if _State.recorded:
            raise _interrupted_exit()
        return result
    finally:
        # the command is over: a Ctrl-C in the exit hooks changes nothing
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _State.active = _State.recorded = False  # outputs written later in this process pass
