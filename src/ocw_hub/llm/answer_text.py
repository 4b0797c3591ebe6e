"""Plain steps on an answer's text shared by the parsers and the inspect tasks: what a choice's
``finish_reason`` means, a message's ``content`` as text, lines on ``\n`` only, reasoning
blocks dropped, the string lists of a JSON value. Linear in the text, no recursion on
nesting."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "COMPLETE",
    "COMPLETE_ALIASES",
    "CUT",
    "NOT_REPORTED",
    "REASONING_TAGS",
    "completion_problem",
    "content_text",
    "drop_reasoning",
    "error_message",
    "incomplete",
    "json_string_lists",
    "split_lines",
]

#: The names of reasoning blocks models write: ``<think>`` (DeepSeek-R1, Qwen3, QwQ),
#: ``<thinking>`` (Claude-style prompts, several fine-tunes), ``<reasoning>`` (others).
REASONING_TAGS = ("think", "thinking", "reasoning")
#: A reasoning tag, whole (``<think>``, ``</thinking>``, ``<reasoning>``) or, for ``think``,
#: a fragment of one as models and servers leave them (``/think>``, ``think>``, ``</think``
#: and ``<think`` without their ``>``): a closing tag when it has ``/`` or lacks its ``<``.
#: Group ``name`` is the tag's name, lowercased by :func:`drop_reasoning`.
_THINK_TAG = re.compile(
    r"<(?P<close>/?)(?P<name>thinking|reasoning)>|<(?P<close1>/?)(?P<name1>think)\b>?"
    r"|(?P<close2>/)(?P<name2>think)>|\b(?P<name3>think)>",
    re.IGNORECASE,
)

#: The ``finish_reason`` of a complete answer (OpenAI's, vLLM's, TGI's, SGLang's, Ollama's).
COMPLETE = "stop"
#: Other names of a complete answer: TGI before 2.2.1 (mid-2024) answered ``eos_token`` (the
#: model's end-of-sequence token) and ``stop_sequence`` (a stop string of the request) where
#: OpenAI says ``stop`` (text-generation-inference issue 2296, pull request 2344).
COMPLETE_ALIASES = ("eos_token", "stop_sequence")
#: The ``finish_reason`` of an answer cut at the token limit: an answer, read only as
#: ``truncated`` (``--allow-truncated``).
CUT = "length"
#: The parse report's count of answers that state no ``finish_reason`` (read as complete).
NOT_REPORTED = "finish_reason_not_reported"


def incomplete(finish_reason: Any) -> str | None:
    """Why an answer that ended with ``finish_reason`` is no answer, else None.

    :data:`COMPLETE` (and its TGI names, :data:`COMPLETE_ALIASES`) is a complete answer and
    :data:`CUT` a cut one; every other value (vLLM's and SGLang's ``abort``, ``error``,
    OpenAI's ``content_filter``, ``tool_calls``, ``function_call``, anything else or not a
    string) ended the answer before it was complete. None (no reason stated: lm-eval's
    outputs, hand-written responses files, some proxies) is read as complete, and the parse
    report counts such answers (:data:`NOT_REPORTED`)."""
    if finish_reason is None or finish_reason in (COMPLETE, CUT, *COMPLETE_ALIASES):
        return None
    return f"finish_reason {finish_reason!r}: the answer ended before it was complete"


def content_text(content: Any) -> str | None:
    """A message's ``content`` as text: a string as it is; a list of parts (OpenAI's
    ``[{"type": "text", "text": ...}]``) as its text parts joined with nothing between them
    (parts of other types, e.g. an image, are left out); None for null; ``ValueError`` for
    anything else (a number, an object, a part that is not an object or whose ``text`` is not
    a string)."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ValueError(f"expected a string or a list of parts, got {type(content).__name__}")
    texts = []
    for i, part in enumerate(content):
        if not isinstance(part, dict):
            raise ValueError(f"part {i}: expected an object, got {type(part).__name__}")
        if part.get("type", "text") != "text":
            continue
        if not isinstance(part.get("text"), str):
            raise ValueError(f"part {i}: a text part whose text is not a string")
        texts.append(part["text"])
    return "".join(texts)


