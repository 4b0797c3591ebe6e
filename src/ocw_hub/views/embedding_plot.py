"""The report's embedding plot: one wall's 16 clue vectors (``embeddings.npz`` beside a run's
predictions) in 2-D by t-SNE and PCA, coloured by gold group, marked by predicted group."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..results import ResultsFile
from .plotting import HUMAN_COLOUR, SEED, Plot, figure_legend, mpl_text, new_figure
from .report_data import PredictionsCache, resolve_predictions


def vectors_of(run: Mapping[str, Any], f: ResultsFile) -> Path | None:
    """The ``embeddings.npz`` beside a run's predictions file, or None."""
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
    ax: Any,
    points: Any,
    clues: Sequence[str],
    gold: Sequence,
    predicted: Sequence,
    gid: str,
) -> list[Any]:
    """The clues' points and their labels (annotations with SVG ids ``<gid>-<k>``, placed
    later by :func:`place_labels`)."""
    from .wall_render import GROUP_COLOURS

    labels = []
    for k, (x, y) in enumerate(points):
        colour = GROUP_COLOURS[gold[k]] if gold[k] is not None else HUMAN_COLOUR
        marker = _MARKERS[predicted[k]] if predicted[k] is not None else "x"
        ax.scatter([x], [y], c=[colour], marker=marker, s=60, edgecolors="black", linewidths=0.5)
        label = ax.annotate(
            mpl_text(clues[k]), (x, y), fontsize=7, xytext=(4, 4), textcoords="offset points"
        )
        label.set_gid(f"{gid}-{k}")
        labels.append(label)
    return labels


#: Where a label may go, around its point: offsets in points (nearest first), tried in order.
_OFFSETS = [
    (r * dx, r * dy)
    for r in (4, 9, 15, 22, 30, 40)
    for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))
]


def _overlap(a: Any, b: Any) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return width * height if width > 0 and height > 0 else 0.0


def place_labels(fig: Any, labels: Sequence[Any], pad: float = 1.0) -> None:
    """Move each label (in order) to the first offset of :data:`_OFFSETS` where its box
    (grown by ``pad`` pixels) overlaps no label placed before it, nor a point; the least
    overlapping offset when none is free. The layout is computed once and then fixed (so
    the boxes measured are the boxes drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    fig.set_layout_engine("none")
    placed: list[Any] = []
    for label in labels:
        points = [o.axes.transData.transform(o.xy) for o in labels if o.axes is label.axes]
        best, best_cost = _OFFSETS[0], math.inf
        for offset in _OFFSETS:
            _move(label, offset)
            box = label.get_window_extent(renderer).padded(pad)
            cost = sum(_overlap(box, other) for other in placed)
            cost += sum(1.0 for x, y in points if box.x0 < x < box.x1 and box.y0 < y < box.y1)
            if cost < best_cost:
                best, best_cost = offset, cost
            if cost == 0:
                break
        _move(label, best)
        placed.append(label.get_window_extent(renderer).padded(pad))


def _move(label: Any, offset: tuple[float, float]) -> None:
    """Put a label at ``offset`` (points) from its point, anchored on the side facing it."""
    dx, dy = offset
    label.xyann = offset
    label.set_ha("left" if dx > 0 else "right" if dx < 0 else "center")
    label.set_va("bottom" if dy > 0 else "top" if dy < 0 else "center")


def _embedding_legend(fig: Any, ax: Any) -> None:
    from matplotlib.lines import Line2D

    from .wall_render import GROUP_COLOURS

    handles = [
        Line2D([], [], marker="o", ls="", color=c, label=f"gold group {g + 1}")
        for g, c in enumerate(GROUP_COLOURS)
    ]
    handles += [
        Line2D([], [], marker=m, ls="", color="black", mfc="white", label=f"predicted {p + 1}")
        for p, m in enumerate(_MARKERS)
    ]
    figure_legend(fig, handles=handles)


def _wall_ami(run: Mapping[str, Any], wall_id: str) -> float:
    for wall in run["per_wall"]:
        if wall["wall_id"] == wall_id and "grouping" in wall:
            return float(wall["grouping"]["ami"])
    return math.inf


#: The budget of an ``embeddings.npz``, checked on its zip directory before any array is
#: read: members (a wall each: OCW has 618 walls), and the bytes of the one array read (16
#: clues x 65,536 dimensions in float64 is 8 MiB).
MAX_NPZ_MEMBERS = 10_000
MAX_WALL_VECTORS_BYTES = 16 * 2**20


def _over_budget(npz: Path) -> str | None:
    """Why ``npz`` is over its budget, else None (:data:`MAX_NPZ_MEMBERS`,
    :data:`MAX_WALL_VECTORS_BYTES`: ``zipfile`` never inflates a member past the size its
    directory states)."""
    import zipfile

    with zipfile.ZipFile(npz) as archive:
        infos = archive.infolist()
    if len(infos) > MAX_NPZ_MEMBERS:
        return f"more than {MAX_NPZ_MEMBERS} members"
    big = next((i for i in infos if i.file_size > MAX_WALL_VECTORS_BYTES), None)
    if big is not None:
        return (
            f"member {big.filename!r} inflates to {big.file_size} bytes, more than the "
            f"{MAX_WALL_VECTORS_BYTES} of one wall's vectors (MAX_WALL_VECTORS_BYTES)"
        )
    return None


def _npz_keys(npz: Path) -> set[str]:
    """The wall ids of an ``embeddings.npz``; empty when it cannot be read as one or is over
    its budget (:func:`_over_budget`, a warning): a report never fails on a sidecar file."""
    import warnings
    import zipfile

    import numpy as np

    from ..shown import inert

    try:
        problem = _over_budget(npz)
        if problem is not None:
            warnings.warn(f"{inert(str(npz))}: not read ({problem})", UserWarning, stacklevel=2)
            return set()
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
        (run, npz) for run in f.runs if (npz := vectors_of(run, f)) is not None
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
    predictions: PredictionsCache,
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
    fig, axes = new_figure(ncols=2, width=5.0, height=4.2)
    slug = f"embeddings-{f.label}-{wall_id}"
    tag = hashlib.sha256(slug.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    labels = []
    projections = _projections(vectors)
    for i, (ax, (name, points, (xlabel, ylabel))) in enumerate(zip(axes, projections, strict=True)):
        labels += _scatter(ax, points, clues, gold, predicted, f"clue-{tag}-{i}")
        ax.set_title(f"{name}: wall {mpl_text(wall_id)}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    _embedding_legend(fig, axes[1])
    place_labels(fig, labels)
    return Plot(
        slug,
        f"Clue embeddings of wall {wall_id} ({f.label}, {run.get('run', '')})",
        "The wall's 16 clue vectors of the embedding baseline in 2-D (t-SNE left, PCA right; "
        f"seed {SEED}): colour = gold group, marker = the group the run predicted "
        "(x: not placed).",
        fig,
    )
