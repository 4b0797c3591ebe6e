"""``ocw-hub build``: one Parquet hub export per dataset."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from ..shown import inert
from . import app
from ._common import (
    check_config,
    console,
    data_dirs,
    fail,
    print_notes,
    progress,
    quiet_datasets,
    user_errors,
)
from .options import CacheDir, DataDir, Fresh, NoChecks

#: ``build``'s options for the arguments of ``build_export`` that an ExportPathError names.
PATH_OPTIONS = {"out": "--out", "cache_dir": "--cache-dir"}


@contextmanager
def _export_path_errors() -> Iterator[None]:
    """An unsafe export destination: one line naming the option at fault."""
    from ..data.staging import ExportPathError

    try:
        yield
    except ExportPathError as err:
        fail(f"{PATH_OPTIONS.get(err.parameter, err.parameter)}: {err}")


def _offline() -> bool:
    """Whether downloads are off: ``HF_HUB_OFFLINE`` or ``HF_DATASETS_OFFLINE`` set true, as
    ``datasets`` reads them."""
    import os

    return any(
        os.environ.get(name, "").upper() in ("1", "ON", "YES", "TRUE")
        for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
    )


def _default_configs(dirs: dict[str, str]) -> list[str]:
    """The configs built when no ``--config`` is given (see :func:`_sources`)."""
    from ..configs import CONFIGS

    names = [name for name in CONFIGS if name in dirs]
    if not names and not _offline():
        names = list(CONFIGS)  # every config from its official download
    missing = ", ".join(f"--data-dir {name}=DIR" for name in CONFIGS if name not in names)
    if not names:
        fail(f"offline, and no config is given a local source: add {missing}")
    if missing:
        print_notes([f"built only {', '.join(names)}; for the others add {missing}"])
    return names


def _sources(config: list[str] | None, data_dir: list[str] | None) -> dict[str, str | None]:
    """{config: its --data-dir or None (download)}: the given configs, else those with a
    ``--data-dir CONFIG=DIR``, else (online) all four; a note names the option of each config
    left out, and offline with no source at all is an error naming them."""

    dirs = data_dirs(data_dir)
    names = list(dict.fromkeys(check_config(n) for n in config or []))
    if "*" in dirs:
        if len(names) != 1:
            fail(f"--data-dir {dirs['*']}: name its config (CONFIG=DIR) or give one --config")
        dirs[names[0]] = dirs.pop("*")
    names = names or _default_configs(dirs)
    unused = sorted(set(dirs) - set(names))
    if unused:
        name = unused[0]
        fail(f"--data-dir {name}=...: config {name} is not built (add --config {name})")
    return {name: dirs.get(name) for name in names}


@app.command()
def build(
    config: Annotated[
        list[str] | None,
        typer.Option(
            "--config",
            "-c",
            help="Config to build (repeatable). Default: every config given a --data-dir, "
            "else all four from the official downloads.",
        ),
    ] = None,
    data_dir: DataDir = None,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Folder of the exports: OUT/ocw (OCW configs) and OUT/wote, each with its "
            "own card; a symbolic link is followed and the exports behind it updated.",
        ),
    ] = Path("build/hub"),
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
    fresh: Fresh = False,
) -> None:
    """Prepare configs and write one Parquet hub export per dataset: OUT/ocw and OUT/wote, each
    README.md (its card) and data/<config>/<split>-<sha12>.parquet (named by content)."""
    from ..data.export import SPLITS, ExportedSplit, build_export

    sources = _sources(config, data_dir)
    with quiet_datasets(), progress(transient=False) as bar:
        task = bar.add_task("building", total=len(sources) * len(SPLITS))

        def on_config(name: str) -> None:
            bar.update(task, description=f"building {name}")

        def on_split(item: ExportedSplit) -> None:
            bar.update(task, advance=1, description=f"wrote {item.config}/{item.split}")

        with user_errors(), _export_path_errors():
            written = build_export(
                sources,
                out,
                cache_dir=cache_dir,
                verification_mode="no_checks" if no_checks else None,
                download_mode="force_redownload" if fresh else None,
                on_config=on_config,
                on_split=on_split,
            )
    table = Table(title=Text(f"Hub exports written to {inert(out)} (one per dataset)"))
    for column in ("config", "split", "rows", "answers located", "file"):
        table.add_column(
            column, justify="left" if column in ("config", "split", "file") else "right"
        )
    for item in written:
        located = "" if item.answers_located is None else str(item.answers_located)
        path = f"{item.export}/{item.path}"
        table.add_row(item.config, item.split, str(item.num_rows), located, path)
    console.print(table)
