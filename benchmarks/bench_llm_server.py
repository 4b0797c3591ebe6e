"""Cost of the paper's LLM protocol on a real OpenAI-compatible server: seconds per wall.

Start a server (the recipe of docs/experiment.md, e.g. ``transformers serve`` on the model
folder ``tests/llm_model.py`` writes), then, from the repository root::

    python benchmarks/bench_llm_server.py --base-url http://127.0.0.1:8000/v1 --model NAME \
        [--data-dir ../shared/data/ocw/dataset] [--walls 4] [--shots 3] [--max-tokens 144]

It builds the paper's requests (``ocw-hub prompts``) for the first ``--walls`` walls of the
test split, sends them one at a time, greedy, and prints per task: seconds per wall, prompt
and answer tokens per wall, answer tokens per second, and the time the whole test split would
take at that rate, one request at a time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def _measure(client, requests: list[dict], model: str, max_tokens: int) -> list[tuple]:
    """(seconds, prompt tokens, answer tokens) per request."""
    figures = []
    for request in requests:
        body = {**request["body"], "model": model, "max_tokens": max_tokens}
        start = time.perf_counter()
        answer = client.chat.completions.create(**body)
        seconds = time.perf_counter() - start
        figures.append((seconds, answer.usage.prompt_tokens, answer.usage.completion_tokens))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data-dir", default=str(REPO_ROOT.parent / "shared/data/ocw/dataset"))
    parser.add_argument("--walls", type=int, default=4)
    parser.add_argument("--shots", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=144)
    args = parser.parse_args()

    from openai import OpenAI

    from ocw_hub.data.sources import load_split
    from ocw_hub.llm.prompts import build_requests

    test = load_split("default", "test", args.data_dir, verification_mode="no_checks").to_list()
    train = load_split("default", "train", args.data_dir, verification_mode="no_checks")
    client = OpenAI(base_url=args.base_url, api_key="unused", max_retries=0, timeout=1800)
    print(
        f"{args.model} at {args.base_url}: {args.walls} walls, {args.shots} shots, "
        f"at most {args.max_tokens} new tokens"
    )
    for task in ("grouping", "connections"):
        requests = build_requests(
            test[: args.walls], train.to_list(), task=task, shots=args.shots, model=args.model
        )
        figures = _measure(client, requests, args.model, args.max_tokens)
        seconds = statistics.mean(f[0] for f in figures)
        answer_tokens = sum(f[2] for f in figures)
        prompt_tokens = statistics.mean(f[1] for f in figures)
        print(
            f"  {task:<11} {seconds:6.1f} s/wall, prompt {prompt_tokens:.0f} "
            f"+ answer {answer_tokens / len(figures):.0f} tokens/wall, "
            f"{answer_tokens / sum(f[0] for f in figures):.1f} answer tokens/s; "
            f"the {len(test)} test walls: {len(test) * seconds / 60:.0f} min"
        )


if __name__ == "__main__":
    main()
