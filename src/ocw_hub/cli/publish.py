"""``ocw-hub publish``: a Hub repository made to mirror an export (or the metric Space)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..shown import inert
from ._common import console


def publish(
    folder: Annotated[
        Path,
        typer.Argument(help="One export (e.g. build/hub/ocw), or the metric folder with --space."),
    ],
    repo_id: Annotated[str, typer.Option("--repo-id", help="ORG/NAME on the Hub.")],
    revision: Annotated[
        str | None, typer.Option("--revision", help="Branch to commit to (created if needed).")
    ] = None,
    private: Annotated[
        bool, typer.Option("--private", help="Create the repository as private.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only list the files; no network.")
    ] = False,
    space: Annotated[
        bool, typer.Option("--space", help="Publish an evaluate metric as a Space.")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Publish an export of the pre-release stand-in, or of data not verified as "
            "the official release, anyway.",
        ),
    ] = False,
    eval_results: Annotated[
        bool,
        typer.Option(
            "--eval-results",
            help="Add FOLDER's .eval_results/*.yaml (evaluate --eval-results) to the model "
            "repo --repo-id; nothing else of it is touched.",
        ),
    ] = False,
    pr: Annotated[
        bool, typer.Option("--pr", help="With --eval-results: open a pull request instead.")
    ] = False,
) -> None:
    """Make a Hub repository mirror an export (or the metric Space) in one commit: files added
    or updated, files the folder no longer has deleted; or, with --eval-results, add a model's
    leaderboard results to its model repo. Token from HF_TOKEN or the login."""
    from ..data.publish import publish as do_publish
    from ..data.publish import publish_eval_results
    from ..errors import OptionError

    if eval_results:
        if space or private or force:
            raise OptionError("--eval-results: not with --space, --private or --force")
        files = publish_eval_results(
            folder, repo_id, revision=revision, create_pr=pr, dry_run=dry_run
        )
    elif pr:
        raise OptionError("--pr: only with --eval-results")
    else:
        files = do_publish(
            folder,
            repo_id,
            revision=revision,
            private=private,
            dry_run=dry_run,
            space=space,
            force=force,
        )
    from rich.table import Table
    from rich.text import Text

    table = Table(title=("Would upload" if dry_run else "Uploaded") + f" to {repo_id}")
    table.add_column("file")
    table.add_column("bytes", justify="right")
    for f in files:
        table.add_row(Text(inert(f.path)), str(f.size))  # file names are data
    console.print(table)
