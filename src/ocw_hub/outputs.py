"""Safe output paths: checked before any work is done, written whole or not at all.

The rule for every writer: write only a regular file or a new path; an existing device, FIFO,
socket, folder or symbolic link is refused before any work; the atomic rename replaces only a
regular file; a folder that one run fills is held by one run at a time (:func:`exclusive`).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from . import interrupts
from .configs import PathLike
from .errors import OutputPathError


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _not_regular(path: Path) -> str | None:
    """What ``path`` is when it exists and is no regular file (never following a link)."""
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    kinds = {
        stat.S_ISLNK: "a symbolic link",
        stat.S_ISDIR: "a folder",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
        stat.S_ISCHR: "a device",
        stat.S_ISBLK: "a device",
    }
    return next((kind for test, kind in kinds.items() if test(mode)), None)


def _probe_writable(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (tried, not guessed from permission bits)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ocw-hub-probe.", dir=folder)
    except OSError:
        return False
    os.close(fd)
    os.unlink(tmp)
    return True


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
        OutputPathError: ``out`` exists and is no regular file (a folder, ``/`` included, a
            symbolic link, a device, FIFO or socket) or a read-only one; it is an input (the
            same file, even under another name) or lies inside an input folder; a parent is an
            existing file; no file can be created in the nearest existing parent.
    """
    with _os_errors(option, out):
        return _check_output_file(Path(out).expanduser(), out, inputs, option)


@contextmanager
def _os_errors(option: str, out: PathLike) -> Iterator[None]:
    """An ``OSError`` while looking at an output path (a folder on the way that this user may
    not enter) as one line."""
    try:
        yield
    except OSError as err:
        raise OutputPathError(
            f"{option} {out}: cannot be used ({err.strerror or err}: {err.filename})"
        ) from None


def _check_output_file(
    path: Path, out: PathLike, inputs: Iterable[PathLike | None], option: str
) -> Path:
    kind = _not_regular(path)
    if kind is not None:
        raise OutputPathError(f"{option} {out}: is {kind}, not a regular file; give a file path")
    if path.exists() and not path.lstat().st_mode & 0o222:  # an atomic rename ignores the mode
        raise OutputPathError(f"{option} {out}: is read-only; never replaced (give another path)")
    parent = _nearest_existing_parent(path.absolute())
    if not parent.is_dir():
        raise OutputPathError(f"{option} {out}: {parent} is a file, not a folder")
    if not _probe_writable(parent):
        raise OutputPathError(f"{option} {out}: no file can be created in {parent}")
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
    with _os_errors(option, out):
        return _check_output_dir(Path(out).expanduser(), out, inputs, option)


def _check_output_dir(
    path: Path, out: PathLike, inputs: Iterable[PathLike | None], option: str
) -> Path:
    if path.is_symlink():
        raise OutputPathError(f"{option} {out}: is a symbolic link; give the real path")
    if path.exists() and not path.is_dir():
        raise OutputPathError(f"{option} {out}: is a file, not a folder")
    parent = path.absolute() if path.exists() else _nearest_existing_parent(path.absolute())
    if not parent.is_dir():
        raise OutputPathError(f"{option} {out}: {parent} is a file, not a folder")
    if not _probe_writable(parent):
        raise OutputPathError(f"{option} {out}: no file can be created in {parent}")
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


def json_text(value: object, *, indent: int | None = 2, end: str = "\n") -> str:
    """``value`` as the JSON text every ocw-hub JSON file holds: UTF-8 characters as they are
    (``ensure_ascii=False``), ``indent`` spaces (None: one line), ``end`` (a final newline)."""
    import json

    return json.dumps(value, indent=indent, ensure_ascii=False) + end


def jsonl_text(records: Iterable[object]) -> str:
    """JSON Lines: each record as one line of :func:`json_text`."""
    return "".join(json_text(record, indent=None) for record in records)


def write_json(path: PathLike, value: object, *, indent: int | None = 2) -> None:
    """Write ``value`` as :func:`json_text` to ``path``, atomically (:func:`write_bytes_atomic`):
    the one JSON writer. ``path`` is checked beforehand by the caller (:func:`check_output_file`:
    never an input)."""
    write_text_atomic(path, json_text(value, indent=indent))


def write_files_atomic(files: dict[Path, bytes]) -> None:
    """Write several files as one: each is written to a temporary file beside it, and only when
    all are complete are they renamed into place, with Ctrl-C held for the renames (so a
    folder of runs is never left half old, half new). Each path as :func:`write_bytes_atomic`;
    after Ctrl-C nothing is moved into place (:func:`ocw_hub.interrupts.check`).

    Raises:
        OutputPathError: as :func:`write_bytes_atomic`; nothing is replaced then.
    """
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in files.items():
            with interrupts.held():  # each temporary file is in the list before Ctrl-C acts
                staged.append((_staged_file(Path(path), data), Path(path)))
        interrupts.check()
        with interrupts.held():
            _replace_all(staged)
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise


