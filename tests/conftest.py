"""Shared fixtures: the repository, the small fixtures of ``tests/data`` and the real data in
``../shared/data``.

Tests that need the real data ask for one of :data:`FULL_DATA_FIXTURES` (or carry
``@pytest.mark.full_data`` themselves): they are marked ``full_data`` at collection and skipped,
with a one-line reason, when ``../shared/data`` is absent (a plain clone). With
``OCW_HUB_REQUIRE_FULL_DATA=1`` (set by ``.ci/run``) a missing ``../shared/data`` fails them
instead. Every other test runs on ``tests/data`` alone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

#: Environment variable naming an ``HF_HOME`` for the suite to reuse (``.ci/run``: one folder
#: that the datasets 3.6 suite fills and the newest-datasets suite then runs on); without it,
#: a fresh folder per session, removed at the end.
HF_HOME_ENV = "OCW_HUB_TEST_HF_HOME"
#: The variables that would send a library past ``HF_HOME`` (to ``~/.cache/huggingface`` or a
#: user's own cache): removed, so that every cache derives from the suite's ``HF_HOME``.
HF_CACHE_OVERRIDES = (
    "HF_DATASETS_CACHE",
    "HF_HUB_CACHE",
    "HUGGINGFACE_HUB_CACHE",
    "HF_MODULES_CACHE",
    "HF_EVALUATE_CACHE",
    "HF_METRICS_CACHE",
    "HF_ASSETS_CACHE",
    "HF_XET_CACHE",
    "HF_TOKEN_PATH",
    "TRANSFORMERS_CACHE",
    "SENTENCE_TRANSFORMERS_HOME",
)

# The suite never reads or writes the user's Hugging Face caches (a later `ocw-hub evaluate`
# without --data-dir would find the fixtures there; a cache left by another run would change
# what the tests see): a private HF_HOME, set before datasets, evaluate or huggingface_hub is
# imported (they read the variables on import). Subprocesses of the tests inherit it.
for _name in HF_CACHE_OVERRIDES:
    os.environ.pop(_name, None)
_OWN_HF_HOME = not os.environ.get(HF_HOME_ENV)
os.environ["HF_HOME"] = os.environ.get(HF_HOME_ENV) or tempfile.mkdtemp(prefix="ocw-hub-tests-hf-")

import pytest  # noqa: E402
from ocw_fixtures import OCW_FIXTURE, WOTE_FIXTURE  # noqa: E402

from ocw_hub.resources import load_script  # noqa: E402

# pytester: tests/test_builders.py runs this conftest in a sandbox; the others: fixtures shared
# by the test files of one builder or module
pytest_plugins = ["pytester", "ocw_builder_support", "metric_support"]

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
#: Fixtures that read ``../shared/data``: a test using one of them is a ``full_data`` test.
FULL_DATA_FIXTURES = frozenset({"shared_data", "ocw_dir", "ocw_raw", "wote_dir"})
#: Environment variable that turns a missing ``../shared/data`` into a failure (CI).
REQUIRE_ENV = "OCW_HUB_REQUIRE_FULL_DATA"
#: The test files whose outcome depends on the ``datasets`` version: they build, export, load
#: or check a dataset, or load the metric through ``evaluate`` (which writes with ``datasets``).
#: Their tests (and those of ``tests/compat3``) are marked ``datasets_era``: ``.ci/run`` runs
#: only these on datasets 3.6.0 and the whole suite on the newest. A new test file that does
#: any of this adds its name here (or sets ``pytestmark = pytest.mark.datasets_era``).
DATASETS_ERA_FILES = frozenset(
    {
        "test_api.py",
        "test_builders.py",
        "test_check.py",
        "test_compat.py",
        "test_derive.py",
        "test_evaluation.py",
        "test_export.py",
        "test_export_paths.py",
        "test_infos.py",
        "test_install.py",
        "test_metric_evaluate.py",
        "test_ocw_archives.py",
        "test_ocw_bad_walls.py",
        "test_ocw_builder.py",
        "test_ocw_fresh_data.py",
        "test_publish_safety.py",
        "test_readme.py",
        "test_scoring.py",
        "test_shared_cache.py",
        "test_source_checks.py",
        "test_space.py",
        "test_wote_bad_input.py",
        "test_wote_builder.py",
    }
)


def _full_data_required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") == "1"


def _missing_reason() -> str:
    return f"needs the real data at {SHARED_DATA} (absent; see README.md, 'Use the package')"


def _failure_message() -> str:
    return f"{_missing_reason()}; {REQUIRE_ENV}=1 makes it required"


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's own ``HF_HOME`` (not one given by ``OCW_HUB_TEST_HF_HOME``)."""
    if _OWN_HF_HOME:
        shutil.rmtree(os.environ["HF_HOME"], ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses a full-data fixture ``full_data`` (skipped when
    ``../shared/data`` is absent, unless ``OCW_HUB_REQUIRE_FULL_DATA=1``) and every test of
    :data:`DATASETS_ERA_FILES` ``datasets_era``."""
    skip = None
    if not SHARED_DATA.is_dir() and not _full_data_required():
        skip = pytest.mark.skip(reason=_missing_reason())
    for item in items:
        if FULL_DATA_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.full_data)
        if item.path.name in DATASETS_ERA_FILES or item.path.parent.name == "compat3":
            item.add_marker(pytest.mark.datasets_era)
        if skip is not None and item.get_closest_marker("full_data") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _full_data_guard(request: pytest.FixtureRequest) -> None:
    """A ``full_data`` test fails (not skips) when the data is absent and CI requires it."""
    if request.node.get_closest_marker("full_data") is not None and not SHARED_DATA.is_dir():
        pytest.fail(_failure_message(), pytrace=False)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder shared by the tests of one module (``--cache-dir``)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def ocw_fixture_dir() -> Path:
    """The OCW fixture in the release layout: 4 / 3 / 6 real walls, including the quirk walls
    ``0f1677`` (validation), ``654041`` and ``b308e4`` (test)."""
    return OCW_FIXTURE


@pytest.fixture(scope="session")
def wote_fixture_dir() -> Path:
    """The WoTe fixture: 3 / 3 / 5 synthetic questions in the release shape."""
    return WOTE_FIXTURE


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real data folder (``../shared/data``); the full-scale tests need it."""
    if not SHARED_DATA.is_dir():
        pytest.fail(_failure_message(), pytrace=False)
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


@pytest.fixture(scope="session")
def load_builder_module() -> Callable[[str], ModuleType]:
    """``load_builder_module("OCW")``: the loading script as imported by the package
    (:func:`ocw_hub.resources.load_script`, one module per script and process)."""
    return load_script


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test reaches a hub: the download code is tested on local files only. ocw-hub's own
    cache (the AMI memo) is a folder of the test session, not the user's."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("OCW_HUB_CACHE", str(tmp_path_factory.getbasetemp() / "ocw_hub_cache"))


@pytest.fixture
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy between a client and 127.0.0.1; no OpenAI key or base URL from the environment
    (``pytestmark = pytest.mark.usefixtures("local_only")`` in the LLM client tests)."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def chat_server() -> Iterator[Callable[..., Any]]:
    """Start scripted servers (:class:`chat_server.ChatServer`); all closed after the test."""
    from chat_server import ChatServer

    servers: list[ChatServer] = []

    def start(*args: Any, **kwargs: Any) -> ChatServer:
        servers.append(ChatServer(*args, **kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.close()
