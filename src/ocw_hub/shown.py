"""Text from data made inert where it is shown: in the terminal and in error messages.

Clues, connections, ids, answers and predictions come from files that anyone (or an LLM) wrote;
printed as they are, an escape sequence in them clears the screen, retitles the terminal or
hides a link (OSC 8), and a bidi override reorders what the reader sees. :func:`inert` writes
every character that is not printable as its Python escape, and cuts long values to a preview.
HTML output escapes with :func:`html.escape` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

#: Characters of one echoed value (a clue, an id) in a message or a table cell.
PREVIEW_CHARS = 80


def _escape(char: str) -> str:
    """``\\x1b``, ``\\u202e``: the Python escape of one character."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def inert(text: object, *, limit: int | None = None, newlines: bool = False) -> str:
    """``str(text)`` safe to print: every character that :meth:`str.isprintable` rejects (C0
    and C1 controls, ESC, DEL, bidi overrides and other format characters, line separators,
    lone surrogates) written as its escape (``\\x1b``, ``\\u202e``); a newline kept when
    ``newlines``. With ``limit``, cut to that many characters (before escaping) and marked
    ``… (N characters)``. Linear in the length kept."""
    text = str(text)
    total = len(text)
    if limit is not None and total > limit:
        text = text[:limit]
    if not text.isprintable():
        if newlines:
            text = "\n".join(inert(line) for line in text.split("\n"))
        else:
            text = "".join(c if c.isprintable() else _escape(c) for c in text)
    if limit is not None and total > limit:
        text += f"… ({total} characters)"
    return text


def preview(value: object) -> str:
    """:func:`inert` cut to :data:`PREVIEW_CHARS`: one echoed value in a message."""
    return inert(value, limit=PREVIEW_CHARS)


#: Items of a list shown in one message before the rest is counted.
CAPPED_ITEMS = 5


def capped(
    items: Iterable[object],
    limit: int = CAPPED_ITEMS,
    *,
    show: Callable[[object], str] = preview,
    lines: bool = False,
) -> str:
    """The first ``limit`` items comma-separated, each shown by ``show`` (a :func:`preview`),
    then how many are left: ``a, b, c`` or ``a, b, c, d, e and 7 more``; with ``lines``, a
    ``- item`` line each and ``- … and 7 more`` last."""
    items = list(items)
    rest = len(items) - limit
    if lines:
        listed = [f"- {show(item)}" for item in items[:limit]]
        return "\n".join(listed + ([f"- … and {rest} more"] if rest > 0 else []))
    shown = ", ".join(show(item) for item in items[:limit])
    return f"{shown} and {rest} more" if rest > 0 else shown
