"""The HTML report of results files (``ocw-hub report``): one self-contained page.

Input: results JSON files as ``ocw-hub evaluate --out`` writes them (one run, or several runs
with ``mean`` and ``std``; see :func:`ocw_hub.scoring.runs.evaluate_files`). Several files are
several models (or configs) side by side; files of ``default`` and ``ocw_randomized`` are the
ablation side by side.

Output: one HTML file that needs nothing at view time: no script, no network, no web font;
the plots are inline SVG drawn by matplotlib (text drawn as paths, so the page looks the same
on every machine). It opens with the headline table (the rows of the terminal table of
``ocw-hub evaluate``, one column per results file, mean ± std over runs), then:

* OCW: model against human by season (full walls and correct groups, rates 0-1); the
  distribution of per-wall AMI and WD and of correct groups per wall; runs and models side by
  side (mean ± std over runs, each run a dot); the ablation (``default`` against
  ``ocw_randomized``); the hardest walls (lowest mean AMI over all runs) drawn as
  :mod:`ocw_hub.views.wall` draws a wall, with the prediction of the run that scored lowest on it;
  the embedding plot of one wall (t-SNE, perplexity 3, and PCA, both seeded) when a run's
  predictions folder holds ``embeddings.npz``;
* WoTe: exact match and F1 (0-100) by question type and by domain.

Drawing walls needs the gold walls, which results files do not hold: they are read from the
config's data (``walls`` argument; ``ocw-hub report --data-dir``), else from the ``datasets``
cache when the split was prepared there; without them the hardest walls are listed as a table
and the embedding plot is left out, with a note saying so. Every text from the inputs (labels,
wall ids, clues, connections) is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import jsonio
from ..configs import CONFIGS, PathLike
from ..errors import OCWHubError

#: Colours of results files in plots (Okabe-Ito, black last); the human figures are grey,
#: hatched.
MODEL_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
HUMAN_COLOUR = "#999999"
HUMAN_HATCH = "//"
#: Grouping figures shown side by side, with their labels (all on 0-1).
GROUPING_FIGURES = (
    ("ami", "AMI"),
    ("ari", "ARI"),
    ("fms", "FMS"),
    ("wd", "WD (lower is better)"),
    ("correct_groups_rate", "correct groups"),
    ("full_wall_rate", "full walls"),
)
CONNECTION_FIGURES = (("exact_match", "connections EM"), ("rouge1", "connections ROUGE-1"))
SPAN_FIGURES = (("exact_match", "exact match"), ("f1", "F1"))
#: The seed of the embedding plot's t-SNE and of the jitter of run dots.
SEED = 0


_JSON_NAMES = {dict: "object", list: "list", str: "string"}


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
    def is_wote(self) -> bool:
        return self.config == "wote"

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


def _check_run(path: Path, run: Any, config: str, index: int | None) -> dict[str, Any]:
    where = f"runs[{index}]: " if index is not None else ""
    if not isinstance(run, dict):
        raise ReportError(f"{path}: {where}expected an object of results")
    if config == "wote":
        _require(path, run, "spans", dict, where)
        _require(path, run, "per_question", list, where)
        _require(path, run, "by_question_type", dict, where)
        _require(path, run, "by_domain", dict, where)
    else:
        _require(path, run, "per_wall", list, where)
        _require(path, run, "human", dict, where)
        _require(path, run, "by_season", dict, where)
        if "grouping" not in run and "connections" not in run:
            raise ReportError(f"{path}: {where}neither `grouping` nor `connections` figures")
    return run


def _read_one(path: Path) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    data = jsonio.read_json(path, ReportError, "results file")
    if not isinstance(data, dict):
        raise ReportError(f"{path}: expected a JSON object (a results file of `ocw-hub evaluate`)")
    config = _require(path, data, "config", str)
    if config not in CONFIGS:
        raise ReportError(f"{path}: unknown `config` {config!r}; expected one of {list(CONFIGS)}")
    _require(path, data, "split", str)
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
    """Read results files (each one run or several; see the module docstring).

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


def _by_key(files: Iterable[ResultsFile]) -> dict[tuple[str, str], list[ResultsFile]]:
    groups: dict[tuple[str, str], list[ResultsFile]] = {}
    for f in files:
        groups.setdefault(f.key, []).append(f)
    return groups


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation (``numpy.std``, as the multi-run results)."""
    import numpy as np

    array = np.asarray(values, dtype=float)
    return float(array.mean()), float(array.std())


# --------------------------------------------------------------------------------------
# Headline table
# --------------------------------------------------------------------------------------


def _summary_rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    """The terminal table's rows of ``ocw-hub evaluate`` for one results file."""
    from ..scoring.runs import summary_rows

    return summary_rows(data)


