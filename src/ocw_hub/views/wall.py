"""Walls and WoTe questions, seen: a rich view for the terminal, an HTML snippet for notebooks.

* :class:`Wall`: one OCW wall (16 clues in 4 gold groups of 4, each with its connection and the
  contestants' result), optionally with a predicted wall. In the terminal (``rich``) and in HTML
  (:meth:`Wall._repr_html_`, used by Jupyter and by the report) it is drawn as the show draws a
  solved wall: a 4x4 grid, one row and one colour per gold group, the connection beside it.
  With a prediction, the predicted groups follow as rows, each clue in the colour of its gold
  group and marked ``✗`` when it sits outside the gold group matched to its row (a red herring
  taken), so a misplaced clue stands out without colour too; the wall's figures (AMI, ARI, FMS,
  WD, correct groups) are computed by the metric's own code
  (:func:`ocw_hub.resources.load_metric_module`).
* :class:`Question`: one WoTe question: the question, the history turns and the context with
  the gold answer span highlighted at ``answers.answer_start`` (SQuAD's offsets), and the
  prediction's span when a prediction is given (found in the context ignoring case).

Colours are the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies);
every colour also has a text mark (the gold group number, ``✗``, ``⟦ ⟧``, ``⟨ ⟩``), so plain
terminals and screen readers lose nothing. Every text from the data is escaped (``rich``
markup is never parsed from data; HTML goes through :func:`html.escape`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..configs import PathLike
from ..errors import OCWHubError

#: Background colour of gold groups 1-4 (Okabe-Ito blue, orange, bluish green, reddish purple).
GROUP_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")
#: Text colour on each group colour (contrast ratio at least 4.5:1).
GROUP_TEXT = ("#FFFFFF", "#000000", "#000000", "#000000")
#: Colour of a predicted clue that is not in the wall at all.
UNKNOWN_COLOUR = "#BBBBBB"
#: Mark of a clue placed outside the gold group matched to its predicted row.
MISPLACED = "✗"
#: Mark of a predicted row equal to a gold group.
CORRECT = "✓"
#: Figures shown under a predicted wall, in order, with their labels.
WALL_FIGURES = (
    ("ami", "AMI"),
    ("ari", "ARI"),
    ("fms", "FMS"),
    ("wd", "WD"),
    ("correct_groups", "correct groups"),
)
#: Marks around the gold answer span and the predicted span of a WoTe context.
GOLD_MARKS = ("⟦", "⟧")
PREDICTION_MARKS = ("⟨", "⟩")
_GOLD_STYLE = "black on #9ad19a"
_PREDICTION_STYLE = "bold underline #0072B2"


class UnknownIdError(OCWHubError, KeyError):
    """A wall id or question id that the split does not hold.

    Attributes:
        item_id: the id asked for; config, split: where it was looked up.
    """

    def __init__(self, item_id: str, config: str, split: str, what: str = "wall") -> None:
        super().__init__(f"{what} {item_id!r} is not in config {config!r}, split {split!r}")
        self.item_id = item_id
        self.config = config
        self.split = split

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class Group:
    """One gold group: 4 clues, the connection, and whether the contestants found them
    (``human_grouping``, ``human_connection``: 1 found, 0 not, None not recorded)."""

    clues: tuple[str, ...]
    connection: str
    human_grouping: int | None = None
    human_connection: int | None = None


@dataclass(frozen=True)
class PlacedClue:
    """A clue of a predicted row: its gold group (0-3, None when the clue is not in the wall)
    and whether it is misplaced (its gold group is not the one matched to its row)."""

    clue: str
    gold: int | None
    misplaced: bool


@dataclass(frozen=True)
class Wall:
    """One OCW wall, optionally with a prediction; ``rich`` and Jupyter draw it.

    Attributes:
        wall_id, season, episode: as in the dataset.
        words: the 16 clues in the dataset's order.
        groups: the 4 gold groups in gold group order.
        predicted_groups: 4 predicted groups of 4 clues (any order), or None.
        predicted_connections: 4 predicted connections in gold group order, or None.
        config, split: where the wall was read, for the heading (optional).
    """

    wall_id: str
    season: int | None
    episode: int | None
    words: tuple[str, ...]
    groups: tuple[Group, ...]
    predicted_groups: tuple[tuple[str, ...], ...] | None = None
    predicted_connections: tuple[str, ...] | None = None
    config: str | None = None
    split: str | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_row(
        cls,
        row: Mapping[str, Any],
        prediction: Any = None,
        *,
        config: str | None = None,
        split: str | None = None,
    ) -> Wall:
        """A wall from a row as the OCW builders yield it (``wall_id``, ``season``,
        ``episode``, ``words``, ``groups.group_1..group_4``), with an optional prediction: a
        :class:`ocw_hub.scoring.predictions.WallPrediction` or a dict in the official format
        (``{"predicted_groups": 4 lists of 4 | None, "predicted_connections": 4 strings |
        None}``).

        Raises:
            ValueError: the prediction's groups are not 4 lists of 4 clue strings (the metric's
                check, naming the position).
        """
        groups = []
        for key in sorted(row["groups"]):
            group = row["groups"][key]
            human = group.get("human_performance") or {}
            groups.append(
                Group(
                    clues=tuple(str(c) for c in group["gt_words"]),
                    connection=str(group["gt_connection"]),
                    human_grouping=human.get("grouping"),
                    human_connection=human.get("connection"),
                )
            )
        wall = cls(
            wall_id=str(row["wall_id"]),
            season=row.get("season"),
            episode=row.get("episode"),
            words=tuple(str(w) for w in row["words"]),
            groups=tuple(groups),
            config=config,
            split=split,
        )
        if prediction is None:
            return wall
        if isinstance(prediction, Mapping):
            groups = prediction.get("predicted_groups")
            connections = prediction.get("predicted_connections")
        else:
            groups, connections = prediction.groups, prediction.connections
        return wall.with_prediction(groups, connections)

    def with_prediction(
        self,
        predicted_groups: Sequence[Sequence[str]] | None,
        predicted_connections: Sequence[str] | None = None,
    ) -> Wall:
        """The same wall with a prediction (either part may be None).

        Raises:
            ValueError: groups that are not 4 lists of 4 clue strings, or connections that are
                not 4 strings (the metric's checks, naming the position).
        """
        code = _metric_module("inputs")
        groups = None
        if predicted_groups is not None:
            checked = code.validate_wall(predicted_groups, f"wall {self.wall_id}: predicted_groups")
            groups = tuple(tuple(g) for g in checked)
        connections = None
        if predicted_connections is not None:
            where = f"wall {self.wall_id}: predicted_connections"
            connections = tuple(code.validate_connections(predicted_connections, where))
        return replace(self, predicted_groups=groups, predicted_connections=connections, _cache={})

    @property
    def gold(self) -> list[list[str]]:
        """The gold wall: 4 groups of 4 clues, in gold group order."""
        return [list(g.clues) for g in self.groups]

    @property
    def scores(self) -> dict[str, Any] | None:
        """The predicted wall's figures from the metric's ``score_wall`` (``wd`` 0-1 lower is
        better; ``ami``, ``ari``, ``fms`` at most 1; ``correct_groups`` 0-4; ``full_wall``), or
        None without predicted groups."""
        if self.predicted_groups is None:
            return None
        if "scores" not in self._cache:
            self._cache["scores"] = _metric_module("grouping").score_wall(
                [list(g) for g in self.predicted_groups], self.gold
            )
        return self._cache["scores"]

    def placed(self) -> list[list[PlacedClue]]:
        """The predicted rows, each clue with its gold group and whether it is misplaced
        (4 rows of 4; empty without predicted groups).

        A clue's gold group is the metric's label for it (``predicted_labels`` of the metric
        code, which also settles clues held by two gold groups). Each predicted row is matched
        to one gold group, one to one, maximising the clues in place (Hungarian assignment,
        ``scipy.optimize.linear_sum_assignment``); a row equal to a gold group is always
        matched to it. A clue is misplaced when its gold group is not its row's match.
        """
        if self.predicted_groups is None:
            return []
        if "placed" not in self._cache:
            labels = _gold_labels(self.predicted_groups, self.gold)
            match = _match_rows(labels)
            self._cache["placed"] = [
                [
                    PlacedClue(clue, label, label != match[p])
                    for clue, label in zip(group, labels[p], strict=True)
                ]
                for p, group in enumerate(self.predicted_groups)
            ]
            self._cache["match"] = match
        return self._cache["placed"]

    def row_matches(self) -> list[int]:
        """The gold group (0-3) matched to each predicted row (see :meth:`placed`)."""
        self.placed()
        return list(self._cache.get("match", []))

    @property
    def title(self) -> str:
        """``wall ID · season S, episode E · config/split`` (the parts that are known)."""
        parts = [f"wall {self.wall_id}"]
        if self.season is not None:
            parts.append(
                f"season {self.season}"
                + (f", episode {self.episode}" if self.episode is not None else "")
            )
        if self.config:
            parts.append(f"{self.config}/{self.split}" if self.split else self.config)
        return " · ".join(parts)

    def __rich__(self) -> Any:
        return wall_renderable(self)

    def _repr_html_(self) -> str:
        return wall_html(self)

    def to_html(self) -> str:
        """The wall as a self-contained HTML snippet (inline styles, no script)."""
        return wall_html(self)


def _metric_module(name: str) -> Any:
    from ..resources import load_metric_module

    return load_metric_module(name)


def _gold_labels(
    predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]
) -> list[list[int | None]]:
    """Gold group (0-3, None if not in the wall) of each predicted clue, in the prediction's
    own order, from the metric's ``predicted_labels`` (which works on lowercased sorted
    groups)."""
    code = _metric_module("grouping")
    pred_sorted = [sorted(c.lower() for c in g) for g in predicted]
    gold_sorted = [sorted(c.lower() for c in g) for g in gold]
    flat = code.predicted_labels(pred_sorted, gold_sorted)
    out: list[list[int | None]] = []
    for p, group in enumerate(predicted):
        order = sorted(range(len(group)), key=lambda k: group[k].lower())
        labels: list[int | None] = [None] * len(group)
        for rank, k in enumerate(order):
            label = flat[p * len(group) + rank]
            labels[k] = label if label < len(gold) else None
        out.append(labels)
    return out


def _match_rows(labels: Sequence[Sequence[int | None]]) -> list[int]:
    """One gold group per predicted row, one to one, maximising clues in place."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    n = len(labels)
    overlap = np.zeros((n, n))
    for p, row in enumerate(labels):
        for label in row:
            if label is not None:
                overlap[p, label] += 1
    rows, cols = linear_sum_assignment(-overlap)
    match = [0] * n
    for r, c in zip(rows, cols, strict=True):
        match[int(r)] = int(c)
    return match


