"""``ocw-hub predict``: baseline predictions files (random, embedding + constrained k-means)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer

from ..extras import require
from . import app
from ._common import (
    console,
    data_dir_of,
    err_console,
    fail,
    load_split_rows,
    progress,
    user_errors,
    worker_count,
)
from .options import CacheDir, Config, DataDir, Jobs, NoChecks, Runs, Split

METHOD_HELP = (
    "random: a seeded uniform partition of each wall (chance level). embedding: the paper's "
    "protocol: each clue embedded lowercased on its own, the 16 vectors clustered by "
    "KMeansConstrained into 4 groups of 4, one run per clue order random.Random(s).sample."
)
MODEL_HELP = (
    "embedding: a sentence-transformers model, Hub name or local folder (needs the "
    "encoders extra). Default: the built-in character n-gram TF-IDF "
    "encoder, a lexical baseline that needs no download (not the paper's model)."
)


def _check_options(method: str, model: str | None, keep_vectors: bool) -> None:
    if method not in ("random", "embedding"):
        fail(f"--method {method}: expected random or embedding")
    if method == "random" and (model is not None or keep_vectors):
        fail("--model and --keep-vectors apply to --method embedding only")


def _encoder(model: str | None) -> Any:
    """The encoder, loaded before the split is read (a bad --model fails fast)."""
    from ..baselines.encoders import ModelUnavailableError, make_encoder

    try:
        with err_console.status(f"loading {model}") if model else nullcontext():
            return make_encoder(model)
    except ModelUnavailableError as err:
        fail(
            f"--model {err.model}: cannot be loaded ({err.reason}); give the local path of a "
            "sentence-transformers model folder: --model /path/to/all-MiniLM-L6-v2"
        )


@app.command()
def predict(
    method: Annotated[str, typer.Option("--method", "-m", help=METHOD_HELP)],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for run-00.json ... (created if missing).")
    ],
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    model: Annotated[str | None, typer.Option("--model", help=MODEL_HELP)] = None,
    runs: Runs = 16,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", help="KMeansConstrained random_state (embedding); base seed (random)."
        ),
    ] = 42,
    keep_vectors: Annotated[
        bool,
        typer.Option(
            "--keep-vectors",
            help="Also write embeddings.npz (wall id -> 16 x d float32) and embeddings.json.",
        ),
    ] = False,
    jobs: Jobs = None,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
) -> None:
    """Write baseline predictions (grouping only), one official-format file per run."""
    from ..baselines.protocol import (
        check_ocw_config,
        check_predictions_dir,
        start_workers,
        write_baseline,
    )
    from ..outputs import exclusive

    _check_options(method, model, keep_vectors)
    jobs = worker_count(jobs)
    with user_errors():
        if method == "embedding":
            require("baselines", "predict --method embedding")
            if model is not None:
                require("encoders", "predict --model")
        config = check_ocw_config(config)
        source = data_dir_of(data_dir, config)
        folder = check_predictions_dir(out, runs, keep_vectors=keep_vectors, inputs=[source])
    with user_errors(), exclusive(folder):  # a second predict into the folder is refused
        encoder = _encoder(model) if method == "embedding" else None
        if method == "embedding":
            start_workers(jobs)  # the worker processes start while the split is read
        walls = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
        result = _run(method, walls, encoder, runs, seed, jobs)
        written = write_baseline(result, folder, keep_vectors=keep_vectors)
    what = f"{method} baseline" + (f" ({result.model})" if result.model else "")
    console.print(
        f"{what}: {len(result.runs)} runs x {len(walls)} walls written to {folder} "
        f"({written[0].name} ... {written[len(result.runs) - 1].name}"
        + (", embeddings.npz, embeddings.json)" if keep_vectors else ")"),
        highlight=False,
        markup=False,
    )


def _run(method: str, walls: list, encoder: Any, runs: int, seed: int, jobs: int) -> Any:
    from ..baselines.protocol import cluster_walls, embed_walls, random_baseline

    if method == "random":
        return random_baseline(walls, runs=runs, seed=seed)
    with err_console.status(f"embedding the clues of {len(walls)} walls ({encoder.model})"):
        encoder, arrays = embed_walls(walls, encoder)
    with progress() as bar:
        task = bar.add_task("clustering", total=len(walls) * runs)
        return cluster_walls(
            walls,
            arrays,
            runs=runs,
            seed=seed,
            jobs=jobs,
            on_progress=lambda n: bar.advance(task, n),
            model=encoder.model,
            encoder=encoder.kind,
        )
