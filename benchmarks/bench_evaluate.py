"""Wall time and peak memory of ``ocw-hub evaluate`` and ``ocw-hub --help`` (whole commands,
start-up included), on the stand-in's 494 test walls and on a 49,400-wall copy.

Run: ``.venv/bin/python benchmarks/bench_evaluate.py [--data ../shared/data/ocw/dataset]``.

Each figure is the median of ``--repeat`` runs of the command in a fresh process, after one
warm-up run (the split is prepared in a private cache folder first, as a user's second run
finds it). Targets (issue 9, this 2-core machine): one run of 494 walls, both tasks, < 1.5 s;
16 runs of 494 walls in one command < 3 s; 49,400 walls < 20 s with memory growing linearly;
``ocw-hub --help`` < 0.3 s. Reference figures measured before this version on the same machine
(quoted; the upstream scripts need the paper's repository and online models, so they are not
run here): upstream grouping script 3.3 s and connections script 162 s for the 494 walls;
ocw-hub 0.1 ``evaluate`` 4 s for 494 walls, 169 s for 49,400.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OCW_HUB = [sys.executable, "-c", "from ocw_hub.cli import app; app()"]


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one command in a fresh process."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *args], capture_output=True, text=True, env=env
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{done.stderr[-2000:]}")
    peak_kib = int(done.stderr.strip().splitlines()[-1])
    return elapsed, peak_kib / 1024


def _median(args: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    _timed(args, env)  # warm-up: prepares the split, fills the OS file cache
    runs = [_timed(args, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def _prediction(wall: dict, rng: random.Random) -> dict:
    clues = [str(c) for g in wall["groups"].values() for c in g["gt_words"]]
    rng.shuffle(clues)
    connections = [c if rng.random() < 0.3 else "no idea" for c in wall["gt_connections"]]
    return {
        "wall_id": wall["wall_id"],
        "predicted_groups": [clues[i : i + 4] for i in range(0, 16, 4)],
        "predicted_connections": connections,
    }


def _big_release(walls: list[dict], copies: int, root: Path) -> list[dict]:
    """A release folder whose test split holds ``copies`` renamed copies of every wall."""
    root.mkdir(parents=True)
    big = []
    for k in range(copies):
        for wall in walls:
            copy = json.loads(json.dumps(wall))
            copy["wall_id"] = f"{wall['wall_id']}-{k:03d}"
            big.append(copy)
    small = walls[:2]
    for split, rows in (("train", small), ("validation", walls[2:4]), ("test", big)):
        payload = {"season_to_walls_map": {}, "dataset": rows}
        (root / f"{split}.json").write_text(json.dumps(payload), encoding="utf-8")
    return big


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/ocw/dataset")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--copies", type=int, default=100)
    args = parser.parse_args()
    walls = json.loads((args.data / "test.json").read_text(encoding="utf-8"))["dataset"]
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_DATASETS_CACHE": str(tmp_path / "cache"),
        }
        runs = tmp_path / "runs"
        runs.mkdir()
        for s in range(16):
            preds = [_prediction(w, rng) for w in walls]
            (runs / f"run-{s:02d}.json").write_text(json.dumps(preds), encoding="utf-8")
        common = ["--config", "default", "--split", "test", "--data-dir", str(args.data)]
        figures = [
            ("ocw-hub --help", [*OCW_HUB, "--help"], 0.3, "0.9 s (imported datasets)"),
            (
                f"evaluate, 1 run x {len(walls)} walls",
                [*OCW_HUB, "evaluate", str(runs / "run-00.json"), *common],
                1.5,
                "4 s; upstream grouping 3.3 s + connections 162 s",
            ),
            (
                f"evaluate, 16 runs x {len(walls)} walls",
                [*OCW_HUB, "evaluate", str(runs), *common],
                3.0,
                "16 commands of 4 s",
            ),
        ]
        big = _big_release(walls, args.copies, tmp_path / "big")
        big_preds = tmp_path / "big.json"
        big_preds.write_text(json.dumps([_prediction(w, rng) for w in big]), encoding="utf-8")
        figures.append(
            (
                f"evaluate, 1 run x {len(big)} walls",
                [
                    *OCW_HUB,
                    "evaluate",
                    str(big_preds),
                    "--data-dir",
                    str(tmp_path / "big"),
                    "--no-checks",
                ],  # fmt: skip
                20.0,
                "169 s",
            )
        )
        print(f"{'command':<34} {'median s':>9} {'target s':>9} {'peak MiB':>9}  before / upstream")
        for name, command, target, before in figures:
            seconds, peak = _median(command, env, args.repeat)
            flag = "ok" if seconds < target else "OVER"
            print(f"{name:<34} {seconds:>9.2f} {target:>9.1f} {peak:>9.0f}  {before}  [{flag}]")


if __name__ == "__main__":
    main()
