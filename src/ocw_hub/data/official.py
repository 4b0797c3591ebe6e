"""When a source is the official release: only when its content is known to be.

Wall ids in the release's form prove nothing (an edited copy, a mirror, a conversion with a
wall dropped keep them), so a source is the **official release** only when

* it was prepared by the builder from the official download: :func:`write_download_record`
  leaves ``ocw_hub_download.json`` beside the prepared Arrow files (their SHA-256 and the URLs
  downloaded), and :func:`download_evidence` finds it there with those files unchanged;
* it is an export ``ocw-hub build`` wrote from such a preparation: the card's metadata field
  ``ocw_hub_official`` records, per config and split, the URLs, each Parquet file's SHA-256
  and the digest of the rows (:func:`card_record`); rows read from the export (or its Hub
  copy) with that digest are the official ones (:func:`card_evidence`);
* or the digest of its rows equals one ``ocw-hub`` ships for the official files
  (:data:`OFFICIAL_ROWS_SHA256`).

Anything else in the release's shape is not verified; pre-release ids are the
stand-in (``provenance.STAND_IN``). The labels themselves are
:data:`ocw_hub.provenance.OFFICIAL` and :data:`~ocw_hub.provenance.NOT_VERIFIED`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..configs import PathLike, config_spec

#: The record the builder leaves beside the Arrow files it prepared from the official download.
DOWNLOAD_RECORD = "ocw_hub_download.json"
#: The card metadata field of an export built from the official download.
CARD_FIELD = "ocw_hub_official"
#: SHA-256 of the rows (``provenance.rows_digest``) of each official split, (config, split) ->
#: digest. Only digests computed from the official files belong here: WoTe's, from the three
#: files of grill-lab/WoTe ``data/`` at commit 7d6e881 (the official download; their file
#: SHA-256 in :data:`OFFICIAL_FILES_SHA256`); none for OCW, whose official tarballs cannot be
#: read offline. ``tests/test_official.py`` computes these again from those files.
OFFICIAL_ROWS_SHA256: dict[tuple[str, str], str] = {
    ("wote", "train"): "1ad509c70e43be9504bb114e703d1410cdb2208bc2bfc444e702eea81c42c3ec",
    ("wote", "validation"): "276ce3d6d19b08b777146157518af095656f15eb03d1e3f1ab94d249088cafd5",
    ("wote", "test"): "95c9e02f1390c40c6b3527cacb6edfe0e5ce1fa2fe81b1edc8a8c731b6c722dc",
}
#: SHA-256 of the official files the digests above were computed from (file name -> digest).
OFFICIAL_FILES_SHA256 = {
    "wote/train.json": "36d0ebd54be969e97371e375a201893e07a30fb080f42c0938335b31a0bfd21f",
    "wote/validation.json": "e3a0470e86516a92101b3d742e62cde9addb97be8b917fa3043c3d98bee7794b",
    "wote/test.json": "4afc6d908f6178c35face6a822da89e6a299b8a84f3c7c53df87eddb0ce82676",
}


def official_urls(config: str) -> list[str]:
    """The official download of ``config``: the URLs of its loading script's table (OCW's
    ``_URLS``, WoTe's ``_URL``)."""
    from ..resources import load_script

    spec = config_spec(config)
    module = load_script(spec.script)
    if spec.walls:
        return [module._URLS[spec.builder_config]]
    return [module._URL.format(split=split) for split in spec.splits]


def builder_urls(config: str, builder: Any) -> list[str]:
    """The URLs ``builder`` (of ``config``, without ``data_dir``) downloads: its
    configuration's ``url`` when it has one (OCW), else the script's table."""
    url = getattr(builder.config, "url", None)
    return [str(url)] if url else official_urls(config)


def _arrow_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.arrow"))


def write_download_record(config: str, folder: PathLike, urls: Sequence[str]) -> Path | None:
    """Record, beside the Arrow files in ``folder`` that the builder of ``config`` prepared
    from a download, that they came from there: ``ocw_hub_download.json`` with the config,
    the URLs downloaded (:func:`builder_urls`) and the files' SHA-256
    (``provenance.bind_record``), once: a record there is kept. None when ``folder`` holds no
    Arrow file or cannot be written (a read-only cache still serves its rows)."""
    from ..errors import OutputPathError
    from ..outputs import write_json
    from ..provenance import bind_record, package_version

    arrow = _arrow_files(Path(folder))
    if not arrow:
        return None
    record = {
        "config": config_spec(config).name,
        "downloaded_from": list(urls),
        "package_version": package_version(),
    }
    path = Path(folder) / DOWNLOAD_RECORD
    if path.exists():  # written when the files were prepared; never re-bound to later ones
        return path
    try:
        write_json(path, bind_record(record, arrow))
    except (OSError, OutputPathError):
        return None
    return path


