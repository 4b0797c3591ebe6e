"""Issue 22: the report's embedding plot reads ``embeddings.npz`` within a budget (members,
bytes of the array read), checked on the zip directory before any array is inflated: a
bomb beside a run is a warning and no plot, never gigabytes in memory."""

from __future__ import annotations

import io
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ocw_hub.results import read_results
from ocw_hub.views import embedding_plot
from ocw_hub.views.embedding_plot import plot_embeddings
from ocw_hub.views.report_data import PredictionsCache, load_walls

DATA = Path(__file__).parent / "data" / "report"


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    return buffer.getvalue()


def _one_big_wall(archive: zipfile.ZipFile) -> None:  # 16 x 200,000 float64 zeros: 25.6 MB
    archive.writestr("a001.npy", _npy(np.zeros((16, 200_000))))


def _a_big_other_member(archive: zipfile.ZipFile) -> None:
    archive.writestr("a001.npy", _npy(np.ones((16, 8))))
    archive.writestr("pad.npy", _npy(np.zeros((2**22 + 1,), dtype=np.float32)))


def _too_many_members(archive: zipfile.ZipFile) -> None:
    archive.writestr("a001.npy", _npy(np.ones((16, 8))))
    for i in range(embedding_plot.MAX_NPZ_MEMBERS):
        archive.writestr(f"x{i}.npy", b"")


@pytest.mark.parametrize(
    "fill",
    [_one_big_wall, _a_big_other_member, _too_many_members],
    ids=lambda f: f.__name__.strip("_"),
)
def test_an_npz_over_its_budget_is_not_read(
    tmp_path: Path, fill: Callable[[zipfile.ZipFile], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(DATA, tmp_path / "report")
    npz = tmp_path / "report" / "predictions" / "model-a" / "embeddings.npz"
    with zipfile.ZipFile(npz, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        fill(archive)
    assert npz.stat().st_size < 4 * 2**20  # small on disk, large inflated
    loads: list[Path] = []
    real_load = np.load
    monkeypatch.setattr(np, "load", lambda f, **kw: loads.append(f) or real_load(f, **kw))
    files = read_results([tmp_path / "report" / "model-a.json"])
    walls = load_walls(files, {"default": DATA / "ocw" / "dataset"}, verification_mode="no_checks")
    rows = {r["wall_id"]: r for r in walls[("default", "test")]}
    with pytest.warns(UserWarning, match="MAX_|more than"):
        assert plot_embeddings(files[0], rows, "a001", [], PredictionsCache()) is None
    assert loads == []  # refused from the zip directory, nothing inflated


def test_the_real_npz_is_within_budget() -> None:
    npz = DATA / "predictions" / "model-a" / "embeddings.npz"
    assert embedding_plot._over_budget(npz) is None
