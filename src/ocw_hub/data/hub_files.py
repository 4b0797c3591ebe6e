"""The files of a folder an upload sends (hidden files and ``__pycache__`` left out), the
symbolic links that would leak what lies outside it, and the check of a Hub repo id."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..configs import PathLike
from ..errors import ExportError


@dataclass(frozen=True)
class PlannedFile:
    """A file an upload would send: its path inside the folder and its size in bytes."""

    path: str
    size: int


def _uploaded(name: str) -> bool:
    """Hidden files and folders and ``__pycache__`` are never uploaded."""
    return not name.startswith(".") and name != "__pycache__"


def planned_files(folder: PathLike) -> list[PlannedFile]:
    """Every file under ``folder`` an upload sends, sorted by path: hidden files and folders
    and ``__pycache__`` are left out, symbolic links to folders are not followed (a link to a
    file is listed; :func:`link_problems` refuses one that leaves the folder)."""
    root = Path(folder)
    found = []
    for top, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if _uploaded(d))
        for name in files:
            path = Path(top) / name
            if _uploaded(name) and path.is_file():
                found.append(PlannedFile(path.relative_to(root).as_posix(), path.stat().st_size))
    return sorted(found, key=lambda f: f.path)


def link_problems(folder: PathLike) -> list[str]:
    """Symbolic links under ``folder`` (hidden ones included) whose target lies outside it or
    does not exist: an upload would send what they point to (e.g. a token file)."""
    root = Path(folder).resolve()
    problems = []
    for top, dirs, files in os.walk(root, followlinks=False):
        for name in sorted([*dirs, *files]):
            path = Path(top) / name
            if not path.is_symlink():
                continue
            target = path.resolve()
            rel = path.relative_to(root).as_posix()
            if not target.exists():
                problems.append(f"{rel}: a symbolic link to {target}, which does not exist")
            elif not target.is_relative_to(root):
                problems.append(
                    f"{rel}: a symbolic link to {target}, outside the folder (it would be "
                    "uploaded); replace it by the file itself or remove it"
                )
    return problems


def validate_repo_id(repo_id: str) -> None:
    """``huggingface_hub``'s own check of a repo id (``NAME`` or ``ORG/NAME``).

    Raises:
        ExportError: a malformed repo id (the message says what is wrong with it).
    """
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id as hub_validate

    try:
        hub_validate(repo_id)
    except HFValidationError as err:
        raise ExportError(f"repo id {repo_id!r}: {first_line(err)}") from err


def first_line(err: BaseException) -> str:
    """The first line of an error's message (its type's name when it has none)."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
