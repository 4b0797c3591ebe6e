"""Exceptions of ocw-hub: one base class for every error a user can fix.

The core raises these with the facts a message needs (the config, the file, the wall or question
id, the field); the CLI prints them as one line and exits with the class's ``exit_code``, in one
place (:mod:`ocw_hub.cli._errors`), and catches nothing else, so a bug keeps its traceback.
The loading scripts ``OCW.py`` and ``WoTe.py`` and their sibling modules do not import ocw_hub
(they run on the Hub without it), so their ``OCWFormatError`` and ``WoTeFormatError``
(``ocw_walls.py``, ``wote_questions.py``) are ``ValueError`` subclasses of their own; the CLI
treats them as user errors too.
"""

from __future__ import annotations


class OCWHubError(Exception):
    """Base class of every error a user can fix by changing an input or an option.

    Attributes:
        exit_code: the exit code of ``ocw-hub`` when this error ends it.
    """

    exit_code = 1


class OptionError(OCWHubError, ValueError):
    """A command-line option, or a combination of options, that cannot be used; the message
    names the option (raised by :mod:`ocw_hub.cli` only)."""


class SourceUnavailableError(OCWHubError, OSError):
    """A config's source data could not be had: a local ``data_dir`` that does not exist, or no
    ``data_dir`` and the official download failed (offline, dead link).

    Attributes:
        config: the public config name (``default``, ``ocw_randomized``, ``ocw_wordnet``,
            ``wote``).
        data_dir: the local source that was given, or None (the official download).
    """

    def __init__(self, message: str, *, config: str, data_dir: str | None = None) -> None:
        super().__init__(message)
        self.config = config
        self.data_dir = data_dir


class WrongSourceError(OCWHubError, ValueError):
    """A source that is not the config's own: the main OCW release given as the ``data_dir`` of
    an ablation config (``ocw_randomized``, ``ocw_wordnet``), told by its content (the loading
    script's ``OCWSourceError``: its test split is the main release's).

    Attributes:
        config: the public config name.
        data_dir: the source that was given.
    """

    def __init__(self, message: str, *, config: str, data_dir: str | None = None) -> None:
        super().__init__(message)
        self.config = config
        self.data_dir = data_dir


class PredictionsError(OCWHubError, ValueError):
    """A predictions (or responses) file that cannot be scored: the message names the file, the
    wall or question ids and the field."""


class PlayLogError(PredictionsError):
    """A play log (``ocw_play``'s, the play page's) that cannot be resumed or scored: the
    message names the file, the line, the wall id and the field."""


class MixedRunsError(PredictionsError):
    """Predictions files given together as runs of one model whose protocol records differ
    (or are missing): the message names the files of each protocol."""


class ExportError(OCWHubError, ValueError):
    """An export or Space folder that the Hub viewer (or a Space) could not use as it is, or an
    export folder that is not safe to write or publish."""


class BaselineError(OCWHubError, ValueError):
    """Input the baselines cannot use: a config that is not OCW, a wall without 16 clues, a bad
    number of runs or jobs; the message names the wall id and the field."""


class OutputPathError(OCWHubError, ValueError):
    """An output path that cannot be written safely (a folder where a file is expected, an input
    of the same command, a path under a file); checked before any work is done."""


class ChoiceError(OCWHubError, ValueError):
    """An argument given a value it does not take.

    Attributes:
        parameter: the argument (``rouge_tokenizer``).
        value: the value given.
        choices: the values it takes.
    """

    def __init__(self, parameter: str, value: object, choices: tuple[str, ...]) -> None:
        super().__init__(f"{parameter} {value!r}: expected one of {list(choices)}")
        self.parameter = parameter
        self.value = value
        self.choices = choices


class UnknownSplitError(OCWHubError, ValueError):
    """A split name the config does not have.

    Attributes:
        config: the public config name.
        split: the split asked for.
        splits: the config's splits.
    """

    def __init__(self, config: str, split: str, splits: tuple[str, ...]) -> None:
        super().__init__(f"split {split!r}: config {config!r} has splits {list(splits)}")
        self.config = config
        self.split = split
        self.splits = splits


class MissingExtraError(OCWHubError, ImportError):
    """A feature whose optional extra is not installed.

    Attributes:
        extra: the extra to install (``baselines``, ``encoders``, ``llm``, ``report``,
            ``bertscore``).
        module: the module that could not be imported.
    """

    def __init__(self, message: str, *, extra: str = "", module: str = "") -> None:
        super().__init__(message)
        self.extra = extra
        self.module = module


class GenerationProfileError(OCWHubError, ValueError):
    """Generation fields that cannot be sent together: an option the chosen profile does not
    take (``--temperature`` with ``--profile reasoning``), a missing token budget, a value out
    of range, an unknown profile or reasoning effort; the message names the option
    (:mod:`ocw_hub.llm.profiles`).

    Attributes:
        option: the command-line option at fault (``--temperature``).
    """

    def __init__(self, message: str, *, option: str) -> None:
        super().__init__(message)
        self.option = option


class SliceError(OCWHubError, ValueError):
    """A slice of walls (``seasons``, ``aired_after``) that cannot be taken: a config without
    seasons (WoTe), a malformed season list or date, or no wall of the split in the slice.

    Attributes:
        parameter: the argument at fault (``seasons``, ``aired_after``), or None.
    """

    def __init__(self, message: str, parameter: str | None = None) -> None:
        super().__init__(message if parameter is None else f"{parameter} {message}")
        self.parameter = parameter
        self.detail = message


class SeasonDatesError(SliceError):
    """``aired_after`` on a source whose season dates cannot be had: the release's
    ``season_to_walls_map`` is not in the source (an export, the Hub, the cache) or its dates
    are null (the stand-in).

    Attributes:
        date: the date asked for (``YYYY-MM-DD``).
        reason: why the walls' air dates are not known.
    """

    def __init__(self, date: str, reason: str) -> None:
        super().__init__(f"{date}: {reason}", "aired_after")
        self.date = date
        self.reason = reason
