"""Locating WoTe's extracted answer in the rendered context (standard library only).

Imported relatively by ``wote_questions.py`` and ``WoTe.py``. :func:`locate_answer` gives the
SQuAD-style ``(text, answer_start)`` of a question; time and memory are linear in the lengths
of the answer and the context.
"""

from __future__ import annotations

import functools
import html
import io
import re
import unicodedata
from collections.abc import Iterator
from typing import Any


def _fold_char(char: str) -> str:
    """The case-insensitive form of one lower-case character: its upper case lowered again
    (``ı`` -> ``i``, ``ſ`` -> ``s``, ``ς`` -> ``σ``), unless that is not one character."""
    upper = char.upper()
    if len(upper) != 1:
        return char
    lower = upper.lower()
    return lower if len(lower) == 1 else char


def _fold_case(text: str) -> str:
    """``text`` with each character case-folded on its own: one character in, one out, so an
    offset in the result is an offset in ``text``.

    (``str.lower`` and ``str.casefold`` can change lengths: ``"İ".lower()`` is 2 characters,
    ``"ß".casefold()`` is ``"ss"``.) A character, its upper, lower, title and swapped case
    fold alike, and characters that fold alike match under :data:`re.IGNORECASE` (both
    checked over the cased characters of Unicode by the tests). Linear, in C string methods.
    """
    folded = text.replace("\u0130", "i").lower()  # İ: the one character whose lower() is 2
    if folded.isascii():
        return folded
    table = {ord(char): _fold_char(char) for char in set(folded)}
    return folded.translate({code: out for code, out in table.items() if chr(code) != out})


_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_APOSTROPHES = frozenset("'\u2018\u2019\u02bc`\u00b4")
# Apostrophes that are their own NFKD form: dropped inside a word ("doesn't" -> "doesnt").
# (The acute accent U+00B4 decomposes to a space and a combining mark: it is no such letter.)
_DROPPED = "".join(sorted(c for c in _APOSTROPHES if unicodedata.normalize("NFKD", c) == c))
_DROPPED_CHAR = re.compile(f"[{re.escape(_DROPPED)}]")
_INNER_SPACES = " \t\n\r\f\v\x1c\x1d\x1e\x1f"  # whitespace that is its own NFKD form
_GAP_CHARS = _INNER_SPACES + _DROPPED
_RUN_TABLE = str.maketrans({**dict.fromkeys(_INNER_SPACES, " "), **dict.fromkeys(_DROPPED)})
# Where a stretch of plain, whitespace and apostrophe characters stops being one run: two
# whitespace characters, or whitespace next to an apostrophe.
_BREAK = re.compile(
    f"[{re.escape(_INNER_SPACES)}][{re.escape(_GAP_CHARS)}]"
    f"|[{re.escape(_DROPPED)}][{re.escape(_INNER_SPACES)}]"
)

# How the characters of a piece's output map to the text (see _pieces).
_ONE_TO_ONE, _SKIPPING_DROPPED, _WHOLE = "one-to-one", "skipping-dropped", "whole"


def _is_plain(char: str) -> bool:
    """A character that :func:`_normalise` turns into exactly one character, its lower case,
    whatever surrounds it: not whitespace, ``&``, an apostrophe or a combining mark, its own
    NFKD form, and one character in lower case."""
    if char.isspace() or char == "&" or char in _APOSTROPHES or unicodedata.combining(char):
        return False
    return unicodedata.normalize("NFKD", char) == char and len(char.lower()) == 1


_ASCII_PLAIN = "".join(char for char in map(chr, range(128)) if _is_plain(char))


