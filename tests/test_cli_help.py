"""Every command's ``--help`` shows its options' help text whole: rich reads ``[...]`` as
markup and drops it (``value [low, high]`` printed as ``value  and``), so a bracket meant as
text must be written ``\\[``. Checked on every option of every command of the table."""

from __future__ import annotations

import re

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
        for param in command.params:
            text = getattr(param, "help", None) or ""
            unescaped = re.findall(r"(?<!\\)\[[^\]]*\]", text)
            assert not unescaped, (shown_name, param.name, unescaped)
            for segment in re.findall(r"\\\[[^\]]*\]", text):
                assert _flat(segment.replace("\\[", "[")) in page, (shown_name, param.name)
