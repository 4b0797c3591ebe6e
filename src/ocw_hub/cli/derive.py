"""``ocw-hub derive``: derived copies of the data (the ``ocw_randomized`` ablation)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import OptionError
from ._common import console, data_dir_of, quiet_datasets
from .options import DataDir

derive_app = typer.Typer(
    help="Derive the ablation copies of the data offline (ocw_randomized).",
    no_args_is_help=True,
)


@derive_app.command("randomized")
def randomized(
    data_dir: DataDir,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Folder to write train.json, validation.json, test.json (the ocw_randomized "
            "source); not the --data-dir nor inside it.",
        ),
    ],
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the random stream (the paper: 42).")
    ] = 42,
) -> None:
    """Rebuild each test wall of the OCW release (--data-dir) from groups of other test walls
    (the paper's ablation).

    Train and validation are copied unchanged; the same input and seed give the same bytes.
    """
    from ..data.randomize import derive_randomized

    source = data_dir_of(data_dir, "default")
    if source is None:
        raise OptionError("--data-dir: give the OCW release folder (dataset/ of OCW.tar.gz)")
    with quiet_datasets():
        written = derive_randomized(source, out, seed=seed)
    console.print(
        f"wrote {written['test'].parent}: test.json (randomized, seed {seed}), train.json and "
        "validation.json (copied); load it as config ocw_randomized with --data-dir "
        f"{written['test'].parent}",
        highlight=False,
        soft_wrap=True,
    )
