"""The code blocks of the README and of ``docs/*.md``, for the tests that run them.

A block is found by its language and its first line, so that a test names the snippet it
runs the way a reader sees it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
#: The Markdown files whose snippets are tested: the card and the documentation.
DOC_FILES = ("README.md", *sorted(f"docs/{p.name}" for p in (REPO_ROOT / "docs").glob("*.md")))


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block of Markdown ``text`` as ``(language, body)``, in order; the
    language of a bare fence is ``""``."""
    blocks, language, lines = [], None, []
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if language is None:
                language, lines = line[3:].strip(), []
            else:
                blocks.append((language, "".join(lines)))
                language = None
        elif language is not None:
            lines.append(line)
    return blocks


def code_blocks(text: str, language: str = "python") -> list[str]:
    """The bodies of the fenced blocks of ``language`` in Markdown ``text``, in order."""
    return [body for lang, body in fenced_blocks(text) if lang == language]


def command_lines(text: str) -> list[list[str]]:
    """The ``ocw-hub`` invocations in the shell blocks (``bash`` or bare) of Markdown
    ``text``, each as its arguments after ``ocw-hub``: continued lines joined, comments
    dropped, a command ending at ``&&``, ``;`` or ``|``; ``$(ocw-hub ...)`` included."""
    import shlex

    found = []
    for language, body in fenced_blocks(text):
        if language not in ("bash", ""):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            tokens: list[str] = []
            for token in shlex.split(line, comments=True):
                inner = re.fullmatch(r"\$\(ocw-hub ([^)]*)\)", token)
                tokens += ["ocw-hub", *inner.group(1).split(), ";"] if inner else [token]
            for i, token in enumerate(tokens):
                if token == "ocw-hub" or token.endswith("/ocw-hub"):
                    args = []
                    for arg in tokens[i + 1 :]:
                        if arg in ("&&", "||", ";", "|", "&"):
                            break
                        args.append(arg)
                    found.append(args)
    return found


def block(path: str, first_line: str, language: str = "python") -> str:
    """The one ``language`` block of ``path`` (relative to the repository) that starts with
    ``first_line``.

    Raises:
        LookupError: no block, or several, start so.
    """
    text = (REPO_ROOT / path).read_text(encoding="utf-8")
    found = [b for b in code_blocks(text, language) if b.startswith(first_line)]
    if len(found) != 1:
        raise LookupError(f"{path}: {len(found)} {language} blocks start with {first_line!r}")
    return found[0]


def section(path: str, heading: str) -> str:
    """The ``## `` section of ``path`` titled ``heading``, up to the next ``## `` heading."""
    text = (REPO_ROOT / path).read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    if match is None:
        raise LookupError(f"{path}: no section {heading!r}")
    return match.group(1)


def unknown_options(argv: list[str]) -> list[str]:
    """What an ``ocw-hub`` command line (``argv`` without ``ocw-hub``) names that the command
    table lacks: an unknown command (``"command NAME"``), or the options (``--name``,
    ``--name=value``) the command does not take."""
    import typer.main

    from ocw_hub.cli import app

    command: Any = typer.main.get_command(app)  # typer's own click classes: no isinstance
    ctx = command.make_context("ocw-hub", [], resilient_parsing=True)
    rest = list(argv)
    while hasattr(command, "get_command") and rest and not rest[0].startswith("-"):
        name = rest.pop(0)
        sub = command.get_command(ctx, name)
        if sub is None:
            return [f"command {name}"]
        command, ctx = sub, sub.make_context(name, [], parent=ctx, resilient_parsing=True)
    taken = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    named = [arg.split("=")[0] for arg in rest if arg.startswith("--")]
    return [o for o in named if o not in taken]