def split_lines(text: str) -> list[str]:
    """Lines on ``\\n`` (``\\r\\n`` and ``\\r`` too), not on other Unicode line breaks."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _tag(match: re.Match[str]) -> tuple[str, bool]:
    """``(name, closing)`` of a :data:`_THINK_TAG` match."""
    groups = match.groupdict()
    name = groups["name"] or groups["name1"] or groups["name2"] or groups["name3"]
    closing = bool(groups["close"] or groups["close1"] or groups["close2"] or groups["name3"])
    return name.lower(), closing


def drop_reasoning(text: str) -> tuple[str, str | None, bool]:
    """The answer without its reasoning blocks (:data:`REASONING_TAGS`, any case), a
    problem, and whether a block was dropped. An unclosed block leaves no answer (problem
    ``unclosed_reasoning``); text before a lone closing tag is reasoning too; inside a block,
    only the closing tag of its own name ends it (other tags are part of it); a fragment of a
    ``think`` tag (:data:`_THINK_TAG`) is a tag. One pass over the tags, offsets in
    ``text``."""
    kept: list[str] = []
    start, open_name, dropped = 0, "", False
    for match in _THINK_TAG.finditer(text):
        name, closing = _tag(match)
        if closing and not open_name:
            kept = []  # all before a lone closing tag is thought
            start, dropped = match.end(), True
        elif closing and name == open_name:
            start, open_name, dropped = match.end(), "", True
        elif not closing and not open_name:
            kept.append(text[start : match.start()])
            open_name = name
    if open_name:
        return "".join(kept), "unclosed_reasoning", True
    kept.append(text[start:])
    return "".join(kept), None, dropped


def error_message(body: Any) -> str | None:
    """The server's own message in an error body: ``{"error": {"message": ...}}`` (OpenAI's,
    vLLM's 200 error object), ``{"error": "..."}`` (TGI's, Ollama's), ``{"message": ...}``,
    ``{"detail": ...}`` (FastAPI's); else None."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, str) and error:
        return error
    inner = error if isinstance(error, dict) else body
    for key in ("message", "detail"):
        if isinstance(inner.get(key), str) and inner[key]:
            return inner[key]
    return None


def completion_problem(body: Any) -> tuple[str, str] | None:
    """Why a 200 body is no usable chat completion, as ``(code, message)``, else None: not an
    object (``invalid_body``), an error object and no choices (``error_body``, with the
    error's own message), no choices (``no_choices``), a first choice that ended before it was
    complete (``incomplete``, :func:`incomplete`) or whose content is not text
    (``invalid_content``, :func:`content_text`)."""
    if not isinstance(body, dict):
        return "invalid_body", f"the answer is JSON but not an object ({type(body).__name__})"
    choices = body.get("choices")
    if not (isinstance(choices, list) and choices and isinstance(choices[0], dict)):
        if "error" in body or body.get("object") == "error":  # vLLM: {"object": "error", ...}
            error = body.get("error", body)
            shown = error_message(body) or json.dumps(error, ensure_ascii=False)[:200]
            return "error_body", f"the answer is an error: {shown}"
        return "no_choices", "the answer has no choices"
    choice = choices[0]
    message = choice.get("message")
    try:
        content_text(message.get("content") if isinstance(message, dict) else choice.get("text"))
    except ValueError as err:
        return "invalid_content", f"the answer's content is not text ({err})"
    problem = incomplete(choice.get("finish_reason"))
    return None if problem is None else ("incomplete", problem)


def _string_lists(value: Any) -> list[list[str]]:
    """The lists of strings inside a JSON value, in document order (iterative)."""
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list) and node and all(isinstance(v, str) for v in node):
            found.append(node)
        elif isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, dict):
            stack.extend(reversed(list(node.values())))
    return found


def json_string_lists(text: str) -> list[list[str]] | None:
    """The string lists of the JSON value the answer holds (first ``[``/``{`` to the last
    ``]``/``}``), else None."""
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return None
    start, end = min(starts), max(text.rfind("]"), text.rfind("}")) + 1
    try:
        value = json.loads(text[start:end])
    except (ValueError, RecursionError):
        return None
    lists = _string_lists(value)
    return lists or None
