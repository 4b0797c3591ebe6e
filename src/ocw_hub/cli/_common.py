"""What every ``ocw-hub`` command shares: consoles, messages, progress bars, option checks.

CLI words (option names such as ``--data-dir``) live in this package only: the core raises
:class:`~ocw_hub.errors.OCWHubError` subclasses that carry the config or the field; a check of
an option here raises :class:`~ocw_hub.errors.OptionError`; :mod:`._errors` prints either.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..configs import verification_mode
from ..errors import OptionError
from ..shown import inert

#: Columns of an output that is not a terminal (a file, a pipe): no table is cut to fit.
UNBOUNDED_COLUMNS = 10_000


def make_console(**options: Any) -> Any:
    """A ``rich`` console as wide as the terminal it writes to, and unbounded when it writes to
    a file or a pipe (``rich`` would take 80 columns, or the width of another terminal the
    process has); ``COLUMNS`` and an explicit width win. ``options``: ``rich.console.Console``'s."""
    from rich.console import Console, ConsoleDimensions

    class _Console(Console):
        @property
        def size(self) -> ConsoleDimensions:
            size = super().size
            if self._width is None and not self.is_terminal and "COLUMNS" not in self._environ:
                return ConsoleDimensions(UNBOUNDED_COLUMNS, size.height)
            return size

        @size.setter
        def size(self, new_size: tuple[int, int]) -> None:
            self._width, self._height = new_size

    return _Console(**options)


class _LazyConsole:
    """The program's console (:func:`make_console`), made when a command first prints: a
    command's ``--help`` imports no ``rich``. Attributes are read and set on the console."""

    def __init__(self, stderr: bool = False) -> None:
        object.__setattr__(self, "_stderr", stderr)
        object.__setattr__(self, "_console", None)

    def _made(self) -> Any:
        if self._console is None:
            object.__setattr__(self, "_console", make_console(stderr=self._stderr))
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._made(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._made(), name, value)


console: Any = _LazyConsole()
err_console: Any = _LazyConsole(stderr=True)

#: Characters of one line of an error, note or warning (each echoed value is also cut where it
#: is written, see :func:`ocw_hub.shown.preview`): the terminal's wrapping stays cheap.
MESSAGE_LINE_CHARS = 2000

#: The environment variable ``datasets`` reads on import to hide its progress bars.
_NO_BARS = "HF_DATASETS_DISABLE_PROGRESS_BARS"


def escape(text: str) -> str:
    """``rich.markup.escape`` (``rich`` imported when a command prints, not for its help)."""
    from rich.markup import escape as escape_markup

    return escape_markup(text)


def shown_message(message: str) -> str:
    """A message as printed: data text in it made inert (:func:`ocw_hub.shown.inert`, newlines
    kept), each line cut to :data:`MESSAGE_LINE_CHARS`, ``rich`` markup escaped."""
    lines = message.split("\n")
    return escape("\n".join(inert(line, limit=MESSAGE_LINE_CHARS) for line in lines))


def print_error(message: str) -> None:
    """``error: message`` on stderr (the one-line end of a command, see :mod:`._errors`)."""
    err_console.print(
        f"[bold red]error:[/] {shown_message(message)}", highlight=False, soft_wrap=True
    )


#: The warning texts the running command has shown (a set while ``_errors.reported`` runs
#: one, else None).
shown_warnings: set[str] | None = None


def print_warning_once(message: str) -> None:
    """:func:`print_warning`, unless the running command has shown this text already (a
    command that reads a split twice, e.g. its walls and its shots, warns of a quirk once)."""
    if shown_warnings is not None:
        if message in shown_warnings:
            return
        shown_warnings.add(message)
    print_warning(message)


def print_warning(message: str) -> None:
    """``warning: message`` on stderr."""
    err_console.print(
        f"[yellow]warning:[/] {shown_message(message)}", highlight=False, soft_wrap=True
    )


