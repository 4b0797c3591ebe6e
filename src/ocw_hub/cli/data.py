"""``ocw-hub build``, ``check``, ``publish`` and ``infos``: the Hub export and its checks."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ..configs import CONFIGS
from . import app
from ._common import check_config, console, fail, progress, quiet_datasets, user_errors

#: ``ocw-hub build`` option of each config's local source: ``--ocw-dir`` for ``default``,
#: ``--<config>-dir`` with dashes for the others (``--ocw-randomized-dir``, ``--wote-dir``).
SOURCE_OPTIONS = {
    name: "--ocw-dir" if name == "default" else f"--{name.replace('_', '-')}-dir"
    for name in CONFIGS
}


def _build(
    config: list[str] | None,
    out: Path,
    cache_dir: Path | None,
    no_checks: bool,
    **source_dirs: Path | None,
) -> None:
    """Prepare configs and write the Parquet hub export: README.md (the card) and
    data/<config>/<split>-00000-of-00001.parquet."""
    from ..export import SPLITS, ExportedSplit, build_export

    names = [check_config(n) for n in (config or list(CONFIGS))]
    sources = {name: source_dirs[_param(name)] for name in dict.fromkeys(names)}
    with quiet_datasets(), progress(transient=False) as bar:
        task = bar.add_task("building", total=len(sources) * len(SPLITS))

        def on_config(name: str) -> None:
            bar.update(task, description=f"building {name}")

        def on_split(item: ExportedSplit) -> None:
            bar.update(task, advance=1, description=f"wrote {item.config}/{item.split}")

        with user_errors(SOURCE_OPTIONS):
            written = build_export(
                sources,
                out,
                cache_dir=cache_dir,
                verification_mode="no_checks" if no_checks else None,
                on_config=on_config,
                on_split=on_split,
            )
    table = Table(title=f"Hub export written to {out}")
    for column in ("config", "split", "rows", "answers located", "file"):
        table.add_column(
            column, justify="left" if column in ("config", "split", "file") else "right"
        )
    for item in written:
        located = "" if item.answers_located is None else str(item.answers_located)
        table.add_row(item.config, item.split, str(item.num_rows), located, item.path)
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
                    None, SOURCE_OPTIONS[name], help=f"Local {spec.source} (default: download)."
                ),
            )
            for name, spec in CONFIGS.items()
        ),
        option(
            "out",
            Path,
            typer.Option(Path("build/hub"), "--out", "-o", help="Export folder to write."),
        ),
        option("cache_dir", Path | None, typer.Option(None, help="datasets cache folder.")),
        option(
            "no_checks",
            bool,
            typer.Option(
                False,
                "--no-checks",
                help="Skip the check of split sizes against the official ones.",
            ),
        ),
    ]
    return inspect.Signature(params)


def build(**kwargs: Any) -> None:
    """Prepare configs and write the Parquet hub export: README.md (the card) and
    data/<config>/<split>-00000-of-00001.parquet."""
    _build(**kwargs)


build.__signature__ = _build_signature()  # type: ignore[attr-defined]
app.command()(build)


@app.command()
def check(
    export_dir: Path = typer.Argument(..., help="Folder written by `ocw-hub build`."),
) -> None:
    """Check that an export works in the Hub viewer (configs resolve, Parquet reads, features)."""
    from ..publish import check_export

    with user_errors():
        problems = check_export(export_dir)
    if problems:
        fail(f"{export_dir} would not work in the Hub viewer:\n- " + "\n- ".join(problems))
    console.print(f"{export_dir}: OK for the Hub viewer")


@app.command()
def publish(
    folder: Path = typer.Argument(..., help="Export folder (or the metric folder with --space)."),
    repo_id: str = typer.Option(..., "--repo-id", help="ORG/NAME on the Hub."),
    revision: str | None = typer.Option(None, help="Branch to commit to (created if needed)."),
    private: bool = typer.Option(False, help="Create the repository as private."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only list the files; no network."),
    space: bool = typer.Option(False, "--space", help="Publish an evaluate metric as a Space."),
) -> None:
    """Upload an export (or the metric Space) in one commit; token from HF_TOKEN / login."""
    from ..publish import publish as do_publish

    with user_errors():
        files = do_publish(
            folder, repo_id, revision=revision, private=private, dry_run=dry_run, space=space
        )
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
    from ..infos import dataset_infos_is_current, write_dataset_infos
    from ..resources import dataset_infos_path

    path = dataset_infos_path()
    if check_only:
        if not dataset_infos_is_current():
            fail(f"{path} is stale: run `ocw-hub infos`")
        console.print(f"{path} is current")
        return
    changed = write_dataset_infos()
    console.print(f"{path} {'rewritten' if changed else 'already current'}")
