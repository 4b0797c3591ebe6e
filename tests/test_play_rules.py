"""The rules engine of the play protocol (:mod:`ocw_hub.play.rules`) as laws on real OCW walls.

Small scale: the 13 fixture walls of ``tests/data/ocw/dataset`` (the quirk walls included:
``654041`` holds ``Bask`` twice in one group, ``b308e4`` ``Glamour`` in two groups). Full
scale (``full_data``): the gold-solver law on every wall of the stand-in split.
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ocw_hub.data.sources import load_rows
from ocw_hub.play import rules
from ocw_hub.play.log import gold_groups

FIXTURE = Path(__file__).resolve().parent / "data" / "ocw" / "dataset"


def _walls(folder: Path) -> list[dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            row
            for split in ("train", "validation", "test")
            for row in load_rows("default", split, folder, verification_mode="no_checks").rows
        ]


WALLS = _walls(FIXTURE)
walls = st.sampled_from(WALLS)
#: Seeds of the wrong guesses drawn (``random.Random(seed)``).
seeds = st.integers(0, 2**32).map(random.Random)


def _start(wall: dict, rule: str = "show", **caps: int) -> rules.WallState:
    return rules.new_wall(rule, gold_groups(wall), **caps)


def _wrong(state: rules.WallState, rng: random.Random) -> list[str]:
    """Four clues in play that are no gold group still to find, nor a wrong guess made."""
    left = list(state.in_play.elements())
    gold = [Counter(g) for i, g in enumerate(state.groups) if i not in state.found]
    while True:
        guess = rng.sample(left, 4)
        if Counter(guess) not in gold and tuple(sorted(guess)) not in (state.tried or ()):
            return guess


def _overlap(state: rules.WallState, guess: list[str]) -> int:
    """Most clues of ``guess`` in one gold group not yet found (multisets)."""
    wanted = Counter(guess)
    return max(
        sum((Counter(g) & wanted).values())
        for i, g in enumerate(state.groups)
        if i not in state.found
    )


def test_fixture_walls_are_the_real_ones() -> None:
    assert len(WALLS) == 13
    ids = {w["wall_id"] for w in WALLS}
    assert {"654041", "b308e4"} <= ids


@settings(max_examples=150, deadline=None)
@given(walls, st.permutations(range(4)), st.sampled_from(rules.RULES))
def test_a_gold_solver_solves_every_wall_in_three_guesses(wall, order, rule) -> None:
    state = _start(wall, rule)
    groups = gold_groups(wall)
    for turn, index in enumerate(order[:3], 1):
        verdict = rules.apply(state, groups[index])
        assert verdict.verdict == "correct"
        state = verdict.state
        assert state.guesses == turn
    assert state.solved and state.guesses == 3 and state.lives_lost == 0 and state.wrong == 0
    assert sorted(state.found) == [0, 1, 2, 3]
    assert state.found[3] == order[3]  # the fourth group completed itself
    assert not state.in_play
    assert rules.final_partition(state) == [groups[i] for i in order]


@settings(max_examples=150, deadline=None)
@given(walls, st.integers(0, 1), st.integers(1, 15), seeds)
def test_wrong_guesses_before_two_groups_are_free(wall, found, wrong, rng) -> None:
    state = _start(wall)
    groups = gold_groups(wall)
    for index in range(found):
        state = rules.apply(state, groups[index]).state
    for _ in range(wrong):
        verdict = rules.apply(state, _wrong(state, rng))
        assert verdict.verdict == "incorrect"  # never one_away under show
        state = verdict.state
    assert state.lives_lost == 0 and state.lives is None and state.ended is None
    assert state.wrong == wrong and state.guesses == wrong + found


@settings(max_examples=150, deadline=None)
@given(walls, st.integers(0, 6), seeds)
def test_after_two_groups_the_third_wrong_guess_freezes(wall, free, rng) -> None:
    state = _start(wall)
    groups = gold_groups(wall)
    for _ in range(free):
        state = rules.apply(state, _wrong(state, rng)).state
    state = rules.apply(rules.apply(state, groups[2]).state, groups[0]).state
    assert state.lives == 3
    for lives in (2, 1):
        state = rules.apply(state, _wrong(state, rng)).state
        assert state.lives == lives and state.ended is None
    state = rules.apply(state, _wrong(state, rng)).state
    assert state.ended == "frozen_lives" and state.lives == 0 and state.lives_lost == 3
    assert len(state.found) == 2
    with pytest.raises(ValueError):
        rules.apply(state, groups[1])
    board = rules.final_partition(state)
    assert board[:2] == [groups[2], groups[0]]
    assert Counter(c for g in board for c in g) == Counter(wall["words"])
    # the groups not found are never credited: no group of the rest is a gold group
    assert not [g for g in board[2:] if any(Counter(g) == Counter(gold) for gold in groups)]


@settings(max_examples=150, deadline=None)
@given(walls, st.integers(0, 2), st.integers(1, 25), seeds)
def test_a_frozen_wall_credits_only_the_groups_found(wall, found, cap, rng) -> None:
    """Frozen by the guess cap with 0, 1 or 2 groups found: the final partition has exactly
    the groups found as gold groups, whatever the wall's order (the raw export lists its clues
    in group order, where cutting the rest in fours would rebuild the gold groups)."""
    groups = gold_groups(wall)
    state = _start(wall, max_guesses=found + cap)
    for index in range(found):
        state = rules.apply(state, groups[index]).state
    while state.ended is None:
        state = rules.apply(state, _wrong(state, rng)).state
    assert state.ended in ("frozen_guesses", "frozen_lives") and len(state.found) == found
    board = rules.final_partition(state)
    assert [len(g) for g in board] == [4, 4, 4, 4]
    assert Counter(c for g in board for c in g) == Counter(wall["words"])
    whole = [g for g in board if any(Counter(g) == Counter(gold) for gold in groups)]
    assert len(whole) == found


@settings(max_examples=100, deadline=None)
@given(walls, st.integers(1, 25), seeds)
def test_the_guess_cap_freezes_the_wall(wall, cap, rng) -> None:
    state = _start(wall, max_guesses=cap)
    for _ in range(cap):
        assert state.ended is None
        state = rules.apply(state, _wrong(state, rng)).state
    assert state.ended == "frozen_guesses" and state.guesses == cap


@settings(max_examples=150, deadline=None)
@given(
    walls,
    st.sampled_from(rules.RULES),
    st.integers(1, 6),
    st.lists(st.sampled_from(["none", "not in play", "twice", "three"]), min_size=6, max_size=6),
)
def test_invalid_answers_cost_no_life_and_stop_at_max_invalid(wall, rule, cap, kinds) -> None:
    state = _start(wall, rule, max_invalid=cap)
    groups = gold_groups(wall)
    state = rules.apply(state, groups[1]).state  # group 2 found: its clues leave play
    unique = [c for c in groups[0] if Counter(wall["words"])[c] == 1]
    answers = {
        "none": (None, "unparseable"),
        "not in play": ([groups[1][0], *groups[0][:3]], None),
        "twice": ([unique[0], unique[0], *groups[2][:2]], None),
        "three": (groups[0][:3], None),
    }
    expected = {"not in play": "clue not in play", "twice": "clue twice", "three": "not four clues"}
    for turn in range(1, cap + 1):
        clues, reason = answers[kinds[turn - 1]]
        verdict = rules.apply(state, clues, reason)
        assert verdict.verdict == "invalid"
        assert verdict.reason == expected.get(kinds[turn - 1], "unparseable")
        state = verdict.state
        assert state.invalid == turn and state.lives_lost == 0 and state.guesses == 1
        assert state.ended == ("frozen_invalid" if turn == cap else None)


@settings(max_examples=200, deadline=None)
@given(walls, st.integers(0, 2), seeds)
def test_nyt_one_away_exactly_when_three_of_four_in_one_group(wall, found, rng) -> None:
    state = _start(wall, "nyt")
    groups = gold_groups(wall)
    for index in range(found):
        state = rules.apply(state, groups[index]).state
    guess = _wrong(state, rng)
    verdict = rules.apply(state, guess)
    assert (verdict.verdict == "one_away") == (_overlap(state, guess) == 3)
    assert verdict.state.lives_lost == 1 and verdict.state.lives == 3


@settings(max_examples=100, deadline=None)
@given(walls, seeds)
def test_nyt_three_plus_one_is_one_away_and_four_mistakes_freeze(wall, rng) -> None:
    state = _start(wall, "nyt")
    groups = gold_groups(wall)
    a, b = groups[0], groups[3]
    if Counter(a) & Counter(b):  # a clue in both groups (b308e4): 3 + 1 may be a group
        a, b = groups[1], groups[2]
    near = [*a[:3], next(c for c in b if c not in a[:3])]
    verdict = rules.apply(state, near)
    assert verdict.verdict == "one_away"
    state = verdict.state
    for mistakes in (2, 3):
        state = rules.apply(state, _wrong(state, rng)).state
        assert state.lives == 4 - mistakes and state.ended is None
    state = rules.apply(state, _wrong(state, rng)).state
    assert state.ended == "frozen_lives" and state.lives_lost == 4 and state.wrong == 4


def test_show_points() -> None:
    assert rules.show_points(4, 4) == 10  # 4 + 4 + 2
    assert rules.show_points(4, 3) == 7
    assert rules.show_points(2, 1) == 3
    assert rules.show_points(0, 0) == 0


def test_bad_walls_and_caps_are_refused() -> None:
    groups = gold_groups(WALLS[0])
    with pytest.raises(ValueError):
        rules.new_wall("quiz", groups)
    with pytest.raises(ValueError):
        rules.new_wall("show", groups[:3])
    with pytest.raises(ValueError):
        rules.new_wall("show", groups, max_invalid=0)


def test_a_gold_solver_solves_every_wall_of_the_stand_in(ocw_dir: Path) -> None:
    every = _walls(ocw_dir)
    assert len(every) == 618
    for wall in every:
        state = _start(wall)
        for group in gold_groups(wall)[:3]:
            state = rules.apply(state, group).state
        assert state.solved and state.guesses == 3 and state.lives_lost == 0, wall["wall_id"]


def test_parse_guess_reads_one_group_as_parse_does() -> None:
    from ocw_hub.llm.parsing import parse_guess

    wall = next(w for w in WALLS if w["wall_id"] == "46fa44")
    words = list(wall["words"])
    quarks = ["Up", "Down", "Charm", "Strange"]
    for text in (
        "Up, Down, Charm, Strange",
        "- **Group 1:** Up, Down, Charm and Strange",
        '["Up", "Down", "Charm", "Strange"]',
        "<think>Santa, Satan? no</think>\nup ; DOWN ; charm ; strange",
        "Up, Down, Charm, Strnge. Connection: quarks",  # one misspelt clue
        f"Clues left: {', '.join(words)}\nMy guess: Up, Down, Charm, Strange",  # echo ignored
    ):
        assert parse_guess(text, words) == (quarks, None), text
    assert parse_guess("<think>Up, Down, Charm, Strange", words) == (None, "unparseable")
    assert parse_guess("Up, Down, Charm", words) == (None, "not four clues")
    assert parse_guess("Up, Up, Charm, Strange", words) == (None, "clue twice")
    assert parse_guess("Up, Down\nCharm, Strange", words) == (None, "not one group")
    assert parse_guess("I'm sorry, I cannot help.", words) == (None, "refusal")
    assert parse_guess("Up, Down, Charm, Nuts", words) == (None, "clue not in play")
    state = rules.apply(_start(wall), quarks).state  # the quarks found: they left the wall
    again = rules.apply(state, *parse_guess("Up, Down, Charm, Strange", words))
    assert (again.verdict, again.reason, again.state.invalid) == ("invalid", "clue not in play", 1)
    bask = next(w for w in WALLS if w["wall_id"] == "654041")  # Bask twice in one group
    group = next(g for g in gold_groups(bask) if g.count("Bask") == 2)
    assert parse_guess(", ".join(group), list(bask["words"])) == (group, None)


@settings(max_examples=50, deadline=None)
@given(walls, seeds)
def test_nyt_a_wrong_guess_made_again_is_no_mistake(wall, rng) -> None:
    """The NYT game answers a guess made before "Already guessed" and charges nothing; the
    show's wall has no such rule (a repeat after two groups costs a life)."""
    for name in ("nyt", "show"):
        state = _start(wall, name)
        guess = _wrong(state, rng)
        once = rules.apply(state, guess).state
        again = rules.apply(once, list(reversed(guess)))
        if name == "nyt":
            assert (again.verdict, again.reason) == ("invalid", "already guessed")
            assert again.state.lives_lost == once.lives_lost == 1 and again.state.wrong == 1
        else:
            assert again.verdict == "incorrect" and again.state.wrong == 2


def test_a_version_1_log_replays_as_it_was_played(tmp_path) -> None:
    """Logs written before "already guessed" (version 1) replay under their own rules: a
    repeated wrong guess there was a mistake."""
    import json

    from ocw_hub.play.log import read_play_log, start_state

    wall = WALLS[0]
    header = {"record": "play", "version": 1, "rules": "nyt", "max_guesses": 7, "max_invalid": 3}
    old = start_state(header, wall)
    guess = _wrong(old, random.Random(0))
    twice = rules.apply(rules.apply(old, guess).state, guess)
    assert twice.verdict == "incorrect" and twice.state.lives_lost == 2
    new = start_state({**header, "version": 2}, wall)
    again = rules.apply(rules.apply(new, guess).state, guess)
    assert again.verdict == "invalid" and again.state.lives_lost == 1
    log = tmp_path / "v1.jsonl"
    log.write_text(
        json.dumps(
            {**header, "config": "default", "split": "test", "player": "m", "player_kind": "model"}
        )
        + "\n"
    )
    assert read_play_log(log).header["version"] == 1
