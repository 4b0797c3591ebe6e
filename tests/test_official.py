"""A source is called the official release only when its content is known to be: prepared by
the builder from the official download (its record beside the prepared files), an export of
such a preparation (its card's record), or a shipped digest of the official files (none is
shipped). A copy of the stand-in with its ids renamed, or one with a wall dropped, is
release-shaped data, not verified as the official release, in every title, results file,
report, ``.eval_results`` note and ``publish``'s check.

The download itself cannot run offline: ``datasets.DownloadManager.download`` is made to return
a local tarball for the official URL, so the builder's real download path (extraction, checks,
preparation, the record) runs on it.
"""

from __future__ import annotations

import html
import json
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path

import datasets
import pytest
from ocw_fixtures import OCW_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.data.eval_results import eval_result_entries
from ocw_hub.data.official import (
    DOWNLOAD_RECORD,
    OFFICIAL_ROWS_SHA256,
    download_evidence,
    official_urls,
    write_download_record,
)
from ocw_hub.data.sources import load_rows
from ocw_hub.provenance import NOT_VERIFIED, OFFICIAL, source_label

pytestmark = [pytest.mark.datasets_era, pytest.mark.filterwarnings("ignore::UserWarning")]
runner = CliRunner()
OCW_URL = "https://www.cs.toronto.edu/~taati/OCW/OCW.tar.gz"


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _flat(text: str) -> str:
    """Terminal output as one line (rich wraps long titles)."""
    return " ".join(text.split())


def renamed_copy(source: Path, dest: Path, suffix: str = "x1") -> Path:
    """A copy of a release-layout folder with each wall id and group id given a suffix (ids
    no longer in the pre-release form), as a user might make to test at scale."""
    dest.mkdir(parents=True)
    for file in sorted(source.glob("*.json")):
        document = json.loads(file.read_text(encoding="utf-8"))
        for wall in document["dataset"]:
            wall["wall_id"] = f"{wall['wall_id']}-{suffix}"
            for group in wall["groups"].values():
                group["group_id"] = f"{group['group_id']}-{suffix}"
        (dest / file.name).write_text(json.dumps(document), encoding="utf-8")
    return dest


def drop_last_test_wall(folder: Path) -> str:
    """Drop the last wall of the test split (and of ``OCW.json`` when there); its id."""
    test = json.loads((folder / "test.json").read_text(encoding="utf-8"))
    dropped = test["dataset"].pop()["wall_id"]
    (folder / "test.json").write_text(json.dumps(test), encoding="utf-8")
    whole = folder / "OCW.json"
    if whole.is_file():
        document = json.loads(whole.read_text(encoding="utf-8"))
        document["dataset"] = [w for w in document["dataset"] if w["wall_id"] != dropped]
        whole.write_text(json.dumps(document), encoding="utf-8")
    return dropped


def tarball_of(folder: Path, dest: Path) -> Path:
    """``OCW.tar.gz`` holding ``folder`` as ``dataset/``, as the official tarball is laid out."""
    with tarfile.open(dest, "w:gz") as tar:
        tar.add(folder, arcname="dataset")
    return dest


@pytest.fixture()
def official_download(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, Path]], None]:
    """``official_download({url: local file})``: the builder's download of the URL ``url`` (or
    of a mapping of such URLs) returns the local file (everything else as before)."""

    def serve(files: dict[str, Path]) -> None:
        original = datasets.DownloadManager.download

        def download(self: datasets.DownloadManager, url_or_urls: object) -> object:
            if isinstance(url_or_urls, str) and url_or_urls in files:
                return str(files[url_or_urls])
            if isinstance(url_or_urls, dict) and all(
                isinstance(u, str) and u in files for u in url_or_urls.values()
            ):  # WoTe's three files
                return {key: str(files[url]) for key, url in url_or_urls.items()}
            return original(self, url_or_urls)

        monkeypatch.setattr(datasets.DownloadManager, "download", download)

    return serve