def headline_rows(files: Sequence[ResultsFile]) -> tuple[list[str], list[list[str]]]:
    """The headline table of files of one config and split: the header and the rows.

    Columns: task, figure, one per file (its ``ocw-hub evaluate`` table's model column: one
    run's figure, or mean ± std over runs), and human (OCW; the same walls for every file).
    Rows are the union of the files' rows in first-seen order; a figure a file lacks is ``-``.
    """
    header = ["task", "figure", *(f.label for f in files)]
    wote = files[0].is_wote
    if not wote:
        header.append("human")
    table: dict[tuple[str, str], list[str]] = {}
    order: list[tuple[str, str]] = []
    for index, f in enumerate(files):
        previous = -1
        for row in _summary_rows(f.data):
            key = (row[0], row[1])
            if key not in table:
                order.insert(previous + 1, key)
                table[key] = ["-"] * (len(files) + (not wote))
            previous = order.index(key)
            table[key][index] = row[2]
            if not wote and len(row) > 3 and row[3] != "-":
                table[key][-1] = row[3]
    return header, [[task, figure, *table[(task, figure)]] for task, figure in order]


def _headline_html(files: Sequence[ResultsFile]) -> str:
    header, rows = headline_rows(files)
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in header)
    body = []
    for row in rows:
        cells = [f"<td>{html.escape(row[0])}</td>", f'<th scope="row">{html.escape(row[1])}</th>']
        for column, value in zip(header[2:], row[2:], strict=True):
            cells.append(
                f'<td class="num" data-column="{html.escape(column)}">{html.escape(value)}</td>'
            )
        body.append(
            f'<tr data-task="{html.escape(row[0])}" data-figure="{html.escape(row[1])}">'
            f"{''.join(cells)}</tr>"
        )
    config, split = files[0].key
    return (
        f'<table class="headline" data-config="{html.escape(config)}" '
        f'data-split="{html.escape(split)}"><caption>{html.escape(config)} / '
        f"{html.escape(split)}: the figures of <code>ocw-hub evaluate</code> (0-1 unless "
        "marked 0-100; totals are counts; several runs: mean ± std, population)</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


# --------------------------------------------------------------------------------------
# Plot helpers
# --------------------------------------------------------------------------------------


def _figure(ncols: int = 1, nrows: int = 1, width: float = 6.0, height: float = 3.6) -> Any:
    """A matplotlib Figure not registered with pyplot (no GUI backend, no global state: it is
    rendered by the SVG canvas on save)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [ax for row in axes for ax in row]


def mpl_text(text: Any) -> str:
    """Text for a matplotlib label: ``$`` escaped, so data never turns on math mode."""
    return str(text).replace("$", r"\$")


def svg_of(fig: Any, slug: str) -> str:
    """The figure as an inline ``<svg>`` element (no XML prologue; ids salted with ``slug``
    so several figures in one page never share an id; no date, so the output is
    reproducible)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": slug, "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


@dataclass(frozen=True)
class Plot:
    """A plot of the report: its id, title, one-line caption and figure."""

    slug: str
    title: str
    caption: str
    figure: Any

    def html(self) -> str:
        svg = svg_of(self.figure, self.slug)
        svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(self.title)}" ', 1)
        return (
            f'<figure class="plot" id="{html.escape(self.slug)}">'
            f"<h3>{html.escape(self.title)}</h3>{svg}"
            f"<figcaption>{html.escape(self.caption)}</figcaption></figure>"
        )


def _colour(index: int) -> str:
    return MODEL_COLOURS[index % len(MODEL_COLOURS)]


def _bars(
    ax: Any,
    positions: Sequence[float],
    samples: Sequence[Sequence[float]],
    width: float,
    **style: Any,
) -> None:
    """Bars of the mean of each sample, std error bars and a dot per run when a sample has
    several values."""
    import numpy as np

    means = [_mean_std(s)[0] if s else math.nan for s in samples]
    stds = [_mean_std(s)[1] if len(s) > 1 else 0.0 for s in samples]
    many = any(len(s) > 1 for s in samples)
    ax.bar(positions, means, width, yerr=stds if many else None, capsize=3, **style)
    if many:
        rng = np.random.default_rng(SEED)
        for x, s in zip(positions, samples, strict=True):
            jitter = rng.uniform(-width / 4, width / 4, len(s))
            ax.plot(x + jitter, s, "o", ms=2.5, color="black", alpha=0.6, zorder=3)


def _human_bars(ax: Any, positions: Sequence[float], values: Sequence[float], width: float) -> None:
    ax.bar(
        positions,
        values,
        width,
        color=HUMAN_COLOUR,
        hatch=HUMAN_HATCH,
        edgecolor="white",
        label="human (contestants)",
    )


def _legend(ax: Any, **kw: Any) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, frameon=False, **kw)