def _mark(value: int | None) -> str:
    return {1: CORRECT, 0: MISPLACED}.get(value, "?") if value is not None else "-"


def format_figure(key: str, value: Any) -> str:
    """A wall figure as the views print it: ``correct_groups`` as ``n/4``, the others with 3
    decimals."""
    if key == "correct_groups":
        return f"{value}/4"
    return f"{value:.3f}"


def _figures_line(wall: Wall) -> str:
    scores = wall.scores or {}
    return "   ".join(f"{label} {format_figure(k, scores[k])}" for k, label in WALL_FIGURES)


def _connection_note(wall: Wall, row: int) -> str:
    """The predicted connection of a predicted row (connections are in gold group order, so
    the one of the gold group matched to the row)."""
    if wall.predicted_connections is None:
        return ""
    match = wall.row_matches()[row]
    return wall.predicted_connections[match]


def _row_note(wall: Wall, row: int, placed: Sequence[PlacedClue]) -> str:
    match = wall.row_matches()[row]
    in_place = sum(not c.misplaced for c in placed)
    if in_place == len(placed):
        return f"{CORRECT} group {match + 1}"
    return f"{in_place}/4 of group {match + 1}"


# --------------------------------------------------------------------------------------
# Terminal (rich)
# --------------------------------------------------------------------------------------


