"""``ocw-hub build``, ``check``, ``publish`` and ``infos``: the Hub export and its checks."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from ..configs import CONFIGS
from . import app
from ._common import (
    check_config,
    console,
    err_console,
    fail,
    progress,
    quiet_datasets,
    user_errors,
)

#: ``ocw-hub build`` option of each config's local source: ``--ocw-dir`` for ``default``,
#: ``--<config>-dir`` with dashes for the others (``--ocw-randomized-dir``, ``--wote-dir``).
SOURCE_OPTIONS = {
    name: "--ocw-dir" if name == "default" else f"--{name.replace('_', '-')}-dir"
    for name in CONFIGS
}


#: ``build``'s options for the arguments of ``build_export`` that an ExportPathError names.
PATH_OPTIONS = {"out": "--out", "cache_dir": "--cache-dir"}


@contextmanager
def _export_path_errors() -> Iterator[None]:
    """An unsafe export destination: one line naming the option at fault."""
    from ..data.export import ExportPathError

    try:
        yield
    except ExportPathError as err:
        fail(f"{PATH_OPTIONS.get(err.parameter, err.parameter)}: {err}")


def _build(
    config: list[str] | None,
    out: Path,
    cache_dir: Path | None,
    no_checks: bool,
    fresh: bool,
    **source_dirs: Path | None,
) -> None:
    """Prepare configs and write one Parquet hub export per dataset (OUT/ocw, OUT/wote)."""
    from ..data.export import SPLITS, ExportedSplit, build_export

    names = [check_config(n) for n in (config or list(CONFIGS))]
    sources = {name: source_dirs[_param(name)] for name in dict.fromkeys(names)}
    with quiet_datasets(), progress(transient=False) as bar:
        task = bar.add_task("building", total=len(sources) * len(SPLITS))

        def on_config(name: str) -> None:
            bar.update(task, description=f"building {name}")

        def on_split(item: ExportedSplit) -> None:
            bar.update(task, advance=1, description=f"wrote {item.config}/{item.split}")

        with user_errors(SOURCE_OPTIONS), _export_path_errors():
            written = build_export(
                sources,
                out,
                cache_dir=cache_dir,
                verification_mode="no_checks" if no_checks else None,
                download_mode="force_redownload" if fresh else None,
                on_config=on_config,
                on_split=on_split,
            )
    table = Table(title=f"Hub exports written to {out} (one per dataset)")
    for column in ("config", "split", "rows", "answers located", "file"):
        table.add_column(
            column, justify="left" if column in ("config", "split", "file") else "right"
        )
    for item in written:
        located = "" if item.answers_located is None else str(item.answers_located)
        path = f"{item.export}/{item.path}"
        table.add_row(item.config, item.split, str(item.num_rows), located, path)
    console.print(table)


def _param(config: str) -> str:
    return SOURCE_OPTIONS[config].removeprefix("--").replace("-", "_")


def _build_signature() -> inspect.Signature:
    """``build``'s options, the per-config source options generated from :data:`CONFIGS`."""
    kw = inspect.Parameter.KEYWORD_ONLY

    def option(name: str, annotation: Any, default: Any) -> inspect.Parameter:
        return inspect.Parameter(name, kw, default=default, annotation=annotation)

    params = [
        option(
            "config",
            list[str] | None,
            typer.Option(
                None, "--config", "-c", help="Config to build (repeatable; default: all four)."
            ),
        ),
        *(
            option(
                _param(name),
                Path | None,
                typer.Option(
                    None,
                    SOURCE_OPTIONS[name],
                    help=f"{spec.source[0].upper()}{spec.source[1:]} (default: download).",
                ),
            )
            for name, spec in CONFIGS.items()
        ),
        option(
            "out",
            Path,
            typer.Option(
                Path("build/hub"),
                "--out",
                "-o",
                help="Folder of the exports: OUT/ocw (OCW configs) and OUT/wote, each with its "
                "own card; a symbolic link is followed and the exports behind it updated.",
            ),
        ),
        option(
            "cache_dir",
            Path | None,
            typer.Option(None, "--cache-dir", help="datasets cache folder (not inside --out)."),
        ),
        option(
            "no_checks",
            bool,
            typer.Option(
                False,
                "--no-checks",
                help="Skip the check of split sizes against the official ones.",
            ),
        ),
        option(
            "fresh",
            bool,
            typer.Option(
                False,
                "--fresh",
                help="Download and prepare again, ignoring the cache "
                "(download_mode=force_redownload).",
            ),
        ),
    ]
    return inspect.Signature(params)


