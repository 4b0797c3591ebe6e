"""``ocw-hub``: build, check and publish the Hub export; score, predict and look at results.

Every command is a plain function in a module of its own name (``play-page`` in :mod:`.play_page`),
listed in :data:`COMMANDS` with a one-line summary: ``ocw-hub --help`` imports no command
module, and ``ocw-hub evaluate ...`` imports :mod:`.evaluate` only. Options shared by several
commands are declared once in :mod:`.options`; a module's ``EPILOG`` follows its help.

Commands raise the package's errors (:mod:`ocw_hub.errors`); :meth:`_Commands.invoke` is the
one place that turns an error a user can fix into one line and its exit code
(:func:`._errors.user_message`), and shows warnings as ``warning:`` lines; anything else keeps
its traceback. Heavy modules (``datasets``, ``evaluate``, scikit-learn) are imported inside
the commands.
"""

from __future__ import annotations

import inspect
import os
from importlib import import_module
from typing import Any

import typer
from typer.core import TyperGroup

from ..interrupts import run_interruptible

#: ``name -> ("module:function", summary)``: the function (or a ``typer.Typer`` of
#: subcommands) is imported when the command is run or its help shown; the summary is the
#: line of ``ocw-hub --help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("build:build", "Write the Parquet hub exports (OUT/ocw, OUT/wote) of the configs."),
    "check": ("check:check", "Check an export for the Hub viewer and every datasets era."),
    "compare": (
        "compare:compare",
        "Rank systems side by side, with intervals and paired p-values.",
    ),
    "derive": ("derive:derive_app", "Derive the ablation copies of the data (ocw_randomized)."),
    "evaluate": ("evaluate:evaluate", "Score predictions files as the paper did."),
    "infos": ("infos:infos", "Regenerate (or check) the root dataset_infos.json."),
    "lm-eval-tasks": (
        "lm_eval_tasks:lm_eval_tasks",
        "Print the folder of the lm-evaluation-harness tasks.",
    ),
    "parse": ("parse:parse", "Turn LLM answers into a predictions file, with a repair report."),
    "play-page": (
        "play_page:play_page",
        "Write a self-contained HTML page on which a person plays the walls.",
    ),
    "predict": ("predict:predict", "Write baseline predictions (random, embedding)."),
    "prompts": ("prompts:prompts", "Write the chat-completion requests, one per wall or question."),
    "publish": ("publish:publish", "Make a Hub repository mirror an export or the metric Space."),
    "report": ("report:report", "Write a self-contained HTML report of results files."),
    "reproduce": ("reproduce:reproduce", "Run the grouping experiment end to end, offline."),
    "show": ("show:show", "Draw one wall or question in the terminal, with a prediction."),
}

#: Commands whose NumPy work is small products (the bootstrap's draws, the paired tests): OpenBLAS
#: starting a thread per core costs them more CPU than it saves (about 15 % of ``evaluate``).
ONE_BLAS_THREAD = frozenset({"evaluate", "compare"})

SUMMARY = "Load, export, score and publish the OCW and WoTe benchmarks."


def prose(text: str | None) -> str | None:
    """A docstring as help text: indentation removed, the lines of each paragraph joined (the
    terminal wraps them), paragraphs kept apart."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


def _as_prose(command: Any) -> Any:
    """``command`` (and its subcommands) with its help and epilog as :func:`prose`, and its
    options' help as click prints it (``\\[`` is the bracket rich would read as markup)."""
    command.help = prose(command.help)
    command.epilog = prose(command.epilog)
    command.rich_markup_mode = None  # click's help layout: no rich, no markdown
    for param in command.params:
        _plain_flag(param)
        if getattr(param, "help", None):
            param.help = param.help.replace("\\[", "[")
    if hasattr(command, "commands"):  # a group parses its --help before a subcommand's
        _plain_flag(command.get_help_option(command.context_class(command)))
    for sub in getattr(command, "commands", {}).values():
        _as_prose(sub)
    return command


def load_command(name: str) -> Any:
    """The click command of ``name`` in :data:`COMMANDS`, its module imported now."""
    target, summary = COMMANDS[name]
    module_name, attr = target.split(":")
    if name in ONE_BLAS_THREAD:
        one_blas_thread()
    module = import_module(f".{module_name}", __name__)
    function = getattr(module, attr)
    if isinstance(function, typer.Typer):
        return _as_prose(typer.main.get_group(function))
    single = typer.Typer(add_completion=False)
    single.command(name, short_help=summary, epilog=getattr(module, "EPILOG", None))(function)
    return _as_prose(typer.main.get_command(single))


def one_blas_thread() -> None:
    """One OpenBLAS thread for this process, unless the user chose a count
    (``OPENBLAS_NUM_THREADS`` or ``OMP_NUM_THREADS``): read when NumPy loads, so this runs before
    the command's modules are imported. ``OMP_NUM_THREADS`` itself is left alone (torch reads it,
    for ``--bertscore``); ``OPENBLAS_CORETYPE``, which the machine may set, is never touched."""
    if "OPENBLAS_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def _plain_flag(param: Any) -> None:
    """Give an on/off flag of the program (``--help``, ``--version``, the completion flags)
    typer's pass-through coercion: typer 0.29 coerces a flag left unset through pydantic,
    whose import (~50 ms) would be most of ``ocw-hub CMD --help``. A no-op on a typer
    without that machinery."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or descriptor.annotation is not bool or not getattr(param, "is_flag", 0):
        return  # only a flag: its value is a bool given, or None when not given
    if getattr(param, "_runtime_param", False) is None:
        from typer._coercion import PassThroughRuntimeParam

        param._runtime_param = PassThroughRuntimeParam(
            parameter_info=descriptor.parameter_info, annotation=bool
        )


class _Commands(TyperGroup):
    """The commands of :data:`COMMANDS`, each imported when it is used; the one place where
    errors become a one-line message and an exit code."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The command list from the summaries, importing no command."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary) for name, (_, summary) in COMMANDS.items()])

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        for param in self.get_params(ctx):
            _plain_flag(param)
        return list(super().parse_args(ctx, args))

    def invoke(self, ctx: Any) -> Any:
        from ._errors import reported

        with reported():
            return super().invoke(ctx)


class _App(typer.Typer):
    """The ``ocw-hub`` program: Ctrl-C at any moment ends it with one line and exit code 130,
    no traceback (:mod:`ocw_hub.interrupts`)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return run_interruptible(lambda: super(_App, self).__call__(*args, **kwargs))


app = _App(
    cls=_Commands,
    help=SUMMARY,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # the top-level help in click's plain layout: no rich import
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


__all__ = ["COMMANDS", "ONE_BLAS_THREAD", "app", "load_command", "one_blas_thread", "prose"]
