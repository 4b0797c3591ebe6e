"""``ocw-hub``: build, check and publish the Hub export; score, predict and look at results.

Every command is a thin shell over the package, in a module of its own name (``run-llm`` in
:mod:`.run_llm`); options shared by several commands are declared once in :mod:`.options`.

Errors a user can fix end with a one-line message and exit code 1 (see
:func:`._common.user_errors`); anything else keeps its traceback. Heavy modules (``datasets``,
``evaluate``, scikit-learn) are imported inside the commands, so ``ocw-hub --help`` is quick.
"""

from __future__ import annotations

from typing import Any

import typer

from ..interrupts import run_interruptible


class _App(typer.Typer):
    """The ``ocw-hub`` program: Ctrl-C at any moment ends it with one line and exit code 130,
    no traceback (:mod:`ocw_hub.interrupts`)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return run_interruptible(lambda: super(_App, self).__call__(*args, **kwargs))


app = _App(
    help="Load, export, score and publish the OCW and WoTe benchmarks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"ocw-hub {version('ocw-hub')}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Load, export, score and publish the OCW and WoTe benchmarks."""


from . import (  # noqa: E402,F401
    build,
    check,
    derive,
    evaluate,
    infos,
    parse,
    predict,
    prompts,
    publish,
    report,
    reproduce,
    run_llm,
    show,
)

__all__ = ["app"]
