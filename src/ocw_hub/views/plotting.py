"""Drawing helpers of the report's plots: matplotlib figures without pyplot, rendered as
inline SVG (text as paths, ids salted, no date), the palette and bars of mean ± std."""

from __future__ import annotations

import html
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .report_data import ResultsFile, mean_std

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


def new_figure(ncols: int = 1, nrows: int = 1, width: float = 6.0, height: float = 3.6) -> Any:
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


def colour(index: int) -> str:
    """The colour of the ``index``-th results file."""
    return MODEL_COLOURS[index % len(MODEL_COLOURS)]


def bars(
    ax: Any,
    positions: Sequence[float],
    samples: Sequence[Sequence[float]],
    width: float,
    **style: Any,
) -> None:
    """Bars of the mean of each sample, std error bars and a dot per run when a sample has
    several values."""
    import numpy as np

    means = [mean_std(s)[0] if s else math.nan for s in samples]
    stds = [mean_std(s)[1] if len(s) > 1 else 0.0 for s in samples]
    many = any(len(s) > 1 for s in samples)
    ax.bar(positions, means, width, yerr=stds if many else None, capsize=3, **style)
    zero_marks(ax, positions, means, style.get("color", "black"))
    if many:
        rng = np.random.default_rng(SEED)
        for x, s in zip(positions, samples, strict=True):
            jitter = rng.uniform(-width / 4, width / 4, len(s))
            ax.plot(x + jitter, s, "o", ms=2.5, color="black", alpha=0.6, zorder=3)


def zero_marks(ax: Any, positions: Sequence[float], values: Sequence[float], color: str) -> None:
    """A thick dash on the axis where a bar's value is 0 (a bar of height 0 is invisible);
    drawn over the axis line, never clipped."""
    xs = [x for x, v in zip(positions, values, strict=True) if v == 0]
    if not xs:
        return
    ax.plot(xs, [0.0] * len(xs), "_", ms=8, mew=3, color=color, clip_on=False, zorder=4,
            gid="zero-mark")  # fmt: skip


def human_bars(ax: Any, positions: Sequence[float], values: Sequence[float], width: float) -> None:
    """The contestants' bars: grey, hatched (a 0 drawn as :func:`zero_marks`)."""
    ax.bar(
        positions,
        values,
        width,
        color=HUMAN_COLOUR,
        hatch=HUMAN_HATCH,
        edgecolor="white",
        label="human (contestants)",
    )
    zero_marks(ax, positions, values, HUMAN_COLOUR)


def file_bars(
    ax: Any,
    files: Sequence[ResultsFile],
    samples_of: Callable[[ResultsFile], Sequence[Sequence[float]]],
    width: float,
    shift: float,
    style: Callable[[int, ResultsFile], dict[str, Any]] | None = None,
) -> None:
    """One set of :func:`bars` per file at ``x + (i - shift) * width`` (``x`` = 0, 1, ...; ``i``
    the file's index), labelled with the file and coloured by :func:`colour` unless ``style``
    says otherwise."""
    for i, f in enumerate(files):
        samples = samples_of(f)
        pos = [p + (i - shift) * width for p in range(len(samples))]
        extra = style(i, f) if style else {"color": colour(i)}
        bars(ax, pos, samples, width, label=mpl_text(f.label), **extra)


def figure_legend(fig: Any, ax: Any) -> None:
    """One legend for the figure, right of the axes (never over a bar)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside right upper", fontsize=8, frameon=False)
