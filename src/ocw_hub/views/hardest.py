"""The hardest walls of the report: per results file (one label, one method), walls ranked by
mean AMI over its runs, listed as a table and drawn (:mod:`ocw_hub.views.wall_render`) with the
prediction of the run that scored lowest. Runs of different files are never averaged together."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..results import ResultsFile, grouped_files, mean_std
from .report_data import PredictionsCache, resolve_predictions


@dataclass(frozen=True)
class HardWall:
    """A wall ranked by its mean AMI over the runs of one results file."""

    wall_id: str
    season: Any
    mean_ami: float
    std_ami: float
    n_runs: int
    mean_correct: float
    human_correct: int | None
    worst: tuple[ResultsFile, dict[str, Any], float]  # (file, run, AMI) of the lowest run


def _wall_scores(
    f: ResultsFile,
) -> dict[str, list[tuple[ResultsFile, dict[str, Any], dict[str, Any]]]]:
    scores: dict[str, list[tuple[ResultsFile, dict[str, Any], dict[str, Any]]]] = {}
    for run in f.runs:
        for wall in run["per_wall"]:
            if "grouping" in wall:
                scores.setdefault(wall["wall_id"], []).append((f, run, wall))
    return scores


def hardest_walls(f: ResultsFile, n: int = 5) -> list[HardWall]:
    """The ``n`` walls with the lowest mean AMI over the runs of one results file, ties
    broken by wall id."""
    ranked = []
    for wall_id, entries in _wall_scores(f).items():
        amis = [float(w["grouping"]["ami"]) for _, _, w in entries]
        mean, std = mean_std(amis)
        f, run, w = min(entries, key=lambda e: float(e[2]["grouping"]["ami"]))
        human = w.get("human", {}).get("correct_groups")
        correct = [float(e[2]["grouping"]["correct_groups"]) for e in entries]
        ranked.append(
            HardWall(
                wall_id,
                w.get("season"),
                mean,
                std,
                len(amis),
                sum(correct) / len(correct),
                human,
                (f, run, float(w["grouping"]["ami"])),
            )
        )
    ranked.sort(key=lambda h: (h.mean_ami, h.wall_id))
    return ranked[:n]


def _hard_wall_table(hard: Sequence[HardWall]) -> str:
    rows = "".join(
        "<tr>"
        f"<td>{html.escape(h.wall_id)}</td><td>{html.escape(str(h.season))}</td>"
        f'<td class="num">{h.mean_ami:.4f} ± {h.std_ami:.4f}</td><td class="num">{h.n_runs}</td>'
        f'<td class="num">{h.mean_correct:.2f}</td>'
        f'<td class="num">{"-" if h.human_correct is None else h.human_correct}</td>'
        f"<td>{html.escape(h.worst[0].label)} / {html.escape(str(h.worst[1].get('run', '')))} "
        f"(AMI {h.worst[2]:.4f})</td></tr>"
        for h in hard
    )
    return (
        '<table class="hardest"><thead><tr><th>wall</th><th>season</th>'
        "<th>AMI, mean ± std</th><th>runs</th><th>correct groups, mean (0-4)</th>"
        "<th>contestants' correct groups (0-4)</th><th>lowest run</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _hard_wall_views(
    hard: Sequence[HardWall], rows: Mapping[str, Mapping[str, Any]], predictions: PredictionsCache
) -> list[str]:
    from .wall import Wall

    out = []
    for h in hard:
        row = rows.get(h.wall_id)
        if row is None:
            continue
        f, run, ami = h.worst
        prediction = predictions.get(resolve_predictions(run, f.path), f.config, h.wall_id)
        wall = Wall.from_row(row, prediction, config=f.config, split=f.split)
        note = (
            f"mean AMI {h.mean_ami:.4f} ± {h.std_ami:.4f} over {h.n_runs} runs; shown: the "
            f"prediction of {f.label} / {run.get('run', '?')} (AMI {ami:.4f})"
            if prediction is not None
            else "the gold wall only: the predictions file of its lowest run was not found"
        )
        out.append(
            f'<div class="wall-card"><p class="note">{html.escape(note)}</p>{wall.to_html()}</div>'
        )
    return out


def hardest_section(
    files: Sequence[ResultsFile],
    rows: Mapping[str, Mapping[str, Any]] | None,
    n: int,
    predictions: PredictionsCache,
) -> str:
    """The HTML section of the ``n`` hardest walls of each results file of one config and
    split (one table per file: a file is one method): the table, and the walls drawn when
    ``rows`` (gold rows by wall id) are given; empty without any."""
    graded = grouped_files(files)
    if not graded:
        return ""
    config, split = files[0].key
    parts = [
        f'<section class="hardest-walls" id="hardest-{html.escape(config)}-{html.escape(split)}">'
        f"<h3>The hardest walls ({html.escape(config)} / {html.escape(split)})</h3>"
        f"<p>For each results file, the {n} walls with the lowest AMI averaged over its runs "
        "(runs of different files are never averaged together); drawn with the prediction of "
        "the run that scored lowest on each (clues in their gold group's colour and number, "
        "✗ = misplaced).</p>",
    ]
    for f in graded:
        hard = hardest_walls(f, n)
        parts.append(f'<h4 data-label="{html.escape(f.label)}">{html.escape(f.label)}</h4>')
        parts.append(_hard_wall_table(hard))
        if rows is not None:
            parts.extend(_hard_wall_views(hard, rows, predictions))
    if rows is None:
        parts.append(
            '<p class="note">The walls are not drawn: the gold walls are not in results files; '
            "give the config's data (<code>ocw-hub report --data-dir</code>) to draw them.</p>"
        )
    parts.append("</section>")
    return "".join(parts)
