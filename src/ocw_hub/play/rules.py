"""The rules of playing a wall one group at a time (standard library only).

A :class:`WallState` is what is known of one wall during play; :func:`apply` plays one
guess and returns the verdict and the state after it (states are never changed in place).
Two rule sets (docs/experiment.md, "Playing the wall"):

* ``show``, the Only Connect wall: wrong guesses are free until two groups are found, then
  the team has :data:`SHOW_LIVES` lives; a lost last life, or ``max_guesses`` guesses,
  freezes the wall. The connection round follows (:func:`show_points`).
* ``nyt``, the NYT Connections game: :data:`NYT_MISTAKES` mistakes in all from the first
  guess, ``one_away`` when 3 of the 4 guessed clues are in one gold group not yet found.

Under both, when three groups are found the last four clues are the fourth group by
themselves (found, no guess needed). An invalid answer (:data:`INVALID_REASONS`) costs no
life; the ``max_invalid``-th one of a wall freezes it. Clues are compared as multisets, so a
wall holding one clue twice (``Bask`` in wall 654041) is played as the data has it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

RULES = ("show", "nyt")
#: Lives once two groups are found (the show).
SHOW_LIVES = 3
#: Mistakes allowed in all (the NYT game).
NYT_MISTAKES = 4
#: Guesses at most per wall under ``show``: the show's 2 min 30 s as a cap on guesses,
#: 150 s / 20 = 7.5 s per guess (docs/experiment.md gives the reasons).
SHOW_MAX_GUESSES = 20
#: Under ``nyt`` the cap never binds: 3 right guesses and 4 mistakes end any wall.
NYT_MAX_GUESSES = 7
#: Invalid answers at most per wall (the last one freezes it).
DEFAULT_MAX_INVALID = 3
VERDICTS = ("correct", "incorrect", "one_away", "invalid")
#: Why an answer is no guess: the engine's own (:func:`invalid_reason`) and the parser's.
INVALID_REASONS = (
    "not four clues", "clue twice", "clue not in play", "not one group", "unparseable",
    "refusal", "truncated", "already guessed",
)  # fmt: skip
END_REASONS = ("solved", "frozen_lives", "frozen_guesses", "frozen_invalid", "gave_up", "time")
GROUP_SIZE = 4


def default_max_guesses(rules: str) -> int:
    """The guess cap of a rule set when none is given."""
    return SHOW_MAX_GUESSES if rules == "show" else NYT_MAX_GUESSES


@dataclass(frozen=True)
class WallState:
    """One wall in play.

    Attributes:
        rules: ``show`` or ``nyt``.
        groups: the 4 gold groups (clues as the wall spells them).
        max_guesses, max_invalid: the caps (see the module docstring).
        found: indices into ``groups`` of the groups found, in the order found (the fourth
            one completed by itself included).
        guesses: valid guesses made; ``wrong`` of them wrong.
        lives_lost: lives lost (``show``: wrong guesses after two groups were found;
            ``nyt``: every mistake).
        invalid: invalid answers.
        ended: why the wall is over (one of :data:`END_REASONS`), None while in play.
        tried: ``nyt``: the wrong guesses made (each clues sorted); the game answers one
            made again "Already guessed" and charges no mistake (None: not kept, a log of
            version 1 replayed as it was played).
    """

    rules: str
    groups: tuple[tuple[str, ...], ...]
    max_guesses: int
    max_invalid: int
    found: tuple[int, ...] = ()
    guesses: int = 0
    wrong: int = 0
    lives_lost: int = 0
    invalid: int = 0
    ended: str | None = None
    tried: tuple[tuple[str, ...], ...] | None = ()

    @property
    def lives(self) -> int | None:
        """Lives left; None under ``show`` before two groups are found (guesses are free)."""
        if self.rules == "nyt":
            return NYT_MISTAKES - self.lives_lost
        if len(self.found) < 2 and self.lives_lost == 0:
            return None
        return SHOW_LIVES - self.lives_lost

    @property
    def solved(self) -> bool:
        return self.ended == "solved"

    @property
    def in_play(self) -> Counter[str]:
        """The clues not in a found group (a multiset)."""
        left: Counter[str] = Counter(c for g in self.groups for c in g)
        for index in self.found:
            left -= Counter(self.groups[index])
        return left


def new_wall(
    rules: str,
    groups: Sequence[Sequence[str]],
    *,
    max_guesses: int | None = None,
    max_invalid: int = DEFAULT_MAX_INVALID,
    already_guessed: bool = True,
) -> WallState:
    """A wall before its first guess (``already_guessed``: under ``nyt``, a wrong guess made
    again is invalid, as the game has it; False replays logs made before that rule).

    Raises:
        ValueError: unknown ``rules``, not 4 groups of 4, a cap below 1.
    """
    if rules not in RULES:
        raise ValueError(f"rules: expected one of {RULES}, got {rules!r}")
    if len(groups) != 4 or any(len(g) != GROUP_SIZE for g in groups):
        raise ValueError("groups: expected 4 groups of 4 clues")
    cap = default_max_guesses(rules) if max_guesses is None else max_guesses
    if cap < 1 or max_invalid < 1:
        raise ValueError("max_guesses and max_invalid must be >= 1")
    state = WallState(rules, tuple(tuple(g) for g in groups), cap, max_invalid)
    return state if already_guessed else replace(state, tried=None)


def invalid_reason(state: WallState, clues: Sequence[str]) -> str | None:
    """Why ``clues`` is no guess on this wall now (one of :data:`INVALID_REASONS`), or None."""
    if len(clues) != GROUP_SIZE:
        return "not four clues"
    wanted, left = Counter(clues), state.in_play
    if any(n > 1 and left[c] < n for c, n in wanted.items()):
        return "clue twice"
    if any(left[c] < n for c, n in wanted.items()):
        return "clue not in play"
    if state.rules == "nyt" and state.tried and tuple(sorted(clues)) in state.tried:
        return "already guessed"
    return None


@dataclass(frozen=True)
class Verdict:
    """What one answer came to: ``verdict`` (one of :data:`VERDICTS`), ``reason`` (why
    invalid, else None), ``group`` (index of the gold group guessed right, else None) and
    ``state`` after it."""

    verdict: str
    state: WallState
    reason: str | None = None
    group: int | None = None


def _gold_index(state: WallState, clues: Sequence[str]) -> int | None:
    wanted = Counter(clues)
    for index, group in enumerate(state.groups):
        if index not in state.found and Counter(group) == wanted:
            return index
    return None


def _one_away(state: WallState, clues: Sequence[str]) -> bool:
    wanted = Counter(clues)
    return any(
        sum((Counter(g) & wanted).values()) == GROUP_SIZE - 1
        for i, g in enumerate(state.groups)
        if i not in state.found
    )


def apply(state: WallState, clues: Sequence[str] | None, reason: str | None = None) -> Verdict:
    """Play one answer: ``clues`` (4 clues) or None with the parser's ``reason``.

    Raises:
        ValueError: the wall is over already.
    """
    if state.ended is not None:
        raise ValueError(f"the wall is over ({state.ended}): no more guesses")
    if clues is not None and reason is None:
        reason = invalid_reason(state, clues)
    if clues is None or reason is not None:
        return _invalid(state, reason or "unparseable")
    index = _gold_index(state, clues)
    if index is not None:
        return _correct(state, index)
    return _incorrect(state, clues)


def _invalid(state: WallState, reason: str) -> Verdict:
    invalid = state.invalid + 1
    ended = "frozen_invalid" if invalid >= state.max_invalid else None
    return Verdict("invalid", replace(state, invalid=invalid, ended=ended), reason)


def _correct(state: WallState, index: int) -> Verdict:
    guesses, found = state.guesses + 1, (*state.found, index)
    ended = None
    if len(found) == len(state.groups) - 1:  # the last four clues are a group by themselves
        found = (*found, next(i for i in range(len(state.groups)) if i not in found))
        ended = "solved"
    elif guesses >= state.max_guesses:
        ended = "frozen_guesses"
    after = replace(state, found=found, guesses=guesses, ended=ended)
    return Verdict("correct", after, group=index)


def _incorrect(state: WallState, clues: Sequence[str]) -> Verdict:
    guesses = state.guesses + 1
    costs = state.rules == "nyt" or len(state.found) >= 2
    lost = state.lives_lost + int(costs)
    allowed = NYT_MISTAKES if state.rules == "nyt" else SHOW_LIVES
    ended = "frozen_lives" if lost >= allowed else None
    if ended is None and guesses >= state.max_guesses:
        ended = "frozen_guesses"
    verdict = "one_away" if state.rules == "nyt" and _one_away(state, clues) else "incorrect"
    kept = state.rules == "nyt" and state.tried is not None
    tried = (*(state.tried or ()), tuple(sorted(clues))) if kept else state.tried
    after = replace(
        state, guesses=guesses, wrong=state.wrong + 1, lives_lost=lost, ended=ended, tried=tried
    )
    return Verdict(verdict, after)


def show_points(groups_found: int, connections_right: int) -> int:
    """The show's points of a wall: 1 per group found, 1 per connection named right, 2 more
    for all eight (10 at most)."""
    bonus = 2 if groups_found == 4 and connections_right == 4 else 0
    return groups_found + connections_right + bonus


def final_partition(state: WallState) -> list[list[str]]:
    """The partition a played wall ends with: the groups found (in the order found), then the
    clues still in play, which were not found and so are never credited as a group: taken
    gold group by gold group and dealt in turn over the groups left (clue ``j`` to group ``j
    mod k``), so each unfound gold group is split over at least two of them (``k >= 2``
    whenever a wall ends with clues in play: three groups found complete the fourth)."""
    groups = [list(state.groups[i]) for i in state.found]
    rest = [clue for i, g in enumerate(state.groups) if i not in state.found for clue in g]
    k = len(rest) // GROUP_SIZE
    groups += [rest[j::k] for j in range(k)]
    return groups