@functools.lru_cache(maxsize=64)
def _token_patterns(extra_plain: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``(tokens, plain)``: ``tokens`` cuts a text into stretches (a plain character, then
    plain, single-whitespace and apostrophe characters), whitespace runs, HTML entities and
    single other characters; ``plain`` finds a plain character. ``extra_plain`` holds the
    text's non-ASCII plain characters. Each is one character class repeated, which ``re``
    matches in a tight loop with no backtracking state (a repeated group, such as a group
    for one space and a word, keeps state per iteration: gigabytes for a field of 50 MB)."""
    plain = "[" + re.escape(_ASCII_PLAIN + extra_plain) + "]"
    stretch = "[" + re.escape(_ASCII_PLAIN + extra_plain + _GAP_CHARS) + "]"
    tokens = re.compile(
        rf"(?P<stretch>{plain}{stretch}*)|(?P<space>\s+)|(?P<entity>{_ENTITY.pattern})|.",
        re.DOTALL,
    )
    return tokens, re.compile(plain)


def _normalise_piece(source: str, after_space: bool) -> str:
    """NFKD, without combining marks and apostrophes, whitespace runs as one space (none right
    after a space), lower case."""
    out = []
    for char in unicodedata.normalize("NFKD", source):
        if unicodedata.combining(char) or char in _APOSTROPHES:
            continue
        if char.isspace():
            if after_space:
                continue
            char = " "
        after_space = char == " "
        out.append(char.lower())
    return "".join(out)


def _extra_plain(text: str) -> str:
    """The non-ASCII characters of ``text`` that are plain (:func:`_is_plain`), sorted."""
    if text.isascii():
        return ""
    return "".join(sorted(char for char in set(text) if not char.isascii() and _is_plain(char)))


def _run_and_gap(text: str, start: int, stop: int, gap_end: int) -> Iterator[tuple]:
    """The run ``text[start:stop]`` without trailing whitespace or apostrophes (words with
    single spaces and inner apostrophes: lower case, apostrophes dropped), then the gap after
    it up to ``gap_end`` (whitespace and apostrophes: one space if any whitespace)."""
    body = text[start:stop].rstrip(_GAP_CHARS)
    output = body.translate(_RUN_TABLE).lower()
    mapping = _ONE_TO_ONE if len(output) == len(body) else _SKIPPING_DROPPED
    yield start, start + len(body), output, mapping
    gap = text[start + len(body) : gap_end]
    if gap:
        yield start + len(body), gap_end, " " if gap.strip(_DROPPED) else "", _WHOLE


def _stretch_pieces(text: str, start: int, end: int, plain: re.Pattern[str]) -> Iterator[tuple]:
    """Split a stretch ``text[start:end]`` (see :func:`_token_patterns`) into runs and gaps
    at each :data:`_BREAK`; every character is looked at a constant number of times."""
    position = start
    while (found := _BREAK.search(text, position, end)) is not None:
        following = plain.search(text, found.end(), end)
        gap_end = following.start() if following else end
        yield from _run_and_gap(text, position, found.start(), gap_end)
        position = gap_end
    if position < end:
        yield from _run_and_gap(text, position, end, end)


def _token_pieces(match: re.Match[str], after_space: bool) -> list[tuple]:
    """The pieces of a whitespace run, an HTML entity or a single other character."""
    start, end = match.span()
    kind, source = match.lastgroup, match.group()
    if kind == "space":
        return [(start, end, "" if after_space else " ", _WHOLE)]
    if kind == "entity" and html.unescape(source) == source:  # unknown to html: plain text
        return [
            (start, start + 1, "&", _ONE_TO_ONE),
            (start + 1, end, source[1:].lower(), _ONE_TO_ONE),
        ]
    if kind == "entity":
        source = html.unescape(source)
    return [(start, end, _normalise_piece(source, after_space), _WHOLE)]


def _pieces(text: str) -> Iterator[tuple[int, int, str, str]]:
    """The normalised text, piece by piece: ``(start, end, output, mapping)``.

    ``output`` comes from ``text[start:end]``. ``mapping`` says how: ``_ONE_TO_ONE``, the
    ``k``-th output character comes from ``text[start + k]``; ``_SKIPPING_DROPPED``, from the
    ``k``-th character that is not a dropped apostrophe; ``_WHOLE``, every output character
    comes from the whole piece (an entity, a whitespace run, a character NFKD expands).
    Normal text is a few long runs, so this is fast; time and memory are linear in any case.
    """
    tokens, plain = _token_patterns(_extra_plain(text))
    after_space = False
    for match in tokens.finditer(text):
        if match.lastgroup == "stretch":
            pieces: Any = _stretch_pieces(text, *match.span(), plain)
        else:
            pieces = _token_pieces(match, after_space)
        for piece in pieces:
            if piece[2]:
                after_space = piece[2].endswith(" ")
                yield piece


def _normalise(text: str) -> str:
    """Normalise ``text`` for matching: HTML entities decoded, characters NFKD-decomposed with
    combining marks dropped (``ñ`` -> ``n``), apostrophes dropped, whitespace runs made one
    space, lower case. Map an offset back with :func:`_source_span`."""
    buffer = io.StringIO()
    for _, _, output, _ in _pieces(text):
        buffer.write(output)
    return buffer.getvalue()


def _source_offset(text: str, piece: tuple[int, int, str, str], k: int) -> tuple[int, int]:
    """Where output character ``k`` of ``piece`` comes from: ``(start, end)`` in ``text``."""
    start, end, _, mapping = piece
    if mapping == _ONE_TO_ONE:
        return start + k, start + k + 1
    if mapping == _WHOLE:
        return start, end
    index = start + k  # then one further for each dropped apostrophe up to it
    for dropped in _DROPPED_CHAR.finditer(text, start, end):
        if dropped.start() > index:
            break
        index += 1
    return index, index + 1


def _source_span(text: str, first: int, last: int) -> tuple[int, int]:
    """``(start, end)`` of the part of ``text`` that characters ``first`` .. ``last`` of
    ``_normalise(text)`` come from."""
    position = start = 0
    for piece in _pieces(text):
        after = position + len(piece[2])
        if position <= first < after:
            start = _source_offset(text, piece, first - position)[0]
        if last < after:
            return start, _source_offset(text, piece, last - position)[1]
        position = after
    return start, len(text)


def _bounded(needle: str) -> re.Pattern[str]:
    """A search for ``needle`` as written that is not inside a word: where ``needle`` starts
    (ends) with a word character (``\\w``), the text before (after) the hit is not one."""
    head = r"(?<!\w)" if re.match(r"\w", needle) else ""
    tail = r"(?!\w)" if re.search(r"\w\Z", needle) else ""
    return re.compile(head + re.escape(needle) + tail)


def _find_word(needle: str, text: str) -> int:
    """The offset of the leftmost hit of :func:`_bounded` ``(needle)`` in ``text``, or -1.
    Linear for any needle that begins with a word character (the look-behind fails at once
    inside a word); ``str.find`` first, so a text without the needle costs one scan."""
    first = text.find(needle)
    if first < 0:
        return -1
    found = _bounded(needle).search(text, first)
    return found.start() if found else -1


def _locate_normalised(answer: str, context: str) -> tuple[str, int] | None:
    needle = _normalise(answer).strip()
    found = _find_word(needle, _normalise(context)) if needle else -1
    if found < 0:
        return None
    start, end = _source_span(context, found, found + len(needle) - 1)
    return context[start:end], start


def locate_answer(answer: str, context: str) -> tuple[str, int]:
    """Find an extracted answer in the context.

    Tried in order, the first hit wins (the leftmost occurrence within a step):

    1. ``answer`` verbatim;
    2. ``answer`` ignoring case (each character folded on its own, as :data:`re.IGNORECASE`
       compares them, so lengths never change);
    3. if ``answer`` contains the two characters backslash and ``n`` (how the release
       writes a join of ingredient or step lines): those turned into a newline, then
       steps 1-2 again;
    4. both strings normalised (HTML entities decoded, accents and apostrophes dropped,
       whitespace runs collapsed, lower case; the answer also stripped), e.g.
       ``"jalapeno"`` finds ``"jalape&ntilde;o"`` and ``"doesnt"`` finds ``"doesn't"``.

    Each step finds whole words only: where ``answer`` starts (ends) with a word character,
    the hit is not preceded (followed) by one, so ``"no"`` is never found inside ``"not"``.
    No paraphrase or fuzzy matching: ``"400 degrees Fahrenheit"`` does not find
    ``"400°F"``. Time and memory are linear in the lengths of ``answer`` and ``context``.

    Args:
        answer: the ``extracted_answer`` of a question.
        context: the text to search, normally :func:`render_context` of its task.

    Returns:
        ``(text, start)``: when found, ``text`` is the exact slice of ``context`` (its
        case and spacing, which may differ from ``answer``) and ``start`` its character
        offset, so ``context[start:start + len(text)] == text`` always holds; when not
        found (or ``answer`` is blank), ``(answer, -1)``.
    """
    if not answer.strip():
        return answer, -1
    candidates = [answer]
    if "\\n" in answer:
        candidates.append(answer.replace("\\n", "\n"))
    folded_context = None
    for candidate in candidates:
        start = _find_word(candidate, context)
        if start < 0:
            folded_context = folded_context or _fold_case(context)
            start = _find_word(_fold_case(candidate), folded_context)
        if start >= 0:
            return context[start : start + len(candidate)], start
    return _locate_normalised(candidates[-1], context) or (answer, -1)
