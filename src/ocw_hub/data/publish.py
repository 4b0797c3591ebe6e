"""Checking an export for the Hub viewer and publishing it (``ocw-hub check`` / ``publish``).

The viewer never runs code: it reads the card's YAML ``configs`` and the Parquet files they
name. :func:`inspect_export` verifies exactly that offline, resolving ``configs`` with
``datasets``' own functions (every form it accepts: ``data_dir``, ``data_files`` as a string,
a list, a list of ``{split, path}``, globs). :func:`planned_files` is the one list of the files
an upload sends; the check reads those same files, and :func:`publish` refuses a folder that
fails the check, then makes the repository mirror the folder in one commit (new and changed
files added, files the folder no longer has deleted).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, HfApi, RepoCard

from ..configs import PathLike
from ..errors import ExportError
from .export import EXPORT_FOLDERS, are_prerelease_ids

#: What reading a card's YAML metadata can raise: bad YAML, a non-mapping block, malformed
#: ``configs`` / ``dataset_info`` entries.
_CARD_ERRORS = (yaml.YAMLError, ValueError, TypeError, KeyError, AttributeError)


@dataclass(frozen=True)
class PlannedFile:
    """A file an upload would send: its path inside the folder and its size in bytes."""

    path: str
    size: int


@dataclass
class ExportReport:
    """What :func:`inspect_export` found.

    Attributes:
        problems: what would stop the Hub viewer (or a ``datasets`` era) from reading the
            export; publishing refuses any.
        differences: findings that do not stop it: Arrow types that differ from the card
            but cast to the card's type, files that belong to no config.
        files: the files an upload sends (:func:`planned_files`).
        prerelease: configs whose walls carry the pre-release wall ids (not the official OCW
            release).
    """

    problems: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    files: list[PlannedFile] = field(default_factory=list)
    prerelease: list[str] = field(default_factory=list)


class PrereleaseExportError(ExportError):
    """An export built from the pre-release stand-in, refused by :func:`publish` unless
    forced.

    Attributes:
        configs: the configs whose wall ids are the pre-release ones.
    """

    def __init__(self, message: str, *, configs: list[str]) -> None:
        super().__init__(message)
        self.configs = configs


# --------------------------------------------------------------------------------------------
# The files of a folder
# --------------------------------------------------------------------------------------------


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


def export_folders(folder: PathLike) -> list[Path]:
    """The exports a path holds: itself when it has a ``README.md`` (or is no folder), else
    its export subfolders (``ocw``, ``wote``) written by ``build_export``."""
    root = Path(folder)
    if not root.is_dir() or (root / "README.md").is_file():
        return [root]
    found = [
        root / name for name in EXPORT_FOLDERS.values() if (root / name / "README.md").is_file()
    ]
    return found or [root]


# --------------------------------------------------------------------------------------------
# The checks of one export
# --------------------------------------------------------------------------------------------


def _root_script_problems(root: Path) -> list[str]:
    return [
        f"{p.name}: a .py file at the root (the Hub would treat the repo as a script dataset)"
        for p in sorted(root.glob("*.py"))
    ]


def _read_card(card_path: Path) -> tuple[dict, dict]:
    """``(configs, infos)`` of a card, as ``datasets`` reads them.

    Raises:
        ValueError: the card's YAML or its metadata cannot be read (message says why).
    """
    try:
        card_data = DatasetCard.load(card_path).data
        configs = MetadataConfigs.from_dataset_card_data(card_data)
        infos = DatasetInfosDict.from_dataset_card_data(card_data)
    except _CARD_ERRORS as err:
        raise ValueError(f"{card_path}: unreadable card metadata ({_one_line(err)})") from err
    return dict(configs), dict(infos)


def _pattern_problem(pattern: object) -> str | None:
    """Why a ``data_files`` pattern or ``data_dir`` cannot name a file of the repository."""
    if not isinstance(pattern, str) or not pattern.strip():
        return "an empty or non-string path"
    if pattern.startswith("/") or ".." in Path(pattern).parts or "://" in pattern:
        return "a path outside the folder (the Hub resolves paths inside the repository only)"
    return None


def _config_patterns(name: str, params: Mapping[str, Any], base: Path) -> dict[str, list]:
    """``split -> patterns`` of a config, as ``datasets`` sanitizes them (``data_files`` in
    any accepted form, else the default patterns found under ``data_dir``).

    Raises:
        ValueError: a malformed ``data_files`` entry (``datasets``' message).
        FileNotFoundError: no ``data_files`` and no data file under ``data_dir``.
    """
    from datasets.data_files import get_data_patterns, sanitize_patterns

    data_files = params.get("data_files")
    if data_files is not None:
        return sanitize_patterns(data_files)
    return get_data_patterns(str(base))


def _resolve_config(root: Path, name: str, params: Mapping[str, Any]) -> tuple[dict, list[str]]:
    """``(split -> files, problems)``: the files each split of a config names, resolved with
    ``datasets``' own pattern resolution inside ``root`` (joined with ``data_dir``)."""
    from datasets.data_files import DataFilesList

    data_dir = params.get("data_dir")
    if data_dir is not None and (why := _pattern_problem(data_dir)):
        return {}, [f"config {name!r}: data_dir {data_dir!r} is {why}"]
    base = root / data_dir if data_dir else root
    try:
        patterns = _config_patterns(name, params, base)
    except (ValueError, FileNotFoundError) as err:
        return {}, [f"config {name!r}: data_files cannot be resolved ({err})"]
    resolved, problems = {}, []
    for split, split_patterns in patterns.items():
        bad = [(p, why) for p in split_patterns if (why := _pattern_problem(p))]
        problems += [f"config {name!r} split {split!r}: {p!r} is {why}" for p, why in bad]
        if bad:
            continue
        try:
            files = DataFilesList.from_patterns(split_patterns, base_path=str(base))
        except FileNotFoundError:
            problems.append(f"config {name!r} split {split!r}: no file matches {split_patterns}")
            continue
        except ValueError as err:  # a pattern fsspec's glob refuses
            problems.append(f"config {name!r} split {split!r}: {split_patterns}: {err}")
            continue
        resolved[split] = sorted({Path(f) for f in files})
    return resolved, problems


def _metadata_problem(schema: pa.Schema) -> str | None:
    """Why a file's ``huggingface`` schema metadata cannot be read on every ``datasets`` era:
    the ``List`` notation of 4.x+ (3.x fails on it), or features this version cannot parse."""
    raw = (schema.metadata or {}).get(b"huggingface")
    if raw is None:
        return None
    try:
        features = json.loads(raw).get("info", {}).get("features")
    except (ValueError, AttributeError) as err:
        return f"its `huggingface` schema metadata is not JSON ({err})"
    if '"_type": "List"' in json.dumps(features):
        return (
            "its `huggingface` feature metadata uses the `List` notation of datasets 4+, "
            "which datasets 3.x cannot read (\"Feature type 'List' not found\"); write it "
            "again with this version of ocw-hub"
        )
    try:
        datasets.Features.from_arrow_schema(schema)
    except (ValueError, TypeError, KeyError) as err:
        version = datasets.__version__
        return f"its `huggingface` feature metadata cannot be read by datasets {version} ({err})"
    return None


def _plain_type(pa_type: pa.DataType) -> pa.DataType:
    """An Arrow type with its list fields named ``item``: Parquet readers name them
    ``element``, ``datasets`` names them ``item``; the name carries no data."""
    if pa.types.is_list(pa_type) or pa.types.is_large_list(pa_type):
        make = pa.list_ if pa.types.is_list(pa_type) else pa.large_list
        return make(_plain_type(pa_type.value_type))
    if pa.types.is_fixed_size_list(pa_type):
        return pa.list_(_plain_type(pa_type.value_type), pa_type.list_size)
    if pa.types.is_struct(pa_type):
        return pa.struct([pa.field(f.name, _plain_type(f.type)) for f in pa_type])
    return pa_type


def _type_changes(stored: pa.Schema, expected: pa.Schema) -> str:
    """The columns whose Arrow types differ, e.g. ``season: int64 -> int32`` (empty: none)."""
    names = [*expected.names, *(n for n in stored.names if n not in expected.names)]
    changes = []
    for column in names:
        have = _plain_type(stored.field(column).type) if column in stored.names else "missing"
        want = (
            _plain_type(expected.field(column).type)
            if column in expected.names
            else "not in the card"
        )
        if str(have) != str(want):
            changes.append(f"{column}: {have} -> {want}")
    return "; ".join(changes)


def _type_findings(rel: str, table: pa.Table, name: str, features: datasets.Features) -> tuple:
    """``(problems, differences)`` of a file's Arrow types against the card's features: equal
    is fine; types that ``datasets`` casts to the card's (as ``load_dataset`` does on read,
    e.g. ``large_string`` -> ``string``, ``int64`` -> ``int32`` with values that fit) are a
    difference; other columns (missing ones would be read as nulls) or types that do not cast
    are a problem."""
    from datasets.table import table_cast

    expected = features.arrow_schema
    changes = _type_changes(table.schema, expected)
    if not changes:
        return [], []
    if set(table.schema.names) != set(expected.names):
        return [
            f"{rel}: features differ from the card's dataset_info for config {name!r}: other "
            f"columns ({changes})"
        ], []
    try:
        table_cast(table, expected)
    except (ValueError, TypeError, KeyError, pa.ArrowException) as err:
        return [
            f"{rel}: features differ from the card's dataset_info for config {name!r} and do "
            f"not cast to it ({changes}; {type(err).__name__}: {str(err)[:200]})"
        ], []
    return [], [
        f"{rel}: Arrow types differ from the card's for config {name!r} but cast to "
        f"the card's type ({changes})"
    ]


def _file_findings(root: Path, file: Path, name: str, info: Any) -> tuple[list, list, int]:
    """``(problems, differences, rows)`` of one data file of a config."""
    file = file.absolute()
    rel = file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)
    try:
        table = pq.read_table(file)
    except (pa.ArrowException, OSError) as err:
        return [f"{rel}: not readable as Parquet ({err})"], [], 0
    problems, differences = [], []
    if why := _metadata_problem(table.schema):
        problems.append(f"{rel}: {why}")
    if info is not None and info.features is not None:
        found = _type_findings(rel, table, name, info.features)
        problems += found[0]
        differences += found[1]
    return problems, differences, table.num_rows