def _figure_legend(fig: Any, ax: Any) -> None:
    """One legend for the figure, right of the axes (never over a bar)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside right upper", fontsize=8, frameon=False)


# --------------------------------------------------------------------------------------
# OCW plots
# --------------------------------------------------------------------------------------


def _grouped_runs(files: Sequence[ResultsFile]) -> list[ResultsFile]:
    return [f for f in files if any("grouping" in run for run in f.runs)]


def _season_samples(f: ResultsFile, season: str, figure: str) -> list[float]:
    return [
        float(run["by_season"][season]["grouping"][figure])
        for run in f.runs
        if "grouping" in run["by_season"].get(season, {})
    ]


def plot_by_season(files: Sequence[ResultsFile]) -> Plot | None:
    """Model against human by season: full walls and correct groups (rates, 0-1), one bar per
    results file (mean ± std over runs) and the contestants' bar, side by side."""
    files = _grouped_runs(files)
    if not files:
        return None
    first = files[0].runs[0]["by_season"]
    seasons = sorted(first, key=lambda s: (len(s), s))
    bars = len(seasons) * (len(files) + 1)
    fig, axes = _figure(nrows=2, width=min(12.0, max(6.0, 0.2 * bars + 2)), height=3.2)
    width = 0.8 / (len(files) + 1)
    x = list(range(len(seasons)))
    panels = (("full_wall_rate", "full walls"), ("correct_groups_rate", "correct groups"))
    for ax, (figure, name) in zip(axes, panels, strict=True):
        for i, f in enumerate(files):
            samples = [_season_samples(f, s, figure) for s in seasons]
            pos = [p + (i - len(files) / 2) * width for p in x]
            _bars(ax, pos, samples, width, color=_colour(i), label=mpl_text(f.label))
        human = [float(first[s]["human"][figure]) for s in seasons]
        _human_bars(ax, [p + (len(files) / 2) * width for p in x], human, width)
        ax.set_xticks(x, [f"{s}\n({first[s]['n_walls']})" for s in seasons], fontsize=8)
        ax.set_xlabel("season (walls in the split)")
        ax.set_ylabel(f"{name} (rate, 0-1)")
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{name} per season")
    _figure_legend(fig, axes[0])
    config, split = files[0].key
    return Plot(
        f"season-{config}-{split}",
        f"Model against human by season ({config} / {split})",
        "Share of walls solved in full (top) and of groups found (bottom) per season, each "
        "model (mean ± std over runs, dots = runs) beside the contestants on the show.",
        fig,
    )


def _per_wall_values(f: ResultsFile, key: str) -> list[float]:
    return [
        float(wall["grouping"][key])
        for run in f.runs
        for wall in run["per_wall"]
        if "grouping" in wall
    ]


def _histogram(ax: Any, files: Sequence[ResultsFile], key: str, bins: Any) -> None:
    for i, f in enumerate(files):
        values = _per_wall_values(f, key)
        weights = [1.0 / len(values)] * len(values)
        ax.hist(
            values,
            bins=bins,
            weights=weights,
            histtype="step",
            linewidth=2,
            color=_colour(i),
            label=mpl_text(f.label),
        )


def _correct_groups_share(ax: Any, files: Sequence[ResultsFile]) -> None:
    width = 0.8 / (len(files) + 1)
    counts = range(5)
    for i, f in enumerate(files):
        values = _per_wall_values(f, "correct_groups")
        share = [sum(v == k for v in values) / len(values) for k in counts]
        pos = [k + (i - len(files) / 2) * width for k in counts]
        ax.bar(pos, share, width, color=_colour(i), label=mpl_text(f.label))
    walls = files[0].runs[0]["per_wall"]
    human = [int(w["human"]["correct_groups"]) for w in walls]
    share = [sum(v == k for v in human) / len(human) for k in counts]
    _human_bars(ax, [k + (len(files) / 2) * width for k in counts], share, width)
    ax.set_xticks(list(counts))


def plot_distributions(files: Sequence[ResultsFile]) -> Plot | None:
    """Distribution over walls of AMI, WD (histograms, share of walls) and correct groups per
    wall (0-4, beside the contestants'), all runs of a file pooled."""
    import numpy as np

    files = _grouped_runs(files)
    if not files:
        return None
    fig, axes = _figure(ncols=3, width=4.2)
    low = min(0.0, min(min(_per_wall_values(f, "ami")) for f in files))
    ami_bins = np.linspace(math.floor(low * 20) / 20, 1.0, int(round((1 - low) * 20)) + 1)
    _histogram(axes[0], files, "ami", ami_bins)
    axes[0].set_xlabel("AMI of a wall (at most 1; 1 = solved)")
    axes[0].set_title("AMI per wall")
    _histogram(axes[1], files, "wd", np.linspace(0, 1, 21))
    axes[1].set_xlabel("WD of a wall (0-1; 0 = solved)")
    axes[1].set_title("WD per wall")
    _correct_groups_share(axes[2], files)
    axes[2].set_xlabel("correct groups in a wall (0-4)")
    axes[2].set_title("correct groups per wall")
    for ax in axes:
        ax.set_ylabel("share of walls (0-1)")
        ax.set_ylim(0, 1.05)
    _figure_legend(fig, axes[2])
    config, split = files[0].key
    n_runs = max(len(f.runs) for f in files)
    return Plot(
        f"distribution-{config}-{split}",
        f"Per-wall figures ({config} / {split})",
        "How the figures spread over walls: AMI and WD per wall (histograms) and correct "
        f"groups per wall beside the contestants'; the walls of all runs pooled ({n_runs} "
        "run(s) per model at most).",
        fig,
    )


def _figure_samples(f: ResultsFile, task: str, key: str) -> list[float]:
    return [float(run[task][key]) for run in f.runs if task in run and key in run[task]]


