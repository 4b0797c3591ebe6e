"""Checking a folder for the Hub, offline and running no code (``ocw-hub check``).

The viewer reads the card's YAML ``configs`` and the Parquet files they name; :func:`inspect_export`
resolves ``configs`` with ``datasets``' own functions (every form it accepts: ``data_dir``,
``data_files`` as a string, a list, a list of ``{split, path}``, globs) and reads the same files
an upload sends (:func:`ocw_hub.data.hub_files.planned_files`). :func:`check_space` checks the
metric folder for a Gradio Space.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, RepoCard

from ..configs import PathLike
from .card import are_prerelease_ids
from .hub_files import PlannedFile, link_problems, planned_files
from .leaderboard import EVAL_FILE, eval_yaml_problems
from .official import export_files_verified

#: What reading a card's YAML metadata can raise: bad YAML, a non-mapping block, malformed
#: ``configs`` / ``dataset_info`` entries.
_CARD_ERRORS = (yaml.YAMLError, ValueError, TypeError, KeyError, AttributeError)


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
        unverified: the other configs not known to be the official release: the card does
            not record them as built from the official download with these very files
            (:func:`ocw_hub.data.official.export_files_verified`).
    """

    problems: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    files: list[PlannedFile] = field(default_factory=list)
    prerelease: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)


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


def _row_problems(root: Path, name: str, split: str, files: list[Path]) -> list[str]:
    """The loading script's checks of the rows of one split of a known config
    (:func:`ocw_hub.data.sources.check_split`), or nothing when a file cannot be read (a
    problem already)."""
    from ..configs import config_spec
    from ..resources import load_sibling, loaded_format_errors

    try:
        spec = config_spec(name)
        rows = [row for file in files for row in pq.read_table(file).to_pylist()]
    except (ValueError, OSError, pa.ArrowException):
        return []
    sibling = load_sibling(spec.sibling)
    where = files[0].relative_to(root) if len(files) == 1 else f"{name}/{split}"
    try:
        sibling.check_rows(rows, where, split)
    except loaded_format_errors() as err:
        return [str(err)]
    return []


def _check_config(
    root: Path, name: str, params: Mapping[str, Any], info: Any, report: ExportReport
) -> set[Path]:
    """Check one config of the card into ``report``; returns the files it names."""
    if info is None:
        report.problems.append(f"config {name!r}: no `dataset_info` entry in the card")
    resolved, problems = _resolve_config(root, name, params)
    report.problems += problems
    for split, files in resolved.items():
        rows, before = 0, len(report.problems)
        for file in files:
            found = _file_findings(root, file, name, info)
            report.problems += found[0]
            report.differences += found[1]
            rows += found[2]
        report.problems += _split_size_problem(name, split, info, rows)
        if len(report.problems) == before:  # files that read as the card says: their rows
            report.problems += _row_problems(root, name, split, files)
    named = {f.resolve() for files in resolved.values() for f in files}
    if named and _is_prerelease_config(sorted(named)):
        report.prerelease.append(name)
    elif named and not export_files_verified(root, name, named):
        report.unverified.append(name)
    return named


def _unnamed_file_findings(root: Path, files: list[PlannedFile], named: set[Path]) -> tuple:
    """``(problems, differences)`` for uploaded files that no config names: a Parquet file is
    a problem (the viewer would not show it, ``datasets`` would not load it), anything else
    besides the card a difference (uploaded as is)."""
    problems, differences = [], []
    for item in files:
        if item.path in ("README.md", EVAL_FILE) or (root / item.path).resolve() in named:
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
    file no config names; an ``eval.yaml`` that does not register the card's configs
    (:func:`ocw_hub.data.leaderboard.eval_yaml_problems`). Differences: Arrow types that
    cast to the card's; files outside the configs. The files examined are exactly
    :func:`planned_files`.
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
    report.problems += problems + eval_yaml_problems(root, _card_splits(configs, infos))
    report.differences += differences
    return report


def _card_splits(configs: Mapping[str, Any], infos: Mapping[str, Any]) -> dict[str, list[str]]:
    """config -> its splits, as the card's ``dataset_info`` lists them."""
    return {
        name: list(infos[name].splits) if name in infos and infos[name].splits else []
        for name in configs
    }


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


def _one_line(err: BaseException) -> str:
    """An error's message with its line breaks and runs of spaces collapsed."""
    return " ".join(str(err).split())
