"""Self-consistency: K sampled answers per wall (the ``n`` choices of one chat completion)
parsed one by one and aggregated by a vote (``ocw-hub parse --vote``).

* **Samples** are the ``n`` choices of a wall's answer, or the answers of K requests of one
  wall named ``WALL#1`` … ``WALL#K`` (for servers that ignore or refuse ``n``), or both.
* **Each sample** is parsed on its own exactly as a single answer is (robust mode, the
  style's answer block, :func:`.responses.parse_wall`); sample ``i`` of every wall makes the
  ``i``-th predictions file, so each sample's figures are kept (a wall with fewer than ``i``
  choices has no answer there: ``no_response``).
* **Task 1, grouping**: the vote is the partition stated by most samples that state one
  (``clean``, ``repaired`` or ``truncated``); two answers state the same partition when
  they have the same groups of clues, in any order of groups and of clues. **Ties** go to the
  tied partition stated first, in choice order. No sample with a partition: the vote is
  ``unrecoverable``, reason ``no_valid_sample``.
* **Task 2, connections**: each group's vote is the connection most samples give it,
  compared by :func:`.parsing.normalise` (case, spacing, punctuation), ties to the first in
  choice order, written as that first sample wrote it; empty connections do not vote.

The vote's wall records ``{kind: "vote", samples: K, valid: n, votes: m}`` among its repairs
(grouping: the votes of the winner, whose status it takes; connections: the least votes of a
group's winner).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .responses import ParsedWall, Response, parse_wall

#: The statuses of a sample that states a partition.
_STATED = ("clean", "repaired", "truncated")


def sample_responses(response: Response | None) -> list[Response | None]:
    """A wall's answers, one per choice (the line's ``samples``); a ``{wall_id, text}`` line
    or a failed request is its one answer as read."""
    if response is None or not response.samples:
        return [response]
    from .answer_text import incomplete

    return [
        Response(response.wall_id, text, response.line, incomplete(finish), finish, reasoning)
        for text, finish, reasoning in response.samples
    ]


#: How a request of a repeated-sample run names its wall and sample: ``WALL#i`` (for servers
#: that ignore or refuse ``n``: K requests per wall, e.g. each with its own seed).
SAMPLE_MARK = "#"


def fold_sample_lines(responses: Mapping[str, Response], wall_ids: set[str]) -> dict[str, Response]:
    """Responses whose ids are ``WALL#i`` (``i`` a number, ``WALL`` a wall of ``wall_ids``)
    folded into one response per wall whose samples are theirs in the order of ``i`` (each
    line's choices, or its text); other responses are kept as they are."""
    folded: dict[str, Response] = {}
    parts: dict[str, list[tuple[int, Response]]] = {}
    for key, response in responses.items():
        wall_id, mark, number = key.rpartition(SAMPLE_MARK)
        if mark and number.isascii() and number.isdigit() and wall_id in wall_ids:
            parts.setdefault(wall_id, []).append((int(number), response))
        else:
            folded[key] = response
    for wall_id, numbered in parts.items():
        numbered.sort(key=lambda pair: pair[0])
        samples = []
        for _, response in numbered:
            if response.samples:
                samples += response.samples
            else:  # a failed request (no text) keeps its place: that sample has no answer
                samples.append((response.text, response.finish_reason, response.reasoning))
        first = numbered[0][1]
        folded[wall_id] = Response(
            wall_id,
            first.text,
            first.line,
            first.problem,
            first.finish_reason,
            first.reasoning,
            samples,
        )
    return folded


def partition_key(groups: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    """A partition compared whatever the order of its groups and of their clues."""
    return tuple(sorted(tuple(sorted(group)) for group in groups))


def first_most_common(keys: Sequence[Any]) -> tuple[int, int] | None:
    """(index of the first key of the most frequent value, its count) over ``keys``, None
    values left out; ties go to the value seen first. None when no key is given."""
    counts = Counter(k for k in keys if k is not None)
    if not counts:
        return None
    best = max(counts.values())
    index = next(i for i, k in enumerate(keys) if k is not None and counts[k] == best)
    return index, best


def vote_groups(wall_id: str, samples: Sequence[ParsedWall]) -> ParsedWall:
    """The grouping vote of one wall's parsed samples (module docstring)."""
    keys = [
        partition_key(p.groups) if p.status in _STATED and p.groups is not None else None
        for p in samples
    ]
    valid = sum(k is not None for k in keys)
    found = first_most_common(keys)
    if found is None:
        empty = [["", "", "", ""] for _ in range(4)]
        parsed = ParsedWall(wall_id, empty, None, status="unrecoverable")
        parsed.reason, parsed.detail = "no_valid_sample", f"none of {len(samples)} samples"
        parsed.repairs = [{"kind": "vote", "samples": len(samples), "valid": 0, "votes": 0}]
        return parsed
    index, votes = found
    winner = samples[index]
    vote = {"kind": "vote", "samples": len(samples), "valid": valid, "votes": votes}
    return ParsedWall(wall_id, winner.groups, None, [vote], winner.status, text=winner.text)


def vote_connections(wall_id: str, samples: Sequence[ParsedWall]) -> ParsedWall:
    """The connections vote of one wall's parsed samples (module docstring)."""
    from .parsing import normalise

    stated = [p.connections if p.status in _STATED and p.connections else [""] * 4 for p in samples]
    valid = sum(p.status in _STATED for p in samples)
    result: list[str] = []
    least = len(samples)
    for group in range(4):
        given = [connections[group] for connections in stated]
        keys = [normalise(text) or None for text in given]
        found = first_most_common(keys)
        result.append("" if found is None else given[found[0]].strip())
        least = min(least, 0 if found is None else found[1])
    vote = {"kind": "vote", "samples": len(samples), "valid": valid, "votes": least}
    status = "clean" if valid else "unrecoverable"
    parsed = ParsedWall(wall_id, None, result, [vote], status)
    if not valid:
        parsed.reason, parsed.detail = "no_valid_sample", f"none of {len(samples)} samples"
    return parsed


def vote_responses(
    responses: Mapping[str, Response],
    walls: Sequence[Mapping[str, Any]],
    *,
    task: str,
    style: str = "paper",
    allow_truncated: bool = False,
) -> tuple[list[ParsedWall], list[list[ParsedWall]]]:
    """The vote of each wall that has a response line (in split order), and the parsed
    samples: ``samples[i]`` holds every such wall's ``i``-th sample (``no_response`` for a
    wall with fewer choices). K is the most choices any line has."""
    per_wall = []
    for wall in walls:
        wall_id = str(wall["wall_id"])
        if wall_id not in responses:
            continue
        answers = sample_responses(responses[wall_id])
        parsed = [
            parse_wall(
                wall, answer, task=task, mode="robust", allow_truncated=allow_truncated, style=style
            )
            for answer in answers
        ]
        per_wall.append((wall, parsed))
    k = max((len(parsed) for _, parsed in per_wall), default=0)
    votes: list[ParsedWall] = []
    samples: list[list[ParsedWall]] = [[] for _ in range(k)]
    for wall, parsed in per_wall:
        wall_id = str(wall["wall_id"])
        padded = parsed + [
            parse_wall(wall, None, task=task, mode="robust") for _ in range(k - len(parsed))
        ]
        for index, sample in enumerate(padded):
            samples[index].append(sample)
        vote = vote_groups if task == "grouping" else vote_connections
        votes.append(vote(wall_id, parsed))
    return votes, samples
