"""The options that several ``ocw-hub`` commands share, each declared once (``Annotated``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

CONFIG_HELP = "default (alias ocw), ocw_randomized, ocw_wordnet or wote."
DATA_DIR_HELP = (
    "A config's data: raw source files (folder or tarball), an `ocw-hub build` export folder, "
    "or a Hub repo id. DIR is the data of the command's config; CONFIG=DIR names the config "
    "(repeatable). Default: the data prepared in the cache, else the official download."
)

AcceptModel = Annotated[
    list[str] | None,
    typer.Option(
        "--accept-model",
        metavar="NAME",
        help="A model name an answer may give and still count as --model's (repeatable): for "
        "a --model that is an alias the server answers under another name (TGI's `tgi`, an "
        "Azure deployment, a LiteLLM alias). Recorded in the protocol record. Without it an "
        "answer naming another model than --model (or a dated snapshot of it) is a failure.",
    ),
]
Config = Annotated[str, typer.Option("--config", "-c", help=CONFIG_HELP)]
Split = Annotated[str, typer.Option("--split", "-s", help="train, validation or test.")]
DataDir = Annotated[
    list[str] | None, typer.Option("--data-dir", metavar="[CONFIG=]DIR", help=DATA_DIR_HELP)
]
CacheDir = Annotated[Path | None, typer.Option("--cache-dir", help="datasets cache folder.")]
NoChecks = Annotated[
    bool,
    typer.Option("--no-checks", help="Skip the check of split sizes against the official ones."),
]
Fresh = Annotated[
    bool,
    typer.Option("--fresh", help="Prepare the data again, ignoring the cache (force_redownload)."),
]
Jobs = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Processes (default: the cores the load leaves idle, at least 1); same output.",
    ),
]
Runs = Annotated[
    int, typer.Option("--runs", min=1, help="Runs, one file each (the paper: 16), s = 0..runs-1.")
]
TASK_HELP = "grouping (task 1: the 16 clues into 4 groups) or connections (task 2)."
Task = Annotated[str, typer.Option("--task", "-t", help=TASK_HELP)]
Seasons = Annotated[
    str | None,
    typer.Option(
        "--seasons",
        metavar="LIST",
        help="Only the walls of these seasons: ranges and lists, e.g. 1-5 or 1,3,7-9 (OCW).",
    ),
]
AiredAfter = Annotated[
    str | None,
    typer.Option(
        "--aired-after",
        metavar="DATE",
        help="Only the walls of seasons whose first air date (the release's season dates) is "
        "after DATE (YYYY-MM-DD); needs the release files, the stand-in has no dates (OCW).",
    ),
]

#: The least ``--bootstrap`` N: fewer resamples give percentile intervals that may not hold
#: their own figure (2.5 % of N resamples is under 3 of them).
MIN_RESAMPLES = 100
BootstrapSeed = Annotated[
    int, typer.Option("--bootstrap-seed", min=0, help="Seed of the bootstrap's resamples.")
]


def check_resamples(n: int, none_ok: bool) -> None:
    """``--bootstrap N``: at least :data:`MIN_RESAMPLES` (or 0, none, where ``none_ok``).

    Raises:
        OptionError: another N.
    """
    from ..errors import OptionError

    if not (n >= MIN_RESAMPLES or (none_ok and n == 0)):
        least = f"0 (none) or at least {MIN_RESAMPLES}" if none_ok else f"at least {MIN_RESAMPLES}"
        raise OptionError(f"--bootstrap {n}: give {least} resamples")
