"""Every command's ``--help`` shows its options' help text whole, in click's plain layout (no
rich: see test_help_imports_no_rich_nor_pydantic): a bracket is text (``value [low, high]``),
and one written ``\\[`` for rich markup shows as ``[``. Checked on every option of every command
of the table."""

from __future__ import annotations

import re
import subprocess
import sys

import click
import pytest
from typer.testing import CliRunner

from ocw_hub.cli import COMMANDS, app, load_command

runner = CliRunner()
_BOX = re.compile(r"[│╭╮╰╯─]")


def _flat(text: str) -> str:
    return " ".join(_BOX.sub(" ", text).split())


def _commands(name: str) -> list[tuple[str, click.Command]]:
    """``name``'s click command, or its subcommands, with the words that call them."""
    command = load_command(name)
    if isinstance(command, click.Group):
        return [(f"{name} {sub}", command.commands[sub]) for sub in command.commands]
    return [(name, command)]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_bracketed_help_text_is_shown(name: str) -> None:
    for shown_name, command in _commands(name):
        result = runner.invoke(app, [*shown_name.split(), "--help"], env={"COLUMNS": "400"})
        assert result.exit_code == 0, result.output
        page = _flat(result.output)
        assert "\\[" not in page, shown_name
        for param in command.params:
            text = getattr(param, "help", None) or ""
            for segment in re.findall(r"\[[^\]]*\]", text):
                assert _flat(segment) in page, (shown_name, param.name)


def test_an_escaped_bracket_is_shown_as_a_bracket() -> None:
    result = runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "400"})
    assert "shown as value [low, high]" in _flat(result.output)


def test_help_imports_no_rich_nor_pydantic() -> None:
    """Each command's ``--help`` is click's layout: typer's rich help (rich.markdown,
    typer.rich_utils) and typer's pydantic coercion of unset flags cost more than the rest of
    the help; so do ``rich`` itself (the console is made, tables imported, when a command
    prints), ``importlib.metadata`` (read for an install hint) and the LLM client (asyncio)."""
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from ocw_hub.cli import COMMANDS, app\n"
        "runner = CliRunner()\n"
        "calls = [['--help'], ['derive', 'randomized', '--help']]\n"
        "calls += [[n, '--help'] for n in COMMANDS]\n"
        "for args in calls:\n"
        "    assert runner.invoke(app, args).exit_code == 0, args\n"
        "heavy = ('pydantic', 'typer.rich_utils', 'rich', 'importlib.metadata', 'asyncio',\n"
        "         'ocw_hub.llm.log')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