def _split_size_problem(name: str, split: str, info: Any, rows: int) -> list[str]:
    if info is None or not info.splits or split not in info.splits:
        return []
    expected = info.splits[split].num_examples
    if expected == rows:
        return []
    return [f"config {name!r} split {split!r}: card says {expected} rows, files hold {rows}"]


def _is_prerelease_config(files: list[Path]) -> bool:
    ids: list[str] = []
    for file in files:
        try:
            if "wall_id" not in pq.read_schema(file).names:
                return False
            ids += pq.read_table(file, columns=["wall_id"]).column("wall_id").to_pylist()
        except (pa.ArrowException, OSError):
            return False
    return are_prerelease_ids(ids)


def _check_config(
    root: Path, name: str, params: Mapping[str, Any], info: Any, report: ExportReport
) -> set[Path]:
    """Check one config of the card into ``report``; returns the files it names."""
    if info is None:
        report.problems.append(f"config {name!r}: no `dataset_info` entry in the card")
    resolved, problems = _resolve_config(root, name, params)
    report.problems += problems
    for split, files in resolved.items():
        rows = 0
        for file in files:
            found = _file_findings(root, file, name, info)
            report.problems += found[0]
            report.differences += found[1]
            rows += found[2]
        report.problems += _split_size_problem(name, split, info, rows)
    named = {f.resolve() for files in resolved.values() for f in files}
    if named and _is_prerelease_config(sorted(named)):
        report.prerelease.append(name)
    return named


