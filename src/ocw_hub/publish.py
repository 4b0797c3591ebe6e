"""Checking an export for the Hub viewer and publishing it (``ocw-hub check`` / ``publish``).

The viewer never runs code: it reads the card's YAML ``configs`` and the Parquet files they
name. :func:`check_export` verifies exactly that offline; :func:`publish` refuses a folder that
fails it and uploads the rest in one commit with ``huggingface_hub``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import datasets
import pyarrow.parquet as pq
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, HfApi, RepoCard

from .configs import PathLike
from .errors import ExportError


@dataclass(frozen=True)
class PlannedFile:
    """A file an upload would send: its path inside the folder and its size in bytes."""

    path: str
    size: int


def _data_files_of(config: dict) -> list[tuple[str, list[str]]]:
    """``(split, patterns)`` of a card config, for every form the Hub accepts: a string, a
    list of strings (both the ``train`` split), or a list of ``{split, path}``."""
    data_files = config.get("data_files")
    if isinstance(data_files, str):
        return [("train", [data_files])]
    if isinstance(data_files, list) and all(isinstance(p, str) for p in data_files):
        return [("train", list(data_files))]
    pairs = []
    for entry in data_files or []:
        paths = entry["path"]
        pairs.append((entry["split"], [paths] if isinstance(paths, str) else list(paths)))
    return pairs


def _pattern_problem(pattern: object) -> str | None:
    """Why a data_files pattern cannot name a file of the repository, or None."""
    if not isinstance(pattern, str) or not pattern.strip():
        return "an empty or non-string path"
    if pattern.startswith("/") or ".." in Path(pattern).parts or "://" in pattern:
        return "a path outside the folder (the Hub resolves paths inside the repository only)"
    return None


def check_export(folder: PathLike) -> list[str]:
    """Problems that would stop the Hub viewer from showing an export; empty when it is fine.

    Checks, without running code or touching the network: no ``.py`` file at the root; a
    ``README.md`` whose YAML lists ``configs``; every ``data_files`` pattern of every config
    resolves to existing Parquet files, each of which ``pyarrow`` reads; every Parquet file under
    the folder is named by some config; the ``dataset_info`` features of each config equal the
    features stored in its files, and its split sizes equal their row counts.
    """
    root = Path(folder)
    if not root.is_dir():
        return [f"{root}: not a folder"]
    problems = [
        f"{p.name}: a .py file at the root (the Hub would treat the repo as a script dataset)"
        for p in sorted(root.glob("*.py"))
    ]
    card_path = root / "README.md"
    if not card_path.is_file():
        return [*problems, f"{card_path}: missing dataset card"]
    try:
        card_data = DatasetCard.load(card_path).data
        configs = MetadataConfigs.from_dataset_card_data(card_data)
        infos = DatasetInfosDict.from_dataset_card_data(card_data)
    except Exception as err:  # noqa: BLE001 - any YAML/metadata error is a finding here
        return [*problems, f"{card_path}: unreadable card metadata ({err})"]
    if not configs:
        problems.append(f"{card_path}: no `configs` in the YAML metadata")
    named: set[Path] = set()
    for name, config in configs.items():
        info = infos.get(name)
        if info is None:
            problems.append(f"config {name!r}: no `dataset_info` entry in the card")
        for split, patterns in _data_files_of(config):
            bad = [(p, why) for p in patterns if (why := _pattern_problem(p))]
            for pattern, why in bad:
                problems.append(f"config {name!r} split {split!r}: {pattern!r} is {why}")
            if bad:
                continue
            files = sorted({f for pattern in patterns for f in root.glob(pattern) if f.is_file()})
            if not files:
                problems.append(f"config {name!r} split {split!r}: no file matches {patterns}")
                continue
            named.update(files)
            rows = 0
            for file in files:
                try:
                    schema = pq.read_schema(file)
                    rows += pq.read_metadata(file).num_rows
                    pq.read_table(file)
                except Exception as err:  # noqa: BLE001
                    problems.append(f"{file.relative_to(root)}: not readable as Parquet ({err})")
                    continue
                if info is not None and info.features is not None:
                    stored = datasets.Features.from_arrow_schema(schema)
                    if stored != info.features:
                        problems.append(
                            f"{file.relative_to(root)}: features {stored} differ from the "
                            f"card's dataset_info for config {name!r}: {info.features}"
                        )
            if info is not None and info.splits and split in info.splits:
                expected = info.splits[split].num_examples
                if expected != rows:
                    problems.append(
                        f"config {name!r} split {split!r}: card says {expected} rows, "
                        f"files hold {rows}"
                    )
    for stray in sorted(set(root.rglob("*.parquet")) - named):
        problems.append(f"{stray.relative_to(root)}: a Parquet file no config of the card names")
    return problems


def check_space(folder: PathLike) -> list[str]:
    """Problems that would stop an ``evaluate`` metric folder from running as a Gradio Space."""
    root = Path(folder)
    problems = [
        f"{root / name}: missing"
        for name in ("README.md", "app.py", "requirements.txt")
        if not (root / name).is_file()
    ]
    if not problems:
        data = RepoCard.load(root / "README.md").data
        if data.get("sdk") != "gradio" or data.get("app_file") != "app.py":
            problems.append(
                f"{root / 'README.md'}: YAML needs `sdk: gradio` and `app_file: app.py`"
            )
    if not [p for p in root.glob("*.py") if p.name != "app.py"]:
        problems.append(f"{root}: no metric script besides app.py")
    return problems


def planned_files(folder: PathLike) -> list[PlannedFile]:
    """Every file under ``folder`` an upload sends (hidden files and caches excluded)."""
    root = Path(folder)
    return [
        PlannedFile(p.relative_to(root).as_posix(), p.stat().st_size)
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and not any(
            part.startswith(".") or part == "__pycache__" for part in p.relative_to(root).parts
        )
    ]


def publish(
    folder: PathLike,
    repo_id: str,
    *,
    revision: str | None = None,
    private: bool = False,
    dry_run: bool = False,
    space: bool = False,
    api: HfApi | None = None,
) -> list[PlannedFile]:
    """Upload an export (dataset repo) or the metric folder (``space=True``) in one commit.

    The token comes from ``HF_TOKEN`` or ``huggingface-cli login``, as ``huggingface_hub``
    reads it. With ``dry_run`` nothing touches the network: the planned files are returned.

    Raises:
        ExportError: the folder fails :func:`check_export` (or :func:`check_space`); the
            message lists every problem.
    """
    problems = check_space(folder) if space else check_export(folder)
    if problems:
        kind = "Space" if space else "export"
        raise ExportError(f"{folder}: not a publishable {kind}:\n- " + "\n- ".join(problems))
    files = planned_files(folder)
    if dry_run:
        return files
    api = api or HfApi()
    repo_type = "space" if space else "dataset"
    api.create_repo(
        repo_id,
        repo_type=repo_type,
        private=private,
        exist_ok=True,
        **({"space_sdk": "gradio"} if space else {}),
    )
    if revision:
        api.create_branch(repo_id, repo_type=repo_type, branch=revision, exist_ok=True)
    api.upload_folder(
        folder_path=str(folder),
        repo_id=repo_id,
        repo_type=repo_type,
        revision=revision,
        commit_message=f"Upload {'ocw_metric' if space else 'OCW/WoTe export'} with ocw-hub",
        allow_patterns=[f.path for f in files],
    )
    return files
