"""``ocw-hub build``: one Parquet hub export per dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..configs import verification_mode
from ..errors import OptionError
from ..offline import offline
from ..shown import inert
from ._common import check_config, console, data_dirs, print_notes, progress, quiet_datasets
from .options import CacheDir, DataDir, Fresh, NoChecks


def _default_configs(dirs: dict[str, str]) -> list[str]:
    """The configs built when no ``--config`` is given (see :func:`_sources`)."""
    from ..configs import CONFIGS

    names = [name for name in CONFIGS if name in dirs]
    if not names and not offline(datasets=True):
        names = list(CONFIGS)  # every config from its official download
    missing = ", ".join(f"--data-dir {name}=DIR" for name in CONFIGS if name not in names)
    if not names:
        raise OptionError(f"offline, and no config is given a local source: add {missing}")
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
            raise OptionError(
                f"--data-dir {dirs['*']}: name its config (CONFIG=DIR) or give one --config"
            )
        dirs[names[0]] = dirs.pop("*")
    names = names or _default_configs(dirs)
    unused = sorted(set(dirs) - set(names))
    if unused:
        name = unused[0]
        raise OptionError(
            f"--data-dir {name}=...: config {name} is not built (add --config {name})"
        )
    return {name: dirs.get(name) for name in names}


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

        written = build_export(
            sources,
            out,
            cache_dir=cache_dir,
            verification_mode=verification_mode(no_checks),
            download_mode="force_redownload" if fresh else None,
            on_config=on_config,
            on_split=on_split,
        )
    from rich.table import Table
    from rich.text import Text

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
