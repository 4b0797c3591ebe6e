"""What a figure was computed on and how: the source of a split and the protocol of the
predictions, recorded by the commands that produce them and collected by ``ocw-hub evaluate``.

* The **protocol record** is a small JSON object beside a command's output: in a folder of
  runs, ``protocol.json`` (``ocw-hub predict``, ``reproduce``); beside a file ``F``,
  ``F.protocol.json`` (``prompts``, ``parse``). Each command copies the record of
  its input (the responses of ``parse``) and adds its own fields,
  so the record of a predictions file holds the whole chain: ``method``, ``model``,
  ``encoder``, ``pooling``, ``prompt_style``, ``shots``, ``parse_mode``, ... and the
  ``package_version`` of each command (``ocw-hub`` version) that wrote it.
* A record is **bound to its files** (:func:`bind_record`): ``files_sha256`` maps the name of
  each file it describes (the run files of its folder; the file it sits beside) to that file's
  SHA-256, and ``record_sha256`` is the SHA-256 of the record itself (canonical JSON, without
  that field). :func:`read_protocol` checks both: a run copied into another folder, a run
  changed after its record was written, or a hand-edited record is a
  :class:`ProtocolMismatchError` (one line), never a record printed as true. A record written
  before records were bound (no digests) is read as it is and labelled ``unverified``.
* The **source** of a split (:func:`ocw_hub.data.sources.source_provenance` records it; the
  labels and readers are here): which data the figures are on (the official release,
  verified as :mod:`ocw_hub.data.official` says; release-shaped data not verified as it; the
  pre-release stand-in, a copy derived by ``ocw-hub derive``, an export, a Hub repo at a
  revision) and the SHA-256 of its content (``source_digest`` of ``source_files.py``, the
  project's one content hash).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import jsonio
from .configs import PathLike
from .errors import OCWHubError
from .resources import load_sibling

#: The record in a folder of runs, and the suffix of the record beside a file.
FOLDER_RECORD = "protocol.json"
FILE_RECORD_SUFFIX = ".protocol.json"
#: The record ``ocw-hub derive`` leaves in the folder it writes.
DERIVED_RECORD = "derived.json"
#: How the pre-release stand-in is named wherever its figures appear.
STAND_IN = "stand-in"
#: The release of a source whose content is known to be the official files
#: (:mod:`ocw_hub.data.official` decides it).
OFFICIAL = "official release"
#: The release of release-shaped data whose content is not known to be the official files.
NOT_VERIFIED = "release-shaped data, not verified as the official release"
#: Protocol fields in the order they are shown.
PROTOCOL_FIELDS = (
    "method",
    "task",
    "model",
    "answered_model",
    "encoder",
    "pooling",
    "context",
    "prompt_style",
    "response_format",
    "shots",
    "seed",
    "runs",
    "parse_mode",
    "aggregate",
    "samples",
    "profile",
    "reprompt",
    "rules",
    "player",
    "max_guesses",
    "max_invalid",
)


#: The fields that bind a record to its files (:func:`bind_record`): not protocol fields,
#: never copied into the record of a command's output, left out of what :func:`read_protocol`
#: returns.
FILES_DIGESTS = "files_sha256"
RECORD_DIGEST = "record_sha256"
#: The field :func:`read_protocol` adds to a record it cannot check (no digests in it).
UNVERIFIED = "unverified"
_UNBOUND = "the record holds no digests of its files (written before records were bound)"


class ProvenanceError(OCWHubError, ValueError):
    """A protocol or derived record that is not a JSON object (names the file)."""


class ProtocolMismatchError(ProvenanceError):
    """A protocol record that does not describe the file read: the file is not one it lists
    (copied in from elsewhere), its content changed after the record was written, or the
    record itself was edited (names the file and the record)."""


def file_sha256(path: PathLike) -> str:
    """The SHA-256 of a file's bytes (hex), read in 1 MiB blocks."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(2**20):
            digest.update(block)
    return digest.hexdigest()


