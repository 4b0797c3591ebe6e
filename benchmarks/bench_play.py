"""Cost per wall of ``ocw-hub play``: requests, tokens and seconds, against the scripted
server of the tests on 127.0.0.1 answering at once (``--delay 0``) or after ``--delay`` s.

Run from the repository root::

    python benchmarks/bench_play.py [--data tests/data/ocw/dataset] [--split test] [--delay 0]

The contestant is :class:`tests/play_support.Contestant` (each wall one of four plans: a near
miss then solved, frozen after two groups, refusals, solved at once), so the figures are those
of a fixed mix of games, not of a model. Tokens are the prompt's and the answer's as counted
by whitespace words (the scripted server reports none); with a real server ``play``'s log
holds the server's own counts (``usage``). Printed: walls, requests per wall, prompt words
per wall (the conversation grows each turn: the whole history is sent again), seconds per wall
in process (the client, the rules and the log; at ``--delay 0`` it is the package's overhead),
under ``--rules show`` and ``--rules nyt``, at concurrency 1 and 8.

Measured on this 2-core machine (shared, noisy), 494 stand-in test walls, delay 0: show 4.01
requests, 914 prompt words, 0.20 s a wall at concurrency 1 (0.03 s at 8); nyt 3.01 requests,
549 words, 0.15 s (0.03 s).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer  # noqa: E402
from play_support import Contestant, fixture_rows  # noqa: E402


def _words(body: dict) -> int:
    return sum(len(str(m["content"]).split()) for m in body["messages"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "tests" / "data" / "ocw" / "dataset")
    parser.add_argument("--split", default="test")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    from ocw_hub.play.rules import default_max_guesses
    from ocw_hub.play.runner import Server, play_walls

    rows = fixture_rows(args.split, args.data)
    contestant = Contestant(rows)
    print(f"{len(rows)} walls of {args.data} / {args.split}, server delay {args.delay} s")
    print("rules  conc  requests/wall  prompt words/wall  answer words/wall  s/wall")
    for rules in ("show", "nyt"):
        for concurrency in (1, 8):
            server = ChatServer(answer=contestant, delay=args.delay)
            header = {
                "rules": rules,
                "max_guesses": default_max_guesses(rules),
                "max_invalid": 3,
                "config": "default",
                "split": args.split,
                "player": "bench",
                "player_kind": "model",
                "max_tokens": 144,
            }
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                play_walls(
                    rows,
                    Path(tmp) / "log.jsonl",
                    header,
                    Server([server.url], "bench", concurrency),
                )
                seconds = time.perf_counter() - start
            server.close()
            n = len(rows)
            prompt = sum(_words(b) for b in server.bodies) / n
            answer = sum(len(contestant(b).split()) for b in server.bodies) / n
            print(
                f"{rules:5}  {concurrency:4}  {len(server.bodies) / n:13.2f}  {prompt:17.0f}  "
                f"{answer:17.1f}  {seconds / n:6.3f}"
            )


if __name__ == "__main__":
    main()
