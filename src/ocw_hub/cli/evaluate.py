"""``ocw-hub evaluate``: score predictions files as the paper did, one run or many."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..configs import config_spec, verification_mode
from ..extras import require
from ..shown import inert
from ._common import check_config, console, data_dir_of, progress, quiet_datasets
from .options import (
    AiredAfter,
    BootstrapSeed,
    CacheDir,
    Config,
    DataDir,
    Fresh,
    NoChecks,
    Seasons,
    Split,
    check_resamples,
)


def evaluate(
    predictions: Annotated[
        list[Path],
        typer.Argument(
            help="Predictions JSON file(s), or folder(s) of runs (run-*.json): several files "
            "are runs of one protocol, reported as mean ± std; or an inspect log (LOG.eval "
            "of ocw_hub/ocw_grouping, ocw_connections, wote: each epoch a run)."
        ),
    ],
    config: Config = "default",
    split: Split = "test",
    data_dir: DataDir = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the full results JSON here.")
    ] = None,
    allow_missing: Annotated[
        bool,
        typer.Option(
            "--allow-missing",
            help="Score missing ids as wrong, for each task the file predicts.",
        ),
    ] = False,
    bertscore: Annotated[
        bool, typer.Option("--bertscore", help="Also BERTScore F1 of connections.")
    ] = False,
    cache_dir: CacheDir = None,
    no_checks: NoChecks = False,
    fresh: Fresh = False,
    rouge_tokenizer: Annotated[
        str,
        typer.Option(
            "--rouge-tokenizer",
            help="ROUGE-1 tokens of connections: default (the paper's: ASCII letters and "
            "digits only) or unicode (letters and digits of any script).",
        ),
    ] = "default",
    bootstrap: Annotated[
        int,
        typer.Option(
            "--bootstrap",
            metavar="N",
            help="Resamples of walls (questions) for the 95 % percentile bootstrap interval "
            "of every figure not counted over walls (those: Clopper-Pearson), shown as value "
            "\\[low, high] and written as ci95 (0: none).",
        ),
    ] = 1000,
    bootstrap_seed: BootstrapSeed = 0,
    as_runs: Annotated[
        bool,
        typer.Option(
            "--as-runs",
            help="Score several files as runs of one model even when their protocol records "
            "differ or are missing (hand-made files); systems are compared by `compare`.",
        ),
    ] = False,
    seasons: Seasons = None,
    aired_after: AiredAfter = None,
    eval_results: Annotated[
        Path | None,
        typer.Option(
            "--eval-results",
            metavar="DIR",
            help="Also write the Hub leaderboard entries, DIR/.eval_results/<task>.yaml (one "
            "per headline figure; test split), for the model repo --model-id.",
        ),
    ] = None,
    model_id: Annotated[
        str | None,
        typer.Option("--model-id", metavar="ORG/NAME", help="The model repo of --eval-results."),
    ] = None,
    dataset_id: Annotated[
        str | None,
        typer.Option(
            "--dataset-id",
            metavar="ORG/NAME",
            help="The benchmark's dataset repo of --eval-results (default: the Hub repo "
            "--data-dir names).",
        ),
    ] = None,
) -> None:
    """Score predictions exactly as the paper did; print a table, optionally write JSON.

    Several files (or a folder of runs) are runs of one model, reported as mean ± std with
    the two-level bootstrap interval (walls, then runs): their protocol records must agree
    (see --as-runs). The paper's figures are unchanged; intervals are defined in
    docs/statistics.md.
    """
    from rich.table import Table
    from rich.text import Text

    from ..evaluation import evaluate_files
    from ..llm.usage import cost_line
    from ..outputs import check_output_file, write_json
    from ..play.log import play_lines, player_column
    from ..provenance import provenance_lines, record_candidates
    from ..scoring.slices import WallSlice
    from ..views.summary import summary_rows

    check_resamples(bootstrap, none_ok=True)
    config = _checked_split(check_config(config), split)
    walls_slice = WallSlice.parse(seasons, aired_after)
    source = data_dir_of(data_dir, config)
    if bertscore:
        require("bertscore", "evaluate --bertscore")
    records = [r for p in predictions for r in record_candidates(p)]
    if out is not None:
        out = check_output_file(out, [*predictions, *records, source])
    board = _board_target(
        eval_results,
        model_id,
        dataset_id,
        (config, split, source),
        [*predictions, *records, out],
        sliced=walls_slice is not None,
    )
    with quiet_datasets(), progress() as bar:
        task = bar.add_task("scoring", total=None)
        results = evaluate_files(
            predictions,
            config,
            split=split,
            data_dir=source,
            allow_missing=allow_missing,
            bertscore=bertscore,
            cache_dir=cache_dir,
            verification_mode=verification_mode(no_checks),
            download_mode="force_redownload" if fresh else None,
            on_item=lambda n: bar.advance(task, n),
            rouge_tokenizer=rouge_tokenizer,
            bootstrap=bootstrap,
            bootstrap_seed=bootstrap_seed,
            as_runs=as_runs,
            walls_slice=walls_slice,
        )
    entries = _board_entries(board, results, model_id, dataset_id)  # before any output
    player = player_column(results.get("play_log"))  # a person's play log: "player"
    columns = ("task", "figure", player) + (("human",) if config_spec(config).human else ())
    shown = ", ".join(map(str, predictions))
    lines = [f"{config} / {split}: {inert(shown)}", *map(inert, provenance_lines(results))]
    if (cost := cost_line(results)) is not None:  # parsed runs: tokens, latency, cost
        lines.append(f"usage: {inert(cost)}")
    if results.get("slice"):
        lines.append(f"slice: {results['slice']['label']}")
    if results.get("part"):
        lines.append(f"scored: {results['part']['label']}")
    lines += map(inert, play_lines(results))  # a play log: its rules and profile
    table = Table(title=Text("\n".join(lines)))
    for column in columns:
        table.add_column(column, justify="left" if column in ("task", "figure") else "right")
    for row in summary_rows(results):
        table.add_row(*row[: len(columns)])
    console.print(table)
    if out is not None:
        write_json(out, results)
        console.print(f"results written to {out}")
    if entries is not None:
        from ..data.eval_results import write_eval_results

        board, found = entries
        written = write_eval_results(board, found, [*predictions, *records, source, out])
        console.print(f"{len(written)} leaderboard results written to {board}/.eval_results")


def _checked_split(config: str, split: str) -> str:
    """``config``, once ``split`` is one of its splits (checked before any file is read).

    Raises:
        UnknownSplitError: a split the config does not have.
    """
    if split not in config_spec(config).splits:
        from ..errors import UnknownSplitError

        raise UnknownSplitError(config, split, config_spec(config).splits)
    return config


def _board_entries(
    board: Path | None, results: dict[str, Any], model_id: str | None, dataset_id: str | None
) -> tuple[Path, dict[str, dict[str, Any]]] | None:
    """The ``--eval-results`` folder and its entries, made before anything is printed or
    written (figures on the stand-in are refused here); None without ``--eval-results``."""
    if board is None or model_id is None:
        return None
    if results.get("part"):
        from ..errors import OptionError

        raise OptionError(
            "--eval-results: a leaderboard entry is a figure of the whole split; this inspect "
            f"log answers {results['part']['n']} of its {results['part']['of']}"
        )
    from ..data.eval_results import eval_result_entries

    return board, eval_result_entries(results, model_id=model_id, dataset_id=dataset_id)


def _board_target(
    eval_results: Path | None,
    model_id: str | None,
    dataset_id: str | None,
    scored: tuple[str, str, str | None],
    inputs: list[Path | None],
    sliced: bool = False,
) -> Path | None:
    """``--eval-results`` checked before any scoring: with ``--model-id``, a writable folder,
    the test split (whole: no slice of seasons), a benchmark repo (``--dataset-id``, or a Hub
    repo as ``--data-dir``)."""
    from ..errors import OptionError, SliceError
    from ..outputs import check_output_dir

    if (eval_results is None) != (model_id is None):
        raise OptionError("--eval-results DIR and --model-id ORG/NAME go together")
    if eval_results is None:
        return None
    if sliced:
        raise SliceError(
            "--eval-results: a leaderboard entry is a figure of the whole split, not of "
            "a slice; drop --seasons / --aired-after"
        )
    from ..data.leaderboard import BOARD_SPLIT
    from ..data.publish import validate_repo_id
    from ..data.sources import find_source

    config, split, source = scored
    validate_repo_id(str(model_id))
    if dataset_id is not None:
        validate_repo_id(dataset_id)
    elif find_source(config, source).kind != "hub":
        raise OptionError(
            "--eval-results: name the benchmark's dataset repo, --dataset-id ORG/NAME"
        )
    if split != BOARD_SPLIT:
        raise OptionError(f"--eval-results: the leaderboard tasks are on --split {BOARD_SPLIT}")
    from ..data.eval_results import RESULTS_FOLDER

    folder = eval_results / RESULTS_FOLDER  # DIR may hold the inputs (a model repo's clone)
    return check_output_dir(folder, [*inputs, source], option="--eval-results").parent