def _side_by_side(
    ax: Any,
    files: Sequence[ResultsFile],
    figures: Sequence[tuple[str, str, str]],
    colours: Callable[[int, ResultsFile], dict[str, Any]],
) -> None:
    """Grouped bars: one group per (task, key, label) figure, one bar per file."""
    width = 0.8 / max(1, len(files))
    x = list(range(len(figures)))
    for i, f in enumerate(files):
        samples = [_figure_samples(f, task, key) for task, key, _ in figures]
        pos = [p + (i - (len(files) - 1) / 2) * width for p in x]
        _bars(ax, pos, samples, width, label=mpl_text(f.label), **colours(i, f))
    ax.set_xticks(x, [label for _, _, label in figures], fontsize=8, rotation=20, ha="right")


def _human_marks(ax: Any, f: ResultsFile, figures: Sequence[tuple[str, str, str]]) -> None:
    human = f.runs[0].get("human", {})
    xs = [i for i, (task, key, _) in enumerate(figures) if task == "grouping" and key in human]
    if xs:
        ys = [float(human[figures[i][1]]) for i in xs]
        ax.plot(xs, ys, "_", ms=28, mew=3, color="#555555", label="human (contestants)")


def _ocw_figures(files: Sequence[ResultsFile]) -> list[tuple[str, str, str]]:
    figures = [
        ("grouping", k, label)
        for k, label in GROUPING_FIGURES
        if any(_figure_samples(f, "grouping", k) for f in files)
    ]
    figures += [
        ("connections", k, label)
        for k, label in CONNECTION_FIGURES
        if any(_figure_samples(f, "connections", k) for f in files)
    ]
    return figures


def plot_runs(files: Sequence[ResultsFile]) -> Plot | None:
    """Runs and models side by side: every figure of each results file as mean ± std over its
    runs (each run a dot); OCW figures on 0-1 with the contestants' rates marked, WoTe exact
    match and F1 on 0-100. None unless there are several runs or files."""
    if sum(len(f.runs) for f in files) < 2:
        return None
    wote = files[0].is_wote
    figures = [("spans", k, label) for k, label in SPAN_FIGURES] if wote else _ocw_figures(files)
    fig, axes = _figure(width=max(6.0, 0.5 * len(figures) * len(files) + 2))
    ax = axes[0]
    _side_by_side(ax, files, figures, lambda i, f: {"color": _colour(i)})
    if not wote:
        _human_marks(ax, files[0], figures)
    ax.set_ylim(0, 105 if wote else 1.05)
    ax.set_ylabel("score (0-100)" if wote else "score (0-1)")
    ax.set_xlabel("figure")
    ax.set_title("mean ± std over runs (dots: runs)")
    _figure_legend(fig, ax)
    config, split = files[0].key
    return Plot(
        f"runs-{config}-{split}",
        f"Runs and models side by side ({config} / {split})",
        "Each results file's figures, mean ± standard deviation over its runs (population, as "
        "the evaluation reports them), each run a dot"
        + ("." if wote else "; grey dashes: the contestants' rates."),
        fig,
    )


def plot_ablation(files: Sequence[ResultsFile]) -> Plot | None:
    """``default`` against ``ocw_randomized`` (the red-herring ablation): the grouping
    figures of every file of either config side by side, hatched for the randomized walls.
    None unless files of both configs (one split) are given."""
    configs = {f.config for f in files}
    if not {"default", "ocw_randomized"} <= configs:
        return None
    chosen = [f for f in _grouped_runs(files) if f.config in ("default", "ocw_randomized")]
    chosen.sort(key=lambda f: (f.config != "default", f.label))
    if {f.config for f in chosen} != {"default", "ocw_randomized"}:
        return None
    figures = [("grouping", k, label) for k, label in GROUPING_FIGURES]
    fig, axes = _figure(width=max(7.0, 0.45 * len(figures) * len(chosen) + 2))
    ax = axes[0]

    def style(i: int, f: ResultsFile) -> dict[str, Any]:
        hatch = "xx" if f.config == "ocw_randomized" else None
        return {"color": _colour(i), "hatch": hatch, "edgecolor": "white"}

    labelled = [ResultsFile(f.path, f"{f.label} ({f.config})", f.data, f.runs) for f in chosen]
    _side_by_side(ax, labelled, figures, style)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score (0-1)")
    ax.set_xlabel("grouping figure")
    ax.set_title("default walls against randomized walls (hatched)")
    _figure_legend(fig, ax)
    splits = sorted({f.split for f in chosen})
    return Plot(
        "ablation",
        "Ablation: red herrings removed (default against ocw_randomized)",
        "The same figures on the released walls and on walls rebuilt from groups of different "
        f"walls (split {', '.join(splits)}); mean ± std over runs, dots = runs.",
        fig,
    )


# --------------------------------------------------------------------------------------
# WoTe plots
# --------------------------------------------------------------------------------------


def _breakdown_samples(f: ResultsFile, part: str, name: str, key: str) -> list[float]:
    return [
        float(run[part][name]["spans"][key])
        for run in f.runs
        if name in run.get(part, {}) and "spans" in run[part][name]
    ]


