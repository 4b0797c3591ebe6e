"""Helpers of the export tests (``tests/test_export*.py``): the synthetic sources of
``tests/data/hub_export`` and ``ocw-hub build`` of them.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ocw_hub.cli import app

#: Synthetic sources written for these tests: OCW walls with 4-character ids (as the official
#: release) and dated seasons; WoTe questions in the release shape.
HUB_DATA = Path(__file__).parent / "data" / "hub_export"
SMALL_SIZES = {"ocw": {"train": 2, "validation": 2, "test": 3}, "wote": [3, 2, 3]}
runner = CliRunner()


def _tree(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _contents(folder: Path) -> dict[str, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _build_small(out: Path, cache: Path, *configs: str, extra: tuple[str, ...] = ()):
    """``ocw-hub build`` of the synthetic sources (``default``, ``ocw_wordnet``, ``wote``)."""
    flags = {
        "default": ["--data-dir", f"default={HUB_DATA / 'ocw'}"],
        "ocw_wordnet": ["--data-dir", f"ocw_wordnet={HUB_DATA / 'ocw'}"],
        "wote": ["--data-dir", f"wote={HUB_DATA / 'wote'}"],
    }
    args = ["build", "--out", str(out), "--cache-dir", str(cache), "--no-checks", *extra]
    for config in configs or ("default", "ocw_wordnet", "wote"):
        args += ["-c", config, *flags[config]]
    return runner.invoke(app, args)
