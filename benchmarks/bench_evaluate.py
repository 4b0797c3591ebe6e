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

Paired CPU run against upstream (issue 21): ``--upstream DIR`` (or ``OCW_UPSTREAM_DIR``) names a
checkout of the paper's code (TaatiTeam/OCW, holding ``src/ocw/evaluate_only_connect.py``; never
part of this repository) and ``--upstream-python`` an interpreter with its requirements (torch,
flair, transformers, datasets, evaluate, scikit-learn, k-means-constrained, ...). Each round runs
``ocw-hub evaluate`` (both tasks: grouping and connections) and upstream's grouping script
(``--task task1-grouping``) on the same 494 test walls and predictions, as whole processes, and
takes the CPU time (user + system) of each; the medians' ratio is printed with the target
(<= 0.15). Upstream's ``load_dataset("json")`` cannot read a clue written as a JSON number (the
stand-in's validation wall ``0f1677`` has ``8.5``), so upstream reads a copy of the release with
such clues written as strings, the value the loading script gives them. Without the checkout
the paired run is skipped with a message. ``--paired-only`` runs only that. Measured on this
2-core machine at load 5 (torch 2.14, flair 0.15, datasets 3.6 for upstream): ocw-hub 0.64 s,
upstream 9.29 s, ratio 0.069 (ocw-hub before ``load_rows``: 1.4 s, as it imported ``datasets``).
Again on 2026-12-04 at load 1, ``--repeat 5``, upstream's files as stored for TaatiTeam/OCW
(``src/ocw/evaluate_only_connect.py`` at 14ec154, ``utils.py`` at 9953634, ``common.py`` at
4095cb3, ``ocw/arguments.py`` at 5975858; unchanged) on torch 2.13 CPU, flair 0.15.1,
transformers 4.57, datasets 3.6.0: ocw-hub 1.07 s, upstream 12.10 s, ratio 0.088 (a second
round: 0.98 s, 10.08 s, 0.097); ``ocw-hub evaluate`` imported no ``datasets``, and
``ocw-hub --help`` took 0.08 to 0.13 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
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


def _cpu(args: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    """CPU seconds (user + system, the process and its children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _string_clues(data: Path, out: Path) -> Path:
    """A copy of a release folder's split files whose numeric clues (``words``, ``gt_words``)
    are written as strings, as the loading script reads them (upstream cannot read them)."""
    out.mkdir(parents=True)
    for split in ("train", "validation", "test"):
        document = json.loads((data / f"{split}.json").read_text(encoding="utf-8"))
        for wall in document["dataset"]:
            wall["words"] = [str(c) for c in wall["words"]]
            for group in wall["groups"].values():
                group["gt_words"] = [str(c) for c in group["gt_words"]]
        (out / f"{split}.json").write_text(json.dumps(document), encoding="utf-8")
    return out


def paired_upstream(
    data: Path, upstream: Path | None, python: str, repeat: int, tmp_path: Path
) -> None:
    """Print the median CPU seconds of ``ocw-hub evaluate`` (both tasks) and of upstream's
    grouping script on the same walls and predictions, run in alternation, and their ratio."""
    script = None if upstream is None else upstream / "src" / "ocw" / "evaluate_only_connect.py"
    if script is None or not script.is_file():
        print(
            "paired run against upstream skipped: no upstream checkout (give --upstream DIR "
            "holding src/ocw/evaluate_only_connect.py, or set OCW_UPSTREAM_DIR)"
        )
        return
    assert upstream is not None
    walls = json.loads((data / "test.json").read_text(encoding="utf-8"))["dataset"]
    rng = random.Random(1)
    preds = tmp_path / "paired" / "run_00_predictions.json"  # upstream parses the name
    preds.parent.mkdir(parents=True)
    preds.write_text(json.dumps([_prediction(w, rng) for w in walls]), encoding="utf-8")
    env = {
        **os.environ,
        "HF_HOME": str(tmp_path / "paired" / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "OCW_HUB_CACHE": str(tmp_path / "paired" / "ocw_hub"),
        "TOKENIZERS_PARALLELISM": "false",
    }
    env.pop("HF_DATASETS_CACHE", None)
    ours = [*OCW_HUB, "evaluate", str(preds), "--data-dir", str(data)]
    theirs = [
        python,
        "-m",
        "ocw.evaluate_only_connect",
        "--task",
        "task1-grouping",
        "--prediction-file",
        str(preds),
        "--dataset-path",
        f"{_string_clues(data, tmp_path / 'paired' / 'release')}/",
        "--results-path",
        f"{tmp_path / 'paired' / 'results'}/",
    ]
    commands = {"ocw-hub": (ours, None), "upstream": (theirs, upstream / "src")}
    for args, cwd in commands.values():  # warm-up: caches filled, files in the OS cache
        _cpu(args, env, cwd)
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (args, cwd) in commands.items():
            seconds[name].append(_cpu(args, env, cwd))
    median = {name: statistics.median(values) for name, values in seconds.items()}
    ratio = median["ocw-hub"] / median["upstream"]
    print(f"paired CPU, {len(walls)} walls, median of {repeat} alternating runs:")
    print(f"  ocw-hub evaluate (grouping + connections) {median['ocw-hub']:6.2f} s")
    print(f"  upstream task1-grouping                   {median['upstream']:6.2f} s")
    flag = "ok" if ratio <= 0.15 else "OVER"
    print(f"  ratio {ratio:.3f} (target <= 0.15) [{flag}]")


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


def offline_env(tmp_path: Path) -> dict[str, str]:
    """This environment, offline, with a private HF_HOME under ``tmp_path``."""
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
    }


def random_runs(walls: list[dict], folder: Path, rng: random.Random, n: int = 16) -> Path:
    """``folder`` with ``n`` run files ``run-NN.json`` of :func:`_prediction` answers."""
    folder.mkdir()
    for s in range(n):
        preds = [_prediction(w, rng) for w in walls]
        (folder / f"run-{s:02d}.json").write_text(json.dumps(preds), encoding="utf-8")
    return folder


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
    parser.add_argument("--upstream", type=Path, default=os.environ.get("OCW_UPSTREAM_DIR"))
    parser.add_argument("--upstream-python", default=sys.executable)
    parser.add_argument("--paired-only", action="store_true")
    args = parser.parse_args()
    if args.paired_only:
        with tempfile.TemporaryDirectory() as tmp:
            paired_upstream(args.data, args.upstream, args.upstream_python, args.repeat, Path(tmp))
        return
    walls = json.loads((args.data / "test.json").read_text(encoding="utf-8"))["dataset"]
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        env = offline_env(tmp_path)
        runs = random_runs(walls, tmp_path / "runs", rng)
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
                ],
                20.0,
                "169 s",
            )
        )
        print(f"{'command':<34} {'median s':>9} {'target s':>9} {'peak MiB':>9}  before / upstream")
        for name, command, target, before in figures:
            seconds, peak = _median(command, env, args.repeat)
            flag = "ok" if seconds < target else "OVER"
            print(f"{name:<34} {seconds:>9.2f} {target:>9.1f} {peak:>9.0f}  {before}  [{flag}]")
        paired_upstream(args.data, args.upstream, args.upstream_python, args.repeat, tmp_path)


if __name__ == "__main__":
    main()