def download_evidence(config: str, cache_files: Sequence[Mapping[str, str]]) -> dict | None:
    """``{"how": "official download", "urls": [...]}`` when every Arrow file read lies beside a
    download record of ``config`` (:func:`write_download_record`) from the official URLs
    (:func:`official_urls`) that lists it with its current SHA-256; else None."""
    from ..provenance import FILES_DIGESTS, RECORD_DIGEST, _record_sha256, file_sha256

    files = [Path(e["filename"]) for e in cache_files if e.get("filename")]
    if not files or len({f.parent for f in files}) != 1:
        return None
    record = _read_json(files[0].parent / DOWNLOAD_RECORD)
    if record is None or record.get("config") != config_spec(config).name:
        return None
    digests = record.get(FILES_DIGESTS)
    if record.get(RECORD_DIGEST) != _record_sha256(record) or not isinstance(digests, dict):
        return None
    urls = record.get("downloaded_from")
    if urls != official_urls(config):  # a builder pointed elsewhere
        return None
    for file in files:
        if not file.is_file() or digests.get(file.name) != file_sha256(file):
            return None
    return {"how": "official download", "urls": list(urls)}


def _read_json(path: Path) -> dict | None:
    import json

    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def card_record(
    urls: Sequence[str], files: Mapping[str, str], rows: Mapping[str, str], export: Path
) -> dict[str, Any]:
    """A config's entry of the card field :data:`CARD_FIELD`: the URLs, and per split its
    Parquet file (path inside ``export``), that file's SHA-256 and the digest of its rows."""
    from ..provenance import file_sha256

    return {
        "downloaded_from": list(urls),
        "splits": {
            split: {
                "path": path,
                "sha256": file_sha256(export / path),
                "rows_sha256": rows[split],
            }
            for split, path in files.items()
        },
    }


def card_metadata(card: PathLike) -> Mapping[str, Any]:
    """The YAML metadata of a dataset card (empty when it cannot be read)."""
    import yaml

    try:
        text = Path(card).read_text(encoding="utf-8")
    except OSError:
        return {}
    if not text.startswith("---"):
        return {}
    block = text.split("\n---", 2)
    try:
        data = yaml.safe_load(block[0].removeprefix("---")) if len(block) > 1 else None
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def card_entry(card: PathLike, config: str) -> Mapping[str, Any] | None:
    """The :data:`CARD_FIELD` entry of ``config`` in a card, or None."""
    field = card_metadata(card).get(CARD_FIELD)
    entry = field.get(config) if isinstance(field, Mapping) else None
    if isinstance(entry, Mapping) and isinstance(entry.get("splits"), Mapping):
        return entry
    return None


def export_files_verified(root: Path, config: str, named: set[Path] | None = None) -> bool:
    """Whether the card of the export ``root`` records ``config`` as built from the official
    download and every Parquet file it lists is there with its recorded SHA-256 (and, given
    ``named``, the resolved files the card's ``configs`` name, they are exactly those)."""
    from ..provenance import file_sha256

    entry = card_entry(root / "README.md", config)
    if entry is None or entry.get("downloaded_from") != official_urls(config):
        return False
    paths = []
    for split in entry["splits"].values():
        if not isinstance(split, Mapping):
            return False
        path = root / str(split.get("path"))
        if not path.is_file() or file_sha256(path) != split.get("sha256"):
            return False
        paths.append(path.resolve())
    return named is None or set(paths) == named


def _hub_card(repo_id: str, revision: str | None) -> Path | None:
    """The card of a Hub dataset repo at ``revision`` (from the Hub cache when offline)."""
    try:
        from huggingface_hub import hf_hub_download

        found = hf_hub_download(repo_id, "README.md", repo_type="dataset", revision=revision)
    except Exception:  # noqa: BLE001 - no card at hand: nothing verified
        return None
    return Path(found)


def card_evidence(
    config: str, origin: Mapping[str, Any], split: str | None, rows_sha256: str | None
) -> dict | None:
    """``{"how": "export of the official download", "urls": [...]}`` when the card of the export
    (or Hub repo) read records ``config`` as built from the official download and the rows
    read have the digest it records for ``split``; else None."""
    if split is None or rows_sha256 is None or not origin.get("path"):
        return None
    if origin["kind"] == "export":
        card: Path | None = Path(str(origin["path"])) / "README.md"
    else:
        card = _hub_card(str(origin["path"]), origin.get("revision"))
    entry = None if card is None else card_entry(card, config_spec(config).name)
    if entry is None or entry.get("downloaded_from") != official_urls(config):
        return None
    recorded = entry["splits"].get(split)
    if not isinstance(recorded, Mapping) or recorded.get("rows_sha256") != rows_sha256:
        return None
    return {"how": "export of the official download", "urls": list(entry["downloaded_from"])}


def official_evidence(
    config: str,
    origin: Mapping[str, Any],
    cache_files: Sequence[Mapping[str, str]],
    split: str | None,
    rows_sha256: str | None,
) -> dict | None:
    """What shows a source read from ``origin`` (``provenance._origin``) is the official
    release, or None: the download record beside the cache it was read from, the card record
    of the export or Hub repo, or a shipped digest of its rows."""
    name = config_spec(config).name
    found = None
    if origin.get("kind") == "cache":
        found = download_evidence(name, cache_files)
    elif origin.get("kind") in ("export", "hub"):
        found = card_evidence(name, origin, split, rows_sha256)
    if found is None and split is not None and rows_sha256 is not None:
        if OFFICIAL_ROWS_SHA256.get((name, split)) == rows_sha256:
            found = {"how": "digest of the official files shipped with ocw-hub"}
    return found
