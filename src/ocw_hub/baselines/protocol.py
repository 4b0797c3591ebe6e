"""Baseline predictions for OCW task 1 (grouping): chance level and the paper's embedding
baseline, one predictions file per run.

Both write the official predictions format (a JSON list of ``{"wall_id", "predicted_groups":
4 groups of 4 clues, "predicted_connections": null}``): the baselines group, they do not name
connections.

* ``random`` (:func:`random_baseline`): a uniform random partition of each wall's 16 clues into
  4 groups of 4, the chance level. The partition of a wall in run ``s`` is drawn by
  ``random.Random(f"{seed}:{s}:{wall_id}")`` (so it does not depend on the other walls of the
  split). Expected correct groups per wall: 4 x 1/455 = 0.00879 (a given gold group is one of
  the 4 predicted groups with probability 4 / C(16, 4) = 1/455); a full wall: 1 in 2,627,625.
* ``embedding`` (:func:`embedding_baseline`), the protocol of the paper (Naeini et al.,
  NeurIPS 2023; upstream ``scripts/prediction.py`` and ``utils.py``): each clue is embedded
  lowercased and on its own (:mod:`ocw_hub.baselines.encoders`; in the paper's contextual
  mode, in the context of its wall in the run's order); the 16 vectors of a wall are
  clustered by
  ``KMeansConstrained(n_clusters=4, size_min=4, size_max=4, random_state=seed)`` (package
  ``k-means-constrained``, its defaults otherwise: ``n_init=10``, k-means++), seed 42, on the
  vectors as float64 (upstream hands it a torch tensor, which its ``check_array`` converts to
  float64; a float32 array would be clustered in float32); the
  predicted groups are the clusters, in cluster-label order, each clue in its original spelling,
  in the run's clue order. There are 16 runs, s = 0..15: run s feeds the clues in the order
  ``random.Random(s).sample(words, 16)``, which is what changes between runs (the clustering is
  seeded by ``seed`` every time).

Each distinct clue of the split is embedded once (not once per run); the 7,904 fits of the
test split (494 walls x 16 runs, about 8 ms each) are spread over ``jobs`` processes (joblib),
chunked by wall. Every fit is seeded on its own, so the files are identical for any ``jobs``.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import interrupts
from ..errors import BaselineError
from ..outputs import PathLike
from ..resources import load_sibling

if TYPE_CHECKING:
    from .encoders import Encoder

#: Runs of the paper's protocol (shuffle seeds 0..15).
RUNS = 16
#: The paper's seed (``KMeansConstrained(random_state=42)``).
SEED = 42
#: Groups per wall, clues per group, clues per wall (the OCW builder's, ``ocw_walls.py``).
_OCW = load_sibling("ocw_walls")
N_GROUPS, GROUP_SIZE, N_CLUES = _OCW.N_GROUPS, _OCW.GROUP_SIZE, _OCW.N_CLUES
#: The baselines.
METHODS = ("random", "embedding")
#: Walls per task sent to a worker process.
CHUNK_WALLS = 8


@dataclass
class BaselineResult:
    """The predictions of a baseline on one split.

    Attributes:
        method: ``random`` or ``embedding``.
        seed: the seed (42 in the paper).
        runs: ``runs[s]`` is run s: one prediction per wall, in split order, in the official
            format (``predicted_connections`` None).
        model: the encoder's model (embedding only): a sentence-transformers name or path, or
            the built-in encoder's name (``tfidf-char_wb-2-4``).
        encoder: the encoder's kind (embedding only): ``tfidf``, ``transformers``,
            ``sentence-transformers`` or ``word-vectors``.
        protocol: the encoder's ``describe()`` (embedding only).
        vectors: wall id -> float32 array of shape (16, d), one row per clue in the order of the
            wall's ``words`` (embedding only; contextual vectors: those of run 0).
        clues: wall id -> the wall's 16 clues in that order (embedding only).
    """

    method: str
    seed: int
    runs: list[list[dict[str, Any]]]
    model: str | None = None
    encoder: str | None = None
    protocol: dict[str, Any] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    clues: dict[str, list[str]] = field(default_factory=dict)


def run_order(run: int, n: int = N_CLUES) -> list[int]:
    """The positions of a wall's clues in run ``run``'s clustering input: the permutation that
    ``random.Random(run).sample(words, n)`` applies (``sample`` draws positions, whatever the
    values), i.e. ``[words[i] for i in run_order(run)] == random.Random(run).sample(words, n)``.
    """
    return random.Random(run).sample(range(n), n)


def _check_walls(walls: Sequence[dict[str, Any]]) -> None:
    """Every wall has a string ``wall_id`` (unique) and 16 string clues in ``words``.

    Raises:
        BaselineError: naming the wall and the field.
    """
    seen: set[str] = set()
    for number, wall in enumerate(walls):
        wall_id = wall.get("wall_id")
        if not isinstance(wall_id, str):
            raise BaselineError(f"wall #{number}: field 'wall_id' is not a string: {wall_id!r}")
        if wall_id in seen:
            raise BaselineError(f"wall {wall_id}: field 'wall_id' occurs twice in the split")
        seen.add(wall_id)
        words = wall.get("words")
        if (
            not isinstance(words, list)
            or len(words) != N_CLUES
            or not all(isinstance(c, str) for c in words)
        ):
            raise BaselineError(
                f"wall {wall_id}: field 'words' must be a list of {N_CLUES} strings"
            )


def _check_counts(runs: int, jobs: int | None = None) -> None:
    if runs < 1:
        raise BaselineError(f"runs must be at least 1, not {runs}")
    if jobs is not None and jobs < 1:
        raise BaselineError(f"jobs must be at least 1, not {jobs}")


def _prediction(wall_id: str, groups: list[list[str]]) -> dict[str, Any]:
    return {"wall_id": wall_id, "predicted_groups": groups, "predicted_connections": None}


# --- random -------------------------------------------------------------------------------


def random_groups(words: Sequence[str], rng: random.Random) -> list[list[str]]:
    """A uniform random partition of ``words`` (16 clues) into 4 groups of 4, drawn by ``rng``:
    the clues in a uniformly random order, cut into four."""
    order = rng.sample(list(words), len(words))
    return [order[i : i + GROUP_SIZE] for i in range(0, len(order), GROUP_SIZE)]


def random_baseline(
    walls: Sequence[dict[str, Any]], *, runs: int = RUNS, seed: int = SEED
) -> BaselineResult:
    """Chance-level predictions: for each run s and wall, :func:`random_groups` drawn by
    ``random.Random(f"{seed}:{s}:{wall_id}")``.

    Args:
        walls: OCW wall rows (``wall_id``, ``words``: 16 clues).
        runs: number of runs (files).
        seed: the base seed.

    Raises:
        BaselineError: a wall without 16 string clues, a repeated wall id, ``runs`` < 1.
    """
    _check_counts(runs)
    _check_walls(walls)
    return BaselineResult(
        method="random",
        seed=seed,
        runs=[
            [
                _prediction(
                    w["wall_id"],
                    random_groups(w["words"], random.Random(f"{seed}:{s}:{w['wall_id']}")),
                )
                for w in walls
            ]
            for s in range(runs)
        ],
    )


# --- embedding ----------------------------------------------------------------------------


def cluster(vectors: np.ndarray, seed: int = SEED) -> np.ndarray:
    """Cluster labels (0-3, four of each) of 16 vectors, shape (16, d), with the paper's
    ``KMeansConstrained(n_clusters=4, size_min=4, size_max=4, random_state=seed)`` on the
    vectors as float64 (as upstream's torch tensor reaches it)."""
    from k_means_constrained import KMeansConstrained

    model = KMeansConstrained(
        n_clusters=N_GROUPS, size_min=GROUP_SIZE, size_max=GROUP_SIZE, random_state=seed
    )
    return np.asarray(model.fit_predict(np.asarray(vectors, dtype=np.float64)))


def wall_labels(vectors: np.ndarray, runs: int = RUNS, seed: int = SEED) -> np.ndarray:
    """The labels of every run of one wall, shape (runs, 16): row s holds the label of each
    position of run s's clue order (:func:`run_order`), from :func:`cluster` on the vectors in
    that order. ``vectors`` has shape (16, d), rows in the order of the wall's ``words``, or
    (runs, 16, d) with row s already in run s's order (contextual vectors)."""
    if vectors.ndim == 3:
        inputs = [vectors[s] for s in range(runs)]
    else:
        inputs = [vectors[run_order(s, vectors.shape[0])] for s in range(runs)]
    return np.stack([cluster(x, seed) for x in inputs]).astype(np.int8)


def groups_from_labels(
    words: Sequence[str], order: Sequence[int], labels: Sequence[int]
) -> list[list[str]]:
    """The predicted groups of one run: group k holds the clues labelled k, in the run's order
    (as upstream ``get_clusters``): ``words[order[i]]`` has label ``labels[i]``."""
    groups: list[list[str]] = [[] for _ in range(N_GROUPS)]
    for position, label in zip(order, labels, strict=True):
        groups[int(label)].append(words[position])
    return groups


def _label_chunk(arrays: Sequence[np.ndarray], runs: int, seed: int) -> list[np.ndarray]:
    """Worker task: :func:`wall_labels` of a chunk of walls."""
    return [wall_labels(vectors, runs, seed) for vectors in arrays]


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _warm_worker(pause: float) -> int:
    """Worker task of :func:`start_workers`: import the clustering code, then wait a little so
    that every worker gets one such task."""
    import time

    from k_means_constrained import KMeansConstrained  # noqa: F401

    time.sleep(pause)
    return os.getpid()


def start_workers(jobs: int | None = None) -> threading.Thread | None:
    """Start the worker processes of :func:`label_walls` in the background (joblib's reusable
    process pool), so that their start-up and imports (about 1.5 s) overlap the caller's
    loading and embedding; None when ``jobs`` is 1. Optional: it changes no result."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1:
        return None

    from joblib import Parallel, delayed

    with workers_ignore_sigint():  # the pool's processes start here, in the calling thread
        results = Parallel(n_jobs=jobs, return_as="generator", max_nbytes=None)(
            delayed(_warm_worker)(0.2) for _ in range(jobs)
        )
    thread = threading.Thread(
        target=lambda: list(results), name="ocw-hub-warm-workers", daemon=True
    )
    thread.start()
    return thread


@contextmanager
def workers_ignore_sigint() -> Iterator[None]:
    """Worker processes joblib starts in this block ignore SIGINT: Ctrl-C reaches the command,
    which stops them (:mod:`ocw_hub.interrupts`), instead of each worker printing a traceback.
    loky starts each through ``sh -c 'trap "" INT; exec ...'`` (an ignored signal stays
    ignored through ``exec``, and Python then installs no ``KeyboardInterrupt`` handler). This
    process keeps its own handler: ignoring SIGINT here while the workers start, as before,
    lost a Ctrl-C that arrived meanwhile, and the command ran on to exit 0. A Ctrl-C during the
    block is raised at its end (:func:`ocw_hub.interrupts.held`): the pool is never left half
    started."""
    from joblib.externals.loky.backend import fork_exec as loky_fork_exec

    original = getattr(loky_fork_exec, "fork_exec", None)
    if os.name != "posix" or original is None:  # no loky process start to wrap: as is
        with interrupts.held():
            yield
        return

    def ignoring_sigint(cmd: list[str], keep_fds: Any, env: Any = None) -> Any:
        return original(["/bin/sh", "-c", 'trap "" INT; exec "$0" "$@"', *cmd], keep_fds, env)

    loky_fork_exec.fork_exec = ignoring_sigint
    try:
        with interrupts.held():
            yield
    finally:
        loky_fork_exec.fork_exec = original


def label_walls(
    arrays: Sequence[np.ndarray],
    *,
    runs: int = RUNS,
    seed: int = SEED,
    jobs: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[np.ndarray]:
    """:func:`wall_labels` of every wall, over ``jobs`` processes (default: ``os.cpu_count()``)
    in chunks of :data:`CHUNK_WALLS` walls; ``on_progress(n)`` is called after each chunk with
    the number of fits (walls x runs) just done. The result does not depend on ``jobs``."""
    jobs = jobs or os.cpu_count() or 1
    chunks = list(_chunks(list(arrays), CHUNK_WALLS))
    if jobs == 1 or len(chunks) <= 1:
        results: Iterable[list[np.ndarray]] = (_label_chunk(c, runs, seed) for c in chunks)
    else:
        from joblib import Parallel, delayed

        # max_nbytes=None: chunks are small, and no memmapped folder for joblib's resource
        # tracker to clean up (after a Ctrl-C it could print a KeyError traceback of its own)
        parallel = Parallel(n_jobs=min(jobs, len(chunks)), return_as="generator", max_nbytes=None)
        with workers_ignore_sigint():
            results = parallel(delayed(_label_chunk)(c, runs, seed) for c in chunks)
    labels: list[np.ndarray] = []
    for done in results:
        labels.extend(done)
        if on_progress is not None:
            on_progress(len(done) * runs)
    return labels


def embedding_baseline(
    walls: Sequence[dict[str, Any]],
    encoder: Encoder | None = None,
    *,
    runs: int = RUNS,
    seed: int = SEED,
    jobs: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    on_embedded: Callable[[], None] | None = None,
) -> BaselineResult:
    """The paper's embedding baseline (see the module docstring) on OCW wall rows:
    :func:`embed_walls` then :func:`cluster_walls`.

    Args:
        walls: OCW wall rows (``wall_id``, ``words``: 16 clues).
        encoder: from :mod:`ocw_hub.baselines.encoders` (default: the built-in character
            n-gram TF-IDF,
            a lexical baseline).
        runs: number of runs; run s uses the clue order ``random.Random(s).sample(words, 16)``.
        seed: ``random_state`` of every ``KMeansConstrained`` fit (42 in the paper).
        jobs: worker processes for the clustering (default ``os.cpu_count()``); the output
            is the same for any value.
        on_progress: called with the number of fits done, as they finish (walls x runs in all).
        on_embedded: called once the vectors are made, before the clustering starts.

    Returns:
        The runs, plus the vectors and clues of every wall.

    Raises:
        BaselineError: a wall without 16 string clues, a repeated wall id, ``runs`` or ``jobs``
            below 1.
    """
    _check_counts(runs, jobs)
    encoder, arrays = embed_walls(walls, encoder, runs=runs)
    if on_embedded is not None:
        on_embedded()
    return cluster_walls(
        walls,
        arrays,
        runs=runs,
        seed=seed,
        jobs=jobs,
        on_progress=on_progress,
        model=encoder.model,
        encoder=encoder.kind,
        protocol=encoder.describe(),
    )


def embed_walls(
    walls: Sequence[dict[str, Any]], encoder: Encoder | None = None, *, runs: int = RUNS
) -> tuple[Encoder, list[np.ndarray]]:
    """The encoder used (default: the built-in TF-IDF) and each wall's vectors: a float32 array
    of shape (16, d) per wall, rows in the order of its ``words``, each distinct clue embedded
    once, lowercased; for a contextual encoder (``encoder.contextual``), shape (runs, 16, d),
    row s the wall embedded in run s's clue order (:func:`run_order`).

    Raises:
        BaselineError: a wall without 16 string clues, a repeated wall id.
    """
    from .encoders import TfidfEncoder

    _check_walls(walls)
    encoder = encoder if encoder is not None else TfidfEncoder()
    words = [w["words"] for w in walls]
    if getattr(encoder, "contextual", False):
        return encoder, cast(Any, encoder).encode_runs(words, [run_order(s) for s in range(runs)])
    return encoder, encoder.encode_walls(words)


def _words_order(array: np.ndarray) -> np.ndarray:
    """(16, d) float32 rows in the order of the wall's ``words``: ``array`` itself, or run 0 of
    contextual vectors (runs, 16, d) put back in that order."""
    if array.ndim == 2:
        return np.asarray(array, dtype=np.float32)
    rows = np.empty(array.shape[1:], dtype=np.float32)
    rows[run_order(0, array.shape[1])] = array[0]
    return rows


def cluster_walls(
    walls: Sequence[dict[str, Any]],
    arrays: Sequence[np.ndarray],
    *,
    runs: int = RUNS,
    seed: int = SEED,
    jobs: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    model: str | None = None,
    encoder: str | None = None,
    protocol: dict[str, Any] | None = None,
) -> BaselineResult:
    """The runs of the embedding baseline from the walls' vectors (:func:`embed_walls`):
    :func:`label_walls`, then each run's groups by :func:`groups_from_labels`. ``model``,
    ``encoder`` and ``protocol`` are recorded in the result.

    Raises:
        BaselineError: a wall without 16 string clues, a repeated wall id, vectors that are not
            16 rows per wall, ``runs`` or ``jobs`` below 1.
    """
    _check_counts(runs, jobs)
    _check_walls(walls)
    if len(arrays) != len(walls):
        raise BaselineError(f"{len(arrays)} vector arrays for {len(walls)} walls")
    for wall, array in zip(walls, arrays, strict=True):
        shape = np.shape(array)
        if not (len(shape) == 2 and shape[0] == N_CLUES) and shape[:2] != (runs, N_CLUES):
            raise BaselineError(
                f"wall {wall['wall_id']}: vectors of shape {shape}, expected (16, d) or "
                f"({runs}, 16, d)"
            )
    arrays = [np.asarray(a) for a in arrays]
    labels = label_walls(arrays, runs=runs, seed=seed, jobs=jobs, on_progress=on_progress)
    orders = [run_order(s) for s in range(runs)]
    return BaselineResult(
        method="embedding",
        seed=seed,
        runs=[
            [
                _prediction(w["wall_id"], groups_from_labels(w["words"], orders[s], lab[s]))
                for w, lab in zip(walls, labels, strict=True)
            ]
            for s in range(runs)
        ],
        model=model,
        encoder=encoder,
        protocol=dict(protocol or {}),
        vectors={w["wall_id"]: _words_order(a) for w, a in zip(walls, arrays, strict=True)},
        clues={w["wall_id"]: list(w["words"]) for w in walls},
    )


# --- the split, the files -----------------------------------------------------------------


def check_ocw_config(config: str) -> str:
    """The public name of an OCW config (``ocw`` -> ``default``).

    Raises:
        BaselineError: ``config`` is WoTe or unknown (the baselines group OCW walls).
    """
    from ..configs import config_spec

    try:
        spec = config_spec(config)
    except ValueError as err:
        raise BaselineError(str(err)) from None
    if "grouping" not in spec.tasks:
        raise BaselineError(
            f"config {spec.name!r} is not an OCW config: the baselines group walls of 16 clues"
        )
    return spec.name


def predict(
    config: str,
    split: str,
    data_dir: PathLike | None = None,
    *,
    method: str = "embedding",
    model: str | None = None,
    encoder_options: dict[str, Any] | None = None,
    runs: int = RUNS,
    seed: int = SEED,
    jobs: int | None = None,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> BaselineResult:
    """A baseline on one split of an OCW config, read with :func:`ocw_hub.data.sources.load_rows`.

    Args:
        config, split, data_dir, cache_dir, verification_mode: as for ``load_split``.
        method: ``random`` or ``embedding``.
        model: embedding only: a transformers model name or local path, embedded as the
            paper did (default: the built-in character n-gram TF-IDF encoder).
        encoder_options: embedding only: ``encoder``, ``pooling``, ``contextual``, ``vectors``
            of :func:`ocw_hub.baselines.encoder_choice.make_encoder`.
        runs, seed, jobs, on_progress: see :func:`embedding_baseline`.

    Raises:
        BaselineError: unknown method, a non-OCW config, ``model`` with ``random``, bad counts.
        ocw_hub.baselines.encoders.ModelUnavailableError: the model cannot be loaded.
        SourceUnavailableError, UnknownSplitError: see ``load_split``.
    """
    from ..data.sources import load_rows
    from .encoder_choice import make_encoder

    if method not in METHODS:
        raise BaselineError(f"unknown method {method!r}; expected one of {list(METHODS)}")
    if method == "random" and (model is not None or encoder_options):
        raise BaselineError("a model applies to the embedding method only")
    config = check_ocw_config(config)
    _check_counts(runs, jobs)
    encoder = make_encoder(model, **(encoder_options or {})) if method == "embedding" else None
    walls = load_rows(
        config, split, data_dir, cache_dir=cache_dir, verification_mode=verification_mode
    ).rows
    if method == "random":
        return random_baseline(walls, runs=runs, seed=seed)
    return embedding_baseline(
        walls, encoder, runs=runs, seed=seed, jobs=jobs, on_progress=on_progress
    )
