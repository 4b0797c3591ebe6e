"""Where this install keeps the Hub assets, and the one way to import a loading script by path.

The Hub assets are the files a Hub repository holds as they are: ``OCW.py`` and ``WoTe.py``
(loading scripts) with their sibling modules (``source_files.py``, ``ocw_walls.py``,
``wote_questions.py``, ``wote_answers.py``, imported relatively), ``metrics/ocw_metric/`` (the
evaluate module, its card and Space files) and ``dataset_infos.json``. In a source checkout or
an editable install they are at the repository root; a wheel carries copies of the same files
under ``ocw_hub/_hub/`` (see ``[tool.hatch...force-include]`` in ``pyproject.toml``). Either
way there is one source of truth: the files at the repository root.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

_PACKAGE_DIR = Path(__file__).resolve().parent

#: The loading scripts at the assets root, by module name.
SCRIPTS = ("OCW", "WoTe")


@cache
def assets_root() -> Path:
    """The folder holding ``OCW.py``, ``WoTe.py``, ``metrics/`` and ``dataset_infos.json``:
    ``ocw_hub/_hub`` in a wheel, the repository root in a checkout.

    Raises:
        FileNotFoundError: neither a wheel copy nor a source checkout is found.
    """
    for candidate in (_PACKAGE_DIR / "_hub", _PACKAGE_DIR.parents[1]):
        if all((candidate / f"{name}.py").is_file() for name in SCRIPTS):
            return candidate
    raise FileNotFoundError(
        f"OCW.py and WoTe.py not found next to the ocw_hub package ({_PACKAGE_DIR}); "
        "reinstall ocw-hub from a checkout of the repository"
    )


def metric_dir() -> Path:
    """The ``metrics/ocw_metric`` folder (the evaluate module and its card)."""
    return assets_root() / "metrics" / "ocw_metric"


def dataset_infos_path() -> Path:
    """The root ``dataset_infos.json`` (features and official split sizes of every config)."""
    return assets_root() / "dataset_infos.json"


def script_path(name: str) -> Path:
    """Path of a loading script (``"OCW"`` or ``"WoTe"``) of this install."""
    if name not in SCRIPTS:
        raise ValueError(f"unknown loading script {name!r}; expected one of {list(SCRIPTS)}")
    return assets_root() / f"{name}.py"


def script_files(name: str) -> list[Path]:
    """A loading script and the sibling modules it imports relatively (``from .x import``),
    as ``datasets`` 3.x copies them with the script: ``[OCW.py, ocw_walls.py,
    source_files.py]``. Every file a Hub repo of the script needs besides its card."""
    path = script_path(name)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    siblings = sorted(
        {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module}
    )
    return [path, *(path.parent / f"{module}.py" for module in siblings)]


def _hub_package() -> ModuleType:
    """The synthetic package ``ocw_hub._hub`` whose path is :func:`assets_root`, so that the
    scripts' relative imports find their siblings."""
    package = sys.modules.get(_HUB_PACKAGE)
    if package is None:
        package = ModuleType(_HUB_PACKAGE)
        package.__path__ = [str(assets_root())]
        sys.modules[_HUB_PACKAGE] = package
    return package


@cache
def load_script(name: str) -> ModuleType:
    """Import a loading script (``"OCW"`` or ``"WoTe"``) with its siblings, once per process.

    The one place that imports the scripts: the package and every test use it, so their classes
    exist once per process. The script is imported as ``ocw_hub._hub.<name>`` of a synthetic
    package over :func:`assets_root`, so its relative imports (``from .ocw_walls import ...``)
    load the siblings as ``ocw_hub._hub.<sibling>`` (``datasets`` re-imports a builder's
    module by name, and the last part names the builder: ``ocw``, ``wo_te``). The scripts
    import only the standard library, ``datasets`` and their siblings, so the same files serve
    the Hub (as a script on ``datasets`` 3.x) and this package (on any version).
    """
    script_path(name)  # unknown names raise ValueError
    _hub_package()
    return importlib.import_module(_module_name(name))


@cache
def load_sibling(name: str) -> ModuleType:
    """Import a sibling module of the scripts (``"source_files"``, ``"ocw_walls"``,
    ``"wote_questions"``, ``"wote_answers"``; standard library only, no ``datasets``).

    Raises:
        ModuleNotFoundError: no such sibling.
    """
    _hub_package()
    return importlib.import_module(_module_name(name))


def _import_by_path(module_name: str, path: Path) -> ModuleType:
    """Import the file ``path`` as ``module_name`` and register it in ``sys.modules``."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - only on a broken install
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def loaded_format_errors() -> tuple[type[Exception], ...]:
    """The input-error classes (``FORMAT_ERROR``: ``OCWFormatError``, ``WoTeFormatError``) of
    the script siblings this process has imported (:func:`load_script`, :func:`load_sibling`);
    importing none (and so not ``datasets``) to tell."""
    return tuple(
        module.FORMAT_ERROR
        for name in _FORMAT_ERROR_MODULES
        if (module := sys.modules.get(_module_name(name))) is not None
    )


#: The siblings that define each dataset's ``FORMAT_ERROR``.
_FORMAT_ERROR_MODULES = ("ocw_walls", "wote_questions")
_HUB_PACKAGE = "ocw_hub._hub"


def _module_name(script: str) -> str:
    return f"{_HUB_PACKAGE}.{script}"


#: The metric's pure modules (``metrics/ocw_metric/<name>.py``): input checks, OCW task 1 and
#: its partition figures, OCW task 2, WoTe spans. ``ocw_metric.py`` (the ``evaluate`` wrapper)
#: is loaded with ``evaluate.load`` instead (:func:`ocw_hub.load_metric`).
METRIC_MODULES = ("inputs", "grouping", "partition", "connections", "spans")

_METRIC_PACKAGE = "ocw_hub._hub.ocw_metric"


@cache
def load_metric_module(name: str) -> ModuleType:
    """Import one pure module of the metric (``metrics/ocw_metric/<name>.py``) by path, once per
    process, as ``ocw_hub._hub.ocw_metric.<name>``.

    The folder is registered as a package of that name, so the modules' relative imports of
    each other work. The package scores through these modules (no ``evaluate`` start-up);
    ``evaluate.load`` of the metric folder runs the same files, so the figures are one piece of
    code.

    Raises:
        ValueError: ``name`` is not one of :data:`METRIC_MODULES`.
    """
    if name not in METRIC_MODULES:
        raise ValueError(f"unknown metric module {name!r}; expected one of {list(METRIC_MODULES)}")
    if _METRIC_PACKAGE not in sys.modules:
        spec = importlib.machinery.ModuleSpec(_METRIC_PACKAGE, None, is_package=True)
        spec.submodule_search_locations = [str(metric_dir())]
        sys.modules[_METRIC_PACKAGE] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{_METRIC_PACKAGE}.{name}")