def build(**kwargs: Any) -> None:
    """Prepare configs and write one Parquet hub export per dataset: OUT/ocw and OUT/wote, each
    README.md (its card) and data/<config>/<split>-00000-of-00001.parquet."""
    _build(**kwargs)


build.__signature__ = _build_signature()  # type: ignore[attr-defined]
app.command()(build)


def _print_notes(notes: list[str]) -> None:
    for note in notes:
        err_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)


@app.command()
def check(
    export_dir: Path = typer.Argument(
        ..., help="An export written by `ocw-hub build` (OUT/ocw), or OUT to check each export."
    ),
) -> None:
    """Check that an export works in the Hub viewer and every datasets era (configs resolve,
    Parquet reads, features match the card, no link leaves the folder)."""
    from ..data.publish import export_folders, inspect_export

    failed = []
    for folder in export_folders(export_dir):
        with user_errors():
            report = inspect_export(folder)
        _print_notes(report.differences)
        if report.prerelease:
            _print_notes(
                [
                    f"{folder}: config(s) {', '.join(report.prerelease)} hold the pre-release "
                    "wall ids (not the official OCW release); publish refuses it without --force"
                ]
            )
        if report.problems:
            failed.append(
                f"{folder} would not work in the Hub viewer:\n- " + "\n- ".join(report.problems)
            )
        else:
            console.print(
                f"{folder}: OK for the Hub viewer ({len(report.files)} files)", soft_wrap=True
            )
    if failed:
        fail("\n".join(failed))


@app.command()
def publish(
    folder: Path = typer.Argument(
        ..., help="One export (e.g. build/hub/ocw), or the metric folder with --space."
    ),
    repo_id: str = typer.Option(..., "--repo-id", help="ORG/NAME on the Hub."),
    revision: str | None = typer.Option(None, help="Branch to commit to (created if needed)."),
    private: bool = typer.Option(False, help="Create the repository as private."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only list the files; no network."),
    space: bool = typer.Option(False, "--space", help="Publish an evaluate metric as a Space."),
    force: bool = typer.Option(
        False, "--force", help="Publish an export of the pre-release stand-in anyway."
    ),
) -> None:
    """Make a Hub repository mirror an export (or the metric Space) in one commit: files added
    or updated, files the folder no longer has deleted. Token from HF_TOKEN or the login."""
    from ..data.publish import PrereleaseExportError
    from ..data.publish import publish as do_publish

    with user_errors():
        try:
            files = do_publish(
                folder,
                repo_id,
                revision=revision,
                private=private,
                dry_run=dry_run,
                space=space,
                force=force,
            )
        except PrereleaseExportError as err:
            fail(f"{err}; pass --force to publish it anyway")
    table = Table(title=("Would upload" if dry_run else "Uploaded") + f" to {repo_id}")
    table.add_column("file")
    table.add_column("bytes", justify="right")
    for f in files:
        table.add_row(f.path, str(f.size))
    console.print(table)


@app.command()
def infos(
    check_only: bool = typer.Option(False, "--check", help="Fail if dataset_infos.json is stale."),
) -> None:
    """Regenerate the root dataset_infos.json from the builders (or check it is current)."""
    from ..data.infos import dataset_infos_is_current, write_dataset_infos
    from ..resources import dataset_infos_path

    path = dataset_infos_path()
    if check_only:
        if not dataset_infos_is_current():
            fail(f"{path} is stale: run `ocw-hub infos`")
        console.print(f"{path} is current")
        return
    changed = write_dataset_infos()
    console.print(f"{path} {'rewritten' if changed else 'already current'}")
