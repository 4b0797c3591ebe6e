"""The intervals are bit-identical to those of the code before the bootstrap was made cheaper
(commit e54a8f8): same seed, same draws, same arithmetic. The expected values were computed on
that commit (``tests/data/bootstrap_values.json``): the fixture's whole ``ci95`` and
``by_season``, and a digest of every interval of synthetic splits of real shape (494 walls, 1
and 16 runs, 13 seasons, a task scored on some walls only; 5,000 walls, drawn in blocks)."""

from __future__ import annotations

import hashlib
import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ocw_fixtures import DATA

from ocw_hub.evaluation import evaluate_files
from ocw_hub.scoring import bootstrap
from ocw_hub.scoring.intervals import COUNTED, segment_intervals

EXPECTED = DATA / "bootstrap_values.json"
PREDICTIONS = DATA / "herrings" / "predictions.json"
KEYS = {
    "grouping": ("wd", "ami", "ari", "fms", "correct_groups", "full_wall"),
    "connections": ("exact_match", "rouge1", "bertscore_f1"),
    "groups": tuple(COUNTED["groups"]),
    "human": ("correct_groups", "full_wall", "connections_correct_rate"),
}


def fixture_intervals() -> dict[str, Any]:
    """``ci95`` and ``by_season`` of the fixture, one run and two runs (seeded)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the fixture's foreign clue
        again = Path(tmp) / "run-01.json"
        again.write_bytes(PREDICTIONS.read_bytes())
        for name, paths in (("one", [PREDICTIONS]), ("two", [PREDICTIONS, again])):
            found = evaluate_files(
                paths,
                "default",
                "test",
                DATA / "ocw_dated" / "dataset",
                verification_mode="no_checks",
                allow_missing=True,
                bootstrap=300,
                bootstrap_seed=2,
                as_runs=name == "two",
            )
            seasons = {s: v.get("ci95") for s, v in found.get("by_season", {}).items()}
            out[name] = {"ci95": found["ci95"], "by_season": seasons}
    return out


def _value(rng: np.random.Generator, task: str, key: str) -> float:
    counted = COUNTED[task].get(key)
    if counted is None:
        return float(rng.random())
    most, trials = counted
    return float(rng.integers(0, trials + 1) * most / trials)


def synthetic_intervals(n_walls: int, n_runs: int) -> dict[str, Any]:
    """Every interval of ``n_runs`` runs on ``n_walls`` walls of 13 seasons, random per-wall
    values (counted ones whole counts); connections scored on 6 walls of 7."""
    rng = np.random.default_rng(7)
    runs = []
    for k in range(n_runs):
        walls = []
        for w in range(n_walls):
            item: dict[str, Any] = {"wall_id": f"w{w:05d}", "season": 1 + w % 13}
            for task, keys in KEYS.items():
                if task == "connections" and w % 7 == 3:
                    continue
                item[task] = {key: _value(rng, task, key) for key in keys}
            if "groups" in item:
                item["groups"]["decoys"] = min(
                    item["groups"]["decoys"], item["groups"]["wrong_groups"]
                )
            walls.append(item)
        runs.append({"predictions": f"run-{k:02d}.json", "per_wall": walls, **KEYS})
    seasons: dict[str, list[int]] = {}
    for w in range(n_walls):
        seasons.setdefault(str(1 + w % 13), []).append(w)
    return segment_intervals(runs, {"": None, **seasons}, 1000, 3)


def _digest(found: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(found, sort_keys=True).encode()).hexdigest()


def test_the_fixtures_intervals_are_mains() -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert fixture_intervals() == expected["fixture"]


@pytest.mark.parametrize(("n_walls", "n_runs"), [(494, 1), (494, 16), (60, 3), (5000, 1)])
def test_every_interval_of_a_split_of_real_shape_is_mains(n_walls: int, n_runs: int) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    found = synthetic_intervals(n_walls, n_runs)
    assert found[""] == expected[f"synthetic-{n_walls}x{n_runs}-sample"]
    assert _digest(found) == expected[f"synthetic-{n_walls}x{n_runs}"]


def _runs(n_walls: int, n_runs: int, tasks: tuple[str, ...]) -> list[dict[str, Any]]:
    rng = np.random.default_rng(1)
    runs = []
    for k in range(n_runs):
        walls = [
            {"wall_id": f"w{w}", "season": 1}
            | {t: {key: _value(rng, t, key) for key in KEYS[t]} for t in tasks}
            for w in range(n_walls)
        ]
        runs.append({"predictions": f"run-{k}.json", "per_wall": walls} | {t: {} for t in tasks})
    return runs


@pytest.mark.parametrize("n_runs", [1, 3])
def test_no_draws_for_walls_whose_figures_are_all_counted(
    monkeypatch: pytest.MonkeyPatch, n_runs: int
) -> None:
    """Counted figures get Clopper-Pearson's interval: a job of them alone (the contestants',
    the groups') draws nothing; a job with a bootstrapped figure still does."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("drawn")

    monkeypatch.setattr(bootstrap, "bootstrap_means", refuse)
    monkeypatch.setattr(bootstrap, "run_index_blocks", refuse)
    found = segment_intervals(_runs(30, n_runs, ("groups", "human")), {"": None}, 1000, 3)[""]
    assert set(found) == {"groups", "human"} and "decoy_share" in found["groups"]
    with pytest.raises(AssertionError, match="drawn"):
        segment_intervals(_runs(30, n_runs, ("groups", "grouping")), {"": None}, 1000, 3)


def _state(rng: np.random.Generator) -> tuple[int, int, int | None]:
    state = rng.bit_generator.state
    buffered = state["uinteger"] if state["has_uint32"] else None
    return state["state"]["state"], state["has_uint32"], buffered


def test_byte_draws_are_numpys_draws_and_leave_its_state() -> None:
    """The two-level bootstrap's run draws taken from the generator's bytes equal
    ``rng.integers(..., dtype=uint8)`` after wall draws of every parity, block after block,
    and the generator goes on as NumPy's would (a half output buffered or not)."""
    assert bootstrap._bytes_are_numpys()
    for seed in range(6):
        for n_runs in sorted(bootstrap._BYTE_RUNS):
            for n_walls in (1, 2, 3, 5, 494):
                ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
                for block in range(4):
                    shape = (1 + (seed + block) % 5, n_walls, n_runs)
                    ours.integers(0, n_walls, size=shape[:2])
                    theirs.integers(0, n_walls, size=shape[:2])
                    mine = bootstrap._byte_draws(ours, n_runs, shape)
                    expected = theirs.integers(0, n_runs, size=shape, dtype=np.uint8)
                    assert mine.dtype == np.uint8 and np.array_equal(mine, expected)
                    assert _state(ours) == _state(theirs)
                assert ours.random() == theirs.random()


def test_the_two_level_draws_are_the_same_with_numpys_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of draws (494 walls x 16 runs x 1,000: two blocks) with the byte draws and with
    NumPy's (the fallback, where the check fails) are the same."""
    fast = bootstrap.run_indices(494, 16, 1000, 5)
    monkeypatch.setattr(bootstrap, "_bytes_are_numpys", lambda: False)
    slow = bootstrap.run_indices(494, 16, 1000, 5)
    assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
