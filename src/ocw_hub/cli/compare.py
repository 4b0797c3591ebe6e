"""``ocw-hub compare``: systems side by side, ranked, with intervals and paired p-values
(unadjusted and Holm-adjusted)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..configs import ConfigSpec, config_spec, verification_mode
from ..provenance import protocol_text
from ..shown import inert
from ._common import check_choice, check_config, console, data_dir_of, quiet_datasets
from .options import (
    AiredAfter,
    BootstrapSeed,
    CacheDir,
    Config,
    DataDir,
    NoChecks,
    Seasons,
    Split,
    check_resamples,
)

FORMATS = ("table", "markdown", "csv", "json")
COLUMNS = (
    "rank",
    "system",
    "value",
    "95% CI",
    "vs best",
    "p (sign-flip)",
    "walls in common",
    "scored",
    "missing",
    "unscored",
)


def _digits(figure: str, spec: ConfigSpec) -> int:
    """Decimals of a figure: 2 for counts and figures on 0-100, 4 for those on 0-1."""
    return 2 if spec.percent or figure in ("full_wall", "correct_groups") else 4


def _p_text(p: float | None) -> str:
    return "-" if p is None else f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


def _cells(row: dict[str, Any], digits: int) -> list[str]:
    value = f"{row['value']:.{digits}f}"
    if row["std"] is not None:
        value += f" ± {row['std']:.{digits}f}"
    low, high = row["ci95"]
    return [
        str(row["rank"]),
        row["system"],
        value,
        f"[{low:.{digits}f}, {high:.{digits}f}]",
        "-" if row["difference"] is None else f"{row['difference']:+.{digits}f}",
        _p_text(row["p_value"]),
        str(row["in_common"]),
        str(row["scored"]),
        str(row["missing"]),
        str(row["unscored"]),
    ]


def _usage_column(header: list[str], body: list[list[str]], rows: list[dict[str, Any]]) -> None:
    """A ``usage`` column (tokens, latency, cost per solved wall) when a system has one."""
    if any(row.get("usage") for row in rows):  # parsed runs
        header.append("usage")
        for cells, row in zip(body, rows, strict=True):
            cells.append(inert(row.get("usage") or "-"))


def _holm_column(header: list[str], body: list[list[str]], table: dict[str, Any]) -> None:
    """A ``p (Holm, K pairs)`` column after the unadjusted p when the test's family holds
    more than one pair (more than two systems)."""
    family = table["test"]["family"]
    if family < 2:
        return
    at = header.index("p (sign-flip)") + 1
    header.insert(at, f"p (Holm, {family} pairs)")
    for cells, row in zip(body, table["systems"], strict=True):
        cells.insert(at, _p_text(row["p_holm"]))


def _interval_line(table: dict[str, Any]) -> str:
    """How the 95 % intervals were computed (``bootstrap.method``)."""
    return f"95 % intervals: {table['bootstrap']['method']}"


def _test_line(table: dict[str, Any]) -> str:
    """What p is: the test, its draws and the adjustment."""
    test = table["test"]
    line = (
        f"p: two-sided sign-flip permutation test of the mean per-wall difference from the "
        f"best on the walls both predicted (exact up to {test['exact_up_to_walls']} walls "
        f"that differ, else {test['resamples']:,} random sign vectors, seed {test['seed']})"
    )
    if test["family"] > 1:
        line += f"; Holm-adjusted over the {test['family']} pairs of systems sharing walls"
    return line


def _provenance_lines(table: dict[str, Any]) -> list[str]:
    """What the figures were computed on: ``source: ...`` (one line per system when they
    differ), then ``protocol of SYSTEM: ...`` for each system whose protocol is recorded."""
    rows = table["systems"]
    if table.get("source") is not None:
        lines = [f"source: {table['source']}"]
    else:
        lines = [f"source of {row['system']}: {row['source']}" for row in rows]
    lines += [
        f"protocol of {row['system']}: {protocol_text(row['protocol'])}"
        for row in rows
        if row.get("protocol")
    ]
    return [inert(line) for line in lines]


def _csv(header: list[str], body: list[list[str]], rows: list[dict[str, Any]]) -> str:
    """The csv table, with each system's ``source`` and ``protocol`` (empty: not recorded),
    its cells escaped against formulas (:func:`ocw_hub.outputs.csv_cell`)."""
    from ..outputs import csv_text

    lines = [[*header, "source", "protocol"]]
    for cells, row in zip(body, rows, strict=True):
        protocol = protocol_text(row["protocol"]) if row["protocol"] else ""
        lines.append([*cells, inert(row["source"]), inert(protocol)])
    return csv_text(lines)


def _markdown(header: list[str], body: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = ["---"] * len(header)
    return "\n".join([line(header), line(rule), *map(line, body)])


def compare(
    systems: Annotated[
        list[Path],
        typer.Argument(
            metavar="RESULTS_OR_PREDICTIONS...",
            help="One entry per system: a results JSON of `evaluate --out`, a predictions "
            "file or a folder of runs.",
        ),
    ],
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            metavar="FIGURE",
            help="The figure to rank by: ami (default for OCW), wd, ari, fms, full_wall, "
            "correct_groups, the rates, exact_match, rouge1; for play logs points, "
            "groups_found, walls_solved, connections_right (totals over the walls played) "
            "or their means (points_mean, ...); f1 (default for wote) or exact_match.",
        ),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", help="table, markdown, csv or json.")
    ] = "table",
    bootstrap: Annotated[
        int,
        typer.Option(
            "--bootstrap",
            metavar="N",
            help="Resamples of walls for the intervals, and random sign vectors of the "
            "paired test on more than 16 walls that differ (its least p-value is 1/(N+1)).",
        ),
    ] = 10_000,
    bootstrap_seed: BootstrapSeed = 0,
    allow_different_sources: Annotated[
        bool,
        typer.Option(
            "--allow-different-sources",
            help="Compare systems scored on different configs, splits or source data, on "
            "the walls they share.",
        ),
    ] = False,
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
    allow_missing: Annotated[
        bool, typer.Option("--allow-missing", help="Score missing ids of predictions as wrong.")
    ] = False,
    seasons: Seasons = None,
    aired_after: AiredAfter = None,
) -> None:
    """Put systems side by side: one figure each with its 95 % interval (Clopper-Pearson for
    a rate counted over walls, else the bootstrap's), ranked, with the p-value of its
    difference from the best on the walls both predicted (a paired
    sign-flip permutation test; Holm-adjusted beside it over every pair of systems when
    there are more than two), the walls in common and the missing (scored as wrong) and
    unscored walls. The contestants are a row where the dataset records the figure; play
    logs rank by their play figures too (--by points). Predictions are scored as
    `evaluate` does (--config, --split, --data-dir). Statistics: docs/statistics.md.
    """
    from functools import partial

    from ..evaluation import evaluate_files
    from ..outputs import json_text
    from ..scoring.compare import compare_systems
    from ..scoring.slices import WallSlice, season_dates, slice_results

    check_choice("--format", output_format, FORMATS)
    check_resamples(bootstrap, none_ok=False)
    config = check_config(config)
    source = data_dir_of(data_dir, config)
    walls_slice = WallSlice.parse(seasons, aired_after)
    cut = None
    if walls_slice is not None:
        dates = partial(season_dates, config, source, cache_dir)
        cut = partial(slice_results, wanted=walls_slice, dates=dates)

    def score(path: Path) -> dict[str, Any]:
        return evaluate_files(
            [path],
            config,
            split=split,
            data_dir=source,
            allow_missing=allow_missing,
            cache_dir=cache_dir,
            verification_mode=verification_mode(no_checks),
            bootstrap=0,  # compare draws its own resamples
            walls_slice=walls_slice,
        )

    with quiet_datasets():
        table = compare_systems(
            systems,
            score,
            figure=by,
            n_resamples=bootstrap,
            seed=bootstrap_seed,
            allow_different_sources=allow_different_sources,
            cut=cut,
        )
    if output_format == "json":
        typer.echo(json_text(table), nl=False)
        return
    spec = config_spec(table["systems"][0]["config"])
    digits = _digits(table["figure"], spec)
    body = [[inert(c) for c in _cells(row, digits)] for row in table["systems"]]
    header = list(COLUMNS)
    _holm_column(header, body, table)
    _usage_column(header, body, table["systems"])
    header[2] = table["figure"] + (" (lower is better)" if table["lower_is_better"] else "")
    common = header.index("walls in common")
    header[common] = f"{spec.units} in common"  # walls, or WoTe's questions
    if output_format == "markdown":
        typer.echo(_markdown(header, body))
        if table.get("slice"):
            typer.echo(f"\nSlice: {inert(table['slice'])}.")
        lines = [_interval_line(table), _test_line(table), *_provenance_lines(table)]
        typer.echo("\n" + "  \n".join(lines))
    elif output_format == "csv":
        typer.echo(_csv(header, body, table["systems"]), nl=False)
    else:
        from rich.table import Table
        from rich.text import Text

        first = table["systems"][0]
        title = f"{first['config']} / {first['split']}: ranked by {table['figure']}"
        if table.get("slice"):
            title += f"\nslice: {table['slice']}"
        title = "\n".join(
            [title, _interval_line(table), _test_line(table), *_provenance_lines(table)]
        )
        shown = Table(title=Text(title))
        for column in header:
            shown.add_column(column, justify="left" if column == "system" else "right")
        for cells in body:
            shown.add_row(*(Text(c) for c in cells))
        console.print(shown)
