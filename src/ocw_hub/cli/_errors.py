"""The one place where an error a user can fix becomes one line on stderr and an exit code.

The core raises :class:`~ocw_hub.errors.OCWHubError` subclasses that carry the config, the file
or the argument at fault; :func:`user_message` writes them in CLI words (``--data-dir`` for
``data_dir``), and :func:`reported` (wrapped around every command by the ``ocw-hub`` group)
prints them and exits with the error's ``exit_code``. The loading scripts' format errors and the
``datasets`` errors a user can fix are messages too, and so are the file system's errors about a
named path (a read-only cache, a file where a folder is expected); anything else keeps its
traceback (a bug).
No module is imported to tell: a class is looked up only when its module is loaded.
"""

from __future__ import annotations

import errno
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Errors whose message names the command-line option at fault: ``(module, class) -> format``;
#: the first class the error is an instance of wins.
_OPTION_MESSAGES: dict[tuple[str, str], Callable[[Any], str]] = {
    ("ocw_hub.errors", "SourceUnavailableError"): lambda e: _source_message(e),
    ("ocw_hub.errors", "UnknownSplitError"): lambda e: (
        f"--split {e.split}: config {e.config!r} has splits {list(e.splits)}"
    ),
    ("ocw_hub.errors", "ChoiceError"): lambda e: (
        f"{_option(e.parameter)} {e.value}: expected one of {list(e.choices)}"
    ),
    ("ocw_hub.data.staging", "ExportPathError"): lambda e: f"{_option(e.parameter)}: {e}",
    ("ocw_hub.data.publish", "PrereleaseExportError"): lambda e: (
        f"{e}; pass --force to publish it anyway"
    ),
    ("ocw_hub.baselines.encoders", "ModelUnavailableError"): lambda e: (
        f"--model {e.model}: cannot be loaded ({e.reason}); give the local path of a "
        f"{e.kind} model folder: --model /path/to/all-MiniLM-L6-v2"
    ),
    ("ocw_hub.baselines.vectors", "VectorsFileError"): lambda e: f"--vectors {e}",
    ("ocw_hub.errors", "SliceError"): lambda e: (
        f"{_option(e.parameter)} {e.detail}" if e.parameter else str(e)
    ),
}


def _option(parameter: str) -> str:
    """The option of a function argument: ``cache_dir`` -> ``--cache-dir``."""
    return "--" + parameter.replace("_", "-")


def _source_message(err: Any) -> str:
    """A SourceUnavailableError's message with the CLI option in place of ``data_dir``."""
    option = f"--data-dir {err.config}=DIR" if err.config else "--data-dir DIR"
    return str(err).replace("data_dir=DIR", option).replace("data_dir", "--data-dir")


def _datasets_message(err: BaseException) -> str | None:
    """The message for a ``datasets`` error a user can fix, or None (only when ``datasets`` is
    loaded)."""
    from ..resources import loaded_format_errors

    exceptions = sys.modules.get("datasets.exceptions")
    if exceptions is None:
        return None
    if isinstance(err, exceptions.SplitsVerificationError):
        return (
            f"the split sizes differ from the official ones ({err}); for a local copy of "
            "another size pass --no-checks"
        )
    if isinstance(err, exceptions.DatasetGenerationError):
        cause = err.__cause__
        if isinstance(cause, loaded_format_errors()):
            return str(cause)
    return None


#: Errors of the file system a user fixes by changing a folder or its permissions (a
#: read-only ``--cache-dir`` or ``HF_HOME``, a file where a folder is expected, a full disk).
_FILESYSTEM_ERRNOS = frozenset(
    getattr(errno, name)
    for name in ("EACCES", "EPERM", "EROFS", "ENOTDIR", "EEXIST", "EISDIR", "ENOSPC", "EDQUOT")
    if hasattr(errno, name)
)


def _filesystem_message(err: BaseException) -> str | None:
    """The message of an ``OSError`` about a named path (:data:`_FILESYSTEM_ERRNOS`), also as
    the cause of another error (``datasets`` wraps some), else None."""
    from ..shown import inert

    for cause in (err, err.__cause__, err.__context__):
        if isinstance(cause, OSError) and cause.errno in _FILESYSTEM_ERRNOS and cause.filename:
            return (
                f"{inert(str(cause.filename))}: {cause.strerror}: every folder ocw-hub writes "
                "(--cache-dir, HF_HOME or HF_DATASETS_CACHE, --out) must be a folder you can "
                "write to"
            )
    return None


def user_message(err: BaseException) -> str | None:
    """The one-line message of an error a user can fix, in CLI words; None for a bug.

    ``datasets`` wraps an error raised while writing a split in ``DatasetGenerationError``; its
    cause is what the user needs to read.
    """
    from ..errors import OCWHubError
    from ..resources import loaded_format_errors

    for (module_name, class_name), message in _OPTION_MESSAGES.items():
        module = sys.modules.get(module_name)
        if module is not None and isinstance(err, getattr(module, class_name)):
            return message(err)
    if isinstance(err, (OCWHubError, *loaded_format_errors())):  # the message, no class name
        return str(err)
    return _datasets_message(err) or _filesystem_message(err)


@contextmanager
def reported() -> Iterator[None]:
    """Errors a user can fix end with ``error: <message>`` on stderr and their exit code (1
    unless the class says otherwise); ``UserWarning`` s are ``warning:`` lines as they come,
    each text once (``_common.print_warning_once``)."""
    import typer

    from . import _common

    previous = warnings.showwarning
    _common.shown_warnings = set()  # this command's

    def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if issubclass(category, UserWarning):
            _common.print_warning_once(str(message))
        else:
            previous(message, category, *args, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("always", UserWarning)  # each one, not once per place
        warnings.showwarning = show
        try:
            yield
        except Exception as err:
            message = user_message(err)
            if message is None:
                raise
            from ._common import print_error

            print_error(message)
            raise typer.Exit(getattr(err, "exit_code", 1)) from None
        finally:
            _common.shown_warnings = None