def _unnamed_file_findings(root: Path, files: list[PlannedFile], named: set[Path]) -> tuple:
    """``(problems, differences)`` for uploaded files that no config names: a Parquet file is
    a problem (the viewer would not show it, ``datasets`` would not load it), anything else
    besides the card a difference (uploaded as is)."""
    problems, differences = [], []
    for item in files:
        if item.path == "README.md" or (root / item.path).resolve() in named:
            continue
        if item.path.endswith(".parquet"):
            problems.append(f"{item.path}: a Parquet file no config of the card names")
        else:
            differences.append(f"{item.path}: belongs to no config; uploaded as is")
    return problems, differences


def inspect_export(folder: PathLike) -> ExportReport:
    """Check an export for the Hub viewer and every ``datasets`` era, offline, running no code.

    Problems: not a folder; symbolic links that leave the folder or dangle; a ``.py`` file at
    the root; no ``README.md`` or unreadable YAML; no ``configs``; a config without
    ``dataset_info``; ``data_dir`` / ``data_files`` outside the folder or naming no file; a
    file ``pyarrow`` cannot read; feature metadata ``datasets`` 3.x cannot read; Arrow types
    that do not cast to the card's features; split sizes that differ from the card; a Parquet
    file no config names. Differences: Arrow types that cast to the card's; files outside the
    configs. The files examined are exactly :func:`planned_files`.
    """
    if not Path(folder).is_dir():
        return ExportReport(problems=[f"{folder}: not a folder"])
    root = Path(folder).resolve()
    report = ExportReport(files=planned_files(root))
    report.problems += link_problems(root) + _root_script_problems(root)
    card_path = root / "README.md"
    if not card_path.is_file():
        report.problems.append(f"{card_path}: missing dataset card")
        return report
    try:
        configs, infos = _read_card(card_path)
    except ValueError as err:
        report.problems.append(str(err))
        return report
    if not configs:
        report.problems.append(f"{card_path}: no `configs` in the YAML metadata")
    named: set[Path] = set()
    for name, params in configs.items():
        named |= _check_config(root, name, params, infos.get(name), report)
    problems, differences = _unnamed_file_findings(root, report.files, named)
    report.problems += problems
    report.differences += differences
    return report


