"""Time and peak memory of building and exporting all four configs from local data.

Run from the repository root, next to ``../shared/data``::

    python benchmarks/bench_build.py [--shared ../shared/data]

The two ablation sources are small fixtures (``tests/ocw_fixtures.py``), the main OCW and WoTe
configs the full-scale real data. Each phase runs in its own process so that its peak RSS is
its own: ``cold`` (empty datasets cache: parse, validate, write Arrow, then Parquet) and
``cached`` (the same call again: Arrow served from the cache, Parquet rewritten). Target on
the 2-core machine: under 10 s cold, under 1 s cached.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def phase(work: Path, shared: Path) -> dict[str, float]:
    import datasets

    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from ocw_fixtures import write_ablation

    from ocw_hub.data.export import build_export

    datasets.disable_progress_bars()
    warnings.simplefilter("ignore")
    raw = shared / "ocw" / "raw" / "onlyconnect.json"
    sources = {
        "default": shared / "ocw" / "dataset",
        "ocw_randomized": write_ablation(raw, work / "src", "randomized"),
        "ocw_wordnet": write_ablation(raw, work / "src", "wordnet"),
        "wote": shared / "wote",
    }
    start = time.perf_counter()
    written = build_export(
        sources, work / "hub", cache_dir=work / "cache", verification_mode="no_checks"
    )
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "rows": sum(item.num_rows for item in written),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--phase", choices=["cold", "cached"], help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.work, args.shared.resolve())))
        return
    with tempfile.TemporaryDirectory() as work:
        for name in ("cold", "cached"):
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--phase",
                    name,
                    "--work",
                    work,
                    "--shared",
                    str(args.shared),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            print(
                f"{name:6s}: {figures['seconds']:6.2f} s to build and export 4 configs "
                f"({figures['rows']} rows), peak RSS {figures['peak_rss_mib']:.0f} MiB"
            )


if __name__ == "__main__":
    main()