def _scored(work: Path, data: list[str]) -> tuple[list[Path], str]:
    """Two random systems predicted and scored on ``data``: (their results files, the first
    ``evaluate`` table)."""
    results, table = [], ""
    for seed in ("1", "2"):
        runs = work / f"random-{seed}"
        _cli("predict", "-m", "random", "--runs", "1", "--seed", seed, "--out", str(runs), *data)
        out = work / f"random-{seed}.json"
        shown = _cli("evaluate", str(runs), "--out", str(out), *data)
        table = table or shown
        results.append(out)
    return results, table


def _assert_labelled(work: Path, data: list[str], release: str) -> dict:
    """``evaluate``, ``compare``, ``report`` and the ``.eval_results`` notes all name the source
    by ``release``; no title calls it the official release unless ``release`` is it. Returns
    the first results' source."""
    results, table = _scored(work, data)
    source = json.loads(results[0].read_text())["source"]
    assert source["release"] == release
    label = source_label(source)
    assert label == source["label"]
    assert f"source: {label}" in _flat(table)
    compared = _flat(_cli("compare", *map(str, results), "--bootstrap", "100", *data))
    assert label in compared
    page = work / "report.html"
    _cli("report", str(results[0]), "--out", str(page), *data)
    assert html.escape(label) in page.read_text(encoding="utf-8")
    entries = eval_result_entries(
        json.loads(results[0].read_text()), model_id="org/model", dataset_id="org/ocw"
    )
    notes = [entry["notes"] for entry in entries.values()]
    assert notes and all(f"source: {release}" in note for note in notes)
    if release != OFFICIAL:
        for text in (table, compared, page.read_text(encoding="utf-8"), *notes):
            flat = _flat(text)
            assert f"source: {OFFICIAL}" not in flat and f">{OFFICIAL}" not in flat
    return source


