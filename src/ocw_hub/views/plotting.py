"""Drawing helpers of the report's plots: matplotlib figures without pyplot, rendered as
inline SVG (text as paths, ids salted, no date), the palette and bars of mean ± std."""

from __future__ import annotations

import html
import io
import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..results import ResultsFile, mean_std

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
            f"<h3>{html.escape(self.title)}</h3>{svg}{legend_html(self.figure)}"
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
    ax.plot(
        xs, [0.0] * len(xs), "_", ms=8, mew=3, color=color, clip_on=False, zorder=4, gid="zero-mark"
    )


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


#: The legend entries of figures, written by :meth:`Plot.html` as HTML text beside the SVG.
_LEGENDS: weakref.WeakKeyDictionary[Any, list[tuple[str, Any]]] = weakref.WeakKeyDictionary()
#: Legend symbols of matplotlib markers.
_MARKER_SYMBOLS = {"o": "●", "s": "■", "^": "▲", "D": "◆", "_": "▬", "x": "✕"}
_HOLLOW = {"●": "○", "■": "□", "▲": "△", "◆": "◇"}


def figure_legend(fig: Any, ax: Any = None, handles: Sequence[Any] | None = None) -> None:
    """The figure's legend: the labelled artists of ``ax`` (or ``handles``), kept for
    :meth:`Plot.html`, which writes them as HTML text beside the SVG, so a label in any script
    is drawn by the page's fonts (none is drawn into the SVG, where matplotlib's fonts would
    show missing glyphs as boxes)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    else:
        labels = [h.get_label() for h in handles]
    _LEGENDS[fig] = list(zip(labels, handles, strict=True))


def _swatch(handle: Any) -> dict[str, str]:
    from matplotlib.colors import to_hex

    artist = handle.patches[0] if getattr(handle, "patches", None) else handle
    if hasattr(artist, "get_marker"):  # a line's marker: its symbol, hollow when white-filled
        symbol = _MARKER_SYMBOLS.get(str(artist.get_marker()), "●")
        if str(artist.get_markerfacecolor()) == "white":
            symbol = _HOLLOW.get(symbol, symbol)
        return {"colour": to_hex(artist.get_color()), "symbol": symbol, "hatched": ""}
    colour = artist.get_facecolor() if artist.get_fill() else artist.get_edgecolor()
    return {"colour": to_hex(colour), "symbol": "", "hatched": "1" if artist.get_hatch() else ""}


def legend_entries(fig: Any) -> list[tuple[str, dict[str, str]]]:
    """The legend of a figure as ``(label, swatch)``: ``swatch`` has ``colour`` (hex),
    ``symbol`` (a marker's character, or empty for a patch) and ``hatched`` ("1" or "")."""
    return [(label.replace("\\$", "$"), _swatch(h)) for label, h in _LEGENDS.get(fig, [])]


def legend_html(fig: Any) -> str:
    """The figure's legend as an HTML list (empty without entries)."""
    items = []
    for label, swatch in legend_entries(fig):
        colour = html.escape(swatch["colour"])
        if swatch["symbol"]:
            mark = f'<span class="symbol" style="color:{colour}">{swatch["symbol"]}</span>'
        else:
            hatched = " hatched" if swatch["hatched"] else ""
            mark = f'<span class="swatch{hatched}" style="background-color:{colour}"></span>'
        items.append(f"<li>{mark}{html.escape(label)}</li>")
    return f'<ul class="legend">{"".join(items)}</ul>' if items else ""
