"""Safe output paths: checked before any work is done, written whole or not at all.

Every command that writes a file (``evaluate --out``, ``predict``, ``prompts``, ``parse``,
``derive``, ``report``) checks its output path first with :func:`check_output_file` or
:func:`check_output_dir`, then writes with :func:`write_text_atomic`, so a bad path costs no
scoring time, and a failure leaves neither a partial file nor a stray temporary file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .configs import PathLike
from .errors import OutputPathError


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _nearest_existing_parent(path: Path) -> Path:
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def check_output_file(
    out: PathLike, inputs: Iterable[PathLike | None] = (), *, option: str = "--out"
) -> Path:
    """Check that ``out`` can be written as a file without destroying anything.

    Args:
        out: the file to write (created with its missing parent folders).
        inputs: the command's input files or folders; ``out`` may be none of them nor lie
            inside one of the folders.
        option: the option name used in messages.

    Returns:
        ``out`` as an absolute path (symlinks in its parents resolved).

    Raises:
        OutputPathError: ``out`` is an existing folder (``/`` included) or a symlink; it is an
            input (the same file, even under another name) or lies inside an input folder; a
            parent is an existing file; the nearest existing parent is not writable.
    """
    path = Path(out).expanduser()
    if path.is_symlink():
        raise OutputPathError(f"{option} {out}: is a symbolic link; give the real path")
    if path.is_dir():
        raise OutputPathError(f"{option} {out}: is a folder; give a file name inside it")
    parent = _nearest_existing_parent(path.absolute())
    if not parent.is_dir():
        raise OutputPathError(f"{option} {out}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK):
        raise OutputPathError(f"{option} {out}: {parent} is not writable")
    resolved = parent.resolve() / path.absolute().relative_to(parent)
    for source in inputs:
        if source is None:
            continue
        source_path = Path(source).expanduser()
        if _same_file(path, source_path) or resolved == source_path.resolve():
            raise OutputPathError(
                f"{option} {out}: is an input of this command ({source}); never overwritten"
            )
        if source_path.is_dir() and resolved.is_relative_to(source_path.resolve()):
            raise OutputPathError(
                f"{option} {out}: lies inside the input folder {source}; choose another place"
            )
    return resolved


def check_output_dir(
    out: PathLike, inputs: Iterable[PathLike | None] = (), *, option: str = "--out"
) -> Path:
    """Check that ``out`` can be used as an output folder (created if missing).

    Raises:
        OutputPathError: ``out`` is a file or a symlink; it is, holds or lies inside an input;
            the nearest existing parent is not writable.
    """
    path = Path(out).expanduser()
    if path.is_symlink():
        raise OutputPathError(f"{option} {out}: is a symbolic link; give the real path")
    if path.exists() and not path.is_dir():
        raise OutputPathError(f"{option} {out}: is a file, not a folder")
    parent = path.absolute() if path.exists() else _nearest_existing_parent(path.absolute())
    if not parent.is_dir():
        raise OutputPathError(f"{option} {out}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK):
        raise OutputPathError(f"{option} {out}: {parent} is not writable")
    resolved = path.resolve()
    for source in inputs:
        if source is None:
            continue
        source_resolved = Path(source).expanduser().resolve()
        if (
            resolved == source_resolved
            or source_resolved.is_relative_to(resolved)
            or (Path(source).is_dir() and resolved.is_relative_to(source_resolved))
        ):
            raise OutputPathError(
                f"{option} {out}: overlaps the input {source}; choose another folder"
            )
    return resolved


def write_text_atomic(path: PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` as :func:`write_bytes_atomic` does."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, renamed over
    ``path`` only when complete, with the permissions of an ordinary new file (the umask
    applied); the temporary file is removed on any failure."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; the result is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
