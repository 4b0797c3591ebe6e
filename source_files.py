"""What ``OCW.py`` and ``WoTe.py`` share: the error design, strict JSON, source files.
Standard library only; the loading scripts import it relatively (``datasets`` 3.x copies it).

* :class:`Where`: errors name the file, item and field (``"<file>: <item>: field '<f>': ..."``);
* :func:`load_json`: strict JSON (a key repeated in one object is an error);
* :func:`source_digest`: the one content hash of source files (cache keys, extraction folders);
* :class:`ContentKeyedConfigMixin`: a config id that covers a local ``data_dir``'s content;
* :func:`find_split_files`, :func:`resolve_data_dir`, :func:`extract_archive`: split files.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import posixpath
import re
import shutil
import tarfile
import tempfile
import unicodedata
import zipfile
import zlib
from pathlib import Path
from typing import Any, NoReturn

SPLITS = ("train", "validation", "test")  # both datasets', in the order they are generated

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
_TOKEN_SEPARATORS = re.compile(r"[_\-.]+")
_MAX_LISTED = 50  # JSON files listed in a "cannot find split" error
_EXTRACTED_FOLDER = "ocw_extracted"  # under the downloads cache: <source_digest of the archive>/

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN_CHARS = 80  # characters of a value shown in an error message
#: The archive budget, checked before anything is extracted: each split file (the releases'
#: largest: 2.2 MB), all split files together (under 5 MB), members of any kind (under 10).
MAX_MEMBER_BYTES = 64 * 2**20
MAX_ARCHIVE_BYTES = 128 * 2**20
MAX_ARCHIVE_MEMBERS = 10_000


class Where:
    """Where a value was read: a source file and one item of it (a wall or a question).

    Every input error of the script is made by :meth:`error`, so every message has the shape
    ``"<file>: <item>: field '<field>': <problem>"``, e.g. ``"test.json: wall '46fa44' (#0):
    field 'season': must be 1 or more, got 0"`` (the item and the field are left out when
    there is none).

    Each dataset subclasses it: ``error_type`` is its format error (``OCWFormatError``,
    ``WoTeFormatError``) and :meth:`item_at` labels the item a JSON path points into.

    Args:
        file: the source file (or archive, or folder).
        item: the wall or question, e.g. ``"wall '46fa44' (#0)"``; empty for the whole file.
    """

    error_type: type[ValueError] = ValueError

    def __init__(self, file: object, item: str = "") -> None:
        self.file = str(file)
        self.item = item

    def describe(self, field: str | None, problem: str) -> str:
        """The message ``"<file>: <item>: field '<field>': <problem>"``."""
        parts = (self.file, self.item, f"field {field!r}" if field else "", problem)
        return ": ".join(part for part in parts if part)

    def error(self, field: str | None, problem: str) -> ValueError:
        """The dataset's format error (:attr:`error_type`) with :meth:`describe`'s message."""
        return self.error_type(self.describe(field, problem))

    @staticmethod
    def item_at(document: Any, json_path: list[str | int]) -> tuple[str, list[str | int]]:
        """The item a JSON path points into, for messages: ``(label, path of the field)``."""
        return "", json_path


def missing_source(path: object) -> FileNotFoundError:
    """The error for a ``data_dir`` (folder, file or archive) that does not exist."""
    return FileNotFoundError(f"{path}: data_dir not found (no such file or folder)")


def short(value: Any) -> str:
    """``repr(value)``, cut to a length that fits in an error message."""
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def is_blank(text: str) -> bool:
    """True when ``text`` shows nothing: empty, or only whitespace, control (Unicode category
    Cc, e.g. NUL) and format (Cf, e.g. the zero-width space U+200B) characters."""
    return all(char.isspace() or unicodedata.category(char) in ("Cc", "Cf") for char in text)


def check_text(value: str, where: Where, field: str) -> None:
    """Reject a string that is not valid Unicode text: a lone surrogate such as ``"\\ud800"``,
    which JSON allows but UTF-8 (and so Arrow) cannot hold. Linear, allocates nothing."""
    match = _SURROGATE.search(value)
    if match is not None:
        problem = f"not valid Unicode text: lone surrogate {match.group()!r} at character "
        raise where.error(field, problem + f"{match.start()} of {value[:40]!r}")


#: Categories that break or hide a line: controls (Cc: \n, \r, \t, ESC, NUL, NEL), Zl, Zp.
LINE_BREAKING = ("Cc", "Zl", "Zp")
_LINE_BREAKING_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # theirs: fixed by Unicode
#: What :func:`check_text` and :func:`check_line` refuse: a surrogate, a line-breaking character.
_NOT_ONE_LINE_TEXT = re.compile("[\ud800-\udfff\x00-\x1f\x7f-\x9f\u2028\u2029]")


def line_breaking_char(text: str) -> tuple[int, str] | None:
    """``(offset, char)`` of the first character of ``text`` in :data:`LINE_BREAKING`."""
    found = _LINE_BREAKING_CHAR.search(text)
    return None if found is None else (found.start(), found.group())


def check_line(value: str, where: Where, field: str) -> None:
    """Refuse (never normalise) a one-line value holding a :func:`line_breaking_char`: in a
    prompt or a table it would change their structure."""
    if (found := line_breaking_char(value)) is not None:
        problem = f"holds {found[1]!r} at character {found[0]} of {short(value)}; one line only"
        raise where.error(field, problem)


def check_name(value: str, where: Where, field: str) -> None:
    """:func:`check_text` and :func:`check_line`, and reject a value that looks blank
    (:func:`is_blank`): ids, clues and connections must show something on one line."""
    if value[:1].isalnum() and _NOT_ONE_LINE_TEXT.search(value) is None:
        return  # the usual name, in one search: it shows its first character, on one line
    check_text(value, where, field)
    if is_blank(value):
        problem = f"empty or blank {short(value)} (only whitespace, control or format characters)"
        raise where.error(field, problem)
    check_line(value, where, field)


def load_json(path: str | os.PathLike[str], what: str, where_type: type[Where] = Where) -> Any:
    """Parse a JSON source file strictly and return the document.

    Strict: a key that appears twice in one JSON object (which ``json`` resolves silently,
    the last value winning) is an error naming the item (``where_type.item_at``), the field
    and the key.

    Args:
        path: the file.
        what: what the file is, for messages, e.g. ``"split 'train'"``.
        where_type: the dataset's :class:`Where`.

    Raises:
        where_type.error_type: invalid JSON (with line and column), not UTF-8, JSON the parser
            cannot handle (an integer of more than 4300 digits, nesting deeper than the
            recursion limit), or a repeated key.
    """
    repeats: list[tuple[dict, list]] = []

    def keep_pairs(pairs: list) -> dict:
        obj = dict(pairs)
        if len(obj) < len(pairs) and not repeats:
            repeats.append((obj, pairs))
        return obj

    where = where_type(path)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle, object_pairs_hook=keep_pairs)
    except json.JSONDecodeError as error:
        raise where.error(
            None,
            f"invalid JSON in {what} (truncated or corrupt) at line {error.lineno} column "
            f"{error.colno}: {error.msg}",
        ) from error
    except UnicodeDecodeError as error:
        raise where.error(None, f"not UTF-8 text in {what}: {error}") from error
    except (ValueError, RecursionError, MemoryError) as error:
        # e.g. "Exceeds the limit (4300 digits) for integer string conversion", or nesting
        # deeper than the interpreter's recursion limit.
        raise where.error(
            None,
            f"cannot parse the JSON of {what}: {type(error).__name__}: {str(error)[:200]}",
        ) from error
    if repeats:
        _reject_repeated_key(where_type, path, document, *repeats[0])
    return document


def _reject_repeated_key(
    where_type: type[Where], path: object, document: Any, obj: dict, pairs: list
) -> NoReturn:
    """Raise the error for the first key that appears twice in ``obj`` (parsed from ``pairs``)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    values = ", ".join(short(value) for name, value in pairs if name == key)
    item, field = where_type.item_at(document, [*_json_path(document, obj), key])
    raise where_type(path, item).error(
        _field_name(field),
        f"key {key!r} appears more than once in one JSON object (values {values}); "
        "each key must appear once",
    )