def _breakdown_axis(ax: Any, files: Sequence[ResultsFile], part: str, key: str) -> None:
    names = sorted({name for f in files for run in f.runs for name in run.get(part, {})})
    width = 0.8 / len(files)
    for i, f in enumerate(files):
        samples = [_breakdown_samples(f, part, name, key) for name in names]
        pos = [p + (i - (len(files) - 1) / 2) * width for p in range(len(names))]
        _bars(ax, pos, samples, width, color=_colour(i), label=mpl_text(f.label))
    sizes = files[0].runs[0].get(part, {})
    labels = [f"{mpl_text(n)}\n({sizes.get(n, {}).get('n_questions', '?')})" for n in names]
    ax.set_xticks(list(range(len(names))), labels, fontsize=8, rotation=30, ha="right")
    ax.set_ylim(0, 105)


def plot_wote_breakdown(files: Sequence[ResultsFile]) -> Plot | None:
    """WoTe exact match and F1 (0-100) by question type and by domain, one bar per results
    file (mean ± std over runs)."""
    files = [f for f in files if f.is_wote]
    if not files:
        return None
    fig, axes = _figure(ncols=2, nrows=2, width=5.5, height=3.4)
    panels = (
        ("by_question_type", "question type"),
        ("by_domain", "domain"),
    )
    for row, (part, name) in enumerate(panels):
        for col, (key, label) in enumerate(SPAN_FIGURES):
            ax = axes[2 * row + col]
            _breakdown_axis(ax, files, part, key)
            ax.set_xlabel(f"{name} (questions)")
            ax.set_ylabel(f"{label} (0-100)")
            ax.set_title(f"{label} by {name}")
    _figure_legend(fig, axes[1])
    config, split = files[0].key
    return Plot(
        f"wote-{config}-{split}",
        f"WoTe: exact match and F1 by question type and by domain ({split})",
        "SQuAD v1.1 exact match and F1 (0-100) of each results file per question type (a "
        "question of several types counts in each) and per domain; mean ± std over runs.",
        fig,
    )


# --------------------------------------------------------------------------------------
# Hardest walls and the embedding plot
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HardWall:
    """A wall ranked by its mean AMI over every run of every file of one config and split."""

    wall_id: str
    season: Any
    mean_ami: float
    std_ami: float
    n_runs: int
    mean_correct: float
    human_correct: int | None
    worst: tuple[ResultsFile, dict[str, Any], float]  # (file, run, AMI) of the lowest run


def _wall_scores(
    files: Sequence[ResultsFile],
) -> dict[str, list[tuple[ResultsFile, dict[str, Any], dict[str, Any]]]]:
    scores: dict[str, list[tuple[ResultsFile, dict[str, Any], dict[str, Any]]]] = {}
    for f in files:
        for run in f.runs:
            for wall in run["per_wall"]:
                if "grouping" in wall:
                    scores.setdefault(wall["wall_id"], []).append((f, run, wall))
    return scores


def hardest_walls(files: Sequence[ResultsFile], n: int = 5) -> list[HardWall]:
    """The ``n`` walls with the lowest mean AMI over all runs of the files (one config and
    split), ties broken by wall id."""
    ranked = []
    for wall_id, entries in _wall_scores(files).items():
        amis = [float(w["grouping"]["ami"]) for _, _, w in entries]
        mean, std = _mean_std(amis)
        f, run, w = min(entries, key=lambda e: float(e[2]["grouping"]["ami"]))
        human = w.get("human", {}).get("correct_groups")
        correct = [float(e[2]["grouping"]["correct_groups"]) for e in entries]
        ranked.append(
            HardWall(
                wall_id,
                w.get("season"),
                mean,
                std,
                len(amis),
                sum(correct) / len(correct),
                human,
                (f, run, float(w["grouping"]["ami"])),
            )
        )
    ranked.sort(key=lambda h: (h.mean_ami, h.wall_id))
    return ranked[:n]


def resolve_predictions(run: Mapping[str, Any], results_path: Path) -> Path | None:
    """The predictions file of a run (its ``predictions`` path as evaluated: absolute, else
    relative to the working folder or to the results file's folder), or None if not found."""
    given = run.get("predictions")
    if not isinstance(given, str) or not given:
        return None
    path = Path(given)
    candidates = [path] if path.is_absolute() else [path, results_path.parent / path]
    return next((c for c in candidates if c.is_file()), None)


class _Predictions:
    """Predictions files read once each (the report draws several walls of one run)."""

    def __init__(self) -> None:
        self._read: dict[tuple[Path, str], dict[str, Any] | None] = {}

    def get(self, path: Path | None, config: str, wall_id: str) -> Any:
        if path is None:
            return None
        key = (path.resolve(), config)
        if key not in self._read:
            from ..scoring.predictions import read_predictions

            try:
                self._read[key] = read_predictions(path, config)
            except OCWHubError:
                self._read[key] = None
        found = self._read[key]
        return None if found is None else found.get(wall_id)