def _record_sha256(record: Mapping[str, Any]) -> str:
    import hashlib
    import json

    kept = {k: v for k, v in record.items() if k != RECORD_DIGEST}
    text = json.dumps(kept, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def bind_record(record: Mapping[str, Any], files: Iterable[PathLike]) -> dict[str, Any]:
    """``record`` (as JSON reads it back) with ``files_sha256`` (each file's name -> its
    SHA-256) and then ``record_sha256`` added."""
    import json

    bound = json.loads(json.dumps(dict(record), default=str))
    bound[FILES_DIGESTS] = {Path(f).name: file_sha256(f) for f in files}
    bound[RECORD_DIGEST] = _record_sha256(bound)
    return bound


def _checked(record: dict[str, Any], found: Path, output: Path) -> dict[str, Any]:
    """The protocol fields of ``record`` (read from ``found``) for ``output``, checked against
    its digests (see the module docstring).

    Raises:
        ProtocolMismatchError: see the class.
    """
    from .shown import inert

    digests = record.get(FILES_DIGESTS)
    if RECORD_DIGEST not in record and digests is None:
        return {**record, UNVERIFIED: _UNBOUND}
    where = inert(str(found))
    if record.get(RECORD_DIGEST) != _record_sha256(record) or not isinstance(digests, dict):
        raise ProtocolMismatchError(
            f"{where}: the record was changed after it was written (its {RECORD_DIGEST} does "
            "not match its content); a protocol record is written by the command that made the "
            "files it describes, re-run it"
        )
    names = sorted(digests) if output.is_dir() else [output.name]
    for name in names:
        path = found.parent / name
        if name not in digests:
            raise ProtocolMismatchError(
                f"{inert(str(output))}: not one of the files its protocol record {where} "
                f"describes ({len(digests)} files): copied in from elsewhere? Keep each run in "
                "the folder its command wrote"
            )
        if not path.is_file() or file_sha256(path) != digests[name]:
            raise ProtocolMismatchError(
                f"{inert(str(path))}: its content is not what its protocol record {where} "
                "describes (the file changed, or another file took its name, after the "
                "record was written)"
            )
    return {k: v for k, v in record.items() if k not in (FILES_DIGESTS, RECORD_DIGEST)}


def package_version() -> str:
    """The version of ``ocw-hub`` running."""
    from . import __version__

    return __version__


def record_path(output: PathLike) -> Path:
    """Where the protocol record of ``output`` goes: ``output/protocol.json`` for a folder of
    runs, else ``output.protocol.json`` beside the file."""
    path = Path(output)
    return path / FOLDER_RECORD if path.is_dir() else path.with_name(path.name + FILE_RECORD_SUFFIX)


def _read_record(path: Path) -> dict[str, Any]:
    record = jsonio.read_json(path, ProvenanceError, "protocol record")
    if not isinstance(record, dict):
        raise ProvenanceError(f"{path}: a protocol record must be a JSON object")
    return record


def read_protocol(output: PathLike) -> dict[str, Any] | None:
    """The protocol record of a command's output (a predictions file: its own record, else
    its folder's), checked against its digests (:func:`bind_record`) and returned without
    them; ``unverified`` added to a record that has none; None when none was written.

    Raises:
        ProvenanceError: a record that is not a JSON object.
        ProtocolMismatchError: a record that does not describe ``output`` (see the class).
    """
    found = next((c for c in record_candidates(output) if c.is_file()), None)
    return None if found is None else _checked(_read_record(found), found, Path(output))


def record_candidates(output: PathLike) -> list[Path]:
    """The files :func:`read_protocol` reads for ``output``, first found first: its own record,
    then (for a file) its folder's. They are inputs of whatever reads ``output``."""
    path = Path(output)
    return [record_path(path)] + ([] if path.is_dir() else [path.parent / FOLDER_RECORD])


def protocol_record(fields: Mapping[str, Any], inputs: Iterable[PathLike | None] = ()) -> dict:
    """The record of an output: the records of its ``inputs`` (in order, later fields win),
    then ``fields`` (None values left out) and ``package_version``."""
    record: dict[str, Any] = {}
    for given in inputs:
        if given is not None and (upstream := read_protocol(given)) is not None:
            record.update(upstream)
    record.update({k: v for k, v in fields.items() if v is not None})
    record["package_version"] = package_version()
    return record


def write_protocol(
    output: PathLike,
    fields: Mapping[str, Any],
    inputs: Iterable[PathLike | None] = (),
    files: Iterable[PathLike] | None = None,
) -> Path:
    """Write :func:`protocol_record` beside ``output`` (see :func:`record_path`), bound to
    ``files`` (:func:`bind_record`; default: ``output`` itself, or for a folder its ``.json``
    files); returns the record's path. The output is written first, so its files exist."""
    from .outputs import write_json

    path = record_path(output)
    files = _described_files(output) if files is None else files
    write_json(path, bind_record(protocol_record(fields, inputs), files))
    return path


def rebind_protocol(output: PathLike, files: Iterable[PathLike] | None = None) -> Path:
    """Bind the record of ``output`` anew to its files as they now are (after a deliberate
    edit of the files, e.g. a field added to every request by hand), keeping its fields;
    ``files`` as :func:`write_protocol`. Returns the record's path.

    Raises:
        ProvenanceError: no record, or one that is not a JSON object.
    """
    from .outputs import write_json

    path = record_path(output)
    if not path.is_file():
        raise ProvenanceError(f"{path}: no protocol record to bind")
    record = _read_record(path)
    kept = {k: v for k, v in record.items() if k not in (FILES_DIGESTS, RECORD_DIGEST)}
    write_json(path, bind_record(kept, _described_files(output) if files is None else files))
    return path


def _described_files(output: PathLike) -> list[Path]:
    """The files a record of ``output`` describes by default: ``output`` itself, or for a
    folder its ``.json`` files but the record."""
    folder = Path(output)
    if not folder.is_dir():
        return [folder]
    return sorted(p for p in folder.glob("*.json") if p.name != FOLDER_RECORD)


def shown_value(value: Any) -> str:
    """A generation field's value as a title shows it (a list: its items, space-separated)."""
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


#: Fields sent but left out of :func:`describe_generation` (the protocol line shows the
#: response format itself; ``stream`` changes no answer).
_NOT_SHOWN = ("stream", "response_format")


def describe_generation(profile: Any, generation: Any) -> str:
    """``reasoning (max_completion_tokens 8000, reasoning_effort high)``: the profile and,
    unless it is the paper's, the fields it sends (the table title, the report)."""
    name = str(profile) if profile is not None else "paper"
    if name == "paper" or not isinstance(generation, Mapping):
        return name
    shown = ", ".join(f"{k} {shown_value(v)}" for k, v in generation.items() if k not in _NOT_SHOWN)
    return f"{name} ({shown})" if shown else name


def describe_protocol(protocol: Mapping[str, Any] | None) -> str:
    """One line: ``method embedding, model X, seed 42, runs 16, ocw-hub 0.1.0``; ``protocol
    not recorded`` for None."""
    if not protocol:
        return "protocol not recorded"
    shown = dict(protocol)
    if "profile" in protocol:  # with the fields it sends (llm/profiles.py)
        shown["profile"] = describe_generation(protocol["profile"], protocol.get("generation"))
    parts = [f"{k.replace('_', ' ')} {shown[k]}" for k in PROTOCOL_FIELDS if k in shown]
    if "package_version" in protocol:
        parts.append(f"ocw-hub {protocol['package_version']}")
    if UNVERIFIED in protocol:
        parts.append(f"unverified ({protocol[UNVERIFIED]})")
    return ", ".join(parts)


#: Fields of a protocol record that differ between runs of one protocol (a run's seed, the
#: number of runs in a folder, the ocw-hub version that wrote it, its token counts and
#: latency): ignored when records of several predictions files are compared
#: (:func:`protocol_key`); so is the sampling ``seed`` among the ``generation`` fields sent.
RUN_FIELDS = ("seed", "runs", "package_version", "usage")


def protocol_key(protocol: Mapping[str, Any]) -> str:
    """The protocol of a record without its :data:`RUN_FIELDS`, as canonical JSON: records of
    runs of one protocol have equal keys."""
    import json

    kept = {k: v for k, v in protocol.items() if k not in RUN_FIELDS}
    if isinstance(kept.get("generation"), Mapping):  # every other field sent counts
        kept["generation"] = {k: v for k, v in kept["generation"].items() if k != "seed"}
    return json.dumps(kept, sort_keys=True, ensure_ascii=True, default=str)


#: The group of files without a protocol record in :func:`check_one_protocol`'s message.
NO_RECORD = "no protocol record"


def _paths(paths: Sequence[str], limit: int = 3) -> str:
    """Up to ``limit`` paths in full (escaped), then how many more."""
    from .shown import capped, inert

    return capped(paths, limit, show=inert)


def check_one_protocol(
    given: Sequence[PathLike],
    files: Sequence[PathLike],
    protocols: Sequence[Mapping[str, Any] | None],
) -> None:
    """Several predictions files are scored together only as runs of one protocol: their
    records agree on every field but those that change between runs (:data:`RUN_FIELDS`).
    One folder of runs (``given``) without any record is one system too, as the folder says;
    any other file without a record is refused.

    Raises:
        MixedRunsError: one line naming the files of each protocol (or without a record),
            pointing to ``ocw-hub compare`` and ``--as-runs``.
    """
    from .errors import MixedRunsError

    if len(files) < 2:
        return
    if all(p is None for p in protocols) and len(given) == 1 and Path(given[0]).is_dir():
        return
    groups: dict[str, list[str]] = {}
    described: dict[str, str] = {}
    for path, protocol in zip(files, protocols, strict=True):
        key = NO_RECORD if protocol is None else protocol_key(protocol)
        groups.setdefault(key, []).append(str(path))
        described.setdefault(key, NO_RECORD if protocol is None else describe_protocol(protocol))
    if len(groups) == 1 and NO_RECORD not in groups:
        return
    parts = [f"{_paths(paths)} ({described[key]})" for key, paths in groups.items()]
    what = "differ in protocol" if len(groups) > 1 else "have no protocol record"
    raise MixedRunsError(
        f"these predictions {what}, so they are not runs of one model: "
        + " vs ".join(parts)
        + "; to put systems side by side run `ocw-hub compare` on them; pass --as-runs if "
        "they are runs of one model"
    )


def common_protocol(protocols: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """The protocol of several runs when they share one, else None (each run keeps its own)."""
    first = protocols[0] if protocols else None
    return dict(first) if first is not None and all(p == first for p in protocols) else None


# --------------------------------------------------------------------------------------------
# The source of a split
# --------------------------------------------------------------------------------------------


def derived_record(origin: PathLike, kind: str, seed: int, *, stand_in: bool) -> dict[str, Any]:
    """What ``ocw-hub derive`` records in its output folder: the kind (``randomized``), the
    source folder, its SHA-256 and release (``stand-in``, else release-shaped data not verified
    as the official release: a folder of raw files never is, :mod:`ocw_hub.data.official`), the
    seed and the package version."""
    digest = load_sibling("source_files").source_digest
    return {
        "derived": kind,
        "from": str(origin),
        "from_sha256": digest(origin),
        "from_release": STAND_IN if stand_in else NOT_VERIFIED,
        "seed": seed,
        "package_version": package_version(),
    }


def derived_of(path: Path) -> dict[str, Any] | None:
    """The record ``ocw-hub derive`` left in the folder of ``path`` (``derived.json``), or None."""
    folder = path if path.is_dir() else path.parent
    record = folder / DERIVED_RECORD
    return _read_record(record) if record.is_file() else None


def rows_digest(rows: Sequence[Mapping[str, Any]], id_key: str) -> str:
    """SHA-256 (hex) of a split's rows as scored, whatever files they were read from: each row
    as JSON with sorted keys, in id order. Raw files, their export and the Hub copy of the same
    walls (questions) give one digest; one edited clue gives another."""
    import hashlib
    import json

    digest = hashlib.sha256()
    for row in sorted(rows, key=lambda r: str(r[id_key])):
        line = json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        digest.update(line.encode("utf-8", "surrogateescape") + b"\n")
    return digest.hexdigest()


def source_content(source: Mapping[str, Any]) -> str | None:
    """What two recorded sources are compared by (``compare``, ``report``): the digest of the
    rows scored (:func:`rows_digest`), else (results written before it) of the files read."""
    found = source.get("rows_sha256") or source.get("sha256")
    return found if isinstance(found, str) else None


def arrow_digest(cache_files: Sequence[Mapping[str, str]]) -> str | None:
    """The content digest (``source_files.source_digest``) of a dataset's Arrow files that
    exist (``Dataset.cache_files``), or None when there are none."""
    arrow = [e["filename"] for e in cache_files if Path(e.get("filename", "")).is_file()]
    return str(load_sibling("source_files").source_digest(*arrow)) if arrow else None


def results_protocol(results: Mapping[str, Any]) -> Mapping[str, Any] | str | None:
    """The protocol of a results dict, to show: its own (one run, or the runs' common one),
    its ``runs`` as ``"1 of 16"`` when fewer runs were scored than the record's folder holds;
    ``"differs by run"`` when its runs were made by different protocols (each run keeps its
    own); None when none was recorded."""
    protocol = results.get("protocol")
    if protocol:
        scored = results.get("n_runs", 1 if "run" in results else None)
        made = protocol.get("runs") if isinstance(protocol, Mapping) else None
        if isinstance(made, int) and isinstance(scored, int) and scored != made:
            return {**protocol, "runs": f"{scored} of {made}"}
        return protocol
    runs = results.get("runs")
    if isinstance(runs, list) and any(isinstance(r, Mapping) and r.get("protocol") for r in runs):
        return "differs by run (each run's protocol is in the results JSON)"
    return None


def provenance_lines(results: Mapping[str, Any]) -> tuple[str, str]:
    """``("source: <source_label>", "protocol: <describe_protocol>")`` of a results dict (the
    terminal table's title, the report's header); a results file written before sources
    were recorded says ``source: not recorded``."""
    protocol = protocol_text(results_protocol(results))
    return f"source: {results_source(results)}", f"protocol: {protocol}"


def results_source(results: Mapping[str, Any]) -> str:
    """The :func:`source_label` of a results dict's source; ``not recorded`` without one."""
    source = results.get("source")
    return source_label(source) if isinstance(source, Mapping) else "not recorded"


def protocol_text(protocol: Mapping[str, Any] | str | None) -> str:
    """A protocol (as :func:`results_protocol` gives it) as one line of text: the record
    described (:func:`describe_protocol`), or the reason there is no one protocol."""
    return protocol if isinstance(protocol, str) else describe_protocol(protocol)


def release_text(source: Mapping[str, Any]) -> str:
    """The release of a recorded source as shown: ``official release (downloaded from URL)``
    only with what verified it (``verified``); a source recorded as the official release
    without it (by an ocw-hub that judged from the wall ids) is shown as not verified."""
    release = str(source.get("release", "?"))
    verified = source.get("verified")
    if release == OFFICIAL:
        if not isinstance(verified, Mapping):
            return f"{NOT_VERIFIED} (recorded as the official release from its ids alone)"
        urls = verified.get("urls")
        if isinstance(urls, list) and urls:
            return f"{OFFICIAL} ({verified.get('how')}: {', '.join(map(str, urls))})"
        return f"{OFFICIAL} ({verified.get('how')})"
    if release == "derived" and isinstance(source.get("derived"), Mapping):
        return f"derived ({source['derived'].get('derived')} of {source['derived'].get('from')})"
    return release


def source_label(source: Mapping[str, Any]) -> str:
    """``stand-in (pre-release wall ids, not the official OCW release): PATH, sha256 1a2b…``;
    the release as :func:`release_text` shows it."""
    release = release_text(source)
    if source.get("stand_in"):
        release += (
            f" ({STAND_IN}: pre-release wall ids, not the official OCW release)"
            if source.get("release") != STAND_IN
            else " (pre-release wall ids, not the official OCW release)"
        )
    where = source.get("path") or "prepared cache"
    if source.get("revision"):
        where = f"{where}@{source['revision']}"
    sha = source.get("sha256")
    return f"{release}: {where}" + (f", sha256 {sha[:12]}" if sha else "")
