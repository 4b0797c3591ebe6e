"""``ocw-hub report``: one self-contained HTML page of results files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..configs import verification_mode
from ..extras import require
from ._common import console, data_dirs, quiet_datasets
from .options import AiredAfter, CacheDir, DataDir, NoChecks, Seasons


def report(
    results: Annotated[
        list[Path],
        typer.Argument(
            metavar="RESULTS.json...",
            help="Results files of `ocw-hub evaluate --out` (one run or several); several "
            "files are models or configs side by side.",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")],
    data_dir: DataDir = None,
    hardest: Annotated[
        int, typer.Option("--hardest", min=0, help="How many of the hardest walls.")
    ] = 5,
    wall: Annotated[
        str | None,
        typer.Option("--wall", help="The wall of the embedding plot (default: the hardest one)."),
    ] = None,
    title: Annotated[str, typer.Option("--title", help="The page's title.")] = "ocw-hub report",
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
    seasons: Seasons = None,
    aired_after: AiredAfter = None,
) -> None:
    """Write one self-contained HTML report (headline table, plots, the hardest walls) of
    results files; it opens offline (inline SVG, no script, no web font). The walls are read
    from the source each results file records (path or Hub id, checked by its sha256):
    --data-dir is needed only when that source is gone or changed."""
    from ..outputs import check_output_file, write_text_atomic
    from ..results import read_results
    from ..scoring.slices import WallSlice
    from ..views.report import build_report
    from ..views.report_data import load_walls
    from ..views.report_source import recorded_inputs

    dirs = data_dirs(data_dir)
    with quiet_datasets():
        require("report", "report")
        files = read_results(results)
        target = check_output_file(out, [*results, *dirs.values(), *recorded_inputs(files)])
        walls_slice = WallSlice.parse(seasons, aired_after)
        if walls_slice is not None:  # every figure again on the walls of the slice
            files = [_sliced(f, walls_slice, dirs, cache_dir) for f in files]
        walls = load_walls(
            files, dirs, cache_dir=cache_dir, verification_mode=verification_mode(no_checks)
        )
        page = build_report(files, walls=walls, n_hardest=hardest, wall_id=wall, title=title)
        write_text_atomic(target, page)
    console.print(f"report written to {out}")


def _sliced(f: Any, wanted: Any, dirs: dict[str, str], cache_dir: Path | None) -> Any:
    """A results file with every figure recomputed on the walls of the slice
    (:func:`ocw_hub.scoring.slices.slice_results`; season dates from its config's data)."""
    from functools import partial

    from ..results import ResultsFile
    from ..scoring.slices import season_dates, slice_results

    dates = partial(season_dates, f.config, dirs.get(f.config, dirs.get("*")), cache_dir)
    data = slice_results(f.data, wanted, dates, name=str(f.path))
    runs = tuple(data["runs"]) if "runs" in data else (data,)
    return ResultsFile(f.path, f.label, data, runs)