def _hard_wall_table(hard: Sequence[HardWall]) -> str:
    rows = "".join(
        "<tr>"
        f"<td>{html.escape(h.wall_id)}</td><td>{html.escape(str(h.season))}</td>"
        f'<td class="num">{h.mean_ami:.4f} ± {h.std_ami:.4f}</td><td class="num">{h.n_runs}</td>'
        f'<td class="num">{h.mean_correct:.2f}</td>'
        f'<td class="num">{"-" if h.human_correct is None else h.human_correct}</td>'
        f"<td>{html.escape(h.worst[0].label)} / {html.escape(str(h.worst[1].get('run', '')))} "
        f"(AMI {h.worst[2]:.4f})</td></tr>"
        for h in hard
    )
    return (
        '<table class="hardest"><thead><tr><th>wall</th><th>season</th>'
        "<th>AMI, mean ± std</th><th>runs</th><th>correct groups, mean (0-4)</th>"
        "<th>contestants' correct groups (0-4)</th><th>lowest run</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _hard_wall_views(
    hard: Sequence[HardWall], rows: Mapping[str, Mapping[str, Any]], predictions: _Predictions
) -> list[str]:
    from .wall import Wall

    out = []
    for h in hard:
        row = rows.get(h.wall_id)
        if row is None:
            continue
        f, run, ami = h.worst
        prediction = predictions.get(resolve_predictions(run, f.path), f.config, h.wall_id)
        wall = Wall.from_row(row, prediction, config=f.config, split=f.split)
        note = (
            f"mean AMI {h.mean_ami:.4f} ± {h.std_ami:.4f} over {h.n_runs} runs; shown: the "
            f"prediction of {f.label} / {run.get('run', '?')} (AMI {ami:.4f})"
            if prediction is not None
            else "the gold wall only: the predictions file of its lowest run was not found"
        )
        out.append(
            f'<div class="wall-card"><p class="note">{html.escape(note)}</p>{wall.to_html()}</div>'
        )
    return out


def _hardest_section(
    files: Sequence[ResultsFile],
    rows: Mapping[str, Mapping[str, Any]] | None,
    n: int,
    predictions: _Predictions,
) -> str:
    hard = hardest_walls(_grouped_runs(files), n)
    if not hard:
        return ""
    config, split = files[0].key
    parts = [
        f'<section class="hardest-walls" id="hardest-{html.escape(config)}-{html.escape(split)}">'
        f"<h3>The hardest walls ({html.escape(config)} / {html.escape(split)})</h3>"
        f"<p>The {len(hard)} walls with the lowest AMI averaged over every run of every "
        "results file; drawn with the prediction of the run that scored lowest on each "
        "(clues in their gold group's colour and number, ✗ = misplaced).</p>",
        _hard_wall_table(hard),
    ]
    if rows is None:
        parts.append(
            '<p class="note">The walls are not drawn: the gold walls are not in results files; '
            "give the config's data (<code>ocw-hub report --data-dir</code>) to draw them.</p>"
        )
    else:
        parts.extend(_hard_wall_views(hard, rows, predictions))
    parts.append("</section>")
    return "".join(parts)


def _vectors_of(run: Mapping[str, Any], f: ResultsFile) -> Path | None:
    predictions = resolve_predictions(run, f.path)
    if predictions is None:
        return None
    npz = predictions.parent / "embeddings.npz"
    return npz if npz.is_file() else None


def _clue_groups(clues: Sequence[str], groups: Sequence[Sequence[str]]) -> list[int | None]:
    """The group index of each clue (lowercased), each group's occurrences used once (a clue
    held twice takes one group per occurrence)."""
    left = [[c.lower() for c in g] for g in groups]
    out: list[int | None] = []
    for clue in clues:
        found = next((g for g, members in enumerate(left) if clue.lower() in members), None)
        if found is not None:
            left[found].remove(clue.lower())
        out.append(found)
    return out


def _projections(vectors: Any) -> list[tuple[str, Any, tuple[str, str]]]:
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE

    tsne = TSNE(n_components=2, perplexity=3, random_state=SEED, init="pca").fit_transform(vectors)
    pca = PCA(n_components=2, random_state=SEED).fit(vectors)
    share = pca.explained_variance_ratio_ * 100
    return [
        ("t-SNE (perplexity 3)", tsne, ("t-SNE 1 (arbitrary units)", "t-SNE 2 (arbitrary units)")),
        (
            "PCA",
            pca.transform(vectors),
            (f"PC 1 ({share[0]:.0f}% of variance)", f"PC 2 ({share[1]:.0f}% of variance)"),
        ),
    ]


_MARKERS = ("o", "s", "^", "D")


def _scatter(
    ax: Any, points: Any, clues: Sequence[str], gold: Sequence, predicted: Sequence
) -> None:
    from .wall import GROUP_COLOURS

    for k, (x, y) in enumerate(points):
        colour = GROUP_COLOURS[gold[k]] if gold[k] is not None else HUMAN_COLOUR
        marker = _MARKERS[predicted[k]] if predicted[k] is not None else "x"
        ax.scatter([x], [y], c=[colour], marker=marker, s=60, edgecolors="black", linewidths=0.5)
        ax.annotate(
            mpl_text(clues[k]), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points"
        )


