"""``ocw-hub predict``: baseline predictions files (random, embedding + constrained k-means)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import OptionError
from ..extras import require
from ._common import console, data_dir_of, err_console, load_split_rows, progress, worker_count
from .options import CacheDir, Config, DataDir, Jobs, NoChecks, Runs, Split

METHOD_HELP = (
    "random: a seeded uniform partition of each wall (chance level). embedding: the paper's "
    "protocol: each clue embedded lowercased on its own, the 16 vectors clustered by "
    "KMeansConstrained into 4 groups of 4, one run per clue order random.Random(s).sample."
)
MODEL_HELP = (
    "embedding: a transformers model, Hub name or local folder (needs "
    "the encoders extra), embedded as the paper did through flair 0.9: each "
    "lowercased clue on its own, the first token's vector of the last layer, not normalised. "
    "Default: the built-in character n-gram TF-IDF encoder, a lexical baseline that needs no "
    "download (not the paper's model)."
)
ENCODER_HELP = (
    "With --model: transformers (the paper's path, see --pooling, --contextual) or "
    "sentence-transformers (the model's own encode: its pooling and normalisation)."
)
POOLING_HELP = (
    "transformers, each clue on its own: cls (the paper's: the first token of the last layer) "
    "or mean (the mean of the last layer over all tokens, flair's pooling='mean')."
)
CONTEXTUAL_HELP = (
    "transformers: the paper's contextual mode, each clue embedded in the sentence of its "
    "wall's clues in the run's order (flair 0.9's TransformerWordEmbeddings defaults)."
)
VECTORS_HELP = (
    "embedding: static word vectors from a local text file (GloVe .txt, word2vec/FastText .vec "
    "with a header line); a clue's vector is the mean of its words' vectors, unknown words zero."
)


def _check_options(method: str, keep_vectors: bool, options: dict[str, Any]) -> None:
    if method not in ("random", "embedding"):
        raise OptionError(f"--method {method}: expected random or embedding")
    chosen = {k: v for k, v in options.items() if v not in (None, False)}
    if method == "random" and (chosen or keep_vectors):
        raise OptionError("--model, --vectors and --keep-vectors apply to --method embedding only")
    if options["model"] is not None and options["vectors"] is not None:
        raise OptionError("--model and --vectors exclude each other")
    _check_model_options(options, chosen)


def _check_model_options(options: dict[str, Any], chosen: dict[str, Any]) -> None:
    """--encoder, --pooling and --contextual: known values, with --model, compatible."""
    if options["encoder"] not in (None, "transformers", "sentence-transformers"):
        raise OptionError(
            f"--encoder {options['encoder']}: expected transformers or sentence-transformers"
        )
    if options["pooling"] not in (None, "cls", "mean"):
        raise OptionError(f"--pooling {options['pooling']}: expected cls or mean")
    model_only = [k for k in ("encoder", "pooling", "contextual") if k in chosen]
    if model_only and options["model"] is None:
        raise OptionError(f"--{model_only[0]} applies with --model only")
    if options["encoder"] == "sentence-transformers" and (
        options["pooling"] is not None or options["contextual"]
    ):
        raise OptionError("--pooling and --contextual apply to --encoder transformers only")
    if options["contextual"] and options["pooling"] is not None:
        raise OptionError("--pooling applies to clues on their own, not with --contextual")


def _require_extras(model: str | None, encoder: str | None) -> None:
    """The extras ``predict --method embedding`` needs, each a one-line error when missing."""
    require("baselines", "predict --method embedding")
    if encoder == "sentence-transformers":
        needs = ("sentence_transformers", "sentence-transformers")
        require("encoders", "predict --encoder sentence-transformers", needs)
    elif model is not None:
        require("encoders", "predict --model")


def _encoder(options: dict[str, Any]) -> Any:
    """The encoder, loaded before the split is read (a bad --model fails fast)."""
    from ..baselines.encoder_choice import make_encoder

    model = options["model"]
    kwargs = {k: v for k, v in options.items() if k != "model" and v is not None}
    with err_console.status(f"loading {model}") if model else nullcontext():
        return make_encoder(model, **kwargs)


def predict(
    method: Annotated[str, typer.Option("--method", "-m", help=METHOD_HELP)],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for run-00.json ... (created if missing).")
    ],
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    model: Annotated[str | None, typer.Option("--model", help=MODEL_HELP)] = None,
    encoder: Annotated[str | None, typer.Option("--encoder", help=ENCODER_HELP)] = None,
    pooling: Annotated[str | None, typer.Option("--pooling", help=POOLING_HELP)] = None,
    contextual: Annotated[bool, typer.Option("--contextual", help=CONTEXTUAL_HELP)] = False,
    vectors: Annotated[Path | None, typer.Option("--vectors", help=VECTORS_HELP)] = None,
    min_coverage: Annotated[
        float | None,
        typer.Option(
            "--min-coverage",
            min=0.0,
            max=1.0,
            help="--vectors: the least share of the split's distinct clues the file must cover "
            "(a clue is covered when one of its words has a vector); default 0.5.",
        ),
    ] = None,
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
    from ..baselines.protocol import check_ocw_config, start_workers
    from ..baselines.run_files import check_predictions_dir, write_baseline
    from ..outputs import exclusive

    options: dict[str, Any] = {
        "model": model,
        "encoder": encoder,
        "pooling": pooling,
        "contextual": contextual,
        "vectors": vectors,
    }
    _check_options(method, keep_vectors, options)
    if min_coverage is not None:
        if vectors is None:
            raise OptionError("--min-coverage applies to --vectors only")
        options["min_coverage"] = min_coverage
    jobs = worker_count(jobs)
    if method == "embedding":
        _require_extras(model, encoder)
    config = check_ocw_config(config)
    source = data_dir_of(data_dir, config)
    folder = check_predictions_dir(out, runs, keep_vectors=keep_vectors, inputs=[source])
    with exclusive(folder):  # a second predict into the folder is refused
        chosen = _encoder(options) if method == "embedding" else None
        if method == "embedding":
            start_workers(jobs)  # the worker processes start while the split is read
        walls = load_split_rows(config, split, source, cache_dir=cache_dir, no_checks=no_checks)
        result = _run(method, walls, chosen, runs, seed, jobs)
        written = write_baseline(result, folder, keep_vectors=keep_vectors)
    what = f"{method} baseline" + (f" ({_protocol_line(result.protocol)})" if result.model else "")
    console.print(
        f"{what}: {len(result.runs)} runs x {len(walls)} walls written to {folder} "
        f"({written[0].name} ... {written[len(result.runs) - 1].name}"
        + (", embeddings.npz, embeddings.json)" if keep_vectors else ")"),
        highlight=False,
        markup=False,
    )


def _protocol_line(protocol: dict[str, Any]) -> str:
    """The encoder's protocol in one line: ``transformers NAME, first token, last layer, ...``."""
    keys = ("encoder", "model", "context", "pooling")
    line = ", ".join(str(protocol[k]) for k in keys if protocol.get(k) is not None)
    covered = protocol.get("coverage")
    if isinstance(covered, dict):
        line += (
            f", {covered['covered']} of {covered['clues']} clues covered ({covered['share']:.1%})"
        )
    return line


def _run(method: str, walls: list, encoder: Any, runs: int, seed: int, jobs: int) -> Any:
    """The baseline's result, with a bar: the embedding (no total), then the clustering."""
    from ..baselines.protocol import embedding_baseline, random_baseline

    if method == "random":
        return random_baseline(walls, runs=runs, seed=seed)
    with progress() as bar:
        what = f"embedding the clues of {len(walls)} walls ({encoder.model})"
        task = bar.add_task(what, total=None)
        return embedding_baseline(
            walls,
            encoder,
            runs=runs,
            seed=seed,
            jobs=jobs,
            on_progress=lambda n: bar.advance(task, n),
            on_embedded=lambda: bar.update(task, description="clustering", total=len(walls) * runs),
        )
