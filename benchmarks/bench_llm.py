"""Speed of the LLM protocol on the 494 walls of the stand-in test split.

Run from the repository root, next to ``../shared/data``::

    python benchmarks/bench_llm.py [--shared ../shared/data]

Figures printed:

* ``prompts``: building the 494 requests (3 shots) in process;
* ``parse``: robust and paper mode in process (ms per wall), on answers made from the gold
  groups with the kinds of noise the parser repairs (numbering, markdown, case, a typo, a
  missing group, a duplicate), then the ``ocw-hub parse`` command end to end (start-up and
  the split read from the prepared cache included).

The client CPU of a run through inspect-ai is ``bench_inspect.py``'s. The paper's notebook
has no counterpart to time here (it called the OpenAI API one wall at a time through
``guidance``).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def noisy_answer(wall: dict, rng: random.Random) -> str:
    """The gold groups written the way models write them, with one kind of noise."""
    groups = [list(g["gt_words"]) for g in wall["groups"].values()]
    rng.shuffle(groups)
    kind = rng.choice(["plain", "numbered", "bold", "case", "typo", "three", "duplicate"])
    if kind == "case":
        groups = [[c.lower() for c in g] for g in groups]
    if kind == "typo" and len(groups[0][0]) > 3:
        word = groups[0][0]
        groups[0][0] = word[0] + word[2] + word[1] + word[3:]
    if kind == "three":
        groups = groups[:3]
    if kind == "duplicate":
        groups[1].append(groups[0][0])
    prefix = {"numbered": "{}. ", "bold": "**Group {}:** "}.get(kind, "")
    return "\n".join(f"{prefix.format(i)}{', '.join(g)}" for i, g in enumerate(groups, 1))


def bench_in_process(test: list[dict], train: list[dict]) -> dict[str, float]:
    from ocw_hub.llm.prompts import build_requests
    from ocw_hub.llm.responses import Response, parse_responses

    figures = {}
    start = time.perf_counter()
    build_requests(test, train, task="grouping", shots=3)
    figures["prompts_s"] = time.perf_counter() - start
    rng = random.Random(0)
    responses = {
        w["wall_id"]: Response(w["wall_id"], noisy_answer(w, rng), i) for i, w in enumerate(test)
    }
    parse_responses(dict(list(responses.items())[:2]), test)  # imports, warm caches
    for mode in ("robust", "paper"):
        start = time.perf_counter()
        _, report = parse_responses(responses, test, mode=mode)
        figures[f"parse_{mode}_s"] = time.perf_counter() - start
        figures[f"parse_{mode}_counts"] = report["counts"]
    return figures


def bench_parse_command(test: list[dict], shared: Path, work: Path) -> float:
    rng = random.Random(0)
    responses = work / "responses.jsonl"
    responses.write_text(
        "".join(
            json.dumps({"wall_id": w["wall_id"], "text": noisy_answer(w, rng)}) + "\n" for w in test
        )
    )
    command = [
        str(Path(sys.executable).parent / "ocw-hub"),
        "parse",
        str(responses),
        "--out",
        str(work / "predictions.json"),
        "--data-dir",
        str(shared / "ocw" / "dataset"),
        "--cache-dir",
        str(work / "cache"),
    ]
    subprocess.run(command, check=True, capture_output=True)  # prepares the cache
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import datasets

    from ocw_hub.data.sources import load_split

    datasets.disable_progress_bars()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = args.shared / "ocw" / "dataset"
        test = load_split("default", "test", data, cache_dir=work / "cache").to_list()
        train = load_split("default", "train", data, cache_dir=work / "cache").to_list()
        n = len(test)
        figures = bench_in_process(test, train)
        print(f"walls: {n}")
        print(f"prompts (3 shots), in process: {figures['prompts_s']:.3f} s")
        for mode in ("robust", "paper"):
            seconds = figures[f"parse_{mode}_s"]
            print(
                f"parse --mode {mode}, in process: {seconds:.3f} s "
                f"({1000 * seconds / n:.2f} ms a wall); {figures[f'parse_{mode}_counts']}"
            )
        command_s = bench_parse_command(test, args.shared, work)
        print(f"ocw-hub parse (robust), whole command: {command_s:.2f} s")


if __name__ == "__main__":
    main()
