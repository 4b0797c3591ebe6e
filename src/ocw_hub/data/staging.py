"""Where the exports go: checked before any work, staged beside their place, swapped in whole.

An export folder is replaced as a whole, and only when every config succeeded; a symbolic link
given as (or found at) an export's place is kept and the export behind it is updated.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import interrupts
from ..configs import PathLike
from ..errors import OutputPathError
from ..outputs import check_output_dir
from ..shown import capped
from .layout import EXPORT_FOLDERS, export_folder, holds_only_export_files


class ExportPathError(OutputPathError):
    """An export destination that is not safe to write, found before any work is done.

    Attributes:
        parameter: the ``build_export`` argument at fault: ``"out"`` or ``"cache_dir"``.
    """

    def __init__(self, message: str, *, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


def _unwritable_folders(folder: Path) -> list[str]:
    """Folders of an existing export whose entries could not be removed (not writable)."""
    folders = [folder, *(p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink())]
    return [
        p.relative_to(folder).as_posix() or "."
        for p in folders
        if not os.access(p, os.W_OK | os.X_OK)
    ]


def _check_out_folder(out: Path, sources: Iterable[PathLike | None]) -> None:
    """``out`` is a folder (or missing) that holds no source and lies in no source folder."""
    if out.exists() and not out.is_dir():
        raise ExportPathError(f"export folder {out}: is a file, not a folder", parameter="out")
    for source in sources:
        if source is None:
            continue
        resolved = Path(source).expanduser().resolve()
        if resolved == out or resolved.is_relative_to(out):
            raise ExportPathError(
                f"export folder {out}: holds the source {source}; choose another folder",
                parameter="out",
            )
        if resolved.is_dir() and out.is_relative_to(resolved):
            raise ExportPathError(
                f"export folder {out}: lies inside the source folder {source}; choose another "
                "folder",
                parameter="out",
            )


def _check_cache_dir(cache_dir: PathLike | None, out: Path) -> None:
    if cache_dir is None:
        return
    cache = Path(cache_dir).expanduser().resolve()
    if cache == out or cache.is_relative_to(out) or out.is_relative_to(cache):
        raise ExportPathError(
            f"cache folder {cache_dir}: overlaps the export folder {out}, whose exports a "
            "build replaces; choose a cache folder outside it",
            parameter="cache_dir",
        )


def _check_out_contents(out: Path) -> None:
    """``out`` holds only export folders (and hidden entries): nothing a build could harm or
    that would be mistaken for part of an export."""
    if not out.is_dir():
        return
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    others = [name for name in names if name not in EXPORT_FOLDERS]
    if {"README.md", "data"} & set(others):
        raise ExportPathError(
            f"export folder {out}: holds an export of the earlier one-folder layout "
            "(README.md, data/); remove them: exports now go to "
            + " and ".join(f"{out / name}/" for name in EXPORT_FOLDERS),
            parameter="out",
        )
    if others:
        raise ExportPathError(
            f"export folder {out}: the folder holds files that are not an ocw-hub export "
            f"({capped(others)}); remove them or choose another folder",
            parameter="out",
        )


def _check_target(target: Path, sources: Iterable[PathLike | None]) -> None:
    """One export's place: empty, missing or a previous export that can be removed."""
    try:
        check_output_dir(target, inputs=sources, option="export folder")
    except OutputPathError as err:
        raise ExportPathError(str(err), parameter="out") from err
    if not target.is_dir():
        return
    if not holds_only_export_files(target):
        raise ExportPathError(
            f"export folder {target}: the folder holds files that are not an ocw-hub export; "
            "remove them or choose another folder (it would be replaced as a whole)",
            parameter="out",
        )
    locked = _unwritable_folders(target)
    if locked:
        raise ExportPathError(
            f"export folder {target}: {capped(locked)} is read-only, so the previous "
            f"export cannot be replaced; make it writable (chmod -R u+w {target}) or choose "
            "another folder",
            parameter="out",
        )


def _check_linked_target(
    link: Path, target: Path, sources: Iterable[PathLike | None], cache_dir: PathLike | None
) -> None:
    """An export's place that is a symbolic link: its target is updated, so it gets the
    checks of ``out`` itself; a dangling link is refused."""
    if not target.exists():
        raise ExportPathError(
            f"export folder {link}: a symbolic link to {target}, which does not exist; "
            "remove the link or create its target",
            parameter="out",
        )
    _check_out_folder(target, sources)
    _check_cache_dir(cache_dir, target)


