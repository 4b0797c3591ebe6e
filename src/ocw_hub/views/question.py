"""One WoTe question, seen: the question, the history turns and the context with the gold
answer span highlighted at ``answers.answer_start`` (SQuAD's offsets) and the predicted span
(found in the context ignoring case), in the terminal (``rich``) and as HTML. Each highlight also
has text marks (``⟦ ⟧`` gold, ``⟨ ⟩`` prediction); data text is escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..resources import load_metric_module
from ..shown import inert, preview

#: Marks around the gold answer span and the predicted span of a WoTe context.
GOLD_MARKS = ("⟦", "⟧")
PREDICTION_MARKS = ("⟨", "⟩")
_GOLD_STYLE = "black on #9ad19a"
_PREDICTION_STYLE = "bold underline #0072B2"


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
        code = load_metric_module("spans")
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


def _answer_notes(question: Question, shown: Callable[[str], str] = str) -> list[str]:
    """The lines under the context: each gold answer and the prediction, ``shown`` applied to
    the texts from the data."""
    notes = []
    for text, start in question.answers:
        where = f"at offset {start}" if start >= 0 else "not found in the context"
        notes.append(f"gold answer {GOLD_MARKS[0]}{shown(text)}{GOLD_MARKS[1]} {where}")
    if question.prediction is not None:
        span = question.prediction_span()
        where = f"at offset {span[0]}" if span else "not found in the context"
        pred = f"{PREDICTION_MARKS[0]}{shown(question.prediction)}{PREDICTION_MARKS[1]}"
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

    parts: list[Any] = [Text(inert(_question_heading(question)), style="bold")]
    for role, text in question.history:
        parts.append(Text.assemble((f"{inert(role)}: ", "bold dim"), (inert(text), "dim")))
    parts.append(Text.assemble(("question: ", "bold"), inert(question.question)))
    context = Text()
    for text, in_gold, in_pred, marks in _marked(question.segments()):
        context.append(marks, style="bold")
        style = " ".join(
            s for s, on in ((_GOLD_STYLE, in_gold), (_PREDICTION_STYLE, in_pred)) if on
        )
        context.append(inert(text, newlines=True), style=style or None)
    parts.append(Panel(context, title="context", title_align="left", expand=False))
    parts.extend(Text(inert(note)) for note in _answer_notes(question, preview))
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
