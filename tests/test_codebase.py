"""Rules of the codebase that a reader relies on: small functions, layers that hold, a quick
``--help``, CLI words in the CLI only, one way to import a loading script."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Where the complexity limit holds: the package, the loading scripts and siblings, the metric.
CHECKED = [REPO / "src", *sorted(REPO.glob("*.py")), REPO / "metrics"]
MAX_COMPLEXITY = 15


def _python_files() -> list[Path]:
    files: list[Path] = []
    for place in CHECKED:
        files.extend([place] if place.is_file() else sorted(place.rglob("*.py")))
    return files


def test_no_function_above_the_complexity_limit() -> None:
    from radon.complexity import cc_visit

    too_complex = [
        f"{path.relative_to(REPO)}:{block.lineno} {block.name} ({block.complexity})"
        for path in _python_files()
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if block.complexity > MAX_COMPLEXITY
    ]
    assert not too_complex, "radon cc above 15:\n" + "\n".join(too_complex)


def test_the_import_contracts_hold() -> None:
    """The layers of ``[tool.importlinter]`` in pyproject.toml: no module imports a layer above
    its own, no sibling modules import each other (``lint-imports``, as .ci/run runs it)."""
    lint_imports = Path(sys.executable).with_name("lint-imports")
    command = [str(lint_imports), "--no-cache", "--config", str(REPO / "pyproject.toml")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_no_formatting_is_skipped() -> None:
    """No ``# fmt: skip`` or ``# fmt: off``: the formatter's layout is the layout (lines were
    once squeezed past it to keep files under a length limit)."""
    sources = [*_python_files(), *sorted((REPO / "benchmarks").rglob("*.py"))]
    sources += sorted((REPO / "tests").rglob("*.py"))
    marker = re.compile(r"#\s*fmt:\s*(skip|off)")
    skipped = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sources
        if path.name != "test_codebase.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if marker.search(line)
    ]
    assert not skipped, "formatting skipped at:\n" + "\n".join(skipped)


def test_help_imports_no_heavy_module() -> None:
    """``ocw-hub --help`` (and every command's help) must not pay for datasets, evaluate,
    scikit-learn, SciPy, matplotlib, the OpenAI client or torch."""
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from ocw_hub.cli import COMMANDS, app\n"
        "runner = CliRunner()\n"
        "for args in [['--help']] + [[n, '--help'] for n in COMMANDS]:\n"
        "    assert runner.invoke(app, args).exit_code == 0, args\n"
        "heavy = ('datasets', 'evaluate', 'sklearn', 'scipy', 'matplotlib', 'openai', 'torch',\n"
        "         'pyarrow', 'k_means_constrained')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_cli_options_are_defined_in_the_cli_only() -> None:
    """The core raises errors that carry the config or field; only cli/ defines options."""
    offenders = []
    package = REPO / "src" / "ocw_hub"
    core = [p for p in package.rglob("*.py") if "cli" not in p.relative_to(package).parts]
    for path in sorted(core):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"typer\.|Option\(|Argument\(", line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, "typer options outside cli/:\n" + "\n".join(offenders)


def test_scripts_are_imported_one_way() -> None:
    """Only ocw_hub.resources imports a file by path (the loading scripts and the metric code)."""
    users = [
        path.relative_to(REPO).as_posix()
        for path in [*(REPO / "src").rglob("*.py"), *(REPO / "tests").rglob("*.py")]
        if "spec_from_file_location" in path.read_text(encoding="utf-8")
        and path.name not in ("resources.py", "test_codebase.py")
    ]
    assert not users, users