def plan_export(
    sources: Mapping[str, PathLike | None],
    out: PathLike,
    cache_dir: PathLike | None = None,
) -> dict[str, Path]:
    """Check where ``build_export`` would write, before any work; returns export folder
    name (``ocw``, ``wote``) -> the folder it replaces (symbolic links resolved: a link at
    ``out`` or at ``out/<export>`` is kept and the export behind it is updated).

    Raises:
        ValueError: unknown config.
        ExportPathError: ``out`` is a file, holds or lies inside a source folder, or holds
            files that are not exports; an export's place holds other files or read-only
            folders; ``cache_dir`` lies inside ``out`` (it would be deleted); a folder on
            the way cannot be entered.
    """
    try:
        return _plan_export(sources, out, cache_dir)
    except OSError as err:
        raise ExportPathError(
            f"export folder {out}: cannot be used ({err.strerror or err}: {err.filename})",
            parameter="out",
        ) from None


def _plan_export(
    sources: Mapping[str, PathLike | None], out: PathLike, cache_dir: PathLike | None
) -> dict[str, Path]:
    exports = sorted({export_folder(name) for name in sources})
    root = Path(out).expanduser().resolve()
    if Path(out).expanduser().is_symlink() and not root.exists():
        raise ExportPathError(
            f"export folder {out}: a symbolic link to {root}, which does not exist; remove the "
            "link or create its target",
            parameter="out",
        )
    _check_out_folder(root, sources.values())
    _check_cache_dir(cache_dir, root)
    _check_out_contents(root)
    targets = {export: (root / export).resolve() for export in exports}
    for export, target in targets.items():
        if (root / export).is_symlink():
            _check_linked_target(root / export, target, sources.values(), cache_dir)
        _check_target(target, sources.values())
    return targets


# --------------------------------------------------------------------------------------------
# Staging and installing
# --------------------------------------------------------------------------------------------


def _make_writable_and_retry(func: Callable[[str], Any], path: str, _exc: Any) -> None:
    """``shutil.rmtree`` error handler: make the folder holding ``path`` writable, retry."""
    parent = os.path.dirname(path)
    os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
    func(path)


def _remove_tree(folder: Path) -> None:
    """Remove a replaced export; a failure is a warning (the new export is in place)."""
    try:
        if sys.version_info >= (3, 12):  # onerror is deprecated; onexc has the same signature
            shutil.rmtree(folder, onexc=_make_writable_and_retry)
        else:
            shutil.rmtree(folder, onerror=_make_writable_and_retry)
    except OSError as err:
        warnings.warn(
            f"the previous export moved to {folder} could not be removed ({err}); remove it "
            "by hand",
            UserWarning,
            stacklevel=3,
        )


def _aside_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.old-{os.getpid()}-{secrets.token_hex(4)}")


def _install(staged: Mapping[Path, Path]) -> None:
    """Move each staged export into its place (target -> staged folder), all or none: a
    failure puts every previous export back. The replaced exports are removed last. After
    Ctrl-C nothing is moved (:func:`ocw_hub.interrupts.check`)."""
    interrupts.check()
    aside: dict[Path, Path] = {}
    installed: list[Path] = []
    try:
        for target, tmp in staged.items():
            if target.exists():
                aside[target] = _aside_name(target)
                target.rename(aside[target])
            tmp.rename(target)
            installed.append(target)
    except BaseException as err:
        for target in installed:
            shutil.rmtree(target, ignore_errors=True)
        for target, old in aside.items():
            old.rename(target)
        if isinstance(err, OSError):
            raise ExportPathError(
                f"export folder {err.filename or target}: cannot be replaced "
                f"({type(err).__name__}: {err.strerror or err}); the previous exports are kept",
                parameter="out",
            ) from err
        raise
    for old in aside.values():
        _remove_tree(old)


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet (a build creates them)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


@contextmanager
def staging(targets: Mapping[str, Path]) -> Iterator[dict[str, Path]]:
    """One temporary folder beside each export's place; installed only if the block succeeds.
    Temporary folders, and an ``out`` folder this build created, never outlive a failure."""
    created = sorted(
        {folder for t in targets.values() for folder in _missing_folders(t.parent)},
        key=lambda folder: len(folder.parts),
        reverse=True,
    )
    staged: dict[str, Path] = {}
    umask = os.umask(0)
    os.umask(umask)
    try:
        for export, target in targets.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            staged[export] = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
            staged[export].chmod(0o777 & ~umask)  # mkdtemp makes it private
        yield staged
        _install({targets[export]: tmp for export, tmp in staged.items()})
    finally:
        for tmp in staged.values():
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        for folder in created:
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()


# --------------------------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------------------------