def _staged_file(path: Path, data: bytes) -> str:
    """A complete temporary copy of ``data`` beside ``path``, with an ordinary file's
    permissions; its name."""
    kind = _not_regular(path)
    if kind is not None:
        raise OutputPathError(f"{path}: is {kind}, not a regular file; not replaced")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise OutputPathError(f"{path}: cannot be written ({err.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; the result is an ordinary file
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise OutputPathError(f"{path}: cannot be written ({err.strerror})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _replace_all(staged: list[tuple[str, Path]]) -> None:
    for tmp, path in staged:
        _replace_regular(tmp, path)


def _replace_regular(tmp: str, path: Path) -> None:
    kind = _not_regular(path)
    if kind is not None:
        raise OutputPathError(f"{path}: is {kind}, not a regular file; not replaced")
    os.replace(tmp, path)


def write_bytes_atomic(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, renamed over
    ``path`` only when complete, with the permissions of an ordinary new file (the umask
    applied); the temporary file is removed on any failure.

    Raises:
        OutputPathError: ``path`` exists and is no regular file (checked again just before the
            rename); the folder cannot be written.
    """
    path = Path(path)
    staged: list[str] = []
    try:
        with interrupts.held():  # the temporary file is in the list before Ctrl-C acts
            staged.append(_staged_file(path, data))
        _replace_regular(staged[0], path)
    except BaseException:
        for tmp in staged:
            Path(tmp).unlink(missing_ok=True)
        raise


def _same_inode(handle: IO[str], path: Path) -> bool:
    """Whether the open file ``handle`` is still the file at ``path``."""
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except FileNotFoundError:
        return False


#: The lock file that :func:`exclusive` holds in an output folder.
LOCK_NAME = ".ocw-hub.lock"


@contextmanager
def exclusive(folder: PathLike, *, option: str = "--out") -> Iterator[None]:
    """Hold ``folder`` (created if missing) for this process: a second writer of the same
    folder fails at once instead of mixing its files with this one's. The lock is an
    ``fcntl.flock`` on ``folder/.ocw-hub.lock`` (released when the process ends, even killed);
    the file is removed on exit, and the folder too when this call made it and it stayed
    empty, with the parent folders made for it (a failed or interrupted run leaves nothing).

    Raises:
        OutputPathError: another process holds the folder.
    """
    import fcntl

    folder = Path(folder)
    existing = _nearest_existing_parent(folder.absolute() / "_")  # folder itself, if it exists
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputPathError(f"{option} {folder}: cannot be created ({err.strerror})") from None
    lock = folder / LOCK_NAME
    while True:
        if _not_regular(lock) is not None:
            raise OutputPathError(f"{option} {folder}: {LOCK_NAME} is not a regular file")
        try:
            handle = open(lock, "a+")  # noqa: SIM115 (held for the whole block)
        except OSError as err:
            raise OutputPathError(
                f"{option} {folder}: cannot be written ({err.strerror})"
            ) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise OutputPathError(
                f"{option} {folder}: another ocw-hub run is writing this folder; wait for it "
                "or choose another folder"
            ) from None
        if _same_inode(handle, lock):
            break
        handle.close()  # the holder removed the file between our open and our lock: again
    try:
        try:
            yield
        finally:
            lock.unlink(missing_ok=True)
            _remove_empty(folder.absolute(), existing)
    finally:
        handle.close()


def _remove_empty(folder: Path, existing: Path) -> None:
    """Remove ``folder`` and its parents below ``existing`` (the folders a call made), each
    only when empty (left when a run wrote into it)."""
    while folder != existing and folder.is_relative_to(existing):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


#: Line breaks of YAML 1.1 beyond ``\n`` and ``\r``: PyYAML writes them raw inside a quoted
#: scalar with ``allow_unicode`` and reads a NEL back as a space, so they go double-quoted.
_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


def yaml_text(data: Any, *, literal_blocks: bool = False, **options: Any) -> str:
    """``data`` as YAML by PyYAML's safe dumper (unicode kept, keys in their order; a text
    holding a YAML-only line break double-quoted, so it reads back the same); with
    ``literal_blocks``, a multi-line text as a literal block (``|``) where YAML allows one."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        pass

    def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        style = None
        if any(b in value for b in _YAML_BREAKS):
            style = '"'
        elif literal_blocks and "\n" in value:
            style = "|"
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    _Dumper.add_representer(str, _text)
    options = {"sort_keys": False, "allow_unicode": True, **options}
    return str(yaml.dump(data, Dumper=_Dumper, **options))


#: What a spreadsheet reads as the start of a formula (OWASP, "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def csv_cell(cell: str) -> str:
    """A CSV cell a spreadsheet shows as text: one starting with ``= + - @``, a tab or a
    carriage return gets a leading ``'`` (OWASP's rule), unless it is a number (``-0.5``)."""
    if cell.startswith(_FORMULA_START) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_text(rows: Iterable[Iterable[str]]) -> str:
    """Rows as CSV (``csv.writer``; RFC 4180's ``\\r\\n`` line ends, which make the writer
    quote a cell holding a ``\\r``: with ``\\n`` alone it wrote it bare, read back cut),
    every cell through :func:`csv_cell`."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerows([csv_cell(str(cell)) for cell in row] for row in rows)
    return buffer.getvalue()