def _clue_text(clue: PlacedClue) -> Any:
    from rich.text import Text

    if clue.gold is None:
        return Text(f"? {clue.clue}", style=f"black on {UNKNOWN_COLOUR}")
    mark = f"{MISPLACED} " if clue.misplaced else ""
    style = f"{GROUP_TEXT[clue.gold]} on {GROUP_COLOURS[clue.gold]}"
    return Text(f"{mark}{clue.clue} ({clue.gold + 1})", style=style + (" bold" if mark else ""))


def _gold_table(wall: Wall) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="gold groups", show_header=True, header_style="bold", expand=False)
    table.add_column("#", justify="right")
    for _ in range(4):
        table.add_column("")
    table.add_column("connection")
    table.add_column("contestants\ngroup/conn.", justify="center", no_wrap=True)
    for g, group in enumerate(wall.groups):
        style = f"{GROUP_TEXT[g]} on {GROUP_COLOURS[g]}"
        human = f"{_mark(group.human_grouping)} / {_mark(group.human_connection)}"
        table.add_row(
            str(g + 1),
            *(Text(c, style=style) for c in group.clues),
            Text(group.connection, style="bold"),
            human,
        )
    return table


def _prediction_table(wall: Wall) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="predicted groups (each clue in its gold group's colour and number)")
    table.add_column("row", justify="right")
    for _ in range(4):
        table.add_column("")
    table.add_column("in place")
    if wall.predicted_connections is not None:
        table.add_column("connection named")
    for p, row in enumerate(wall.placed()):
        cells = [str(p + 1), *(_clue_text(c) for c in row), Text(_row_note(wall, p, row))]
        if wall.predicted_connections is not None:
            cells.append(Text(_connection_note(wall, p)))
        table.add_row(*cells)
    return table


