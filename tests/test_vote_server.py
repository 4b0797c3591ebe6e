"""Self-consistency against the real local server (``.ci/run`` starts ``transformers
serve``, which refuses ``n``; skipped without one, see tests/test_llm_server.py): K = 3
requests per wall with seeds (``prompts -n 3 --as-requests``) -> ``run-llm`` ->
``parse --vote`` -> ``evaluate`` of each sample file and of the vote.

The model's quality does not matter: the test recomputes each wall's majority partition from
the sample files (partitions compared whatever the order of groups and clues, a sample with
no partition left out, ties to the first sample) and checks that the vote file holds it and
that the vote's figures, per wall and over the split, are those of that partition's sample.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_llm_server import (
    MAX_TOKENS,
    N_WALLS,
    SHOTS,
    _data,
    _ocw,
    data_dirs,  # noqa: F401  (a fixture)
    server,  # noqa: F401  (a fixture)
)

pytestmark = pytest.mark.llm_server
K = 3
SEED = 11


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _key(groups: list[list[str]]) -> tuple[tuple[str, ...], ...] | None:
    """The partition stated, whatever the order of groups and clues; None: none stated."""
    if not any(clue for group in groups for clue in group):
        return None
    return tuple(sorted(tuple(sorted(group)) for group in groups))


def _winner(keys: list[tuple[tuple[str, ...], ...] | None]) -> int:
    """The sample whose partition most samples state, ties to the first; 0 when none does
    (every sample is then the same unrecoverable wall)."""
    counts = Counter(k for k in keys if k is not None)
    if not counts:
        return 0
    top = max(counts.values())
    return next(i for i, k in enumerate(keys) if k is not None and counts[k] == top)


def test_vote_of_k_seeded_requests(server, data_dirs, tmp_path: Path) -> None:  # noqa: F811
    base_url, model = server
    data = _data("grouping", data_dirs, tmp_path)
    requests, responses = tmp_path / "requests.jsonl", tmp_path / "responses.jsonl"
    _ocw(
        "prompts",
        "--shots",
        SHOTS,
        "--profile",
        "custom",
        "--max-tokens",
        MAX_TOKENS,
        "--temperature",
        "1.0",
        "-n",
        K,
        "--sampling-seed",
        SEED,
        "--as-requests",
        "--out",
        requests,
        *data,
    )
    lines = [json.loads(line) for line in requests.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == K * N_WALLS
    assert [line["custom_id"].split("#")[1] for line in lines] == ["1", "2", "3"] * N_WALLS
    assert [line["body"]["seed"] for line in lines] == [SEED, SEED + 1, SEED + 2] * N_WALLS
    assert all("n" not in line["body"] for line in lines)
    _ocw("run-llm", requests, "--base-url", base_url, "--model", model, "--out", responses)
    vote = tmp_path / "vote.json"
    _ocw("parse", responses, "--vote", "--out", vote, *data)
    report = _read(Path(f"{vote}.parse.json"))
    samples = [tmp_path / f"vote.sample-{i}.json" for i in range(1, K + 1)]
    assert report["vote"]["samples"] == K and report["vote"]["files"] == [str(p) for p in samples]
    scoring = [o for o in data if o not in ("--task", "grouping")]

    def scored(path: Path) -> dict[str, Any]:
        out = tmp_path / f"{path.stem}.results.json"
        _ocw("evaluate", path, "--out", out, "--bootstrap", "0", *scoring)
        return _read(out)

    sample_predictions = [{p["wall_id"]: p for p in _read(path)} for path in samples]
    sample_results = [scored(path) for path in samples]
    vote_predictions = {p["wall_id"]: p for p in _read(vote)}
    vote_results = scored(vote)
    assert len(vote_predictions) == N_WALLS
    by_wall = [{w["wall_id"]: w for w in r["per_wall"]} for r in sample_results]
    vote_by_wall = {w["wall_id"]: w for w in vote_results["per_wall"]}
    won = []  # per wall, the grouping figures of its majority partition's sample
    for wall_id, voted in vote_predictions.items():
        keys = [_key(s[wall_id]["predicted_groups"]) for s in sample_predictions]
        j = _winner(keys)
        assert _key(voted["predicted_groups"]) == keys[j]
        assert vote_by_wall[wall_id] == by_wall[j][wall_id]
        won.append(by_wall[j][wall_id]["grouping"])
    grouping = vote_results["grouping"]
    assert grouping["correct_groups"] == sum(w["correct_groups"] for w in won)
    assert grouping["full_wall"] == sum(w["full_wall"] for w in won)
    for name in ("ami", "ari", "fms", "wd"):
        assert grouping[name] == pytest.approx(sum(w[name] for w in won) / N_WALLS)
