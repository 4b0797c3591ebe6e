"""ocw-hub build: the Parquet hub layout round-trips through datasets.load_dataset (5.x)."""

from __future__ import annotations

import re
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard
from ocw_fixtures import tarball, write_ablation
from typer.testing import CliRunner

import ocw_hub
from ocw_hub.cli import app
from ocw_hub.export import build_export
from ocw_hub.publish import check_export
from ocw_hub.resources import load_script

CONFIGS = ("default", "ocw_randomized", "ocw_wordnet", "wote")
runner = CliRunner()


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory, ocw_dir: Path, ocw_raw: Path, wote_dir: Path):
    work = tmp_path_factory.mktemp("sources")
    return {
        "default": ocw_dir,
        "ocw_randomized": tarball(
            write_ablation(ocw_raw, work, "randomized"), work / "OCW_randomized.tar.gz"
        ),
        "ocw_wordnet": write_ablation(ocw_raw, work, "wordnet"),
        "wote": wote_dir,
    }


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory, sources: dict) -> tuple[Path, Path, str]:
    """One `ocw-hub build` of all four configs (the ablations from small fixtures)."""
    work = tmp_path_factory.mktemp("export")
    out, cache = work / "hub", work / "cache"
    result = runner.invoke(
        app,
        [
            "build",
            "--ocw-dir", str(sources["default"]),
            "--ocw-randomized-dir", str(sources["ocw_randomized"]),
            "--ocw-wordnet-dir", str(sources["ocw_wordnet"]),
            "--wote-dir", str(sources["wote"]),
            "--out", str(out),
            "--cache-dir", str(cache),
            "--no-checks",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, cache, result.output


def test_export_layout_and_summary_table(export: tuple[Path, Path, str]) -> None:
    out, _, output = export
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    expected = ["README.md"] + [
        f"data/{c}/{s}-00000-of-00001.parquet"
        for c in sorted(CONFIGS)
        for s in ("test", "train", "validation")
    ]
    assert files == expected
    assert not list(out.glob("*.py"))
    # the closing table: config, split, rows
    for config, split, rows in (("default", "test", 494), ("wote", "validation", 169)):
        assert re.search(rf"{config}\s*│\s*{split}\s*│\s*{rows}\s*│", output)
    # WoTe answers located in the context, per split (as measured by the builder's tests)
    for split, rows, located in (("train", 248, 229), ("validation", 169, 154), ("test", 412, 378)):
        assert re.search(rf"wote\s*│\s*{split}\s*│\s*{rows}\s*│\s*{located}\s*│", output)
    # data warnings of the real walls are reported once, as one-line notes
    assert "0f1677" in output and "654041" in output and "b308e4" in output
    # the stand-in's pre-release wall ids are flagged; the fixtures' ids are not 6 long
    assert "config 'default': the wall ids are the 6-character pre-release ones" in output
    assert "config 'ocw_wordnet': the wall ids" not in output


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("config", CONFIGS)
def test_round_trip_equals_the_builder(
    export: tuple[Path, Path, str], sources: dict, config: str, tmp_path: Path
) -> None:
    out, cache, _ = export
    exported = datasets.load_dataset(str(out), config, cache_dir=str(tmp_path))
    built = ocw_hub.load_dataset(
        config, data_dir=sources[config], cache_dir=cache, verification_mode="no_checks"
    )
    assert list(exported) == ["train", "validation", "test"]
    for split in built:
        assert exported[split].features == built[split].features
        assert exported[split].to_list() == built[split].to_list()
    script = "WoTe" if config == "wote" else "OCW"
    assert exported["train"].features == load_script(script).FEATURES


def test_card_parses_and_lists_every_config(export: tuple[Path, Path, str]) -> None:
    out, _, _ = export
    card = DatasetCard.load(out / "README.md")
    assert [c["config_name"] for c in card.data.configs] == sorted(CONFIGS)
    assert [c["config_name"] for c in card.data.dataset_info] == sorted(CONFIGS)
    default = next(c for c in card.data.configs if c["config_name"] == "default")
    assert default["default"] is True
    assert card.data.license == "other"  # OCW is MIT, WoTe states no licence
    assert "MIT" in card.data.license_details
    assert "Only Connect" in card.text and "ocw-hub" not in card.text.split("\n")[0]
    assert (
        "This copy holds the config(s) `default`, `ocw_randomized`, `ocw_wordnet`, `wote`"
        in card.text
    )
    assert "For developers" not in card.text and "shared/data" not in card.text
    sizes = {
        (i["config_name"], s["name"]): s["num_examples"]
        for i in card.data.dataset_info
        for s in i["splits"]
    }
    assert sizes[("default", "test")] == 494
    assert sizes[("wote", "train")] == 248
    assert sizes[("ocw_wordnet", "test")] == 4
    assert check_export(out) == []


def test_bad_source_leaves_previous_export_untouched(tmp_path: Path, ocw_raw: Path) -> None:
    good = write_ablation(ocw_raw, tmp_path / "good", "wordnet")
    out = tmp_path / "hub"
    build_export(
        {"ocw_wordnet": good}, out, cache_dir=tmp_path / "c", verification_mode="no_checks"
    )
    assert DatasetCard.load(out / "README.md").data.license == "mit"  # OCW only
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    bad = tmp_path / "bad" / "OCW_wordnet"
    bad.mkdir(parents=True)
    for f in good.iterdir():
        (bad / f.name).write_text(f.read_text()[:-40])  # truncated JSON
    result = runner.invoke(
        app,
        ["build", "-c", "ocw_wordnet", "--ocw-wordnet-dir", str(bad), "--out", str(out),
         "--cache-dir", str(tmp_path / "c"), "--no-checks"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "easy_" in result.output and "wordnet.json" in result.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".hub")] == []


def test_failed_first_build_writes_nothing(tmp_path: Path, ocw_raw: Path) -> None:
    bad = tmp_path / "OCW_wordnet"
    bad.mkdir()
    (bad / "easy_train_wordnet.json").write_text("{}")
    out = tmp_path / "hub"
    result = runner.invoke(
        app, ["build", "-c", "ocw_wordnet", "--ocw-wordnet-dir", str(bad), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "validation" in result.output  # the missing split is named
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["OCW_wordnet"]


def test_unavailable_source_names_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No local copy and no download: the message says which flag to give (no network used:
    the official URL is pointed at a local file that does not exist)."""
    ocw = load_script("OCW")
    monkeypatch.setitem(ocw._URLS, "ocw_wordnet", str(tmp_path / "nowhere" / "OCW_wordnet.tar.gz"))
    for config in ocw.OCW.BUILDER_CONFIGS:
        if config.name == "ocw_wordnet":
            monkeypatch.setattr(config, "url", ocw._URLS["ocw_wordnet"])
    result = runner.invoke(
        app, ["build", "-c", "ocw_wordnet", "--out", str(tmp_path / "hub"),
              "--cache-dir", str(tmp_path / "c")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "--ocw-wordnet-dir" in result.output
    assert not (tmp_path / "hub").exists()


def test_missing_local_dir_names_the_flag(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["build", "-c", "wote", "--wote-dir", str(tmp_path / "nope"), "--out", str(tmp_path / "o")],
    )
    assert result.exit_code == 1
    assert "--wote-dir" in result.output and "nope" in result.output


def test_unknown_config_flag(tmp_path: Path) -> None:
    result = runner.invoke(app, ["build", "-c", "ocw_easy", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "unknown config" in result.output


def test_out_that_is_not_an_export_is_never_deleted(tmp_path: Path, ocw_raw: Path) -> None:
    source = write_ablation(ocw_raw, tmp_path / "src", "wordnet")
    precious = tmp_path / "thesis"
    precious.mkdir()
    (precious / "chapter1.tex").write_text("keep me")
    base = ["build", "-c", "ocw_wordnet", "--ocw-wordnet-dir", str(source), "--no-checks",
            "--cache-dir", str(tmp_path / "c")]  # fmt: skip
    result = runner.invoke(app, [*base, "--out", str(precious)])
    assert result.exit_code == 1 and "not an ocw-hub export" in result.output
    assert (precious / "chapter1.tex").read_text() == "keep me"
    # the source's own folder (or one above it) is refused too
    result = runner.invoke(app, [*base, "--out", str(tmp_path / "src")])
    assert result.exit_code == 1 and "holds the source" in result.output
    assert (source / "easy_test_wordnet.json").is_file()
    # a file is refused
    (tmp_path / "file").write_text("x")
    result = runner.invoke(app, [*base, "--out", str(tmp_path / "file")])
    assert result.exit_code == 1 and "is a file" in result.output
    # an empty folder and a previous export are replaced
    (tmp_path / "empty").mkdir()
    assert runner.invoke(app, [*base, "--out", str(tmp_path / "empty")]).exit_code == 0
    assert runner.invoke(app, [*base, "--out", str(tmp_path / "empty")]).exit_code == 0
    assert (tmp_path / "empty" / "README.md").is_file()
    assert (tmp_path / "empty").stat().st_mode & 0o055  # not a private mkdtemp folder


def test_copy_of_another_size_needs_no_checks(tmp_path: Path, ocw_raw: Path) -> None:
    source = write_ablation(ocw_raw, tmp_path / "src", "wordnet")
    args = ["build", "-c", "ocw_wordnet", "--ocw-wordnet-dir", str(source),
            "--out", str(tmp_path / "hub"), "--cache-dir", str(tmp_path / "c")]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "split sizes differ from the official ones" in result.output
    assert "pass --no-checks" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "hub").exists()
    assert runner.invoke(app, [*args, "--no-checks"]).exit_code == 0
