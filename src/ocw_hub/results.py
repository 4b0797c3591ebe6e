"""The results files ``ocw-hub evaluate --out`` writes: their shape, and the one reader that
checks it (with every figure's range, :mod:`ocw_hub.figure_ranges`) for ``compare``,
``report`` and the views."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import jsonio
from .configs import CONFIGS, ConfigSpec, PathLike, config_spec
from .errors import OCWHubError
from .figure_ranges import check_figures
from .shown import preview

_JSON_NAMES: dict[type, str] = {dict: "object", list: "list", str: "string"}


class ReportError(OCWHubError, ValueError):
    """A results file the report cannot read: not JSON, or not the shape ``ocw-hub evaluate
    --out`` writes (the message names the file and the field)."""


@dataclass(frozen=True)
class ResultsFile:
    """One results file: its runs (a single-run file is one run) and its label in the report.

    Attributes:
        path: the file.
        label: the column and legend name (the file stem; with the folder when two stems
            clash).
        data: the parsed JSON.
        runs: the single-run results it holds.
    """

    path: Path
    label: str
    data: dict[str, Any]
    runs: tuple[dict[str, Any], ...]

    @property
    def config(self) -> str:
        return str(self.data["config"])

    @property
    def split(self) -> str:
        return str(self.data["split"])

    @property
    def spec(self) -> ConfigSpec:
        """The :class:`~ocw_hub.configs.ConfigSpec` of its config."""
        return config_spec(self.config)

    @property
    def is_wote(self) -> bool:
        """Whether its figures are WoTe's extractive QA (``spans``), not OCW's tasks."""
        return "spans" in self.spec.tasks

    @property
    def stand_in(self) -> bool:
        """Whether the figures are on the pre-release stand-in (the results' ``source``)."""
        source = self.data.get("source")
        return isinstance(source, dict) and source.get("stand_in") is True

    @property
    def key(self) -> tuple[str, str]:
        """(config, split): files with the same key are compared in one table and plot."""
        return (self.config, self.split)


# --------------------------------------------------------------------------------------
# Reading results
# --------------------------------------------------------------------------------------


def _require(path: Path, data: Mapping[str, Any], key: str, kind: type, where: str = "") -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise ReportError(
            f"{path}: {where}`{key}` must be a JSON {_JSON_NAMES[kind]} (is this a results file "
            "written by `ocw-hub evaluate --out`?)"
        )
    return value


@dataclass(frozen=True)
class _List:
    """A non-empty JSON list of ``item``."""

    item: Any


@dataclass(frozen=True)
class _Map:
    """A JSON object with any keys (seasons, domains), each value ``value``."""

    value: Any


#: A figure: a number or a boolean (``full_wall`` of one wall).
FIGURE = "figure"
#: An object of figures.
FIGURES = "figures"
#: A number (not a boolean).
NUMBER = "number"
#: The contestants' figures: each a figure, or null where it does not exist (the whole-wall
#: figures of ``ocw_randomized``, whose test walls no contestant saw).
HUMAN = "human figures"
_HUMAN_FIGURE = "figure or null"

_WALL_GROUPING = {"ami": NUMBER, "correct_groups": NUMBER, "*": FIGURE}
_BREAKDOWN = {"grouping?": FIGURES, "connections?": FIGURES, "human?": HUMAN}
#: A play result's figures (``ocw-hub evaluate PLAY_LOG``, :mod:`ocw_hub.play.scoring`):
#: numbers or null, the counts by kind as objects of numbers, a wall's end reason.
_TEXT_OR_NULL = "string or null"
_PLAY = {
    "agreement?": _Map(NUMBER),
    "lives_lost_distribution?": _Map(NUMBER),
    "end_reasons?": _Map(NUMBER),
    "end?": _TEXT_OR_NULL,
    "*": _HUMAN_FIGURE,
}
_HUMAN_PLAY = {"play?": _PLAY, "*": _HUMAN_FIGURE}

#: What the report reads of one run, as ``ocw-hub evaluate --out`` writes it: a key ending in
#: ``?`` may be absent; ``"*": FIGURE`` allows further figures beside the ones named.
OCW_RUN = {
    "grouping?": FIGURES,
    "connections?": FIGURES,
    "groups?": HUMAN,  # figures, null where undefined (decoy_share without wrong groups)
    "human": _HUMAN_PLAY,
    "by_season": _Map(_BREAKDOWN),
    "per_wall": _List(
        {
            "wall_id": str,
            "grouping?": _WALL_GROUPING,
            "connections?": FIGURES,
            "human?": _HUMAN_PLAY,
            "play?": _PLAY,
        }
    ),
    "play?": _PLAY,
    "play_log?": {"rules": str, "player": str, "player_kind": str},
}
WOTE_RUN = {
    "spans": FIGURES,
    "per_question": _List({"id": str}),
    "by_question_type": _Map({"spans?": FIGURES}),
    "by_domain": _Map({"spans?": FIGURES}),
}

#: The run shape of each dataset (``ConfigSpec.dataset``).
RUN_SHAPES = {"ocw": OCW_RUN, "wote": WOTE_RUN}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shape_error(path: Path, field: str, expected: str, value: Any) -> ReportError:
    got = _JSON_NAMES.get(type(value), type(value).__name__)
    return ReportError(
        f"{path}: field `{field}`: expected {expected}, got {got} {preview(json_text(value))} "
        "(is this a results file written by `ocw-hub evaluate --out`?)"
    )


def json_text(value: Any) -> str:
    """``value`` as JSON text, for messages."""
    import json

    return json.dumps(value, ensure_ascii=False, default=str)[:200]


#: A leaf of a results file's shape: (accepts the value, what it expects, for the message).
_LEAVES: dict[Any, tuple[Any, str]] = {
    FIGURE: (lambda v: isinstance(v, (int, float)), "a number"),
    _HUMAN_FIGURE: (lambda v: v is None or isinstance(v, (int, float)), "a number or null"),
    NUMBER: (_is_number, "a number"),
    str: (lambda v: isinstance(v, str), "a string"),
    _TEXT_OR_NULL: (lambda v: v is None or isinstance(v, str), "a string or null"),
}


def _check_object(path: Path, value: Any, spec: dict[str, Any], field: str) -> None:
    if not isinstance(value, dict):
        raise _shape_error(path, field, "an object", value)
    for key, sub in spec.items():
        name = key.rstrip("?")
        inner = f"{field}.{name}" if field else name
        if key == "*":
            named = {k.rstrip("?") for k in spec}
            for other in value.keys() - named:
                _check_shape(path, value[other], sub, f"{field}.{other}" if field else other)
        elif name in value:
            _check_shape(path, value[name], sub, inner)
        elif not key.endswith("?"):
            raise ReportError(f"{path}: field `{inner}`: missing")


def _check_shape(path: Path, value: Any, spec: Any, field: str) -> None:
    """Check ``value`` against ``spec`` (:data:`OCW_RUN`); errors name the file and the field
    (``runs[0].per_wall[3].grouping.ami``)."""
    if spec in (FIGURES, HUMAN):
        _check_shape(path, value, {"*": FIGURE if spec == FIGURES else _HUMAN_FIGURE}, field)
    elif isinstance(spec, (str, type)) and spec in _LEAVES:
        accepts, expected = _LEAVES[spec]
        if not accepts(value):
            raise _shape_error(path, field, expected, value)
    elif isinstance(spec, _List):
        if not isinstance(value, list) or not value:
            raise _shape_error(path, field, "a non-empty list", value)
        for i, item in enumerate(value):
            _check_shape(path, item, spec.item, f"{field}[{i}]")
    elif isinstance(spec, _Map):
        if not isinstance(value, dict):
            raise _shape_error(path, field, "an object", value)
        for key, item in value.items():
            _check_shape(path, item, spec.value, f"{field}.{key}")
    else:
        _check_object(path, value, spec, field)


def _check_run(path: Path, run: Any, config: str, index: int | None) -> dict[str, Any]:
    where = f"runs[{index}]" if index is not None else ""
    if not isinstance(run, dict):
        raise _shape_error(path, where or "(top level)", "an object of results", run)
    spec = config_spec(config)
    _check_shape(path, run, RUN_SHAPES[spec.dataset], where)
    if not any(task in run for task in spec.tasks):
        prefix = f"{where}: " if where else ""
        tasks = " nor ".join(f"`{task}`" for task in spec.tasks)
        raise ReportError(f"{path}: {prefix}neither {tasks} figures")
    return run


def _read_one(path: Path) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    data = jsonio.read_json(path, ReportError, "results file")
    if not isinstance(data, dict):
        raise ReportError(f"{path}: expected a JSON object (a results file of `ocw-hub evaluate`)")
    config = _require(path, data, "config", str)
    if config not in CONFIGS:
        raise ReportError(f"{path}: unknown `config` {config!r}; expected one of {list(CONFIGS)}")
    _require(path, data, "split", str)
    spans = "spans" in config_spec(config).tasks
    check_figures(
        data, lambda field, why: ReportError(f"{path}: field `{field}`: {why}"), spans=spans
    )
    if "runs" in data:
        runs = _require(path, data, "runs", list)
        if not runs:
            raise ReportError(f"{path}: `runs` is empty")
        return data, tuple(_check_run(path, run, config, i) for i, run in enumerate(runs))
    return data, (_check_run(path, data, config, None),)


def _labels(paths: Sequence[Path]) -> list[str]:
    stems = [p.stem for p in paths]
    labels = [f"{p.parent.name}/{p.stem}" if stems.count(p.stem) > 1 else p.stem for p in paths]
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):
        seen[label] = seen.get(label, 0) + 1
        if labels.count(label) > 1:
            labels[i] = f"{label} ({seen[label]})"
    return labels


