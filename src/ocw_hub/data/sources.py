"""One split of a config from wherever the user has it: raw sources, an export, the Hub, the
cache.

:func:`load_split` (a ``datasets.Dataset``) and :func:`load_rows` (the rows, without importing
``datasets`` for raw files) are what the scoring and experiment commands read. ``data_dir``
may be:

* the raw source files (a folder or a release tarball): built by the loading script through
  :func:`ocw_hub.load_dataset`, validated, cached under the source's content digest;
  :func:`load_rows` reads a folder with the scripts' stdlib-only sibling modules instead;
* an export folder written by ``ocw-hub build`` (``README.md`` with ``configs`` and
  ``data/<config>/<split>-<sha12>.parquet``), or the build's ``--out`` holding one export per
  dataset (``ocw/``, ``wote/``): read with ``datasets.load_dataset`` as the Hub viewer would,
  in a cache folder of its own content digest;
* a Hub repo id ``ORG/NAME`` of a published export (read from the ``datasets`` cache when
  offline);
* ``None``: the data already prepared in the ``datasets`` cache for this config (the official
  download, else the one local source it was prepared from), else the official download.

No code here reads ``datasets``' cache folders: preparations are found through the builders
(``DatasetBuilder.as_dataset``) and the package's own records
(:func:`ocw_hub.data.builders.recorded_sources`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..configs import ConfigSpec, PathLike, config_spec
from ..errors import SourceUnavailableError, UnknownSplitError, WrongSourceError
from ..provenance import NOT_VERIFIED, OFFICIAL, STAND_IN, arrow_digest, derived_of, source_label
from ..resources import load_sibling
from ..shown import capped
from .layout import export_of, is_export

if TYPE_CHECKING:
    import datasets


_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")

#: Folder, in the ``datasets`` cache folder, of the caches of export folders: one per content
#: digest of an export (``<digest>/``), so two exports never share a cache entry.
EXPORTS_FOLDER = "ocw_hub_exports"


def looks_like_repo_id(text: str) -> bool:
    """``ORG/NAME`` as the Hub spells repo ids, and not a path that exists here, nor one in a
    folder that exists here (``build/hubb`` beside a ``build`` folder is a mistyped path, not
    a repo to ask the Hub for)."""
    path = Path(text)
    return bool(_REPO_ID.match(text)) and not path.exists() and not path.parent.is_dir()


def prepared_split(
    name: str,
    split: str,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
) -> datasets.Dataset | None:
    """The split as already prepared in the cache by this install's builder for ``name``, or
    None when nothing is prepared.

    The official download's preparation when there is one; else the preparation from a local
    ``data_dir`` recorded by :func:`ocw_hub.load_dataset`
    (:func:`ocw_hub.data.builders.recorded_sources`) whose content is unchanged, when there is
    one such source (with a ``UserWarning`` naming it). Only preparations by the same script
    content and ``datasets`` era are seen (the builders' cache key). The split sizes are
    checked against the official ones unless ``verification_mode="no_checks"``, as for a new
    preparation.

    Raises:
        SourceUnavailableError: preparations from several local sources and none from the
            download: which one is meant cannot be told (the message lists them and asks for
            ``data_dir``).
        datasets.exceptions.NonMatchingSplitsSizesError: the preparation's split sizes are not
            the official ones (unless ``verification_mode="no_checks"``).
    """
    from .builders import check_split_sizes, prepared, recorded_sources

    dataset = prepared(name, split, None, cache_dir)
    if dataset is None:
        found = []
        for source in recorded_sources(name, cache_dir):
            if Path(source).exists():
                ds = prepared(name, split, source, cache_dir)
                if ds is not None:
                    found.append((source, ds))
        if not found:
            return None
        if len(found) > 1:
            local = sorted(source for source, _ in found)
            shown = capped(local)
            raise SourceUnavailableError(
                f"config {name!r}: no data_dir given and the cache holds this split prepared "
                f"from {len(local)} local sources ({shown}); say which: data_dir=DIR",
                config=name,
            )
        source, dataset = found[0]
        warnings.warn(
            f"config {name!r}: no data_dir given; using the split prepared in the cache from "
            f"{source} (the official download was never prepared here)",
            UserWarning,
            stacklevel=3,
        )
    check_split_sizes(name, dataset.info.splits, verification_mode)
    return dataset


def load_split(
    config: str,
    split: str,
    data_dir: PathLike | None = None,
    *,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    download_mode: str | None = None,
) -> datasets.Dataset:
    """One split of a config as a ``datasets.Dataset`` (see the module docstring for the forms
    of ``data_dir``).

    Raises:
        SourceUnavailableError: ``data_dir`` is neither an existing path nor a repo id; no
            prepared data and the download failed.
        UnknownSplitError: ``split`` is not train, validation or test.
        ValueError: unknown config; malformed source files or rows (the loading scripts'
            format errors name the file, the id and the field; rows from an export, the cache
            or the Hub go through the same checks, :func:`check_split`).
    """
    import datasets

    from .builders import load_dataset

    spec = config_spec(config)
    if split not in spec.splits:
        raise UnknownSplitError(spec.name, split, spec.splits)
    source = find_source(spec.name, data_dir)
    if source.kind in ("export", "hub"):
        assert source.location is not None
        ds = _from_export(source.location, spec.name, split, cache_dir, download_mode)
        return check_split(ds, spec.name, source.location, split)
    if data_dir is None and download_mode not in (
        "force_redownload",
        datasets.DownloadMode.FORCE_REDOWNLOAD,
    ):
        cached = prepared_split(spec.name, split, cache_dir, verification_mode)
        if cached is not None:
            return check_split(cached, spec.name, f"the prepared cache of {spec.name}", split)
    ds = load_dataset(
        spec.name,
        split=split,
        data_dir=data_dir,
        cache_dir=cache_dir,
        verification_mode=verification_mode,
        download_mode=download_mode,
    )
    assert isinstance(ds, datasets.Dataset)
    return ds


class SplitRows(NamedTuple):
    """The rows of one split (``Dataset.to_list()`` order and values) and the Arrow files they
    were read from (``Dataset.cache_files``; empty for raw files read directly)."""

    rows: list[dict[str, Any]]
    cache_files: list[dict[str, str]]


def load_rows(
    config: str,
    split: str,
    data_dir: PathLike | None = None,
    *,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    download_mode: str | None = None,
) -> SplitRows:
    """The rows of one split, as ``load_split(...).to_list()`` gives them.

    A folder of raw source files is read and validated by the loading script's stdlib-only
    sibling modules (``ocw_walls.py``, ``wote_questions.py``, the functions the builders call),
    without importing ``datasets``: the same rows, the same format errors, the same official
    split-size check, the same refusal of the main release for an ablation config. Every other
    source (a release tarball, an export, a Hub repo id, the cache) goes through
    :func:`load_split`.

    Raises:
        As :func:`load_split`.
    """
    spec = config_spec(config)
    if split not in spec.splits:
        raise UnknownSplitError(spec.name, split, spec.splits)
    source = find_source(spec.name, data_dir)
    if source.kind == "files":
        assert source.location is not None
        path = Path(source.location)
        if path.is_dir():
            return SplitRows(_raw_rows(spec.name, split, path, verification_mode), [])
    ds = load_split(
        spec.name,
        split,
        data_dir,
        cache_dir=cache_dir,
        verification_mode=verification_mode,
        download_mode=download_mode,
    )
    return SplitRows(ds.to_list(), list(ds.cache_files))


def rows_and_source(
    config: str,
    split: str,
    data_dir: PathLike | None = None,
    rows: Sequence[dict[str, Any]] | None = None,
    *,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    download_mode: str | None = None,
) -> tuple[Sequence[dict[str, Any]], dict[str, Any]]:
    """The rows a command scores (``rows`` when given, else :func:`load_rows`) and the record of
    their source (:func:`ocw_hub.provenance.source_provenance`).

    Raises:
        As :func:`load_rows`.
    """
    from ..provenance import rows_digest

    spec = config_spec(config)
    cache_files: Sequence[Mapping[str, str]] = []
    if rows is None:
        rows, cache_files = load_rows(
            spec.name,
            split,
            data_dir,
            cache_dir=cache_dir,
            verification_mode=verification_mode,
            download_mode=download_mode,
        )
    ids = [r[spec.id_key] for r in rows]
    digest = rows_digest(rows, spec.id_key)
    source = source_provenance(spec.name, data_dir, ids, cache_files, split, digest)
    source["rows_sha256"] = digest
    return rows, source


def _raw_rows(
    config: str, split: str, folder: Path, verification_mode: object
) -> list[dict[str, Any]]:
    """``split`` of the raw source files in ``folder``, read and validated as the builder's
    ``_split_generators`` does (OCW: the other splits only as far as the checks of ``split``
    need them); split sizes checked against the official ones (``NonMatchingSplitsSizesError``,
    as ``download_and_prepare`` raises) unless ``verification_mode`` is ``no_checks``."""
    spec = config_spec(config)
    sibling = load_sibling(spec.sibling)
    rows, counts = _RAW_READERS[spec.dataset](folder.expanduser().resolve(), spec, split)
    mode = getattr(verification_mode, "value", verification_mode) or "basic_checks"
    sizes = {name: counts[name] for name in spec.splits}
    if mode != "no_checks" and sizes != sibling.OFFICIAL_SPLIT_SIZES:
        import datasets

        from .builders import check_split_sizes

        recorded = datasets.SplitDict(
            {name: datasets.SplitInfo(name=name, num_examples=n) for name, n in sizes.items()}
        )
        check_split_sizes(spec.name, recorded, verification_mode)  # raises
    return rows


RawSplit = tuple[list[dict[str, Any]], dict[str, int]]


def _ocw_raw_rows(folder: Path, spec: ConfigSpec, split: str) -> RawSplit:
    """``split``'s walls and every split's size; an ablation's test walls are read in full
    too, to tell the main release (``refuse_main_release``)."""
    sibling = load_sibling("ocw_walls")
    files = sibling.find_wall_files(folder)
    walls, sizes = sibling.read_splits(files, {split, "test"} if spec.ablation else {split})
    if spec.ablation:
        releases = load_sibling("ocw_releases")
        try:
            releases.refuse_main_release(spec.name, files, walls, str(folder))
        except releases.OCWSourceError as err:
            raise WrongSourceError(str(err), config=spec.name, data_dir=str(folder)) from err
    return walls[split], sizes


def _wote_raw_rows(folder: Path, spec: ConfigSpec, split: str) -> RawSplit:
    finder = load_sibling("source_files")
    sibling = load_sibling("wote_questions")
    found = finder.find_split_files(folder, sibling.WoTeWhere)
    files = {name: str(path) for name, path in found.items()}
    rows = {name: sibling.read_questions(files[name], name) for name in files}
    sibling.check_unique_ids(rows, files)
    return rows[split], {name: len(questions) for name, questions in rows.items()}


#: How each dataset's raw split files are read and validated, as its builder does.
_RAW_READERS = {"ocw": _ocw_raw_rows, "wote": _wote_raw_rows}


def check_split(ds: datasets.Dataset, config: str, source: object, split: str) -> datasets.Dataset:
    """``ds`` after the checks its loading script makes of the raw files (``check_rows`` of
    ``ocw_walls.py`` or ``wote_questions.py``): rows from an export, the cache or the Hub are
    held to the same rules before anything is scored or parsed.

    Raises:
        OCWFormatError, WoTeFormatError: as for the raw files, naming ``source``, the wall or
            question and the field.
    """
    sibling = load_sibling(config_spec(config).sibling)
    sibling.check_rows(ds.to_list(), f"{source} ({config}/{split})", split)
    return ds


def _export_cache(where: str, cache_dir: PathLike | None) -> str | None:
    """The cache folder ``datasets`` reads an export in: for a local export, a folder of its
    content digest (``<cache>/ocw_hub_exports/<digest>``), since ``datasets`` keys a local
    folder on its name and card only (huggingface/datasets#2956); for a Hub repo id,
    ``cache_dir`` (the Hub's revision keys it)."""
    import datasets

    if not Path(where).is_dir():
        return None if cache_dir is None else str(cache_dir)
    root = Path(cache_dir) if cache_dir is not None else Path(datasets.config.HF_DATASETS_CACHE)
    digest = load_sibling("source_files").source_digest(where)[:16]
    return str(root / EXPORTS_FOLDER / digest)


@dataclass(frozen=True)
class Source:
    """What a ``data_dir`` is (:func:`find_source`).

    Attributes:
        kind: ``files`` (raw source files: a folder or an archive, read by the loading script),
            ``export`` (an ``ocw-hub build`` export folder), ``hub`` (a Hub repo id of one), or
            ``cache`` (no ``data_dir``: the prepared cache, else the official download).
        location: the folder, archive or repo id read (an export inside ``--out`` for
            ``export``); None for ``cache``.
    """

    kind: str
    location: str | None


def find_source(config: str, data_dir: PathLike | None) -> Source:
    """The one finder of a config's source, for every config: what ``data_dir`` is and where
    its rows are read (see the module docstring). The split files inside raw source files
    (a folder or an archive, of any config) are found by the loading scripts' one finder,
    ``find_split_files`` of ``source_files.py``.

    Raises:
        ValueError: unknown config.
    """
    if data_dir is None:
        return Source("cache", None)
    text = str(data_dir)
    path = Path(text).expanduser()
    if not path.exists() and looks_like_repo_id(text):
        return Source("hub", text)
    path = export_of(path, config_spec(config).name)
    return Source("export", str(path)) if is_export(path) else Source("files", str(path))


def _from_export(
    where: str, config: str, split: str, cache_dir: PathLike | None, download_mode: Any
) -> datasets.Dataset:
    import datasets

    try:
        return datasets.load_dataset(
            where,
            config,
            split=split,
            cache_dir=_export_cache(where, cache_dir),
            download_mode=download_mode,
        )
    except (ConnectionError, FileNotFoundError) as err:
        raise SourceUnavailableError(
            f"config {config!r}: cannot read {where} ({type(err).__name__}: {err}); give a "
            "local copy: data_dir=DIR",
            config=config,
            data_dir=where,
        ) from err
    except ValueError as err:
        if "BuilderConfig" in str(err) or "config" in str(err).lower():
            raise SourceUnavailableError(
                f"config {config!r}: {where} holds no such config ({err})",
                config=config,
                data_dir=where,
            ) from err
        raise


def _hub_revision(cache_files: Sequence[Mapping[str, str]]) -> str | None:
    """The commit of a Hub dataset as ``datasets`` names its cache folder (40 hex digits)."""
    for entry in cache_files:
        for part in Path(entry.get("filename", "")).parts:
            if len(part) == 40 and all(c in "0123456789abcdef" for c in part):
                return part
    return None


def _origin(
    data_dir: PathLike | None, config: str, cache_files: Sequence[Mapping[str, str]]
) -> dict[str, Any]:
    """Where the split was read: ``kind`` (``files``, ``export``, ``hub``, ``cache``), the
    path or repo id, the revision (Hub) and the SHA-256 of the content read."""
    source = find_source(config, data_dir)
    if source.location is None:  # the prepared cache
        return {"kind": source.kind, "path": None, "sha256": arrow_digest(cache_files)}
    if source.kind == "hub":
        return {
            "kind": source.kind,
            "path": source.location,
            "revision": _hub_revision(cache_files),
            "sha256": arrow_digest(cache_files),
        }
    digest = load_sibling("source_files").source_digest
    return {"kind": source.kind, "path": source.location, "sha256": digest(source.location)}


def source_provenance(
    config: str,
    data_dir: PathLike | None,
    ids: Sequence[str],
    cache_files: Sequence[Mapping[str, str]] = (),
    split: str | None = None,
    rows_sha256: str | None = None,
) -> dict[str, Any]:
    """The source of a split's figures.

    Args:
        config: the config scored.
        data_dir: as given to ``load_split`` (raw files, an export, a repo id, or None).
        ids: the wall (question) ids of the split, to recognise the stand-in.
        cache_files: the dataset's ``cache_files`` (the Hub revision, the content read, the
            download record beside them).
        split: the split of ``ids``: release-shaped data in another number than the official
            split's says so (a hand-made or cut copy).
        rows_sha256: :func:`rows_digest` of the split's rows (checked against an export's
            card record and the shipped digests of the official files).

    Returns:
        ``{"release": "official release" | "release-shaped data, not verified as the official
        release" | "stand-in" | "derived", "stand_in": bool, "kind", "path", "revision" (Hub),
        "sha256", "verified" (what shows it is the official release, only then), "derived"
        (derive's record, if any), "label"}``: ``label`` is the one-line text the table and the
        report show. Only content known to be the official files is the official release
        (:func:`ocw_hub.data.official.official_evidence`); the form of the ids never makes it so.
    """
    from .card import are_prerelease_ids
    from .official import official_evidence

    origin = _origin(data_dir, config, cache_files)
    derived = derived_of(Path(origin["path"])) if origin["kind"] == "files" else None
    stand_in = are_prerelease_ids(ids)  # never WoTe's ids
    if derived is not None and derived.get("from_release") == STAND_IN:
        stand_in = True
    evidence = None
    if derived is None and not stand_in:
        evidence = official_evidence(config, origin, cache_files, split, rows_sha256)
    release = "derived" if derived is not None else STAND_IN if stand_in else NOT_VERIFIED
    if evidence is not None:
        release = OFFICIAL
    elif release == NOT_VERIFIED and split is not None:
        official = load_sibling(config_spec(config).sibling).OFFICIAL_SPLIT_SIZES.get(split)
        if official is not None and len(ids) != official:
            units = config_spec(config).units
            release = f"{NOT_VERIFIED} ({len(ids)} of the official split's {official} {units})"
    out: dict[str, Any] = {"release": release, "stand_in": stand_in, **origin}
    if evidence is not None:
        out["verified"] = evidence
    if derived is not None:
        out["derived"] = derived
    out["label"] = source_label(out)
    return out
