"""The rules of playing a wall one group at a time (standard library only).

A :class:`WallState` is what is known of one wall during play; :func:`apply` plays one
guess and returns the verdict and the state after it (states are never changed in place).
The rule sets are data (:data:`RULE_SETS`, :class:`RuleSet`), read by this engine and, as
JSON, by the play page's script (:func:`page_rules`), so a person and a model play by one
definition (docs/experiment.md, "Playing the wall"):

* ``show``, the Only Connect wall: wrong guesses are free until two groups are found, then the
  team has 3 lives; a lost last life, or ``max_guesses`` guesses, freezes the wall; the clock
  is 2 min 30 s. The connection round follows (:func:`show_points`).
* ``nyt``, the NYT Connections game: 4 mistakes in all from the first guess, ``one_away``
  when 3 of the 4 guessed clues are in one gold group not yet found, a wrong guess made again
  "already guessed" (invalid, no mistake); no clock, no connection round, no points.

Under both, when three groups are found the last four clues are the fourth group by
themselves (found, no guess needed). An invalid answer (:data:`INVALID_REASONS`) costs no
life; the ``max_invalid``-th one of a wall freezes it. Clues are compared as multisets, so a
wall holding one clue twice (``Bask`` in wall 654041) is played as the data has it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

GROUP_SIZE = 4
#: Invalid answers at most per wall (the last one freezes it).
DEFAULT_MAX_INVALID = 3
#: Why a wrong guess made again is no guess, under a rule set that says so (``repeat``).
ALREADY_GUESSED = "already guessed"


@dataclass(frozen=True)
class Points:
    """Points of a wall: ``group`` a group found, ``connection`` a connection named right,
    ``bonus`` more for all groups and all connections."""

    group: int
    connection: int
    bonus: int


@dataclass(frozen=True)
class RuleSet:
    """One rule set, as data.

    Attributes:
        name: ``show`` or ``nyt``.
        title: what it is, for a person.
        lives: wrong guesses that cost at most (the last one freezes the wall).
        free_until: groups found before a wrong guess costs (0: from the first guess).
        lives_label: how what is left is named on the page ("Lives", "Mistakes left").
        max_guesses: the guess cap when none is given.
        clock_seconds: a wall's clock (a person's; None: none).
        repeat: the invalid reason a wrong guess made again gets (None: judged again).
        one_away: a wrong guess with 3 clues of one group still to find is ``one_away``.
        connection_round: the connections are asked for after the wall.
        points: the points of a wall (None: no points).
    """

    name: str
    title: str
    lives: int
    free_until: int
    lives_label: str
    max_guesses: int
    clock_seconds: int | None
    repeat: str | None
    one_away: bool
    connection_round: bool
    points: Points | None


RULE_SETS = {
    "show": RuleSet(
        name="show",
        title="the Only Connect wall",
        lives=3,
        free_until=2,
        lives_label="Lives",
        # the show's 2 min 30 s as a cap on guesses, 150 s / 20 = 7.5 s per guess
        # (docs/experiment.md gives the reasons)
        max_guesses=20,
        clock_seconds=150,
        repeat=None,
        one_away=False,
        connection_round=True,
        points=Points(group=1, connection=1, bonus=2),
    ),
    "nyt": RuleSet(
        name="nyt",
        title="the NYT Connections game",
        lives=4,
        free_until=0,
        lives_label="Mistakes left",
        max_guesses=7,  # never binds: 3 right guesses and 4 mistakes end any wall
        clock_seconds=None,
        repeat=ALREADY_GUESSED,
        one_away=True,
        connection_round=False,
        points=None,
    ),
}
RULES = tuple(RULE_SETS)
#: Lives once two groups are found (the show).
SHOW_LIVES = RULE_SETS["show"].lives
#: Mistakes allowed in all (the NYT game).
NYT_MISTAKES = RULE_SETS["nyt"].lives
SHOW_MAX_GUESSES = RULE_SETS["show"].max_guesses
NYT_MAX_GUESSES = RULE_SETS["nyt"].max_guesses
VERDICTS = ("correct", "incorrect", "one_away", "invalid")
#: Why an answer is no guess: the engine's own (:func:`invalid_reason`) and the parser's.
INVALID_REASONS = (
    "not four clues",
    "clue twice",
    "clue not in play",
    "not one group",
    "unparseable",
    "refusal",
    "truncated",
    ALREADY_GUESSED,
)
END_REASONS = ("solved", "frozen_lives", "frozen_guesses", "frozen_invalid", "gave_up", "time")
ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh")
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def rule_set(rules: str) -> RuleSet:
    """The rule set named ``rules``.

    Raises:
        ValueError: unknown ``rules``.
    """
    if rules not in RULE_SETS:
        raise ValueError(f"rules: expected one of {RULES}, got {rules!r}")
    return RULE_SETS[rules]


def default_max_guesses(rules: str) -> int:
    """The guess cap of a rule set when none is given."""
    return rule_set(rules).max_guesses


def number_word(n: int) -> str:
    """``n`` as an English word (0-10), else as digits."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def describe(rules: str, *, clock: bool = True, max_invalid: int = DEFAULT_MAX_INVALID) -> str:
    """The rule set in a few sentences for a person, made from its data (the play page's)."""
    r = rule_set(rules)
    if r.free_until:
        cost = (
            f"Wrong guesses are free until {number_word(r.free_until)} groups are found, then you "
            f"have {number_word(r.lives)} {'life' if r.lives == 1 else 'lives'}."
        )
    else:
        cost = f"{number_word(r.lives).capitalize()} mistake{'' if r.lives == 1 else 's'} in all."
    parts = [f"Rules: {r.title}.", cost]
    if r.repeat:
        parts.append(
            f'A wrong guess made again is "{r.repeat}": no mistake, but the '
            f"{ORDINALS[max_invalid] if max_invalid < len(ORDINALS) else max_invalid} "
            "such answer freezes the wall."
        )
    if r.one_away:
        parts.append(f'"One away" when {number_word(GROUP_SIZE - 1)} of your four are a group.')
    parts.append("When three groups are found, the last four clues are the fourth group.")
    if r.connection_round:
        parts.append("Then name each group's connection.")
    if clock and r.clock_seconds:
        minutes, seconds = divmod(r.clock_seconds, 60)
        parts.append(f"The wall freezes after {minutes}\u00a0min {seconds}\u00a0s.")
    return " ".join(parts)