def _embedding_legend(fig: Any, ax: Any) -> None:
    from matplotlib.lines import Line2D

    from .wall import GROUP_COLOURS

    handles = [
        Line2D([], [], marker="o", ls="", color=c, label=f"gold group {g + 1}")
        for g, c in enumerate(GROUP_COLOURS)
    ]
    handles += [
        Line2D([], [], marker=m, ls="", color="black", mfc="white", label=f"predicted {p + 1}")
        for p, m in enumerate(_MARKERS)
    ]
    fig.legend(handles=handles, fontsize=7, frameon=False, loc="outside right upper")


def _wall_ami(run: Mapping[str, Any], wall_id: str) -> float:
    for wall in run["per_wall"]:
        if wall["wall_id"] == wall_id and "grouping" in wall:
            return float(wall["grouping"]["ami"])
    return math.inf


def _npz_keys(npz: Path) -> set[str]:
    """The wall ids of an ``embeddings.npz``; empty when it cannot be read as one (a report
    never fails on a sidecar file)."""
    import zipfile

    import numpy as np

    try:
        with np.load(npz, allow_pickle=False) as archive:
            return set(archive.files)
    except (OSError, ValueError, zipfile.BadZipFile):
        return set()


def _chosen_vectors(
    f: ResultsFile, rows: Mapping[str, Any], candidates: Sequence[str]
) -> tuple[dict[str, Any], str, Any] | None:
    """(run, wall id, 16 x d vectors) for the embedding plot: the first candidate wall with
    vectors and a gold wall; of the runs that kept its vectors, the one with its lowest AMI."""
    import numpy as np

    found: list[tuple[dict[str, Any], Path]] = [
        (run, npz) for run in f.runs if (npz := _vectors_of(run, f)) is not None
    ]
    archives = {npz: _npz_keys(npz) for _, npz in found}
    for wall_id in candidates:
        runs = [(r, npz) for r, npz in found if wall_id in archives[npz] and wall_id in rows]
        if not runs:
            continue
        run, npz = min(runs, key=lambda item: _wall_ami(item[0], wall_id))
        with np.load(npz, allow_pickle=False) as archive:
            vectors = np.asarray(archive[wall_id], dtype=float)
        if vectors.ndim == 2 and len(vectors) == len(rows[wall_id]["words"]):
            return run, wall_id, vectors
    return None