def wall_renderable(wall: Wall) -> Any:
    """The ``rich`` renderable of a wall: heading, gold grid, predicted rows and figures."""
    from rich.console import Group as RichGroup
    from rich.text import Text

    parts: list[Any] = [Text(wall.title, style="bold")]
    parts.append(_gold_table(wall))
    if wall.predicted_groups is not None:
        parts.append(_prediction_table(wall))
        misplaced = sum(c.misplaced for row in wall.placed() for c in row)
        parts.append(
            Text(
                f"{MISPLACED} misplaced clue (outside the gold group matched to its row): "
                f"{misplaced} of 16;  (n) = the clue's gold group;  ? = not a clue of the wall"
            )
        )
        parts.append(Text(_figures_line(wall), style="bold"))
    elif wall.predicted_connections is not None:
        names = "; ".join(wall.predicted_connections)
        parts.append(Text(f"predicted connections (gold group order): {names}"))
    return RichGroup(*parts)


# --------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------

_TABLE_STYLE = "border-collapse:collapse;margin:0.4em 0;font-family:inherit;font-size:0.95em"
_CELL = "padding:0.35em 0.6em;border:2px solid #fff;border-radius:4px;text-align:center"
_PLAIN_CELL = "padding:0.35em 0.6em;text-align:left;color:inherit"


