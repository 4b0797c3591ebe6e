"""``ocw-hub check``: an export checked for the Hub viewer and every ``datasets`` era."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import ExportError, OptionError
from ..provenance import NOT_VERIFIED
from ._common import console, print_notes


def check(
    export_dir: Annotated[
        Path,
        typer.Argument(
            help="An export written by `ocw-hub build` (OUT/ocw), or OUT to check each export."
        ),
    ],
    eval_yaml: Annotated[
        Path | None,
        typer.Option(
            "--eval-yaml",
            help="With a model folder's .eval_results: the benchmark's eval.yaml (or the "
            "export holding it) whose task ids its results must name.",
        ),
    ] = None,
) -> None:
    """Check that an export works in the Hub viewer and every datasets era (configs resolve,
    Parquet reads, features match the card, its eval.yaml, no link leaves the folder); or a
    model repo folder's .eval_results (the folder, or the .eval_results folder itself)."""
    from ..data.eval_results import eval_results_problems, result_files, results_folder
    from ..data.hub_check import inspect_export
    from ..data.layout import exports_in

    if results_folder(export_dir).is_dir():
        problems = eval_results_problems(export_dir, _board_task_ids(eval_yaml))
        if problems:
            raise ExportError(
                f"{results_folder(export_dir)}: not valid eval results:\n- " + "\n- ".join(problems)
            )
        count = len(result_files(export_dir))
        console.print(f"{results_folder(export_dir)}: OK ({count} results files)", soft_wrap=True)
        return

    failed = []
    if eval_yaml is not None:
        raise OptionError(f"--eval-yaml: {export_dir} holds no .eval_results folder")
    for folder in exports_in(export_dir):
        report = inspect_export(folder)
        print_notes(report.differences)
        if report.prerelease:
            print_notes(
                [
                    f"{folder}: config(s) {', '.join(report.prerelease)} hold the pre-release "
                    "wall ids (not the official OCW release); publish refuses it without --force"
                ]
            )
        if report.unverified:
            print_notes(
                [
                    f"{folder}: config(s) {', '.join(report.unverified)}: {NOT_VERIFIED} (not "
                    "built from the official download); publish refuses it without --force"
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
        raise ExportError("\n".join(failed))


def _board_task_ids(path: Path | None) -> set[str] | None:
    """The task ids of an eval.yaml (a file, or the export holding it); None without one.

    Raises:
        ExportError: the eval.yaml is missing or not valid.
    """
    if path is None:
        return None
    from ..data.leaderboard import EVAL_FILE, read_eval_yaml

    file = path / EVAL_FILE if path.is_dir() else path
    if not file.is_file():
        raise ExportError(f"--eval-yaml {path}: no {EVAL_FILE} there")
    data, problems = read_eval_yaml(file)
    if problems or data is None:
        raise ExportError(f"--eval-yaml {file}: " + "; ".join(problems))
    return {str(task["id"]) for task in data["tasks"]}
