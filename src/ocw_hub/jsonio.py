"""Strict JSON for every file ocw-hub reads: a key given twice in one object is an error.

``json`` resolves a repeated key silently ("last wins"), so ``{"wall_id": "a", "wall_id":
"b"}`` would be read as wall ``b``. Every JSON document and JSON Lines line the package reads
(predictions, results, LLM requests and responses) goes through :func:`loads`. The loading
scripts apply the same rule to source files with ``load_json`` of their sibling
``source_files.py``, which names the wall or question by its place in the file and raises the
dataset's format error; this module reads text (JSON Lines lines too), names the object by its
own id and raises the caller's :class:`~ocw_hub.errors.OCWHubError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .configs import PathLike
from .errors import OCWHubError


class DuplicateKeyError(ValueError):
    """A JSON object that gives one key twice.

    Attributes:
        key: the repeated key.
        owner: the object's ``wall_id``, ``id`` or ``custom_id`` when it has a string one (for
            messages), else None.
    """

    def __init__(self, key: str, owner: str | None) -> None:
        where = f"{owner}: " if owner else ""
        super().__init__(f"{where}key {key!r} given twice in one object (never 'last wins')")
        self.key = key
        self.owner = owner


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            owner = next(
                (v for k, v in pairs if k in ("wall_id", "id", "custom_id") and isinstance(v, str)),
                None,
            )
            raise DuplicateKeyError(key, owner)
        out[key] = value
    return out


def loads(text: str) -> Any:
    """``json.loads`` that rejects a repeated key in any object.

    Raises:
        DuplicateKeyError: a key given twice (a ``ValueError``).
        ValueError: not valid JSON (``json.JSONDecodeError``).
    """
    return json.loads(text, object_pairs_hook=_strict_object)


def read_json(
    path: PathLike, error: type[OCWHubError], what: str = "JSON file", max_bytes: int | None = None
) -> Any:
    """Parse a UTF-8 JSON file strictly (:func:`loads`), of at most ``max_bytes`` when given
    (checked before it is read).

    Raises:
        error: (an :class:`~ocw_hub.errors.OCWHubError` subclass of the caller's) no such
            file, a folder, larger than ``max_bytes``, not UTF-8, not valid JSON, a repeated
            key; the message starts with the path.
    """
    path = Path(path)
    size = path.stat().st_size if max_bytes is not None and path.is_file() else 0
    if max_bytes is not None and size > max_bytes:
        raise error(f"{path}: {size} bytes, more than a {what} may be ({max_bytes} bytes)")
    text = ""
    try:
        text = path.read_text(encoding="utf-8")
        return loads(text)
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {what}") from None
    except UnicodeDecodeError as err:
        raise error(f"{path}: not UTF-8 text ({err})") from None
    except DuplicateKeyError as err:
        raise error(f"{path}: {err}") from None
    except (ValueError, RecursionError) as err:  # JSONDecodeError is a ValueError
        lines = _json_lines(text, what)
        if lines is not None:
            raise error(f"{path}: {lines}") from None
        raise error(f"{path}: not valid JSON ({err})") from None


def _json_lines(text: str, what: str) -> str | None:
    """What a text that is not one JSON document is when it is JSON Lines (its first line a
    JSON object, more lines after it): a play log (its header, ``record:
    play``) or another JSON Lines file, and what to do; None otherwise."""
    first, _, rest = text.partition("\n")
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or not rest.strip():
        return None
    if head.get("record") == "play":
        return (
            f"a play log (JSON Lines), not a {what}; score it first "
            "(`ocw-hub evaluate LOG --out results.json`) and give results.json"
        )
    return (
        f"a JSON Lines file, not a {what}, nor a play log (a play log's line 1 is its header, "
        '{"record": "play", ...})'
    )


def load_line(path: PathLike, number: int, line: str, error: type[OCWHubError]) -> dict[str, Any]:
    """One line of a JSON Lines file parsed strictly (:func:`loads`); it must be an object.

    Raises:
        error: not valid JSON, a repeated key, or not an object; the message names the file and
            the line number (1-based).
    """
    try:
        record = loads(line)
    except (ValueError, RecursionError) as err:
        raise error(f"{path}, line {number}: not valid JSON ({err})") from None
    if not isinstance(record, dict):
        raise error(f"{path}, line {number}: expected a JSON object")
    return record
