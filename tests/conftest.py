"""Shared fixtures: paths to the repository and to the real data in ``../shared/data``."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real data folder (``../shared/data``); the full-scale tests need it."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"real data not found at {SHARED_DATA}; see README.md")
    return SHARED_DATA


@pytest.fixture(scope="session")
def ocw_dir(shared_data: Path) -> Path:
    """Full-scale OCW stand-in in the official release layout (62/62/494 walls)."""
    return shared_data / "ocw" / "dataset"


@pytest.fixture(scope="session")
def ocw_raw(shared_data: Path) -> Path:
    """The raw 618-wall export ``onlyconnect.json``."""
    return shared_data / "ocw" / "raw" / "onlyconnect.json"


@pytest.fixture(scope="session")
def wote_dir(shared_data: Path) -> Path:
    """The real WoTe release (train 248, validation 169, test 412 questions)."""
    return shared_data / "wote"


def _load_builder_module(name: str):
    """Import ``<repo>/<name>.py`` by file path as module ``name`` (cached in sys.modules).

    ``datasets`` re-imports a builder's module by name, so it must be registered there.
    """
    import importlib.util
    import sys

    path = REPO_ROOT / f"{name}.py"
    module = sys.modules.get(name)
    if module is not None and Path(getattr(module, "__file__", "")).resolve() == path:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, f"cannot load {path}"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def load_builder_module():
    """Factory: ``load_builder_module("OCW")`` returns the loading script imported by path."""
    return _load_builder_module


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reaches a hub: the download code is tested on local files only."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