def plot_embeddings(
    f: ResultsFile,
    rows: Mapping[str, Mapping[str, Any]],
    wall_id: str | None,
    order: Sequence[str],
    predictions: _Predictions,
) -> Plot | None:
    """The paper's plot of one wall's 16 clue embeddings (2-D t-SNE, perplexity 3, and PCA,
    seeded): colour = gold group, marker = predicted group. The wall is ``wall_id`` when
    given, else the first of ``order`` (hardest first) in the ``embeddings.npz`` beside a run's
    predictions (keys: wall ids; values: 16 x d vectors in the order of the wall's ``words``);
    the run is the one that scored lowest on it. None when no run of ``f`` kept its vectors or
    the wall is not there."""
    chosen = _chosen_vectors(f, rows, [wall_id] if wall_id else order)
    if chosen is None:
        return None
    run, wall_id, vectors = chosen
    row = rows[wall_id]
    clues = [str(c) for c in row["words"]]
    gold = _clue_groups(clues, [g["gt_words"] for _, g in sorted(row["groups"].items())])
    prediction = predictions.get(resolve_predictions(run, f.path), f.config, wall_id)
    groups = getattr(prediction, "groups", None) or []
    predicted = _clue_groups(clues, groups) if groups else [None] * len(clues)
    fig, axes = _figure(ncols=2, width=5.0, height=4.2)
    for ax, (name, points, (xlabel, ylabel)) in zip(axes, _projections(vectors), strict=True):
        _scatter(ax, points, clues, gold, predicted)
        ax.set_title(f"{name}: wall {mpl_text(wall_id)}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    _embedding_legend(fig, axes[1])
    return Plot(
        f"embeddings-{f.label}-{wall_id}",
        f"Clue embeddings of wall {wall_id} ({f.label}, {run.get('run', '')})",
        "The wall's 16 clue vectors of the embedding baseline in 2-D (t-SNE left, PCA right; "
        f"seed {SEED}): colour = gold group, marker = the group the run predicted "
        "(x: not placed).",
        fig,
    )


# --------------------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;
margin:1.5em auto;max-width:75em;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.1em}
table{border-collapse:collapse;margin:0.8em 0}
table.headline td,table.headline th,table.hardest td,table.hardest th,table.inputs td,
table.inputs th{border:1px solid #ccc;padding:0.25em 0.6em}
table.headline thead th,table.hardest thead th,table.inputs thead th{background:#f0f0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{text-align:left;font-weight:bold;margin-bottom:0.3em}
th[scope=row]{text-align:left;font-weight:normal}
figure.plot{margin:1.5em 0;overflow-x:auto}figure.plot svg{max-width:100%;height:auto}
figcaption{font-size:0.9em;color:#444}.note{color:#555;font-size:0.9em}
.wall-card{margin:1em 0;padding:0.5em;border:1px solid #ddd;border-radius:6px;overflow-x:auto}
.scroll{overflow-x:auto}
"""


def _inputs_table(files: Sequence[ResultsFile]) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(f.label)}</td><td>{html.escape(f.path.name)}</td>"
        f"<td>{html.escape(f.config)}</td><td>{html.escape(f.split)}</td>"
        f'<td class="num">{len(f.runs)}</td></tr>'
        for f in files
    )
    return (
        '<table class="inputs"><thead><tr><th>label</th><th>results file</th><th>config</th>'
        f"<th>split</th><th>runs</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _plots_of(group: Sequence[ResultsFile]) -> list[Plot | None]:
    if group[0].is_wote:
        return [plot_runs(group), plot_wote_breakdown(group)]
    return [plot_by_season(group), plot_distributions(group), plot_runs(group)]


def _group_section(
    group: Sequence[ResultsFile],
    walls: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
    n_hardest: int,
    wall_id: str | None,
    predictions: _Predictions,
) -> str:
    config, split = group[0].key
    parts = [f"<h2 id=\"{html.escape(config)}-{html.escape(split)}\">{html.escape(config)} / "
             f"{html.escape(split)}</h2>"]  # fmt: skip
    parts += [plot.html() for plot in _plots_of(group) if plot is not None]
    if group[0].is_wote:
        return "".join(parts)
    given = walls.get((config, split))
    rows = {str(r["wall_id"]): r for r in given} if given is not None else None
    parts.append(_hardest_section(group, rows, n_hardest, predictions))
    order = [h.wall_id for h in hardest_walls(_grouped_runs(group), n=10**9)]
    for f in group:
        if rows is None:
            if any(_vectors_of(run, f) for run in f.runs):
                parts.append(
                    f'<p class="note">{html.escape(f.label)} kept its clue vectors; give the '
                    "config's data (--data-dir) to plot them by gold group.</p>"
                )
            continue
        plot = plot_embeddings(f, rows, wall_id, order, predictions)
        if plot is not None:
            parts.append(plot.html())
    return "".join(parts)


def build_report(
    results: Sequence[PathLike | ResultsFile],
    *,
    walls: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]] | None = None,
    n_hardest: int = 5,
    wall_id: str | None = None,
    title: str = "ocw-hub report",
) -> str:
    """The report of results files as one self-contained HTML page (see the module docstring).

    Args:
        results: results files (paths, or :class:`ResultsFile` from :func:`read_results`).
        walls: gold walls (rows as the OCW builders yield them) by (config, split), to draw the
            hardest walls and the embedding plot; a (config, split) not given is listed only.
        n_hardest: how many of the hardest walls to show.
        wall_id: the wall of the embedding plot (default: the hardest one with vectors).
        title: the page's title.

    Raises:
        ReportError: see :func:`read_results`.
    """
    from .. import __version__

    paths = [r for r in results if not isinstance(r, ResultsFile)]
    files = [r for r in results if isinstance(r, ResultsFile)] + (
        read_results(paths) if paths else []
    )
    groups = _by_key(files)
    predictions = _Predictions()
    body = [f"<h1>{html.escape(title)}</h1>", _inputs_table(files)]
    body.append('<h2 id="headline">Headline figures</h2>')
    body += [f'<div class="scroll">{_headline_html(g)}</div>' for g in groups.values()]
    ablation = plot_ablation(files)
    for group in groups.values():
        body.append(_group_section(group, walls or {}, n_hardest, wall_id, predictions))
    if ablation is not None:
        body += ['<h2 id="ablation-section">Ablation</h2>', ablation.html()]
    body.append(
        f'<p class="note">Written by ocw-hub {html.escape(__version__)}; the page holds '
        "everything it shows (no script, no network).</p>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )


def load_walls(
    files: Sequence[ResultsFile],
    data_dirs: Mapping[str, PathLike | None],
    *,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The gold walls of every OCW (config, split) of the files: from ``data_dirs[config]``
    (or ``data_dirs["*"]``, allowed when the files hold one OCW config only) when given
    (:func:`ocw_hub.data.sources.load_split`), else from the ``datasets`` cache when the split was
    prepared there (never a download).

    Raises:
        ReportError: ``data_dirs["*"]`` with files of several OCW configs (``default`` and
            ``ocw_randomized`` hold different test walls: each needs its own folder).
        SourceUnavailableError, UnknownSplitError, format errors: a given data folder cannot be
            read.
    """
    from ..data.sources import load_split, prepared_split

    keys = list(_by_key(f for f in files if not f.is_wote))
    unnamed = sorted({c for c, _ in keys if c not in data_dirs})
    if "*" in data_dirs and len({c for c, _ in keys}) > 1 and unnamed:
        raise ReportError(
            f"results of several configs ({', '.join(sorted({c for c, _ in keys}))}): give each "
            f"its data as CONFIG=DIR (missing: {', '.join(unnamed)}); their walls differ"
        )
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for config, split in keys:
        data_dir = data_dirs.get(config, data_dirs.get("*"))
        if data_dir is not None:
            dataset = load_split(
                config, split, data_dir, cache_dir=cache_dir, verification_mode=verification_mode
            )
        else:
            dataset = prepared_split(config, split, cache_dir=cache_dir)
        if dataset is not None:
            out[(config, split)] = dataset.to_list()
    return out
