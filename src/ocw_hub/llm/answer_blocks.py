"""The answer block of each prompt style (:mod:`.styles`), before the parsers read it.

* ``text`` styles (``paper``, ``ours``): the whole answer.
* ``after MARKER`` styles (``cot``): only the text after the **last** line that starts with
  the marker (``Final answer:``; any case, behind markdown emphasis or a heading mark, the
  text after the marker on that line kept). No such line: no answer (reason
  ``no_final_answer``), never a parse of the reasoning.
* ``json`` styles: the answer is one JSON object (``json.loads``; one surrounding code fence
  is allowed and recorded as ``code_fence``), valid against the task's schema
  (:func:`.styles.schema_problem`); else no answer (reason ``invalid_json`` or
  ``schema_mismatch``, the decoder's or the schema's message as detail).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .answer_text import split_lines
from .styles import Style

_DECORATION = " \t*_#>`"
_EMPHASIS = "*_`"
_FENCE = re.compile(r"\A\s*```[A-Za-z]*[ \t]*\n(.*)\n[ \t]*```\s*\Z", re.DOTALL)


@dataclass
class AnswerBlock:
    """What a style's answer leaves for the parsers.

    Attributes:
        text: the text to read (``text`` and ``after`` styles), else None.
        value: the validated JSON object (``json`` styles), else None.
        reason: why there is no answer (``no_final_answer``, ``invalid_json``,
            ``schema_mismatch``), else None; ``detail`` says more.
        repairs: ``[{kind}]`` (``code_fence``).
    """

    text: str | None = None
    value: Any = None
    reason: str | None = None
    detail: str | None = None
    repairs: list[dict[str, Any]] = field(default_factory=list)


def after_marker(text: str, marker: str) -> str | None:
    """The text after the last line starting with ``marker`` (case ignored, markdown
    emphasis and heading marks around it allowed), the rest of that line included; None
    when no line does. After the marker only spaces and the emphasis marks that opened it
    (``**Final answer:**``) are dropped: the answer's own ``_``, ``*`` or bullet is kept
    (``Final answer: ___ monkey``)."""
    wanted = marker.casefold()
    lines = split_lines(text)
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index].lstrip(_DECORATION)
        if line.casefold().startswith(wanted):
            before = lines[index][: len(lines[index]) - len(line)].rstrip(" \t")
            opened = before[len(before.rstrip(_EMPHASIS)) :]
            rest = line[len(marker) :].lstrip(" \t").removeprefix(opened).lstrip(" \t")
            return "\n".join([rest, *lines[index + 1 :]]).strip("\n")
    return None


def json_block(text: str, schema: Any) -> AnswerBlock:
    """A ``json`` style's answer: the object, or why it is none (module docstring)."""
    from .styles import schema_problem

    block = AnswerBlock()
    fenced = _FENCE.match(text)
    if fenced is not None:
        text = fenced.group(1)
        block.repairs.append({"kind": "code_fence"})
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as err:
        block.reason, block.detail = "invalid_json", f"not JSON: {err}"[:200]
        return block
    problem = schema_problem(value, schema)
    if problem is not None:
        block.reason, block.detail = "schema_mismatch", problem[:200]
        return block
    block.value = value
    return block


def answer_block(text: str, style: Style, task: str) -> AnswerBlock:
    """The block of ``text`` that the parsers read for ``task`` in ``style``."""
    if style.answer == "json":
        return json_block(text, style.schemas[task])
    if style.answer == "after" and style.marker is not None:
        found = after_marker(text, style.marker)
        if found is None:
            return AnswerBlock(
                reason="no_final_answer", detail=f"no line starts with {style.marker!r}"
            )
        return AnswerBlock(text=found)
    return AnswerBlock(text=text)
