"""What every ``ocw-hub`` command shares: consoles, one-line errors, progress bars, options.

CLI words (option names such as ``--data-dir``) live in this package only: the core raises
:class:`~ocw_hub.errors.OCWHubError` subclasses that carry the config or the field, and
:func:`user_errors` turns them (and the loading scripts' format errors) into one line and exit
code 1. Any other exception keeps its traceback: it is a bug.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)

#: The option that gives a config's local source in the scoring and experiment commands.
DATA_DIR_OPTION = "--data-dir"
#: The environment variable ``datasets`` reads on import to hide its progress bars.
_NO_BARS = "HF_DATASETS_DISABLE_PROGRESS_BARS"


def fail(message: str) -> None:
    """Print ``error: message`` on stderr and exit 1."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def _source_message(err: Any, option: str | None) -> str:
    """A SourceUnavailableError's message with the CLI option in place of ``data_dir``."""
    if option is None:
        return str(err)
    return str(err).replace("data_dir=DIR", f"{option} DIR").replace("data_dir", option)


def _datasets_error(err: Exception) -> str | None:
    """The message for a ``datasets`` error a user can fix, or None (only when ``datasets`` is
    loaded: it is imported by the commands that need it, not here)."""
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
            return f"{type(cause).__name__}: {cause}"
    return None


@contextmanager
def user_errors(source_options: dict[str, str] | None = None) -> Iterator[None]:
    """Errors a user can fix end with one line and exit code 1; anything else propagates.

    Args:
        source_options: config name -> the option of this command that gives its local source
            (default: ``--data-dir`` for every config).

    ``datasets`` wraps an error raised while writing a split in ``DatasetGenerationError``;
    its cause is what the user needs to read.
    """
    from ..errors import OCWHubError, SourceUnavailableError, UnknownSplitError
    from ..resources import loaded_format_errors

    try:
        yield
    except SourceUnavailableError as err:
        option = (source_options or {}).get(err.config, DATA_DIR_OPTION)
        fail(_source_message(err, option))
    except UnknownSplitError as err:
        fail(f"--split {err.split}: config {err.config!r} has splits {list(err.splits)}")
    except OCWHubError as err:
        fail(str(err))
    except Exception as err:
        if isinstance(err, loaded_format_errors()):
            fail(f"{type(err).__name__}: {err}")
        message = _datasets_error(err)
        if message is None:
            raise
        fail(message)


@contextmanager
def quiet_datasets() -> Iterator[None]:
    """Our rich progress bars instead of datasets' tqdm bars; data warnings as one-line notes.

    Does not import ``datasets``: when it is not loaded yet, its progress bars are turned off
    through the environment variable it reads on import.
    """
    datasets = sys.modules.get("datasets")
    previous = os.environ.get(_NO_BARS)
    if datasets is not None:
        datasets.disable_progress_bars()
    else:
        os.environ[_NO_BARS] = "1"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop(_NO_BARS, None)
            else:
                os.environ[_NO_BARS] = previous
            if datasets is not None and not datasets.config.HF_DATASETS_DISABLE_PROGRESS_BARS:
                datasets.enable_progress_bars()  # turned off above; not when the environment
                # variable did it (datasets read it on import and would warn)
            for warning in caught:
                if issubclass(warning.category, UserWarning):
                    err_console.print(
                        f"[yellow]warning:[/] {escape(str(warning.message))}", highlight=False
                    )


def progress(transient: bool = True) -> Any:
    """A rich progress bar on stderr (description, bar, done/total, elapsed time)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=transient,
    )


def check_config(name: str) -> str:
    """The public config name of ``name`` (``ocw`` is an alias of ``default``); exits 1 on an
    unknown name."""
    from ..configs import config_spec

    try:
        return config_spec(name).name
    except ValueError as err:
        fail(f"{err} (or `ocw` for default)")
        raise  # fail() exits; this line is never reached


def load_split_rows(
    config: str,
    split: str,
    data_dir: str | Path | None,
    *,
    cache_dir: Path | None = None,
    no_checks: bool = False,
    download_mode: str | None = None,
) -> list[dict[str, Any]]:
    """The rows of one split of a config, for commands that read a split (prompts, predict,
    parse, show); errors as :func:`user_errors` prints them."""
    from ..data.sources import load_split

    with user_errors(), quiet_datasets():
        dataset = load_split(
            config,
            split,
            data_dir,
            cache_dir=cache_dir,
            verification_mode="no_checks" if no_checks else None,
            download_mode=download_mode,
        )
        return dataset.to_list()


CONFIG_HELP = "default (alias ocw), ocw_randomized, ocw_wordnet or wote."
SPLIT_HELP = "train, validation or test."
DATA_DIR_HELP = (
    "The config's data: raw source files (folder or tarball), an `ocw-hub build` export "
    "folder, or a Hub repo id (default: the prepared cache, else the official download)."
)
