"""The ``datasets`` 3.x snippet of ``docs/usage.md`` runs as written: the loading scripts, from
the folder the docs assume (the repository root, ``../shared/data`` beside it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import pytest
from doc_snippets import block

if not datasets.__version__.startswith("3."):
    pytest.skip("the loading scripts need datasets 3.x", allow_module_level=True)

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_script_snippet(shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = block("docs/usage.md", "import datasets\n\nds = ")
    root = tmp_path / "repo"  # the scripts, their siblings and infos; the data beside it
    root.mkdir()
    for path in REPO_ROOT.glob("*.py"):
        shutil.copy(path, root)
    shutil.copy(REPO_ROOT / "dataset_infos.json", root)
    (tmp_path / "shared").symlink_to(shared_data.parent)
    monkeypatch.chdir(root)
    namespace: dict = {}
    exec(snippet, namespace)  # the last statement loads WoTe
    assert {name: n for name, n in namespace["ds"].num_rows.items()} == {
        "train": 248,
        "validation": 169,
        "test": 412,
    }
