"""The play page: one self-contained HTML file on which a person plays walls one group at a time.

The page (``ocw-hub play-page``) holds, per wall, its id, its 16 clues in the wall's own
shuffled order, a random salt and the salted digests of its 4 gold groups; never the groups,
never the connections. A guess is checked in the browser by hashing it the same way
(``crypto.subtle``) and comparing digests. The digest of a group (:func:`group_digest`):

    SHA-256( UTF-8( salt + "\\n" + "\\n".join(sorted(clues)) ) ), as lowercase hex,

the clues exactly as the wall spells them (no case folding or other normalisation: the page
only ever hashes its own tiles, which carry the wall's spelling), sorted by code point (Python's
``sorted``; the page compares code points too, not UTF-16 units). Under a rule set with "one
away" (``nyt``) the page also holds the digests of every 3 clues of each group (the same
formula). When
a wall is over the page finds the groups not found by trying the 4-clue sets of the clues left
against the digests (at most 1820), so it can name them for the connection round.

What this protects and what not: the answers cannot be read off the source or found with
"find in page"; a player who writes code can recover them (1820 sets per wall to try), as
from any page that checks answers offline. For a baseline that must be above suspicion,
watch the player.

Everything from the data reaches the page as JSON in a ``<script type="application/json">``
block (``<``, ``>``, ``&`` escaped, so no text closes it) and is shown with ``textContent``;
the page's own script and style are allowed by their hashes in a strict Content-Security-Policy
(no network, no other script, no form). The rules are :mod:`ocw_hub.play.rules`' rule set,
written into the page as data (:func:`~ocw_hub.play.rules.page_rules`: lives, when they start,
clock, repeats, one away, caps, connection round); the page's script holds no rule of its own
but reads that data as :func:`~ocw_hub.play.rules.apply` does. The log it downloads is the play
log of the current version (:data:`ocw_hub.play.log.VERSION`) with each guess's state (as
``ocw_play``'s log is written), re-scored by replay in ``ocw-hub evaluate``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from itertools import combinations
from typing import Any

from ..errors import OCWHubError, OptionError
from ..play.log import VERSION
from ..play.rules import DEFAULT_MAX_INVALID, GROUP_SIZE, RULES, page_rules, rule_set

#: The page's only invalid answer is a wrong guess made again (under ``nyt``): the engine's cap.
MAX_INVALID = DEFAULT_MAX_INVALID
_FILES = ("play_page.html", "play_page.js", "play_page.css")


def group_digest(salt: str, clues: Sequence[str]) -> str:
    """The salted digest of a set of clues (the formula of the module docstring), hex.

    Raises:
        UnicodeEncodeError: a clue holds a lone surrogate (no UTF-8 form).
    """
    text = salt + "\n" + "\n".join(sorted(clues))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _gold_groups(row: Mapping[str, Any]) -> list[list[str]]:
    """The gold groups in the engine's order (``group_1`` ... ``group_4``): a digest's index
    is the group's index in the state the page records."""
    from ..llm.prompts import gold_groups

    groups = [[str(c) for c in g["gt_words"]] for g in gold_groups(row)]
    wall = row.get("wall_id")
    if len(groups) != 4 or any(len(g) != GROUP_SIZE for g in groups):
        raise OCWHubError(f"wall {wall!r}: groups: expected 4 groups of 4 clues")
    if sorted(c for g in groups for c in g) != sorted(str(c) for c in row["words"]):
        raise OCWHubError(f"wall {wall!r}: words: not the clues of its groups")
    if any("\n" in str(c) for c in row["words"]):
        raise OCWHubError(f"wall {wall!r}: words: a clue holds a line break")
    return groups


def wall_entry(row: Mapping[str, Any], rules: str, salt: str) -> dict[str, Any]:
    """What the page holds of one wall: ``wall_id``, ``clues`` (the wall's order), ``salt``,
    ``digests`` (4, one per gold group) and, under a rule set with one away (``nyt``), ``near``
    (per group the digests of its 4 three-clue sets).

    Raises:
        OCWHubError: the wall is not 4 groups of 4 clues matching its words, or a clue holds a
            line break or no UTF-8 form (named by wall id).
    """
    groups = _gold_groups(row)
    try:
        entry: dict[str, Any] = {
            "wall_id": str(row["wall_id"]),
            "clues": [str(c) for c in row["words"]],
            "salt": salt,
            "digests": [group_digest(salt, g) for g in groups],
        }
        if rule_set(rules).one_away:
            entry["near"] = [
                sorted({group_digest(salt, three) for three in combinations(g, GROUP_SIZE - 1)})
                for g in groups
            ]
    except UnicodeEncodeError as err:
        wall = row["wall_id"]
        raise OCWHubError(f"wall {wall!r}: words: a clue has no UTF-8 form ({err})") from None
    return entry


def _asset(name: str) -> str:
    return resources.files("ocw_hub.views").joinpath(name).read_text(encoding="utf-8")


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def script_json(value: object) -> str:
    """``value`` as JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` as
    ``\\u`` escapes, so no text of the data can close the element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def build_play_page(
    rows: Sequence[Mapping[str, Any]],
    *,
    config: str,
    split: str,
    rules: str = "show",
    clock: bool = True,
    max_guesses: int | None = None,
    title: str | None = None,
    salt: Callable[[], str] = lambda: secrets.token_hex(16),
) -> str:
    """The play page of ``rows`` (OCW walls as the builders yield them), as HTML text.

    Args:
        rows: the walls to play, in the order they are played.
        config, split: written into the log's header.
        rules: ``show`` (the Only Connect wall, then the connection round) or ``nyt``.
        clock: the rule set's clock (the show's 2 min 30 s; the wall freezes when it runs out);
            False: none.
        max_guesses: guesses at most per wall (default: the rule set's).
        title: the page's title (default from config and split).
        salt: makes one wall's salt (a fresh random one per wall by default).

    Raises:
        OCWHubError: unknown rules, no walls, a cap below 1, or a bad wall (:func:`wall_entry`).
    """
    if rules not in RULES:
        raise OptionError(f"--rules {rules}: expected one of {', '.join(RULES)}")
    if not rows:
        raise OCWHubError(f"{config}/{split}: no walls to play")
    if max_guesses is not None and max_guesses < 1:
        raise OptionError(f"--max-guesses {max_guesses}: must be at least 1")
    from .. import __version__

    data = {
        "config": config,
        "split": split,
        "rules": rules,
        "rule_set": page_rules(
            rules, max_guesses=max_guesses, max_invalid=MAX_INVALID, clock=clock
        ),
        "log_version": VERSION,
        "version": __version__,
        "walls": [wall_entry(row, rules, salt()) for row in rows],
    }
    template, script, style = (_asset(name) for name in _FILES)
    csp = (
        f"default-src 'none'; script-src {_csp_hash(script)}; style-src {_csp_hash(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    page_title = title or f"Play the wall: {config} / {split}"
    filled = {
        "@CSP@": html.escape(csp),
        "@TITLE@": html.escape(page_title),
        "@STYLE@": style,
        "@DATA@": script_json(data),
        "@SCRIPT@": script,
    }
    # one pass over the template only: a text of the data that looks like a slot stays text
    return re.sub(r"@[A-Z]+@", lambda m: filled[m.group(0)], template)