def _assert_publish_needs_force(work: Path, data_dir: Path, checks: list[str]) -> None:
    """An export of ``data_dir`` is refused by ``publish --dry-run`` as not verified, unless
    forced."""
    out = work / "hub"
    _cli("build", "-c", "default", "--data-dir", str(data_dir), "--out", str(out), *checks)
    card = (out / "ocw" / "README.md").read_text(encoding="utf-8")
    assert NOT_VERIFIED in card and "ocw_hub_official" not in card
    args = ["publish", str(out / "ocw"), "--repo-id", "org/ocw", "--dry-run"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 1
    assert f"config(s) default: {NOT_VERIFIED}" in _flat(refused.output)
    assert "pass --force to publish it anyway" in _flat(refused.output)
    assert "Would upload" in _cli(*args, "--force")
    noted = _flat(_cli("check", str(out / "ocw")))
    assert f"config(s) default: {NOT_VERIFIED}" in noted and "without --force" in noted


# --------------------------------------------------------------------------------------------
# Release-shaped copies: not verified
# --------------------------------------------------------------------------------------------


@pytest.fixture(params=[pytest.param("full", marks=pytest.mark.full_data), "fixture"])
def stand_in_dir(request: pytest.FixtureRequest) -> tuple[Path, list[str]]:
    """The stand-in (the full one of ../shared/data, or the small fixture of tests/data that a
    plain clone has) and the options its split sizes need."""
    if request.param == "full":
        return request.getfixturevalue("ocw_dir"), []
    return OCW_FIXTURE, ["--no-checks"]


def test_renamed_stand_in_is_not_the_official_release(
    stand_in_dir: tuple[Path, list[str]], tmp_path: Path
) -> None:
    folder, checks = stand_in_dir
    copy = renamed_copy(folder, tmp_path / "renamed")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    data = ["--data-dir", str(copy), *cache, *checks]
    release = (
        NOT_VERIFIED if not checks else f"{NOT_VERIFIED} (6 of the official split's 494 walls)"
    )
    source = _assert_labelled(tmp_path, data, release)
    assert source["stand_in"] is False and "verified" not in source
    assert source["label"].startswith(f"{release}: {copy}, sha256 ")
    _assert_publish_needs_force(tmp_path, copy, [*cache, *checks])


def test_release_shaped_copy_with_a_wall_dropped_says_so(
    stand_in_dir: tuple[Path, list[str]], tmp_path: Path
) -> None:
    folder, _ = stand_in_dir
    copy = renamed_copy(folder, tmp_path / "dropped")
    drop_last_test_wall(copy)
    kept = len(json.loads((copy / "test.json").read_text())["dataset"])
    cache = ["--cache-dir", str(tmp_path / "cache"), "--no-checks"]
    release = f"{NOT_VERIFIED} ({kept} of the official split's 494 walls)"
    source = _assert_labelled(tmp_path, ["--data-dir", str(copy), *cache], release)
    assert "verified" not in source
    _assert_publish_needs_force(tmp_path, copy, cache)


def test_the_stand_in_itself_is_still_the_stand_in(tmp_path: Path) -> None:
    data = ["--data-dir", str(OCW_FIXTURE), "--cache-dir", str(tmp_path / "c"), "--no-checks"]
    _cli("predict", "-m", "random", "--runs", "1", "--out", str(tmp_path / "p"), *data)
    _cli("evaluate", str(tmp_path / "p"), "--out", str(tmp_path / "r.json"), *data)
    source = json.loads((tmp_path / "r.json").read_text())["source"]
    assert source["release"] == "stand-in" and "verified" not in source


# --------------------------------------------------------------------------------------------
# Through the official download: the official release, recorded
# --------------------------------------------------------------------------------------------


def test_download_from_the_official_url_is_the_official_release(
    stand_in_dir: tuple[Path, list[str]],
    tmp_path: Path,
    official_download: Callable[[dict[str, Path]], None],
) -> None:
    """What the builder downloaded from the official URL (here: a tarball served for it) is
    the official release in every output, and so is the export ``build`` writes from it,
    which ``publish`` takes without --force."""
    folder, checks = stand_in_dir
    served = tarball_of(renamed_copy(folder, tmp_path / "served"), tmp_path / "OCW.tar.gz")
    official_download({OCW_URL: served})
    cache = ["--cache-dir", str(tmp_path / "cache"), *checks]
    source = _assert_labelled(tmp_path / "from-cache", [*cache], OFFICIAL)
    assert source["kind"] == "cache" and source["path"] is None
    assert source["verified"] == {"how": "official download", "urls": [OCW_URL]}
    assert source["label"].startswith(f"{OFFICIAL} (official download: {OCW_URL}): prepared cache")
    records = list((tmp_path / "cache").rglob(DOWNLOAD_RECORD))
    assert len(records) == 1
    record = json.loads(records[0].read_text())
    assert record["config"] == "default" and record["downloaded_from"] == [OCW_URL]
    assert sorted(record["files_sha256"]) == sorted(
        p.name for p in records[0].parent.glob("*.arrow")
    )

    out = tmp_path / "hub"
    _cli("build", "-c", "default", "--out", str(out), *cache)
    card = (out / "ocw" / "README.md").read_text(encoding="utf-8")
    assert "ocw_hub_official:" in card and f"{OFFICIAL} (official download: {OCW_URL})" in card
    assert "Would upload" in _cli("publish", str(out / "ocw"), "--repo-id", "o/ocw", "--dry-run")
    exported = _assert_labelled(
        tmp_path / "from-export", ["--data-dir", str(out), *cache], OFFICIAL
    )
    assert exported["kind"] == "export"
    assert exported["verified"] == {"how": "export of the official download", "urls": [OCW_URL]}


def test_an_edited_export_of_the_download_is_no_longer_official(
    tmp_path: Path, official_download: Callable[[dict[str, Path]], None]
) -> None:
    """A row of the export edited after the build (its Parquet file rewritten): publish asks
    for --force, and the rows read no longer match the card's record."""
    served = tarball_of(renamed_copy(OCW_FIXTURE, tmp_path / "served"), tmp_path / "OCW.tar.gz")
    official_download({OCW_URL: served})
    cache = ["--cache-dir", str(tmp_path / "cache"), "--no-checks"]
    out = tmp_path / "hub"
    _cli("build", "-c", "default", "--out", str(out), *cache)
    import pyarrow as pa
    import pyarrow.parquet as pq

    test_file = next((out / "ocw" / "data" / "default").glob("test-*.parquet"))
    table = pq.read_table(test_file)
    rows = table.to_pylist()
    rows[0]["episode"] += 100
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), test_file)
    refused = runner.invoke(app, ["publish", str(out / "ocw"), "--repo-id", "o/ocw", "--dry-run"])
    assert refused.exit_code == 1 and NOT_VERIFIED in _flat(refused.output)
    data = ["--data-dir", str(out), *cache]
    _cli("predict", "-m", "random", "--runs", "1", "--out", str(tmp_path / "p"), *data)
    _cli("evaluate", str(tmp_path / "p"), "--out", str(tmp_path / "r.json"), *data)
    source = json.loads((tmp_path / "r.json").read_text())["source"]
    assert source["release"].startswith(NOT_VERIFIED) and "verified" not in source


