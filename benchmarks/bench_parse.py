"""How often robust parsing recovers a wall's stated partition, and that it never reports a
wrong one, on the gold solutions of the stand-in test split written in many layouts.

Run from the repository root, next to ``../shared/data``::

    python benchmarks/bench_parse.py [--shared ../shared/data] [--seed 0]

Every test wall's gold groups (in a random order) are written in each layout below, plain
and with one kind of noise (a typo in one clue, case changed, quotes, a closed reasoning
block before the answer, an unclosed one, the answer cut in its last group). Per layout it
prints the rate of exact recovery (``clean`` or ``repaired``, the gold partition) and the
rate of WRONG partitions reported as clean or repaired, which must be 0.
"""

from __future__ import annotations

import argparse
import json
import random
import warnings
from collections.abc import Callable
from pathlib import Path

Groups = list[list[str]]
NAMES = ["Things", "Stuff", "Items", "Words"]


def _json(groups: Groups) -> str:
    return "```json\n" + json.dumps(groups) + "\n```"


LAYOUTS: dict[str, Callable[[Groups], str]] = {
    "commas": lambda gs: "\n".join(", ".join(g) for g in gs),
    "semicolons": lambda gs: "\n".join("; ".join(g) for g in gs),
    "pipes": lambda gs: "\n".join(" | ".join(g) for g in gs),
    "slashes": lambda gs: "\n".join(" / ".join(g) for g in gs),
    "tabs": lambda gs: "\n".join("\t".join(g) for g in gs),
    "bullets": lambda gs: "\n".join("- " + ", ".join(g) for g in gs),
    "numbered": lambda gs: "\n".join(f"{i}. " + ", ".join(g) for i, g in enumerate(gs, 1)),
    "group labels + connection": lambda gs: "\n".join(
        f"**Group {i}:** " + ", ".join(g) + f". Connection: {n}"
        for i, (g, n) in enumerate(zip(gs, NAMES, strict=True), 1)
    ),
    "table + connection column": lambda gs: (
        "| Group | Clues | Connection |\n|---|---|---|\n"
        + "\n".join(
            f"| {i} | {', '.join(g)} | {n} |"
            for i, (g, n) in enumerate(zip(gs, NAMES, strict=True), 1)
        )
    ),
    "table, a cell per clue": lambda gs: (
        "| A | B | C | D |\n|---|---|---|---|\n"
        + "\n".join("| " + " | ".join(g) + " |" for g in gs)
    ),
    "one clue per line under headers": lambda gs: "\n\n".join(
        f"Group {i}:\n" + "\n".join(f"- {c}" for c in g) for i, g in enumerate(gs, 1)
    ),
    "json in a code fence": _json,
    "groups on one line": lambda gs: "; ".join(", ".join(g) for g in gs),
    "and before the last": lambda gs: "\n".join(", ".join(g[:3]) + " and " + g[3] for g in gs),
}


def _typo(groups: Groups, rng: random.Random) -> Groups:
    groups = [list(g) for g in groups]
    g, c = rng.randrange(4), rng.randrange(4)
    word = groups[g][c]
    if len(word) > 4:
        i = rng.randrange(1, len(word) - 1)
        groups[g][c] = word[:i] + word[i + 1 :]
    return groups


NOISES: dict[str, Callable[[str, Groups, random.Random], str]] = {
    "none": lambda text, gs, rng: text,
    "typo": lambda text, gs, rng: text,  # applied to the groups before rendering
    "case": lambda text, gs, rng: text.upper(),
    "quotes": lambda text, gs, rng: "\n".join(
        ", ".join(f'"{c}"' for c in g) for g in gs
    ),  # commas layout with quotes
    "reasoning": lambda text, gs, rng: (
        "<think>Maybe " + gs[0][0] + ", " + gs[1][1] + "?</think>\n" + text
    ),
    "unclosed reasoning": lambda text, gs, rng: "<think>Maybe " + gs[0][0] + ", " + text,
    "cut": lambda text, gs, rng: text[: max(1, len(text) - rng.randrange(2, 12))],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from ocw_hub.llm.parsing import parse_groups

    path = args.shared / "ocw" / "dataset" / "test.json"
    walls = json.loads(path.read_text(encoding="utf-8"))["dataset"]
    rng = random.Random(args.seed)
    print(f"{len(walls)} walls of {path}")
    header = f"{'layout':34} " + " ".join(f"{n[:12]:>14}" for n in NOISES)
    print("exact recovery % / WRONG partitions reported clean or repaired (count)")
    print(header)
    total_wrong = 0
    for name, render in LAYOUTS.items():
        cells = []
        for noise, apply in NOISES.items():
            exact = wrong = 0
            for wall in walls:
                gold = [list(g["gt_words"]) for g in wall["groups"].values()]
                rng.shuffle(gold)
                shown = _typo(gold, rng) if noise == "typo" else gold
                text = apply(render(shown), shown, rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = parse_groups(text, wall["words"])
                if result.status == "unrecoverable":
                    continue
                same = sorted(map(sorted, result.groups)) == sorted(map(sorted, gold))
                exact += same
                wrong += not same
            total_wrong += wrong
            cells.append(f"{100 * exact / len(walls):7.1f}% /{wrong:4d}")
        print(f"{name:34} " + " ".join(f"{c:>14}" for c in cells))
    print(f"wrong partitions in all: {total_wrong}")


if __name__ == "__main__":
    main()
