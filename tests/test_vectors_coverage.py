"""Issue 22: the coverage of a split's clues by a ``--vectors`` file is reported and a file
below the floor (``--min-coverage``, default 0.5) is refused with the numbers, before any
clustering and with nothing written."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.baselines.vectors import DEFAULT_MIN_COVERAGE, WordVectorsEncoder
from ocw_hub.cli import app

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("segtok") is None, reason="needs segtok"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]
runner = CliRunner()


def _clues(folder: Path) -> list[str]:
    data = json.loads((folder / "test.json").read_text(encoding="utf-8"))
    return sorted({clue for wall in data["dataset"] for clue in wall["words"]})


def _vectors(path: Path, clues: list[str]) -> Path:
    """A GloVe-shaped file with a vector for the first word of each of ``clues``."""
    from ocw_hub.baselines.flair_text import sentence_tokens

    words = {sentence_tokens(c.lower())[0] for c in clues}
    lines = [f"{w} {i % 7 + 1} {i % 5 - 2} 0.5" for i, w in enumerate(sorted(words))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _walls(folder: Path) -> list[list[str]]:
    data = json.loads((folder / "test.json").read_text(encoding="utf-8"))
    return [wall["words"] for wall in data["dataset"]]


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.3, 0.45])
def test_a_file_below_the_floor_is_refused_with_its_numbers(
    tmp_path: Path, ocw_fixture_dir: Path, fraction: float
) -> None:
    clues = _clues(ocw_fixture_dir)
    given = clues[: int(len(clues) * fraction)] or ["zzzunknown"]
    path = _vectors(tmp_path / "v.txt", given)
    encoder = WordVectorsEncoder(path)
    from ocw_hub.baselines.vectors import VectorsCoverageError

    with pytest.raises(VectorsCoverageError):
        encoder.encode_walls(_walls(ocw_fixture_dir))
    assert encoder.coverage is not None and encoder.coverage["clues"] == len(clues)
    assert encoder.coverage["share"] < DEFAULT_MIN_COVERAGE
    out = tmp_path / "runs"
    args = [
        "predict",
        "--method",
        "embedding",
        "--vectors",
        str(path),
        "--data-dir",
        str(ocw_fixture_dir),
        "--cache-dir",
        str(tmp_path / "c"),
        "--no-checks",
        "--runs",
        "1",
        "--jobs",
        "1",
        "--out",
        str(out),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    error = result.output.strip().splitlines()[-1]
    covered = encoder.coverage["covered"]
    assert error.startswith("error: --vectors ") and f"{covered} of the {len(clues)}" in error
    assert not any(out.glob("run-*.json")) if out.exists() else True
    share = float(re.search(r"--min-coverage ([0-9.]+)", error).group(1))
    assert share <= encoder.coverage["share"]  # the option it names lets this file run
    result = runner.invoke(app, [*args, "--min-coverage", str(share)])
    assert result.exit_code == 0, result.output
    assert f"{covered} of {len(clues)} clues covered" in " ".join(result.output.split())


@pytest.mark.parametrize("fraction", [0.5, 0.8, 1.0])
def test_a_file_at_or_over_the_floor_runs_and_records_its_coverage(
    tmp_path: Path, ocw_fixture_dir: Path, fraction: float
) -> None:
    clues = _clues(ocw_fixture_dir)
    given = clues[: -int(len(clues) * (1 - fraction)) or None]
    encoder = WordVectorsEncoder(_vectors(tmp_path / "v.txt", given))
    encoder.encode_walls(_walls(ocw_fixture_dir))
    assert encoder.coverage is not None
    assert encoder.coverage["covered"] >= len(given)  # other clues may share a first word
    assert encoder.describe()["coverage"] == encoder.coverage
    assert encoder.coverage["share"] >= DEFAULT_MIN_COVERAGE


def test_min_coverage_needs_vectors(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["predict", "--method", "embedding", "--min-coverage", "0.2", "--out", str(tmp_path)]
    )
    assert result.exit_code != 0 and "--min-coverage" in result.output