def _td(text: str, style: str, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    return f'<td style="{style}"{extra}>{html.escape(text)}</td>'


def _html_gold_rows(wall: Wall) -> list[str]:
    rows = []
    for g, group in enumerate(wall.groups):
        style = f"{_CELL};background:{GROUP_COLOURS[g]};color:{GROUP_TEXT[g]}"
        cells = [_td(str(g + 1), _PLAIN_CELL)]
        cells += [_td(c, style, data_group=str(g + 1)) for c in group.clues]
        cells.append(_td(group.connection, _PLAIN_CELL + ";font-weight:bold"))
        human = (
            f"contestants: group {_mark(group.human_grouping)} "
            f"connection {_mark(group.human_connection)}"
        )
        cells.append(_td(human, _PLAIN_CELL))
        rows.append(f'<tr class="ocw-gold">{"".join(cells)}</tr>')
    return rows


def _html_clue(clue: PlacedClue) -> str:
    if clue.gold is None:
        style = f"{_CELL};background:{UNKNOWN_COLOUR};color:#000"
        return _td(f"? {clue.clue}", style, data_group="none", title="not a clue of this wall")
    style = f"{_CELL};background:{GROUP_COLOURS[clue.gold]};color:{GROUP_TEXT[clue.gold]}"
    if clue.misplaced:
        style += ";font-weight:bold;outline:3px dashed #D55E00;outline-offset:-4px"
        text = f"{MISPLACED} {clue.clue} ({clue.gold + 1})"
        return _td(text, style, data_group=str(clue.gold + 1), data_misplaced="true")
    return _td(f"{clue.clue} ({clue.gold + 1})", style, data_group=str(clue.gold + 1))


def _html_prediction_rows(wall: Wall) -> list[str]:
    rows = []
    for p, row in enumerate(wall.placed()):
        cells = [_td(str(p + 1), _PLAIN_CELL)] + [_html_clue(c) for c in row]
        cells.append(_td(_row_note(wall, p, row), _PLAIN_CELL))
        if wall.predicted_connections is not None:
            cells.append(_td(f"named: {_connection_note(wall, p)}", _PLAIN_CELL))
        rows.append(f'<tr class="ocw-predicted">{"".join(cells)}</tr>')
    return rows


def _html_figures(wall: Wall) -> str:
    scores = wall.scores or {}
    items = "".join(
        f'<span style="margin-right:1.2em" data-figure="{k}"><b>{html.escape(label)}</b> '
        f"{html.escape(format_figure(k, scores[k]))}</span>"
        for k, label in WALL_FIGURES
    )
    misplaced = sum(c.misplaced for row in wall.placed() for c in row)
    legend = (
        f"{MISPLACED} = misplaced clue (outside the gold group matched to its row): "
        f"{misplaced} of 16; (n) = the clue's gold group; ? = not a clue of the wall"
    )
    return (
        f'<p class="ocw-figures" style="margin:0.3em 0">{items}</p>'
        f'<p style="margin:0.2em 0;font-size:0.85em">{html.escape(legend)}</p>'
    )


def wall_html(wall: Wall) -> str:
    """A wall as a self-contained HTML snippet: ``<div class="ocw-wall">`` with inline styles,
    the gold grid and, with a prediction, the predicted rows and the figures."""
    head = f'<div style="font-weight:bold;margin:0.3em 0">{html.escape(wall.title)}</div>'
    gold = (
        f'<table style="{_TABLE_STYLE}" aria-label="gold groups">'
        '<caption style="text-align:left;font-size:0.85em">gold groups</caption>'
        f"{''.join(_html_gold_rows(wall))}</table>"
    )
    parts = [head, gold]
    if wall.predicted_groups is not None:
        parts.append(
            f'<table style="{_TABLE_STYLE}" aria-label="predicted groups">'
            '<caption style="text-align:left;font-size:0.85em">predicted groups (each clue in '
            "its gold group's colour and number)</caption>"
            f"{''.join(_html_prediction_rows(wall))}</table>"
        )
        parts.append(_html_figures(wall))
    elif wall.predicted_connections is not None:
        names = "; ".join(wall.predicted_connections)
        parts.append(f"<p>predicted connections (gold group order): {html.escape(names)}</p>")
    wall_id = html.escape(wall.wall_id)
    return f'<div class="ocw-wall" data-wall-id="{wall_id}">{"".join(parts)}</div>'


# --------------------------------------------------------------------------------------
# WoTe questions
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """One WoTe question with its context, optionally with a predicted span.

    Attributes:
        id: the dataset's unique ``id``; question_id, domain, question_type as in the dataset.
        question: the question text; history: the earlier turns as (role, text).
        context: the task text the answer is extracted from.
        answers: (text, answer_start) pairs; answer_start is -1 when the answer was not found
            in the context.
        prediction: the predicted answer text, or None.
    """

    id: str
    question_id: str
    domain: str
    question_type: tuple[str, ...]
    question: str
    history: tuple[tuple[str, str], ...]
    context: str
    answers: tuple[tuple[str, int], ...]
    prediction: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any], prediction: str | None = None) -> Question:
        """A question from a row of the ``wote`` config (SQuAD-style ``context`` and
        ``answers``)."""
        answers = row.get("answers") or {"text": [], "answer_start": []}
        return cls(
            id=str(row["id"]),
            question_id=str(row.get("question_id", "")),
            domain=str(row.get("domain", "")),
            question_type=tuple(row.get("question_type") or ()),
            question=str(row["question"]),
            history=tuple((str(t["role"]), str(t["text"])) for t in row.get("history") or ()),
            context=str(row["context"]),
            answers=tuple(
                (str(t), int(s))
                for t, s in zip(answers["text"], answers["answer_start"], strict=True)
            ),
            prediction=prediction,
        )

    def gold_spans(self) -> list[tuple[int, int]]:
        """(start, end) character offsets of the gold answers found in the context (an answer
        whose ``answer_start`` is -1 or does not point at its text is left out)."""
        spans = []
        for text, start in self.answers:
            if text and start >= 0 and self.context[start : start + len(text)] == text:
                spans.append((start, start + len(text)))
        return spans

    def prediction_span(self) -> tuple[int, int] | None:
        """(start, end) of the first occurrence of the prediction in the context, ignoring
        case; None without a prediction or when it does not occur."""
        if not self.prediction:
            return None
        match = re.search(re.escape(self.prediction), self.context, flags=re.IGNORECASE)
        return (match.start(), match.end()) if match else None

    def scores(self) -> dict[str, float] | None:
        """SQuAD v1.1 exact match and F1 (0-100) of the prediction against the gold answers
        (the metric's code), or None without a prediction."""
        if self.prediction is None or not self.answers:
            return None
        code = _metric_module("spans")
        golds = [t for t, _ in self.answers]
        return {
            "exact_match": 100.0 * max(code.span_exact_match(self.prediction, g) for g in golds),
            "f1": 100.0 * max(code.span_f1(self.prediction, g) for g in golds),
        }

    def segments(self) -> list[tuple[str, bool, bool]]:
        """The context cut at span boundaries: (text, in a gold span, in the predicted span)."""
        gold = self.gold_spans()
        predicted = self.prediction_span()
        cuts = {0, len(self.context)}
        for start, end in [*gold, *([predicted] if predicted else [])]:
            cuts.update((start, end))
        bounds = sorted(cuts)
        out = []
        for start, end in zip(bounds, bounds[1:], strict=False):
            in_gold = any(s <= start and end <= e for s, e in gold)
            in_pred = predicted is not None and predicted[0] <= start and end <= predicted[1]
            out.append((self.context[start:end], in_gold, in_pred))
        return out

    def __rich__(self) -> Any:
        return question_renderable(self)

    def _repr_html_(self) -> str:
        return question_html(self)


