"""Time of ``ocw-hub report`` on the stand-in's 494 test walls: 16 runs of the random baseline.

Run from the repository root, next to ``../shared/data``::

    python benchmarks/bench_report.py [--shared ../shared/data] [--runs 16]

Prints the time of each phase (reading the results, loading the gold walls, drawing the page)
and the page's size. The predictions are ``ocw-hub predict --method random`` runs and the
results ``ocw-hub evaluate`` of them, written to a temporary folder first (not timed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=16)
    args = parser.parse_args()
    data_dir = args.shared / "ocw" / "dataset"
    cli = str(Path(sys.executable).parent / "ocw-hub")
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        common = ["--data-dir", str(data_dir), "--cache-dir", str(work / "cache")]
        subprocess.run(
            [
                cli,
                "predict",
                "-m",
                "random",
                "--runs",
                str(args.runs),
                "--out",
                str(work / "random"),
                *common,
            ],
            check=True,
            capture_output=True,
        )
        results = work / "random.json"
        subprocess.run(
            [cli, "evaluate", str(work / "random"), "--out", str(results), *common],
            check=True,
            capture_output=True,
        )

        from ocw_hub.results import read_results
        from ocw_hub.views.report import build_report
        from ocw_hub.views.report_data import load_walls

        timings: dict[str, float] = {}
        start = time.perf_counter()
        files = read_results([results])
        timings["read results"] = time.perf_counter() - start
        start = time.perf_counter()
        walls = load_walls(files, {"default": data_dir}, cache_dir=work / "cache")
        timings["load gold walls"] = time.perf_counter() - start
        start = time.perf_counter()
        page = build_report(files, walls=walls)
        timings["draw the page (first, imports included)"] = time.perf_counter() - start
        start = time.perf_counter()
        build_report(files, walls=walls)
        timings["draw the page (again)"] = time.perf_counter() - start
    print(
        json.dumps(
            {
                "walls": files[0].data["n_walls"],
                "runs": len(files[0].runs),
                "seconds": {k: round(v, 2) for k, v in timings.items()},
                "page_kib": round(len(page.encode()) / 1024),
                "svg_plots": page.count("<svg"),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