def print_notes(notes: list[str]) -> None:
    """Each note on stderr, as ``note: ...``."""
    for note in notes:
        err_console.print(
            f"[yellow]note:[/] {shown_message(note)}", highlight=False, soft_wrap=True
        )


@contextmanager
def quiet_datasets() -> Iterator[None]:
    """Our rich progress bars instead of datasets' tqdm bars; data warnings as one-line notes,
    each distinct one once.

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
            shown = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
            for message in dict.fromkeys(shown):  # each once
                print_warning_once(message)


def progress(transient: bool = True) -> Any:
    """A rich progress bar on stderr (description, bar, done/total, elapsed time); none when
    stderr is no terminal (a log, a pipe: rich would leave a blank line there)."""
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
        disable=not err_console.is_terminal,
    )


def worker_count(jobs: int | None) -> int:
    """``--jobs`` capped at the cores this process may use; by default the cores not busy
    (:func:`idle_cores`). A note says when ``--jobs`` is cut."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    if jobs is not None and jobs > cores:
        print_notes([f"--jobs {jobs}: {cores} used (the cores available)"])
    return min(jobs or idle_cores(cores), cores)


def idle_cores(cores: int) -> int:
    """The ``cores`` not busy: ``cores`` less the 1-minute load average, rounded, at least 1
    (``cores`` where the load is unknown). A second worker on a core that other jobs use
    costs CPU and gains no time: measured on the 2-core machine at load 4.8, ``predict`` of
    2 runs took 9.2 s of CPU and 13.5 s with two workers, 7.5 s and 10.4 s with one."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, min(cores, round(cores - load)))


def check_config(name: str) -> str:
    """The public config name of ``name`` (``ocw`` is an alias of ``default``).

    Raises:
        OptionError: an unknown name.
    """
    from ..configs import config_spec

    try:
        return config_spec(name).name
    except ValueError as err:
        raise OptionError(f"{err} (or `ocw` for default)") from None


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
    parse, show)."""
    from ..data.sources import load_rows

    with quiet_datasets():
        return load_rows(
            config,
            split,
            data_dir,
            cache_dir=cache_dir,
            verification_mode=verification_mode(no_checks),
            download_mode=download_mode,
        ).rows


def data_dirs(values: list[str] | None) -> dict[str, str]:
    """``--data-dir`` values as ``{config: DIR}``; a DIR without ``CONFIG=`` is under ``"*"``.

    Raises:
        OptionError: a config (or ``*``) given twice.
    """
    from ..configs import ALIASES, CONFIGS

    dirs: dict[str, str] = {}
    for value in values or []:
        name, sep, rest = value.partition("=")
        name = ALIASES.get(name, name)
        key, folder = (name, rest) if sep and name in CONFIGS else ("*", value)
        if key in dirs:
            raise OptionError(f"--data-dir {value}: {'DIR' if key == '*' else key} is given twice")
        dirs[key] = folder
    return dirs


def data_dir_of(values: list[str] | None, config: str) -> str | None:
    """The ``--data-dir`` of a command that reads one config.

    Raises:
        OptionError: a value names another config.
    """
    dirs = data_dirs(values)
    others = sorted(set(dirs) - {config, "*"})
    if others:
        raise OptionError(f"--data-dir {others[0]}=...: this command reads config {config}")
    return dirs.get(config, dirs.get("*"))


def check_ocw(config: str) -> str:
    """:func:`check_config` for commands that group walls; OptionError on WoTe."""
    from ..configs import config_spec

    config = check_config(config)
    spec = config_spec(config)
    if "grouping" not in spec.tasks:
        raise OptionError(
            f"--config {config}: this command is for the OCW configs (walls), not {spec.units}"
        )
    return config


def check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    """OptionError unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise OptionError(f"{option} {value}: expected one of {', '.join(choices)}")


def local_path(data_dir: str | None) -> Path | None:
    """``--data-dir`` as a path when it is one (it may also be a Hub repo id)."""
    return Path(data_dir) if data_dir is not None and Path(data_dir).exists() else None
