"""``ocw-hub play-page``: one self-contained HTML page on which a person plays a split's walls."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import check_choice, check_ocw, console, data_dir_of, load_split_rows
from .options import CacheDir, Config, DataDir, NoChecks, Split

EPILOG = """The page holds no answer (salted digests of the groups, never the groups or the
connections) and needs no server or network: open it in a browser, play, and press "Download
the play log"; `ocw-hub evaluate PLAY_LOG` scores the log by replaying the guesses
(docs/usage.md, "Human baselines")."""


def play_page(
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")],
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    rules: Annotated[
        str,
        typer.Option(
            "--rules",
            help="show (the Only Connect wall: free guesses until two groups, then three "
            "lives; a connection round) or nyt (four mistakes in all, one-away hints, a "
            "repeated guess costs nothing); the rule sets of ocw_hub.play.rules.",
        ),
    ] = "show",
    walls: Annotated[
        int | None,
        typer.Option("--walls", min=1, help="Play the first N walls of the split (default: all)."),
    ] = None,
    no_clock: Annotated[
        bool,
        typer.Option(
            "--no-clock",
            help="No clock (the show's 2 min 30 s; the NYT game has none): no wall freezes "
            "on time.",
        ),
    ] = False,
    max_guesses: Annotated[
        int | None,
        typer.Option(
            "--max-guesses", min=1, help="Guesses at most per wall (default: show 20, nyt 7)."
        ),
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="The page's title.")] = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Write one self-contained HTML page on which a person plays the split's walls one group
    at a time, by the show's rules (or the NYT game's), and downloads the games as a play log."""
    from ..outputs import check_output_file, write_text_atomic
    from ..views.play_page import RULES, build_play_page

    config = check_ocw(config)
    check_choice("--rules", rules, RULES)
    source = data_dir_of(data_dir, config)
    target = check_output_file(out, [source, cache_dir])
    rows = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
    page = build_play_page(
        rows[:walls] if walls is not None else rows,
        config=config,
        split=split,
        rules=rules,
        clock=not no_clock,
        max_guesses=max_guesses,
        title=title,
    )
    write_text_atomic(target, page)
    console.print(f"play page of {min(len(rows), walls or len(rows))} walls written to {out}")