def page_rules(
    rules: str,
    *,
    max_guesses: int | None = None,
    max_invalid: int = DEFAULT_MAX_INVALID,
    clock: bool = True,
) -> dict[str, Any]:
    """The rule set as the play page's script reads it (JSON): the :class:`RuleSet`'s fields,
    the caps of this page (``max_guesses``, ``max_invalid``), ``clock_seconds`` (None with
    ``clock`` False), ``group_size`` and ``summary`` (:func:`describe`)."""
    r = rule_set(rules)
    data = dataclasses.asdict(r)
    data.update(
        max_guesses=r.max_guesses if max_guesses is None else max_guesses,
        max_invalid=max_invalid,
        clock_seconds=r.clock_seconds if clock else None,
        group_size=GROUP_SIZE,
        summary=describe(rules, clock=clock, max_invalid=max_invalid),
    )
    return data


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
        tried: under a rule set with ``repeat``, the wrong guesses made (each clues sorted):
            one made again is invalid and costs nothing (None: not kept, a log of version 1
            replayed as it was played).
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
    def rule_set(self) -> RuleSet:
        return RULE_SETS[self.rules]

    @property
    def lives(self) -> int | None:
        """Lives left; None while wrong guesses are free (``show``: before two groups)."""
        r = self.rule_set
        if len(self.found) < r.free_until and self.lives_lost == 0:
            return None
        return r.lives - self.lives_lost

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
    """A wall before its first guess (``already_guessed`` False: a rule set's ``repeat`` is
    not applied, as logs of version 1 were played).

    Raises:
        ValueError: unknown ``rules``, not 4 groups of 4, a cap below 1.
    """
    rule_set(rules)
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
    repeat = state.rule_set.repeat
    if repeat and state.tried and tuple(sorted(clues)) in state.tried:
        return repeat
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
    r, guesses = state.rule_set, state.guesses + 1
    lost = state.lives_lost + int(len(state.found) >= r.free_until)
    ended = "frozen_lives" if lost >= r.lives else None
    if ended is None and guesses >= state.max_guesses:
        ended = "frozen_guesses"
    verdict = "one_away" if r.one_away and _one_away(state, clues) else "incorrect"
    kept = r.repeat is not None and state.tried is not None
    tried = (*(state.tried or ()), tuple(sorted(clues))) if kept else state.tried
    after = replace(
        state, guesses=guesses, wrong=state.wrong + 1, lives_lost=lost, ended=ended, tried=tried
    )
    return Verdict(verdict, after)


def show_points(groups_found: int, connections_right: int) -> int:
    """The show's points of a wall (its :class:`Points`): 1 per group found, 1 per connection
    named right, 2 more for all eight (10 at most)."""
    points = RULE_SETS["show"].points
    assert points is not None
    every = groups_found == 4 and connections_right == 4
    return (
        points.group * groups_found
        + points.connection * connections_right
        + (points.bonus if every else 0)
    )


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
