"""The optional extras of ``pyproject.toml``: the module each one brings, and the one-line error
with the install command when it is missing.

The install command is spelled for how this copy of ocw-hub was installed, as the README spells
installs: run from a checkout (editable install), ``pip install -e "<checkout>[extra]"``; installed
from a local folder or wheel, ``pip install "<it>[extra]"``; else ``pip install "ocw-hub[extra]"``.
A path under the working directory is shown relative (``"."`` in the checkout itself).
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlparse

from .errors import MissingExtraError

_PACKAGE_DIR = Path(__file__).resolve().parent

#: extra -> the PyPI package whose import it is checked by (``module``, ``package``).
EXTRAS: dict[str, tuple[str, str]] = {
    "baselines": ("k_means_constrained", "k-means-constrained"),
    "encoders": ("transformers", "transformers"),
    "llm": ("openai", "openai"),
    "report": ("matplotlib", "matplotlib"),
    "bertscore": ("bert_score", "bert-score"),
    "inspect": ("inspect_ai", "inspect-ai"),
}


def _shown(path: Path) -> str:
    """``path`` as typed in a shell: ``.`` or relative when under the working directory."""
    try:
        rel = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    return "." if rel == Path() else f"./{rel.as_posix()}"


def _checkout() -> Path | None:
    """The repository holding this package when it is imported from a checkout's ``src/``."""
    root = _PACKAGE_DIR.parents[1]
    return (
        root if (root / "pyproject.toml").is_file() and _PACKAGE_DIR.parent.name == "src" else None
    )


def _installed_from() -> str | None:
    """The local folder or file this distribution was installed from (pip's
    ``direct_url.json``), or None (an index, or no such record)."""
    from importlib import metadata  # not at import: ~20 ms of a command's --help

    try:
        text = metadata.distribution("ocw-hub").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    record = json.loads(text)
    url = urlparse(record.get("url", ""))
    if url.scheme != "file":
        return None
    return unquote(url.path)


def install_command(extra: str) -> str:
    """The pip command that adds ``extra`` to this install (see the module docstring)."""
    checkout = _checkout()
    if checkout is not None:  # imported from a checkout's src/: an editable install or a path
        return f'pip install -e "{_shown(checkout)}[{extra}]"'
    source = _installed_from()
    if source is not None and os.path.exists(source):
        return f'pip install "{_shown(Path(source))}[{extra}]"'
    return f'pip install "ocw-hub[{extra}]"'


def require(extra: str, feature: str, needs: tuple[str, str] | None = None) -> ModuleType:
    """Import the module ``extra`` brings, or raise its one-line error.

    Args:
        extra: a key of :data:`EXTRAS`.
        feature: what needs it, as the user asked for it (e.g. ``predict --method embedding``).
        needs: (module, PyPI package) of the extra that ``feature`` needs, when it is not the
            one :data:`EXTRAS` checks the extra by.

    Raises:
        MissingExtraError: the module is not installed.
    """
    module, package = needs or EXTRAS[extra]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is None or err.name.split(".")[0] != module:
            raise  # a dependency of an installed extra is broken: keep the traceback
        raise MissingExtraError(
            f"{feature} needs {package}, of the [{extra}] extra: {install_command(extra)}",
            extra=extra,
            module=module,
        ) from None