def _json_path(document: Any, target: object) -> list[str | int]:
    """The keys and indices that lead from ``document`` to the object ``target`` (compared by
    identity); ``[]`` for the document itself. Iterative, so any depth ``json`` parsed is fine."""
    stack: list[tuple[Any, list[str | int]]] = [(document, [])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, dict):
            stack.extend((value, [*path, key]) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, [*path, index]) for index, value in enumerate(node))
    return []


def _field_name(parts: list[str | int]) -> str:
    """``["groups", "group_2", "gt_words", 1]`` -> ``"groups.group_2.gt_words[1]"``."""
    name = ""
    for part in parts:
        if isinstance(part, int):
            name += f"[{part}]"
        else:
            name += f".{part}" if name else str(part)
    return name


def source_digest(*paths: str | os.PathLike) -> str:
    """SHA-256 (hex) of source files' content: of each path in order, a file's size and bytes,
    or the relative path, size and bytes of every file under a folder (sorted). The one hash of
    source files: config ids, extraction folders, the package's cache keys. The sources are a
    few MB: milliseconds."""
    digest = hashlib.sha256()
    for path in paths:
        _digest_path(digest, Path(path))
    return digest.hexdigest()


def _digest_path(digest: Any, root: Path) -> None:
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for file in files:
        name = "" if file == root else file.relative_to(root).as_posix()
        digest.update(f"{name}\0{file.stat().st_size}\0".encode("utf-8", "surrogateescape"))
        with open(file, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


class ContentKeyedConfigMixin:
    """Mixed into a ``datasets.BuilderConfig``: the config id (the cache folder's name) includes
    :func:`source_digest` of a local ``data_dir``, not only its path.

    ``datasets`` keys a prepared dataset on the config id, which it computes from the config
    kwargs (the ``data_dir`` path string): an edited or replaced source at the same path
    would return the old rows. The digest is added to those kwargs, so on ``datasets`` 3.x
    ``load_dataset("<script>.py", data_dir=...)`` rebuilds when the content changes.
    """

    def create_config_id(self, config_kwargs: dict, custom_features: Any = None) -> str:
        data_dir = config_kwargs.get("data_dir")
        if data_dir is not None and os.path.exists(data_dir):
            config_kwargs = {**config_kwargs, "source_sha256": source_digest(data_dir)}
        return super().create_config_id(config_kwargs, custom_features)  # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# Locating the split files
# --------------------------------------------------------------------------------------------


def _name_tokens(file_name: str) -> list[str]:
    return [token for token in _TOKEN_SEPARATORS.split(file_name.lower()) if token]


def _candidate_json_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") or part == "__MACOSX" for part in relative.parts):
            continue  # hidden files, including macOS "._test.json" resource forks
        if path.is_file() and path.suffix.lower() == ".json":
            files.append(path)
    return files


def _split_candidates(candidates: list[Path], skip_stem: str) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {split: [] for split in SPLITS}
    for path in candidates:
        tokens = _name_tokens(path.name)
        if tokens[:-1] == [skip_stem]:
            continue
        for split in SPLITS:
            if split in tokens:
                found[split].append(path)
    return found


def _listing(root: Path, candidates: list[Path]) -> str:
    shown = [str(p.relative_to(root)) for p in candidates[:_MAX_LISTED]]
    if len(candidates) > _MAX_LISTED:
        shown.append(f"... and {len(candidates) - _MAX_LISTED} more")
    return ", ".join(shown) or "no JSON files"


def find_split_files(
    root: str | Path, where: type[Where] = Where, skip_stem: str = ""
) -> dict[str, Path]:
    """Find the JSON file of each split under ``root`` (searched recursively).

    A file belongs to split ``s`` when ``s`` is one of the tokens of its name split on ``_``,
    ``-`` and ``.`` (case-insensitive): ``test.json``, ``easy_test_wordnet.json`` and
    ``OCW_randomized/test.json`` match ``test``; ``contest.json`` does not. Hidden files,
    ``__MACOSX`` folders and the file ``<skip_stem>.json`` (any case) are ignored.

    Args:
        root: folder to search (e.g. the extracted release tarball).
        where: the dataset's :class:`Where` (its error class).
        skip_stem: a file holding every split (OCW's ``OCW.json``: ``"ocw"``).

    Returns:
        ``{"train": path, "validation": path, "test": path}``.

    Raises:
        FileNotFoundError: ``root`` does not exist.
        where.error_type: ``root`` is not a folder; a split has no matching file or more than
            one; the message lists the JSON files found under ``root``.
    """
    root = Path(root)
    if not root.exists():
        raise missing_source(root)
    if not root.is_dir():
        raise where(root).error(None, "not a folder")
    candidates = _candidate_json_files(root)
    found = _split_candidates(candidates, skip_stem.lower())
    problems = []
    for split in SPLITS:
        if not found[split]:
            problems.append(f"no file for split {split!r}")
        elif len(found[split]) > 1:
            names = ", ".join(str(p.relative_to(root)) for p in found[split])
            problems.append(f"several files for split {split!r}: {names}")
    if problems:
        raise where(root).error(
            None,
            f"cannot find one JSON file per split ({'; '.join(problems)}). "
            f"Files found: {_listing(root, candidates)}",
        )
    return {split: found[split][0] for split in SPLITS}


def resolve_data_dir(
    data_dir: str | os.PathLike, cache_dir: str | Path, force: bool, where: type[Where] = Where
) -> tuple[Path, str | None]:
    """``(folder holding the split files, archive it was extracted from or None)`` of a local
    ``data_dir``: a folder as is, an archive extracted by :func:`extract_archive`.

    Raises:
        FileNotFoundError: ``data_dir`` does not exist.
        ``where.error_type``: a file that is not an archive, or a bad archive.
    """
    data_dir = str(data_dir)
    path = Path(data_dir).expanduser()
    if path.is_dir():
        return path, None
    if not path.exists():
        raise missing_source(data_dir)
    if not data_dir.lower().endswith(ARCHIVE_SUFFIXES):
        raise where(data_dir).error(
            None, f"data_dir is neither a folder nor an archive ({', '.join(ARCHIVE_SUFFIXES)})"
        )
    return extract_archive(data_dir, path, cache_dir, force, where), data_dir


def archive_error(error: Exception, root: Path, archive: str, where: type[Where]) -> ValueError:
    """``error`` (a format error in the files extracted from ``archive`` into ``root``) as the
    dataset's error naming the archive: ``"in archive <archive> (extracted to <root>): ..."``."""
    message = str(error).removeprefix(f"{root}: ")  # the lookup error starts with it
    return where.error_type(f"in archive {archive} (extracted to {root}): {message}")


# --------------------------------------------------------------------------------------------
# Archives
# --------------------------------------------------------------------------------------------

# What unpacking a damaged archive raises: EOFError (truncated gzip/bz2/xz stream),
# tarfile.ReadError / zipfile.BadZipFile (corrupt archive), zlib.error (bad deflate data in a
# zip member), OSError (bad compressed data).
_EXTRACTION_ERRORS = (EOFError, tarfile.TarError, zipfile.BadZipFile, zlib.error, OSError)


def _unsafe_name(name: str) -> str | None:
    """Why an archive member's name would land outside the extraction folder, or None."""
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "an absolute path"
    if ".." in re.split(r"[/\\]", name):
        return "a '..' part"
    return None


def _unsafe_member(member: tarfile.TarInfo) -> str | None:
    """Why a tar member is refused (absolute path, '..', a link leaving the folder, a device
    or fifo), or None."""
    problem = _unsafe_name(member.name)
    if problem is not None:
        return problem
    if member.issym() or member.islnk():
        base = posixpath.dirname(member.name) if member.issym() else ""
        target = posixpath.normpath(posixpath.join(base, member.linkname))
        if member.linkname.startswith("/") or target == ".." or target.startswith("../"):
            return f"a link to {member.linkname!r}, outside the archive's folder"
    elif not (member.isfile() or member.isdir()):
        return "not a file, a folder or a link"
    return None


def _is_split_candidate(name: str) -> bool:
    """Whether an archive member could be a split file: a ``.json`` file, not hidden, not under
    ``__MACOSX`` (what :func:`find_split_files` looks at)."""
    parts = [part for part in re.split(r"[/\\]", name) if part and part != "."]
    return (
        bool(parts)
        and parts[-1].lower().endswith(".json")
        and not any(part.startswith(".") or part == "__MACOSX" for part in parts)
    )


def _split_members(members: list[tarfile.TarInfo]) -> list[tarfile.TarInfo]:
    """The members that can be split files (:func:`_is_split_candidate`): regular files, and
    links to a regular file of the archive with that file before them."""
    files = {posixpath.normpath(m.name): m for m in members if m.isfile()}
    chosen: dict[str, tarfile.TarInfo] = {}
    for member in members:
        if not _is_split_candidate(member.name):
            continue
        if member.issym() or member.islnk():
            base = posixpath.dirname(member.name) if member.issym() else ""
            target = files.get(posixpath.normpath(posixpath.join(base, member.linkname)))
            if target is None:
                continue
            chosen.setdefault(target.name, target)
        chosen.setdefault(member.name, member)
    return [m for m in chosen.values() if m.isfile() or m.issym() or m.islnk()]


def _check_budget(
    archive: str, count: int, sizes: list[tuple[str, int]], where: type[Where]
) -> None:
    """Refuse an archive of ``count`` members that would extract ``(name, bytes)`` members
    over the budget (:data:`MAX_ARCHIVE_MEMBERS`, :data:`MAX_MEMBER_BYTES` each,
    :data:`MAX_ARCHIVE_BYTES` together)."""
    if count > MAX_ARCHIVE_MEMBERS:
        raise where(archive).error(
            None, f"refused: more than {MAX_ARCHIVE_MEMBERS} members; nothing extracted"
        )
    for name, size in sizes:
        if size > MAX_MEMBER_BYTES:
            raise where(archive, f"member {name!r}").error(
                None,
                f"refused: {size} bytes, more than the {MAX_MEMBER_BYTES} a split file may "
                "have (MAX_MEMBER_BYTES); nothing extracted",
            )
    total = sum(size for _, size in sizes)
    if total > MAX_ARCHIVE_BYTES:
        raise where(archive).error(
            None,
            f"refused: its {len(sizes)} split files hold {total} bytes, more than the "
            f"{MAX_ARCHIVE_BYTES} an archive may unpack to (MAX_ARCHIVE_BYTES); nothing "
            "extracted",
        )


def _read_size(member: tarfile.TarInfo, files: dict[str, int]) -> int:
    """The bytes reading ``member`` costs: its size, or for a link its target's."""
    if member.isfile():
        return member.size
    base = posixpath.dirname(member.name) if member.issym() else ""
    return files.get(posixpath.normpath(posixpath.join(base, member.linkname)), 0)


def _unpack_tar(archive: str, local: Path, dest: Path, where: type[Where]) -> None:
    with tarfile.open(local) as tar:
        # reads the whole archive (a truncated one fails here), one member over the cap at most
        members = list(itertools.islice(tar, MAX_ARCHIVE_MEMBERS + 1))
        count = len(members)
        for member in members:
            problem = _unsafe_member(member)
            if problem is not None:
                raise where(archive, f"member {member.name!r}").error(
                    None, f"refused: {problem}; nothing extracted"
                )
        members = _split_members(members)
        files = {posixpath.normpath(m.name): m.size for m in members if m.isfile()}
        _check_budget(archive, count, [(m.name, _read_size(m, files)) for m in members], where)
        if hasattr(tarfile, "data_filter"):  # Python 3.12+, and 3.8-3.11 security releases
            tar.extractall(dest, members=members, filter="data")
        else:  # pragma: no cover - older Pythons; every member was checked above
            tar.extractall(dest, members=members)


def _unpack_zip(archive: str, local: Path, dest: Path, where: type[Where]) -> None:
    with zipfile.ZipFile(local) as zipped:
        infos = zipped.infolist()
        for info in infos:
            problem = _unsafe_name(info.filename)
            if problem is not None:
                raise where(archive, f"member {info.filename!r}").error(
                    None, f"refused: {problem}; nothing extracted"
                )
        count = len(infos)
        infos = [i for i in infos if not i.is_dir() and _is_split_candidate(i.filename)]
        _check_budget(archive, count, [(i.filename, i.file_size) for i in infos], where)
        for info in infos:  # a member longer than its declared size fails its CRC check
            zipped.extract(info, dest)


def _unpack(archive: str, local: Path, dest: Path, where: type[Where]) -> None:
    """Unpack ``local`` (tar, possibly compressed, or zip) into the empty folder ``dest``."""
    try:
        if tarfile.is_tarfile(local):
            _unpack_tar(archive, local, dest, where)
        elif zipfile.is_zipfile(local):
            _unpack_zip(archive, local, dest, where)
        else:
            raise where(archive).error(
                None,
                "not a readable archive (expected a tar or zip archive, possibly compressed, "
                "holding the split JSON files)",
            )
    except _EXTRACTION_ERRORS as error:
        raise where(archive).error(
            None,
            "cannot extract the archive: it is truncated or not a readable archive "
            f"({type(error).__name__}: {error})",
        ) from error


def extract_archive(
    archive: str,
    local: str | Path,
    cache_dir: str | Path,
    force: bool = False,
    where: type[Where] = Where,
) -> Path:
    """Extract an archive of split files into a folder named by its content.

    The folder is ``<cache_dir>/ocw_extracted/<source_digest>``: an archive replaced at the same
    path (even with the same size and modification time) gets a new folder, so old files are
    never read. An existing folder is reused (unless ``force``). The archive is unpacked into
    a temporary folder next to it and renamed into place when complete, so a failed or
    interrupted extraction leaves nothing behind.

    Args:
        archive: the archive as the user gave it (a path or URL), named in messages.
        local: the archive's local file (the downloaded copy of a URL).
        cache_dir: where to keep extractions (the builder uses its downloads cache).
        force: extract again even if the folder exists (``download_mode="force_redownload"``).
        where: the dataset's :class:`Where` (its error class).

    Returns:
        The extracted folder.

    Raises:
        where.error_type: the archive is truncated, not a tar or zip archive, or holds a member
            with an absolute path, a ``..`` part, a link out of the folder or a device, or is
            over its budget (a split file larger than :data:`MAX_MEMBER_BYTES`, split files
            larger than :data:`MAX_ARCHIVE_BYTES` together, more than
            :data:`MAX_ARCHIVE_MEMBERS` members); the message names ``archive``.

    Only the members that can be split files are extracted (``.json`` files, not hidden, not
    under ``__MACOSX``); anything else in the archive stays in it.
    """
    target = Path(cache_dir) / _EXTRACTED_FOLDER / source_digest(Path(local))
    if target.is_dir() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name[:16]}-", dir=target.parent))
    try:
        _unpack(archive, Path(local), staging, where)
        if force and target.is_dir():
            shutil.rmtree(target)
        _move_into_place(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # nothing left once moved into place
    return target


def _move_into_place(staging: Path, target: Path) -> None:
    """Rename the complete extraction to its final name; if another process finished the same
    extraction first (same content, same name), keep theirs."""
    try:
        os.replace(staging, target)
    except OSError:
        if not target.is_dir():
            raise
