"""The paper's grouping experiment end to end, offline, in one call (``ocw-hub reproduce``).

From the raw OCW release (and WoTe) folders it writes, under ``out``::

    hub/ocw, hub/wote                 the Parquet hub exports, one per dataset (ocw-hub build)
    ocw_randomized/                   the randomized ablation derived from the release
    predictions/<config>-<method>/    one predictions file per run (run-00.json ...)
    results/<config>-<method>.json    each method's figures: every run, mean and std
    report.html                       the HTML report of all results (plots, hardest walls)
    reproduce.json                    what was run, with which inputs and options

Methods: ``embedding`` (the paper's protocol: each clue embedded on its own, constrained
k-means into 4 groups of 4, 16 runs over shuffled clue orders; with the built-in lexical
encoder unless a transformers model is given, embedded as the paper did) and ``random``
(chance level), on the test split of ``default`` and of ``ocw_randomized``. Each step is the
package's own function
(:func:`ocw_hub.data.export.build_export`, :func:`ocw_hub.data.randomize.derive_randomized`,
:func:`ocw_hub.baselines.protocol.predict`, :func:`ocw_hub.evaluation.evaluate_files`,
:func:`ocw_hub.views.report.build_report`); nothing here computes a figure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .configs import PathLike
from .errors import OutputPathError
from .outputs import LOCK_NAME, check_output_dir, exclusive, write_json, write_text_atomic

#: The manifest a previous run leaves in ``out``: only such a folder (or an empty one) is reused.
MANIFEST = "reproduce.json"
#: (config, method) pairs, in report order.
RUNS_OF = (
    ("default", "embedding"),
    ("default", "random"),
    ("ocw_randomized", "embedding"),
)


@dataclass(frozen=True)
class Outcome:
    """One scored method: where its predictions and results are, and its mean figures."""

    config: str
    method: str
    predictions: Path
    results: Path
    summary: dict[str, Any]
    #: What the figures were computed on (``source_provenance``) and how (the results'
    #: protocol: for ``embedding``, its ``encoder`` and ``model``).
    source: dict[str, Any] = field(default_factory=dict)
    protocol: dict[str, Any] | None = None


def check_reproduce_out(out: PathLike, inputs: list[PathLike | None]) -> Path:
    """``out`` resolved, when it is a new or empty folder or a previous run's (it holds
    :data:`MANIFEST`).

    Raises:
        OutputPathError: see :func:`ocw_hub.outputs.check_output_dir`; a folder that holds other
            files (nothing of it would be overwritten).
    """
    folder = check_output_dir(out, inputs)
    held = folder.is_dir() and any(p.name != LOCK_NAME for p in folder.iterdir())
    if held and not (folder / MANIFEST).is_file():
        raise OutputPathError(
            f"output folder {out}: holds other files (no {MANIFEST} of an earlier run); "
            "choose an empty or new folder"
        )
    return folder


def reproduce(
    ocw_dir: PathLike,
    out: PathLike,
    *,
    wote_dir: PathLike | None = None,
    model: str | None = None,
    runs: int = 16,
    jobs: int | None = None,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    on_step: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Run the whole grouping experiment (see the module docstring) and return its outcomes.

    Args:
        ocw_dir: the OCW release (the ``dataset/`` folder or ``OCW.tar.gz``).
        out: the folder to write (new, empty, or a previous run's).
        wote_dir: the WoTe release folder, exported beside OCW when given.
        model: a transformers model name or local path for the embedding method (the paper's
            first-token path, :class:`ocw_hub.baselines.transformer.TransformerEncoder`)
            (default: the built-in character n-gram TF-IDF encoder, a lexical baseline).
        runs: runs per method (the paper: 16).
        jobs: processes for the clustering (default: every core).
        cache_dir, verification_mode: as in :func:`ocw_hub.load_dataset`.
        on_step: called with a short description before each step.

    Raises:
        OutputPathError: ``out`` is not safe to write (checked before any work).
        OCWHubError: any step's error (bad source files, a model that cannot be loaded).
    """
    folder = check_reproduce_out(out, [ocw_dir, wote_dir, cache_dir])
    with exclusive(folder):
        return _reproduce(
            folder,
            ocw_dir,
            wote_dir=wote_dir,
            model=model,
            runs=runs,
            jobs=jobs,
            cache_dir=cache_dir,
            verification_mode=verification_mode,
            on_step=on_step or (lambda _: None),
        )