def _answer_notes(question: Question) -> list[str]:
    notes = []
    for text, start in question.answers:
        where = f"at offset {start}" if start >= 0 else "not found in the context"
        notes.append(f"gold answer {GOLD_MARKS[0]}{text}{GOLD_MARKS[1]} {where}")
    if question.prediction is not None:
        span = question.prediction_span()
        where = f"at offset {span[0]}" if span else "not found in the context"
        pred = f"{PREDICTION_MARKS[0]}{question.prediction}{PREDICTION_MARKS[1]}"
        scores = question.scores()
        figures = (
            f"; exact match {scores['exact_match']:.0f}, F1 {scores['f1']:.1f} (0-100)"
            if scores
            else ""
        )
        notes.append(f"prediction {pred} {where}{figures}")
    return notes


def _marked(segments: Sequence[tuple[str, bool, bool]]) -> list[tuple[str, bool, bool, str]]:
    """Segments with the opening/closing marks to print before each (as text)."""
    out = []
    prev_gold = prev_pred = False
    for text, in_gold, in_pred in segments:
        marks = ""
        marks += PREDICTION_MARKS[1] if prev_pred and not in_pred else ""
        marks += GOLD_MARKS[1] if prev_gold and not in_gold else ""
        marks += GOLD_MARKS[0] if in_gold and not prev_gold else ""
        marks += PREDICTION_MARKS[0] if in_pred and not prev_pred else ""
        out.append((text, in_gold, in_pred, marks))
        prev_gold, prev_pred = in_gold, in_pred
    closing = (PREDICTION_MARKS[1] if prev_pred else "") + (GOLD_MARKS[1] if prev_gold else "")
    out.append(("", False, False, closing))
    return out


def _question_heading(question: Question) -> str:
    types = ", ".join(question.question_type) or "-"
    return f"question {question.id} · {question.domain} · {types}"


