"""``ocw-hub``: build the hub export, score predictions, check and publish.

Every command is a thin shell over the package: :mod:`ocw_hub.export`, :mod:`ocw_hub.evaluation`,
:mod:`ocw_hub.hub` and :mod:`ocw_hub.infos`. Errors the user can fix (bad files, missing sources)
end with a one-line message and exit code 1, no traceback.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .builders import CONFIGS
from .export import SPLITS, ExportedSplit, build_export

app = typer.Typer(
    help="Load, export, score and publish the OCW and WoTe benchmarks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)


@contextmanager
def _quiet_datasets() -> Iterator[None]:
    """Our rich progress bar instead of datasets' tqdm bars; data warnings as one-line notes."""
    import datasets

    datasets.disable_progress_bars()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            datasets.enable_progress_bars()
            for warning in caught:
                if issubclass(warning.category, UserWarning):
                    err_console.print(
                        f"[yellow]warning:[/] {escape(str(warning.message))}", highlight=False
                    )


def _fail(message: str) -> None:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(1)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Errors a user can fix (bad files, missing sources) end with one line and exit code 1.

    ``datasets`` wraps an error raised while writing a split in ``DatasetGenerationError``;
    its cause is what the user needs to read.
    """
    from datasets.exceptions import DatasetGenerationError, SplitsVerificationError

    try:
        yield
    except DatasetGenerationError as err:
        cause = err.__cause__ or err
        _fail(f"{type(cause).__name__}: {cause}")
    except SplitsVerificationError as err:
        _fail(
            f"the split sizes differ from the official ones ({err}); for a local copy of "
            "another size pass --no-checks"
        )
    except (ValueError, OSError, EOFError, RuntimeError) as err:  # incl. SourceUnavailableError
        _fail(str(err) or type(err).__name__)


@app.command()
def build(
    config: list[str] | None = typer.Option(
        None, "--config", "-c", help="Config to build (repeatable; default: all four)."
    ),
    ocw_dir: Path | None = typer.Option(
        None, help="Local OCW release: the `dataset/` folder or OCW.tar.gz (default: download)."
    ),
    ocw_randomized_dir: Path | None = typer.Option(
        None, help="Local OCW_randomized folder or tarball (default: download)."
    ),
    ocw_wordnet_dir: Path | None = typer.Option(
        None, help="Local OCW_wordnet folder or tarball (default: download)."
    ),
    wote_dir: Path | None = typer.Option(
        None, help="Folder with WoTe train/validation/test.json (default: download)."
    ),
    out: Path = typer.Option(Path("build/hub"), "--out", "-o", help="Export folder to write."),
    cache_dir: Path | None = typer.Option(None, help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
) -> None:
    """Prepare configs and write the Parquet hub export: README.md (the card) and
    data/<config>/<split>-00000-of-00001.parquet."""
    names = config or list(CONFIGS)
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        _fail(f"unknown config(s) {unknown}; expected some of {list(CONFIGS)}")
    dirs = {
        "default": ocw_dir,
        "ocw_randomized": ocw_randomized_dir,
        "ocw_wordnet": ocw_wordnet_dir,
        "wote": wote_dir,
    }
    sources = {name: dirs[name] for name in dict.fromkeys(names)}
    with (
        _quiet_datasets(),
        Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err_console,
            transient=False,
        ) as progress,
    ):
        task = progress.add_task("building", total=len(sources) * len(SPLITS))

        def on_config(name: str) -> None:
            progress.update(task, description=f"building {name}")

        def on_split(item: ExportedSplit) -> None:
            progress.update(task, advance=1, description=f"wrote {item.config}/{item.split}")

        with _user_errors():
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


@app.command()
def check(
    export_dir: Path = typer.Argument(..., help="Folder written by `ocw-hub build`."),
) -> None:
    """Check that an export works in the Hub viewer (configs resolve, Parquet reads, features)."""
    from .hub import check_export

    problems = check_export(export_dir)
    if problems:
        _fail(f"{export_dir} would not work in the Hub viewer:\n- " + "\n- ".join(problems))
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
    from .hub import ExportError
    from .hub import publish as do_publish

    try:
        files = do_publish(
            folder, repo_id, revision=revision, private=private, dry_run=dry_run, space=space
        )
    except ExportError as err:
        _fail(str(err))
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
    from .infos import dataset_infos_is_current, write_dataset_infos
    from .resources import dataset_infos_path

    path = dataset_infos_path()
    if check_only:
        if not dataset_infos_is_current():
            _fail(f"{path} is stale: run `ocw-hub infos`")
        console.print(f"{path} is current")
        return
    changed = write_dataset_infos()
    console.print(f"{path} {'rewritten' if changed else 'already current'}")


@app.command()
def evaluate(
    predictions: Path = typer.Argument(..., help="Predictions JSON file."),
    config: str = typer.Option(
        "default", "--config", "-c", help="default, ocw_randomized, ocw_wordnet or wote."
    ),
    split: str = typer.Option("test", "--split", "-s", help="train, validation or test."),
    data_dir: Path | None = typer.Option(
        None, help="Local source of the config (default: download)."
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the full results JSON here."),
    allow_missing: bool = typer.Option(
        False, "--allow-missing", help="Score missing ids as wrong."
    ),
    bertscore: bool = typer.Option(False, "--bertscore", help="Also BERTScore F1 of connections."),
    cache_dir: Path | None = typer.Option(None, help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
) -> None:
    """Score predictions exactly as the paper did; print a table, optionally write JSON."""
    from .evaluation import evaluate_file, summary_rows

    if config not in CONFIGS:
        _fail(f"unknown config {config!r}; expected one of {list(CONFIGS)}")
    with _user_errors(), _quiet_datasets():
        results = evaluate_file(
            predictions,
            config,
            split=split,
            data_dir=data_dir,
            allow_missing=allow_missing,
            bertscore=bertscore,
            cache_dir=cache_dir,
            verification_mode="no_checks" if no_checks else None,
        )
    rows = summary_rows(results)
    columns = (
        ("task", "figure", "model", "human") if config != "wote" else ("task", "figure", "model")
    )
    table = Table(title=f"{config} / {split}: {predictions}")
    for column in columns:
        table.add_column(column, justify="left" if column in ("task", "figure") else "right")
    for row in rows:
        table.add_row(*row[: len(columns)])
    console.print(table)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(out)
        console.print(f"results written to {out}")


if __name__ == "__main__":  # pragma: no cover
    app()