def check_export(folder: PathLike) -> list[str]:
    """The problems of :func:`inspect_export`: empty when the Hub viewer can show the export."""
    return inspect_export(folder).problems


def check_space(folder: PathLike) -> list[str]:
    """Problems that would stop an ``evaluate`` metric folder from running as a Gradio Space:
    missing ``README.md`` / ``app.py`` / ``requirements.txt``, unreadable card YAML, no
    ``sdk: gradio`` and ``app_file: app.py``, no metric script, links leaving the folder."""
    root = Path(folder)
    problems = [
        f"{root / name}: missing"
        for name in ("README.md", "app.py", "requirements.txt")
        if not (root / name).is_file()
    ]
    problems += link_problems(root) if root.is_dir() else []
    if not problems:
        try:
            data = RepoCard.load(root / "README.md").data
        except _CARD_ERRORS as err:
            problems.append(f"{root / 'README.md'}: unreadable card YAML ({_one_line(err)})")
        else:
            if data.get("sdk") != "gradio" or data.get("app_file") != "app.py":
                problems.append(
                    f"{root / 'README.md'}: YAML needs `sdk: gradio` and `app_file: app.py`"
                )
    if not [p for p in root.glob("*.py") if p.name != "app.py"]:
        problems.append(f"{root}: no metric script besides app.py")
    return problems


# --------------------------------------------------------------------------------------------
# Publishing
# --------------------------------------------------------------------------------------------


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
        raise ExportError(f"repo id {repo_id!r}: {_first_line(err)}") from err


def _one_line(err: BaseException) -> str:
    """An error's message with its line breaks and runs of spaces collapsed."""
    return " ".join(str(err).split())


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _offline() -> bool:
    """``HF_HUB_OFFLINE`` as ``huggingface_hub`` reads it, also when set after import."""
    from huggingface_hub import constants

    value = os.environ.get("HF_HUB_OFFLINE", "")
    return value.upper() in {"1", "ON", "YES", "TRUE"} or constants.HF_HUB_OFFLINE


def _require_hub(api: Any) -> None:
    """Refuse, before any request, what can only end in a network error.

    Raises:
        ExportError: offline mode is set; no token (``HF_TOKEN``, the login or the ``api``'s).
    """
    from huggingface_hub import get_token

    if _offline():
        raise ExportError("publishing needs the Hub, but HF_HUB_OFFLINE is set (offline mode)")
    if not (getattr(api, "token", None) or get_token()):
        raise ExportError(
            "no Hugging Face token: set HF_TOKEN or log in with `hf auth login` (a token with "
            "write access)"
        )


def _network_errors() -> tuple[type[BaseException], ...]:
    """What a Hub request raises on a network failure, whichever HTTP library this
    ``huggingface_hub`` uses: ``OSError`` (requests' errors, ``OfflineModeIsEnabled``) and the
    ``HTTPError`` base of httpx (its transport errors) that ``HfHubHTTPError`` derives from."""
    from huggingface_hub.errors import HfHubHTTPError

    bases = tuple(c for c in HfHubHTTPError.__mro__[1:] if c.__name__ == "HTTPError")
    return (OSError, *bases)


@contextmanager
def hub_errors(repo_id: str) -> Iterator[None]:
    """Turn what a Hub request raises into one-line :class:`ExportError`: the Hub's refusal
    (401, 403, 404: with its reason), a missing token, offline mode, no connection."""
    from huggingface_hub.errors import (
        HfHubHTTPError,
        HFValidationError,
        LocalTokenNotFoundError,
        OfflineModeIsEnabled,
    )

    try:
        yield
    except HFValidationError as err:
        raise ExportError(f"repo id {repo_id!r}: {_first_line(err)}") from err
    except OfflineModeIsEnabled as err:
        raise ExportError(f"publishing {repo_id} needs the Hub: {_first_line(err)}") from err
    except LocalTokenNotFoundError as err:
        raise ExportError(f"publishing {repo_id}: no token ({_first_line(err)})") from err
    except HfHubHTTPError as err:
        raise ExportError(f"the Hub refused publishing {repo_id}: {_first_line(err)}") from err
    except _network_errors() as err:
        raise ExportError(
            f"cannot reach the Hub to publish {repo_id} ({type(err).__name__}: {_first_line(err)})"
        ) from err


