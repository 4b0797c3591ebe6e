"""``ocw-hub predict``: baseline predictions files (random, embedding + constrained k-means)."""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import typer

from . import app
from ._common import (
    CONFIG_HELP,
    DATA_DIR_HELP,
    SPLIT_HELP,
    console,
    err_console,
    fail,
    load_split_rows,
    progress,
    user_errors,
)

METHOD_HELP = (
    "random: a seeded uniform partition of each wall (chance level). embedding: the paper's "
    "protocol: each clue embedded lowercased on its own, the 16 vectors clustered by "
    "KMeansConstrained into 4 groups of 4, one run per clue order random.Random(s).sample."
)
MODEL_HELP = (
    "embedding: a sentence-transformers model, Hub name or local folder (needs "
    "`pip install 'ocw-hub\\[baselines]'`). Default: the built-in character n-gram TF-IDF "
    "encoder, a lexical baseline that needs no download (not the paper's model)."
)


def _check_options(
    method: str, model: str | None, keep_vectors: bool, runs: int, jobs: int
) -> None:
    if method not in ("random", "embedding"):
        fail(f"--method {method}: expected random or embedding")
    if method == "random" and (model is not None or keep_vectors):
        fail("--model and --keep-vectors apply to --method embedding only")
    if runs < 1:
        fail(f"--runs {runs}: must be at least 1")
    if jobs < 1:
        fail(f"--jobs {jobs}: must be at least 1")


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
    method: str = typer.Option(..., "--method", "-m", help=METHOD_HELP),
    config: str = typer.Option("default", "--config", "-c", help=CONFIG_HELP),
    split: str = typer.Option("test", "--split", "-s", help=SPLIT_HELP),
    data_dir: Path | None = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    model: str | None = typer.Option(None, "--model", help=MODEL_HELP),
    runs: int = typer.Option(16, "--runs", help="Number of runs (one file each), s = 0..runs-1."),
    seed: int = typer.Option(
        42, "--seed", help="KMeansConstrained random_state (embedding); base seed (random)."
    ),
    keep_vectors: bool = typer.Option(
        False,
        "--keep-vectors",
        help="Also write embeddings.npz (wall id -> 16 x d float32) and embeddings.json.",
    ),
    jobs: int = typer.Option(
        os.cpu_count() or 1,
        "--jobs",
        "-j",
        help="Processes for the clustering (default: the number of CPUs); same output for any.",
    ),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Folder for run-00.json ... (created if missing)."
    ),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="datasets cache folder."),
    no_checks: bool = typer.Option(
        False, "--no-checks", help="Skip the check of split sizes against the official ones."
    ),
) -> None:
    """Write baseline predictions (grouping only), one official-format file per run."""
    from ..baselines.protocol import (
        check_ocw_config,
        check_predictions_dir,
        start_workers,
        write_baseline,
    )

    _check_options(method, model, keep_vectors, runs, jobs)
    with user_errors():
        config = check_ocw_config(config)
        folder = check_predictions_dir(out, runs, keep_vectors=keep_vectors, inputs=[data_dir])
    encoder = _encoder(model) if method == "embedding" else None
    if method == "embedding":
        start_workers(jobs)  # the worker processes start while the split is read
    walls = load_split_rows(config, split, data_dir, cache_dir=cache_dir, no_checks=no_checks)
    with user_errors():
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