def test_download_record_is_checked_against_the_files(tmp_path: Path) -> None:
    """The record holds: the official URLs and the files as prepared. A file changed since, a
    record from another URL, or no record at all is no evidence."""
    folder = tmp_path / "prepared"
    folder.mkdir()
    arrow = folder / "ocw-test.arrow"
    arrow.write_bytes(b"prepared rows")
    files = [{"filename": str(arrow)}]
    assert download_evidence("default", files) is None  # no record
    assert write_download_record("default", folder, official_urls("default")) is not None
    assert download_evidence("default", files) == {"how": "official download", "urls": [OCW_URL]}
    assert download_evidence("ocw_wordnet", files) is None  # a record of another config
    arrow.write_bytes(b"edited rows")
    assert download_evidence("default", files) is None
    (folder / DOWNLOAD_RECORD).unlink()
    write_download_record("default", folder, ["file:///somewhere/OCW.tar.gz"])
    assert download_evidence("default", files) is None  # not the official URL


def test_builder_pointed_elsewhere_is_not_the_official_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A builder whose URL was changed downloads and records that URL: not verified."""
    from ocw_hub.resources import load_script

    ocw = load_script("OCW")
    served = tarball_of(renamed_copy(OCW_FIXTURE, tmp_path / "served"), tmp_path / "OCW.tar.gz")
    config = next(c for c in ocw.OCW.BUILDER_CONFIGS if c.name == "default")
    monkeypatch.setattr(config, "url", str(served))
    data = ["--cache-dir", str(tmp_path / "cache"), "--no-checks"]
    _cli("predict", "-m", "random", "--runs", "1", "--out", str(tmp_path / "p"), *data)
    _cli("evaluate", str(tmp_path / "p"), "--out", str(tmp_path / "r.json"), *data)
    source = json.loads((tmp_path / "r.json").read_text())["source"]
    assert source["release"].startswith(NOT_VERIFIED) and "verified" not in source
    (record,) = (tmp_path / "cache").rglob(DOWNLOAD_RECORD)
    assert json.loads(record.read_text())["downloaded_from"] == [str(served)]


def test_the_shipped_digests_are_those_of_the_official_files(
    wote_dir: Path, tmp_path: Path
) -> None:
    """The rows digests shipped are computed again from the official files (WoTe's, checked by
    their SHA-256 first); none is shipped for OCW, whose official files are not here."""
    from ocw_hub.data.official import OFFICIAL_FILES_SHA256
    from ocw_hub.data.sources import load_rows
    from ocw_hub.provenance import file_sha256, rows_digest

    for name, digest in OFFICIAL_FILES_SHA256.items():
        assert file_sha256(wote_dir.parent / name) == digest, name
    assert {config for config, _ in OFFICIAL_ROWS_SHA256} == {"wote"}
    for (config, split), digest in OFFICIAL_ROWS_SHA256.items():
        rows, _ = load_rows(config, split, wote_dir, cache_dir=tmp_path / "cache")
        assert rows_digest(rows, "id") == digest, split


def test_results_recorded_as_official_from_ids_alone_are_shown_as_not_verified() -> None:
    """Results written before this check claimed the official release from the ids: shown for
    what they are."""
    old = {
        "release": OFFICIAL,
        "stand_in": False,
        "kind": "files",
        "path": "d",
        "sha256": "ab" * 32,
    }
    label = source_label(old)
    assert label.startswith(f"{NOT_VERIFIED} (recorded as the official release from its ids")


def test_hub_copy_of_an_official_export_is_checked_by_its_card(
    tmp_path: Path,
    official_download: Callable[[dict[str, Path]], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Hub repo is the official release when its card (fetched at the revision read; here
    the export's own card stands for the Hub's) records the config as built from the official
    download and the rows read have the recorded digest."""
    import huggingface_hub

    from ocw_hub.data.official import card_evidence
    from ocw_hub.provenance import rows_digest

    served = tarball_of(renamed_copy(OCW_FIXTURE, tmp_path / "served"), tmp_path / "OCW.tar.gz")
    official_download({OCW_URL: served})
    out = tmp_path / "hub"
    _cli(
        "build",
        "-c",
        "default",
        "--out",
        str(out),
        "--cache-dir",
        str(tmp_path / "c"),
        "--no-checks",
    )
    asked = []

    def fetch(repo_id: str, filename: str, **kw: object) -> str:
        asked.append((repo_id, filename, kw.get("revision"), kw.get("repo_type")))
        return str(out / "ocw" / filename)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fetch)
    test = json.loads((tmp_path / "served" / "test.json").read_text())["dataset"]
    read = load_rows(
        "default", "test", out, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    rows = read.rows
    assert [r["wall_id"] for r in rows] == [w["wall_id"] for w in test]
    digest = rows_digest(rows, "wall_id")
    origin = {"kind": "hub", "path": "org/ocw", "revision": "a" * 40}
    assert card_evidence("default", origin, "test", digest) == {
        "how": "export of the official download",
        "urls": [OCW_URL],
    }
    assert asked == [("org/ocw", "README.md", "a" * 40, "dataset")]
    assert card_evidence("default", origin, "test", "0" * 64) is None  # other rows
    assert card_evidence("default", origin, "train", digest) is None  # another split's digest


def test_wote_downloaded_from_its_official_urls_is_the_official_release(
    wote_dir: Path, tmp_path: Path, official_download: Callable[[dict[str, Path]], None]
) -> None:
    """WoTe's builder downloads three files: served from ../shared/data/wote for the official
    URLs, the split read is the official release; so are the same files given as --data-dir
    (their rows have the shipped digest), and not a copy with one question dropped."""
    from ocw_hub.data.sources import rows_and_source

    official_download({url: wote_dir / url.rsplit("/", 1)[1] for url in official_urls("wote")})
    _, source = rows_and_source("wote", "test", cache_dir=tmp_path / "cache")
    assert source["release"] == OFFICIAL and source["kind"] == "cache"
    assert source["verified"] == {"how": "official download", "urls": official_urls("wote")}
    _, local = rows_and_source("wote", "test", wote_dir, cache_dir=tmp_path / "cache")
    assert local["release"] == OFFICIAL and local["rows_sha256"] == source["rows_sha256"]
    assert local["verified"] == {"how": "digest of the official files shipped with ocw-hub"}
    edited = tmp_path / "edited"
    edited.mkdir()
    for name in ("train", "validation", "test"):
        shutil.copy(wote_dir / f"{name}.json", edited / f"{name}.json")
    questions = json.loads((edited / "test.json").read_text(encoding="utf-8"))
    (edited / "test.json").write_text(json.dumps(questions[1:]), encoding="utf-8")
    cache, checks = tmp_path / "cache", "no_checks"  # 411 questions: datasets checks 412
    _, cut = rows_and_source("wote", "test", edited, cache_dir=cache, verification_mode=checks)
    assert cut["release"].startswith(NOT_VERIFIED) and "verified" not in cut