def question_renderable(question: Question) -> Any:
    """The ``rich`` renderable of a WoTe question: heading, history, question, the context
    with the gold span (green, ``⟦ ⟧``) and the predicted span (underlined, ``⟨ ⟩``)."""
    from rich.console import Group as RichGroup
    from rich.panel import Panel
    from rich.text import Text

    parts: list[Any] = [Text(_question_heading(question), style="bold")]
    for role, text in question.history:
        parts.append(Text.assemble((f"{role}: ", "bold dim"), (text, "dim")))
    parts.append(Text.assemble(("question: ", "bold"), question.question))
    context = Text()
    for text, in_gold, in_pred, marks in _marked(question.segments()):
        context.append(marks, style="bold")
        style = " ".join(
            s for s, on in ((_GOLD_STYLE, in_gold), (_PREDICTION_STYLE, in_pred)) if on
        )
        context.append(text, style=style or None)
    parts.append(Panel(context, title="context", title_align="left"))
    parts.extend(Text(note) for note in _answer_notes(question))
    return RichGroup(*parts)


def question_html(question: Question) -> str:
    """A WoTe question as a self-contained HTML snippet: the gold span in ``<mark>`` (green),
    the predicted span underlined, both also bracketed by text marks."""
    turns = "".join(
        f"<li><b>{html.escape(role)}:</b> {html.escape(text)}</li>"
        for role, text in question.history
    )
    context = []
    for text, in_gold, in_pred, marks in _marked(question.segments()):
        context.append(html.escape(marks))
        piece = html.escape(text)
        if in_pred:
            piece = f'<u style="text-decoration-thickness:2px;color:#0072B2">{piece}</u>'
        if in_gold:
            piece = f'<mark style="background:#9ad19a">{piece}</mark>'
        context.append(piece)
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in _answer_notes(question))
    return (
        f'<div class="wote-question" data-id="{html.escape(question.id)}">'
        f"<div><b>{html.escape(_question_heading(question))}</b></div>"
        + (f"<ol>{turns}</ol>" if turns else "")
        + f"<p><b>question:</b> {html.escape(question.question)}</p>"
        f'<pre style="white-space:pre-wrap;font-family:inherit">{"".join(context)}</pre>'
        f"<ul>{notes}</ul></div>"
    )


# --------------------------------------------------------------------------------------
# Lookup
# --------------------------------------------------------------------------------------


def find_row(rows: Sequence[Mapping[str, Any]], item_id: str, config: str, split: str) -> Any:
    """The row whose ``wall_id`` (OCW configs) or ``id`` (WoTe; its ``question_id`` is also
    accepted when it names one question) is ``item_id``.

    Raises:
        UnknownIdError: no such row; the message names the id, the config and the split.
    """
    key = "id" if config == "wote" else "wall_id"
    for row in rows:
        if row[key] == item_id:
            return row
    if config == "wote":
        found = [row for row in rows if row.get("question_id") == item_id]
        if len(found) == 1:
            return found[0]
    raise UnknownIdError(item_id, config, split, "question" if config == "wote" else "wall")


def read_prediction(path: PathLike, config: str, item_id: str) -> Any:
    """The prediction for one wall or question in a predictions file (official OCW format, or
    WoTe's list of ``{id, prediction_text}`` / ``{id: text}``), or None if it has none.

    Raises:
        PredictionsError: the file cannot be read or has the wrong shape (the message names the
            file, the entry and the field); see
            :func:`ocw_hub.scoring.predictions.read_predictions`.
    """
    from ..scoring.predictions import read_predictions

    return read_predictions(Path(path), config).get(item_id)


def wall(
    config: str,
    split: str,
    wall_id: str,
    *,
    data_dir: PathLike | None = None,
    predictions: PathLike | None = None,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
) -> Wall:
    """One wall of a split as a :class:`Wall` (shown as a grid in Jupyter), with its prediction
    from a predictions file when one is given.

    The split is read with :func:`ocw_hub.data.sources.load_split` (``data_dir``: raw files, an
    export folder or a Hub id; default the prepared cache, else the official download);
    ``verification_mode="no_checks"`` reads a copy whose split sizes are not the official ones.

    Raises:
        UnknownIdError: the split has no wall ``wall_id``.
        PredictionsError: the predictions file cannot be read.
        SourceUnavailableError: see :func:`ocw_hub.data.sources.load_split`.
    """
    from ..data.sources import load_split

    rows = load_split(
        config, split, data_dir, cache_dir=cache_dir, verification_mode=verification_mode
    ).to_list()
    row = find_row(rows, wall_id, config, split)
    prediction = read_prediction(predictions, config, wall_id) if predictions else None
    return Wall.from_row(row, prediction, config=config, split=split)
