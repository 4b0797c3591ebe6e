"""Benchmark ``ocw-hub derive randomized`` (the ``ocw_randomized`` ablation).

Usage (from the repository root)::

    python benchmarks/bench_derive.py [DATASET_DIR] [--repeat N]

``DATASET_DIR`` defaults to ``../shared/data/ocw/dataset`` (the stand-in in the release
layout). Prints, best of ``--repeat`` runs:

* ``randomize_test_split`` on the test walls (the algorithm alone), and on the test split
  repeated 4 and 10 times (copies with their own wall, group and clue names), to show how the
  time grows with the split (the candidate walls of a slot are the sorted wall ids without at
  most 4, read in place rather than rebuilt per slot; the draws per slot grow as the unused
  groups run out);
* ``derive_randomized`` end to end (validation of the three split files, the algorithm, the
  three files written);
* ``ocw-hub derive randomized`` as a command (start-up included), once.

The upstream script (``scripts/randomize_test_set.py``) is not part of this repository, so no
upstream time is printed.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ocw_hub.data.randomize import RepeatedClueWarning, derive_randomized, randomize_test_split

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASET = REPO_ROOT.parent / "shared" / "data" / "ocw" / "dataset"


def best_of(repeat: int, run: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def scaled(walls: list[dict[str, Any]], factor: int) -> list[dict[str, Any]]:
    """``factor`` copies of the walls, copy ``k`` renamed with the suffix ``~k``."""
    out = []
    for k in range(factor):
        for wall in walls:
            new = copy.deepcopy(wall)
            new["wall_id"] = f"{wall['wall_id']}~{k}"
            for group in new["groups"].values():
                group["group_id"] = f"{group['group_id']}~{k}"
                group["gt_words"] = [f"{clue}~{k}" for clue in group["gt_words"]]
            out.append(new)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset_dir", nargs="?", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore", RepeatedClueWarning)

    walls = json.loads((args.dataset_dir / "test.json").read_text(encoding="utf-8"))["dataset"]
    for factor in (1, 4, 10):
        split = scaled(walls, factor) if factor > 1 else walls
        seconds = best_of(
            args.repeat if factor == 1 else 1, lambda split=split: randomize_test_split(split)
        )
        print(f"randomize_test_split, {len(split):>5} walls: {seconds:7.3f} s")

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        seconds = best_of(args.repeat, lambda: derive_randomized(args.dataset_dir, out))
        print(f"derive_randomized (validate, derive, write 3 files): {seconds:7.3f} s")
        command = [
            str(Path(sys.executable).with_name("ocw-hub")),
            *("derive", "randomized", "--data-dir", str(args.dataset_dir)),
            *("--out", str(Path(tmp) / "cli")),
        ]
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        print(
            f"ocw-hub derive randomized (one run, start-up included): "
            f"{time.perf_counter() - start:7.3f} s"
        )


if __name__ == "__main__":
    main()