def _mirror_commit(
    api: Any,
    root: Path,
    repo_id: str,
    files: list[PlannedFile],
    repo_type: str,
    revision: str | None,
    message: str,
) -> None:
    """One commit that makes the repository hold exactly ``files``: each added (or updated),
    every other file of the repository deleted (``.gitattributes`` kept)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    keep = {f.path for f in files} | {".gitattributes"}
    existing = api.list_repo_files(repo_id, repo_type=repo_type, revision=revision)
    operations: list[Any] = [
        CommitOperationDelete(path_in_repo=path) for path in sorted(set(existing) - keep)
    ]
    operations += [
        CommitOperationAdd(path_in_repo=f.path, path_or_fileobj=str(root / f.path)) for f in files
    ]
    api.create_commit(
        repo_id,
        operations=operations,
        commit_message=message,
        repo_type=repo_type,
        revision=revision,
    )


def _pretty_name(root: Path) -> str:
    """The card's ``pretty_name`` (checked readable), else the folder's name."""
    name = DatasetCard.load(root / "README.md").data.get("pretty_name")
    return str(name) if name else root.resolve().name


def _checked_files(root: Path, space: bool, force: bool) -> list[PlannedFile]:
    """The files to upload, once the folder passed its check.

    Raises:
        ExportError: the check failed (every problem listed); a folder of several exports.
        PrereleaseExportError: an export of the pre-release stand-in, without ``force``.
    """
    if space:
        problems, prerelease = check_space(root), []
    else:
        exports = export_folders(root)
        if exports != [root]:
            listed = ", ".join(str(p) for p in exports)
            raise ExportError(
                f"{root}: holds {len(exports)} exports; publish each to its own repository: "
                f"{listed}"
            )
        report = inspect_export(root)
        problems, prerelease = report.problems, report.prerelease
    if problems:
        kind = "Space" if space else "export"
        listed = problems[0] if len(problems) == 1 else "\n- " + "\n- ".join(problems)
        raise ExportError(f"{root}: not a publishable {kind}: {listed}")
    if prerelease and not force:
        raise PrereleaseExportError(
            f"{root}: config(s) {', '.join(prerelease)} hold the 6-character wall ids of the "
            "pre-release export, not the official OCW release; publishing it as OCW would "
            "mislead",
            configs=prerelease,
        )
    return planned_files(root)


def publish(
    folder: PathLike,
    repo_id: str,
    *,
    revision: str | None = None,
    private: bool = False,
    dry_run: bool = False,
    space: bool = False,
    force: bool = False,
    api: HfApi | None = None,
) -> list[PlannedFile]:
    """Make a Hub repository mirror an export (dataset repo) or the metric folder
    (``space=True``), in one commit.

    Args:
        folder: one export (e.g. ``build/hub/ocw``) or the metric folder.
        repo_id: ``ORG/NAME`` (or ``NAME`` in the token's namespace).
        revision: branch to commit to (created from the default branch if missing).
        private: create the repository as private (an existing one is left as it is).
        dry_run: check and list the files only; nothing touches the network.
        space: publish an ``evaluate`` metric as a Gradio Space.
        force: publish an export of the pre-release stand-in anyway.
        api: the ``HfApi`` to use (default: one with the token of ``HF_TOKEN`` or the login).

    Returns:
        The files uploaded (or, with ``dry_run``, that would be).

    Raises:
        ExportError: a malformed repo id; the folder fails :func:`inspect_export` (or
            :func:`check_space`; the message lists every problem); offline; no token; the Hub
            refused or could not be reached (one line, with the Hub's reason).
        PrereleaseExportError: an export of the pre-release stand-in without ``force``.
    """
    validate_repo_id(repo_id)
    root = Path(folder)
    files = _checked_files(root, space, force)
    if dry_run:
        return files
    api = api or HfApi()
    _require_hub(api)
    repo_type = "space" if space else "dataset"
    what = "ocw_metric" if space else _pretty_name(root)
    with hub_errors(repo_id):
        api.create_repo(
            repo_id,
            repo_type=repo_type,
            private=private,
            exist_ok=True,
            **({"space_sdk": "gradio"} if space else {}),
        )
        if revision:
            api.create_branch(repo_id, repo_type=repo_type, branch=revision, exist_ok=True)
        message = f"Upload {what} with ocw-hub (mirror of the folder)"
        _mirror_commit(api, root, repo_id, files, repo_type, revision, message)
    return files