def _reproduce(
    folder: Path,
    ocw_dir: PathLike,
    *,
    wote_dir: PathLike | None,
    model: str | None,
    runs: int,
    jobs: int | None,
    cache_dir: PathLike | None,
    verification_mode: str | None,
    on_step: Callable[[str], None],
) -> list[Outcome]:
    from .baselines.protocol import predict
    from .baselines.run_files import write_baseline
    from .data.export import build_export
    from .data.randomize import derive_randomized
    from .evaluation import evaluate_files

    step = on_step
    manifest: dict[str, Any] = {
        "complete": False,  # true once every step is written: an interrupted run is redone
        "ocw_dir": str(ocw_dir),
        "wote_dir": None if wote_dir is None else str(wote_dir),
        "model": model or "built-in character n-gram TF-IDF (lexical baseline)",
        "runs": runs,
    }
    write_json(folder / MANIFEST, manifest)
    step("building the hub exports")
    sources = {"default": ocw_dir, **({"wote": wote_dir} if wote_dir is not None else {})}
    build_export(sources, folder / "hub", cache_dir=cache_dir, verification_mode=verification_mode)
    step("deriving ocw_randomized")
    derive_randomized(ocw_dir, folder / "ocw_randomized")
    data_dirs = {"default": ocw_dir, "ocw_randomized": folder / "ocw_randomized"}
    outcomes = []
    for config, method in RUNS_OF:
        step(f"predicting {config} / test with the {method} baseline ({runs} runs)")
        result = predict(
            config,
            "test",
            data_dirs[config],
            method=method,
            model=model if method == "embedding" else None,
            runs=runs,
            jobs=jobs,
            cache_dir=cache_dir,
            verification_mode=verification_mode,
        )
        predictions = folder / "predictions" / f"{config}-{method}"
        write_baseline(result, predictions, keep_vectors=method == "embedding")
        step(f"scoring {config}-{method}")
        scored = evaluate_files(
            [predictions],
            config,
            "test",
            data_dirs[config],
            cache_dir=cache_dir,
            verification_mode=verification_mode,
        )
        results = folder / "results" / f"{config}-{method}.json"
        write_json(results, scored)
        protocol = scored.get("protocol")
        outcomes.append(
            Outcome(
                config,
                method,
                predictions,
                results,
                _summary(scored),
                source=dict(scored.get("source") or {}),
                protocol=dict(protocol) if isinstance(protocol, dict) else None,
            )
        )
    step("writing the report")
    _write_report(folder, outcomes, data_dirs, cache_dir, verification_mode)
    manifest["complete"] = True
    manifest["outcomes"] = [
        {"config": o.config, "method": o.method, "results": str(o.results.relative_to(folder))}
        for o in outcomes
    ]
    manifest["sources"] = {o.config: o.source for o in outcomes}  # what each config was on
    write_json(folder / MANIFEST, manifest)
    return outcomes


def embedding_line(outcomes: list[Outcome]) -> str | None:
    """``embedding: the built-in character n-gram TF-IDF encoder (tfidf-char_wb-2-4), a
    lexical baseline, not the paper's model`` (or ``embedding: encoder transformers, model
    M``) from the embedding results' protocol; None without one."""
    protocol = next((o.protocol for o in outcomes if o.method == "embedding"), None)
    if not protocol:
        return None
    model = protocol.get("model")
    if protocol.get("encoder") == "tfidf":
        return (
            f"embedding: the built-in character n-gram TF-IDF encoder ({model}), a lexical "
            "baseline, not the paper's model"
        )
    return f"embedding: encoder {protocol.get('encoder')}, model {model}"


def _summary(scored: dict[str, Any]) -> dict[str, Any]:
    """Mean and std of the grouping figures (one run: std 0), and the human figures."""
    if "runs" in scored:
        mean, std = scored["mean"]["grouping"], scored["std"]["grouping"]
    else:
        mean, std = scored["grouping"], {k: 0.0 for k in scored["grouping"]}
    return {"mean": mean, "std": std, "human": scored["human"], "n_walls": scored["n_walls"]}


def _write_report(
    folder: Path,
    outcomes: list[Outcome],
    data_dirs: dict[str, PathLike],
    cache_dir: PathLike | None,
    verification_mode: str | None,
) -> None:
    from .results import read_results
    from .views.report import build_report
    from .views.report_data import load_walls

    files = read_results([o.results for o in outcomes])
    walls = load_walls(files, data_dirs, cache_dir=cache_dir, verification_mode=verification_mode)
    html = build_report(files, walls=walls, title="ocw-hub reproduce: OCW grouping baselines")
    write_text_atomic(folder / "report.html", html)
