"""What ``ocw-hub evaluate`` scores, by the kind of its input: a play log
(:func:`ocw_hub.play.scoring.evaluate_play`), an inspect-ai log (its epochs as runs,
:mod:`ocw_hub.inspect_tasks.logs`) or predictions files and folders of runs
(:func:`ocw_hub.scoring.runs.score_files`). The one place that knows every kind, so the
scoring below it knows none of the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .configs import PathLike, config_spec
from .errors import PredictionsError
from .scoring.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from .scoring.runs import AnswerLog, Progress, score_files
from .scoring.slices import WallSlice, unsliced_play_log


def evaluate_files(
    predictions: Sequence[PathLike],
    config: str,
    split: str = "test",
    data_dir: PathLike | None = None,
    *,
    allow_missing: bool = False,
    bertscore: bool = False,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
    download_mode: str | None = None,
    on_item: Progress | None = None,
    rows: Sequence[dict] | None = None,
    rouge_tokenizer: str = "default",
    bootstrap: int = DEFAULT_RESAMPLES,
    bootstrap_seed: int = DEFAULT_SEED,
    as_runs: bool = False,
    walls_slice: WallSlice | None = None,
) -> dict[str, Any]:
    """Score ``predictions`` against a split of ``config``, as ``ocw-hub evaluate`` does.

    One play log (``ocw_play``'s, the play page's) is scored by the show's rules; one inspect
    log (``.eval``) has its epochs scored as runs; anything else is predictions files or
    folders of runs (:func:`ocw_hub.scoring.runs.score_files`, whose arguments these are).

    Raises:
        PredictionsError: an inspect log among other inputs; see ``score_files``.
        SliceError: a slice of a play log.
    """
    from .play.log import is_play_log

    spec = config_spec(config)
    if len(predictions) == 1 and unsliced_play_log(is_play_log(predictions[0]), walls_slice):
        from .play.scoring import evaluate_play

        return evaluate_play(
            predictions[0],
            spec.name,
            split,
            data_dir,
            allow_missing=allow_missing,
            rouge_tokenizer=rouge_tokenizer,
            bootstrap=bootstrap,
            bootstrap_seed=bootstrap_seed,
            cache_dir=cache_dir,
            verification_mode=verification_mode,
            download_mode=download_mode,
            rows=rows,
        )
    return score_files(
        predictions,
        spec.name,
        split,
        data_dir,
        allow_missing=allow_missing,
        bertscore=bertscore,
        cache_dir=cache_dir,
        verification_mode=verification_mode,
        download_mode=download_mode,
        on_item=on_item,
        rows=rows,
        rouge_tokenizer=rouge_tokenizer,
        bootstrap=bootstrap,
        bootstrap_seed=bootstrap_seed,
        as_runs=as_runs,
        walls_slice=walls_slice,
        log=_inspect_log(predictions, spec.name, split),
    )


def _inspect_log(predictions: Sequence[PathLike], config: str, split: str) -> AnswerLog | None:
    """The answers of an inspect log (:mod:`ocw_hub.inspect_tasks.logs`) given alone, else
    None.

    Raises:
        PredictionsError: an inspect log among other inputs, or one that cannot be read.
        MissingExtraError: an inspect log without inspect-ai installed.
    """
    from .inspect_tasks.logs import is_inspect_log, read_inspect_log

    logs = [p for p in predictions if is_inspect_log(p)]
    if not logs:
        return None
    if len(predictions) > 1:
        raise PredictionsError(
            f"{logs[0]}: an inspect log is scored alone (its epochs are its runs)"
        )
    return read_inspect_log(logs[0], config, split)