def read_results(paths: Sequence[PathLike]) -> list[ResultsFile]:
    """Read results files (each one run or several, as ``ocw-hub evaluate --out`` writes them).

    Raises:
        ReportError: no file given; a file is missing, not JSON, or not a results file (names
            the file and the field); the same file given twice.
    """
    if not paths:
        raise ReportError("no results file given")
    files = [Path(p) for p in paths]
    resolved = [f.resolve() for f in files]
    twice = sorted({str(f) for f, r in zip(files, resolved, strict=True) if resolved.count(r) > 1})
    if twice:
        raise ReportError(f"results file given twice: {', '.join(twice)}")
    out = []
    for path, label in zip(files, _labels(files), strict=True):
        data, runs = _read_one(path)
        out.append(ResultsFile(path, label, data, runs))
    return out


def by_key(files: Iterable[ResultsFile]) -> dict[tuple[str, str], list[ResultsFile]]:
    """The files grouped by (config, split), in first-seen order."""
    groups: dict[tuple[str, str], list[ResultsFile]] = {}
    for f in files:
        groups.setdefault(f.key, []).append(f)
    return groups


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation (``numpy.std``, as the multi-run results)."""
    import numpy as np

    array = np.asarray(values, dtype=float)
    return float(array.mean()), float(array.std())


def grouped_files(files: Sequence[ResultsFile]) -> list[ResultsFile]:
    """The files with grouping figures in some run."""
    return [f for f in files if any("grouping" in run for run in f.runs)]
