"""Prompt styles as data: each style's text is a template file in ``prompt_styles/`` beside
this module (shipped in the wheel, read with :mod:`importlib.resources`).

A style file is a list of sections, each a header line ``=== name ===`` followed by its text
up to the next header (the one line break before a header, or at the end of the file, is not
part of the text). Sections:

* ``description``: one line, shown by ``ocw-hub prompts --list-styles``;
* ``reproduces``: one line, the published setting the style reproduces (or that none does),
  the last column of :func:`styles_table`;
* ``answer``: how ``parse`` reads the answer: ``text`` (as it stands), ``after MARKER`` (only
  the text after the last line that starts with ``MARKER``; none: no answer) or ``json`` (one
  JSON object, valid against ``<style>.<task>.schema.json``);
* ``TASK system``, ``TASK user`` for each task (``grouping``, ``connections``), and optionally
  ``TASK user zero-shot``, the user message used with no in-context example;
* ``schema in prompt`` (``json`` answers): the paragraph added to the user message when the
  schema is written in the prompt instead of sent as ``response_format``.

Placeholders (:class:`string.Template`, filled in one pass, so text from data, which holds no
line break (:func:`.prompts.one_line`), is inserted as it is and never read as a placeholder):
``${examples}`` (the in-context examples, blank-line separated, ``""`` for none), ``${clues}``
(task 1: the 16 clues, comma-separated), ``${groups}`` (task 2: the 4 groups, one per line
ending ``. Connection:``), ``${schema}`` (the JSON schema, one line).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Any

from ..errors import OCWHubError

#: The styles, in the order listed (one file each in ``prompt_styles/``).
STYLE_NAMES = ("paper", "ours", "cot", "json")
#: Where the schema of a ``json`` style goes: the request's ``response_format`` (servers with
#: structured output: OpenAI, vLLM, llama.cpp, SGLang) or the prompt's text.
RESPONSE_FORMATS = ("schema", "prompt")
TASK_NAMES = ("grouping", "connections")
_HEADER = re.compile(r"^=== (.+) ===$", re.MULTILINE)
#: The placeholders each kind of section may hold.
_ALLOWED = {
    "grouping user": {"examples", "clues"},
    "connections user": {"examples", "groups"},
    "schema in prompt": {"schema"},
}
#: JSON-schema keywords :func:`schema_problem` checks; a schema using any other is refused.
SCHEMA_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems"}
)


class StyleError(OCWHubError, ValueError):
    """An unknown style, or a style file that breaks its format (names the file)."""


@dataclass(frozen=True)
class Style:
    """One prompt style read from its file.

    Attributes:
        name: the style's name (its file's stem).
        description: one line.
        reproduces: one line: the published setting it reproduces, or that none does.
        answer: ``text``, ``json``, or ``after`` (then ``marker`` is set).
        marker: the final-answer marker of an ``after`` answer (``Final answer:``), else None.
        sections: every section's text by name.
        schemas: ``{task: JSON schema}`` of a ``json`` answer, else empty.
    """

    name: str
    description: str
    reproduces: str
    answer: str
    marker: str | None
    sections: Mapping[str, str]
    schemas: Mapping[str, Any]

    def template(self, section: str) -> Template:
        return Template(self.sections[section])


def _placeholders(text: str) -> set[str]:
    """The names a template text uses; a ``$`` that starts no placeholder is an error."""
    names = set()
    for match in Template.pattern.finditer(text):
        if match.group("invalid") is not None:
            raise ValueError(f"a '$' at character {match.start()} starts no placeholder")
        name = match.group("named") or match.group("braced")
        if name:
            names.add(name)
    return names


def read_sections(text: str, where: str) -> dict[str, str]:
    """The sections of a style file's text (module docstring).

    Raises:
        StyleError: text before the first header, a section given twice (names ``where``).
    """
    headers = list(_HEADER.finditer(text))
    if not headers or headers[0].start() != 0:
        raise StyleError(f"{where}: expected a first line '=== name ==='")
    sections: dict[str, str] = {}
    for header, after in zip(headers, [*headers[1:], None], strict=True):
        end = len(text) if after is None else after.start()
        body = text[header.end() + 1 : end]
        body = body[:-1] if body.endswith("\n") else body
        name = header.group(1)
        if name in sections:
            raise StyleError(f"{where}: section {name!r} given twice")
        sections[name] = body
    return sections


def _check(name: str, sections: dict[str, str], where: str) -> None:
    needed = ["description", "reproduces", "answer"]
    needed += [f"{t} {part}" for t in TASK_NAMES for part in ("system", "user")]
    missing = [n for n in needed if n not in sections]
    if missing:
        raise StyleError(f"{where}: no section {', '.join(repr(m) for m in missing)}")
    for section, text in sections.items():
        allowed = _ALLOWED.get(section.removesuffix(" zero-shot"), set())
        try:
            used = _placeholders(text)
        except ValueError as err:
            raise StyleError(f"{where}: section {section!r}: {err} (write $$ for $)") from err
        if used - allowed:
            raise StyleError(
                f"{where}: section {section!r}: unknown placeholder(s) {sorted(used - allowed)}"
            )


def _resource(filename: str) -> str:
    return (resources.files(__package__ or "ocw_hub.llm") / "prompt_styles" / filename).read_text(
        encoding="utf-8"
    )


@functools.cache
def load_style(name: str) -> Style:
    """The style ``name`` (one of :data:`STYLE_NAMES`), read from its file.

    Raises:
        StyleError: an unknown name; a file that breaks the format (module docstring).
    """
    if name not in STYLE_NAMES:
        raise StyleError(f"unknown prompt style {name!r}; expected one of {list(STYLE_NAMES)}")
    where = f"prompt_styles/{name}.txt"
    sections = read_sections(_resource(f"{name}.txt"), where)
    _check(name, sections, where)
    answer, marker = sections["answer"].strip(), None
    if answer.startswith("after "):
        answer, marker = "after", answer.removeprefix("after ").strip()
    if answer not in ("text", "json", "after") or marker == "":
        raise StyleError(f"{where}: section 'answer': expected text, json or after MARKER")
    schemas: dict[str, Any] = {}
    if answer == "json":
        for task in TASK_NAMES:
            schema = json.loads(_resource(f"{name}.{task}.schema.json"))
            unknown = _keywords(schema) - SCHEMA_KEYWORDS
            if unknown:
                raise StyleError(f"{name}.{task}.schema.json: keywords not checked {unknown}")
            schemas[task] = schema
        if "schema in prompt" not in sections:
            raise StyleError(f"{where}: no section 'schema in prompt'")
    reproduces = sections["reproduces"]
    return Style(name, sections["description"], reproduces, answer, marker, sections, schemas)


def response_format_of(style: str, given: str | None) -> str | None:
    """Where the schema of ``style``'s answers goes (``given``, default ``schema``) for a style
    answered in JSON; None for the other styles, which take none.

    Raises:
        StyleError: an unknown style; ``given`` for a style not answered in JSON, or not one
            of :data:`RESPONSE_FORMATS`.
    """
    if load_style(style).answer != "json":
        if given is not None:
            raise StyleError(
                f"--response-format {given}: only for a style answered in JSON (--prompt-style "
                "json)"
            )
        return None
    if given is not None and given not in RESPONSE_FORMATS:
        raise StyleError(
            f"--response-format {given}: expected one of {', '.join(RESPONSE_FORMATS)}"
        )
    return given or "schema"


def _keywords(schema: Any) -> set[str]:
    """Every keyword a schema uses, nested ones included (``properties`` names left out)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        found.update(node)
        stack.extend(node.get("properties", {}).values())
        stack.append(node.get("items"))
    return found


_TYPES: dict[str, Any] = {"object": dict, "array": list, "string": str}


def _object_problem(
    node: dict[str, Any], rule: Mapping[str, Any], where: str
) -> tuple[str | None, list[tuple[Any, Mapping[str, Any], str]]]:
    missing = [k for k in rule.get("required", []) if k not in node]
    if missing:
        return f"{where}: missing key {missing[0]!r}", []
    known = rule.get("properties", {})
    extra = [k for k in node if k not in known]
    if extra and rule.get("additionalProperties", True) is False:
        return f"{where}: unexpected key {extra[0]!r}", []
    return None, [(node[k], known[k], f"{where}.{k}") for k in node if k in known]


def _array_problem(
    node: list[Any], rule: Mapping[str, Any], where: str
) -> tuple[str | None, list[tuple[Any, Mapping[str, Any], str]]]:
    low, high = rule.get("minItems", 0), rule.get("maxItems", len(node))
    if not low <= len(node) <= high:
        return f"{where}: {len(node)} items, expected {low} to {high}", []
    if "items" not in rule:
        return None, []
    return None, [(v, rule["items"], f"{where}[{i}]") for i, v in enumerate(node)]


def schema_problem(value: Any, schema: Mapping[str, Any], path: str = "$") -> str | None:
    """Why ``value`` is not valid against ``schema`` (the keywords of
    :data:`SCHEMA_KEYWORDS`, types object, array and string), naming the path of the first
    problem in document order (``$.groups[2]``); None when it is valid. Iterative over the
    value's nesting."""
    stack: list[tuple[Any, Mapping[str, Any], str]] = [(value, schema, path)]
    while stack:
        node, rule, where = stack.pop()
        kind = rule.get("type")
        if kind is not None and not isinstance(node, _TYPES[kind]):
            return f"{where}: expected {kind}, got {type(node).__name__}"
        problem: str | None = None
        inner: list[tuple[Any, Mapping[str, Any], str]] = []
        if isinstance(node, dict):
            problem, inner = _object_problem(node, rule, where)
        elif isinstance(node, list):
            problem, inner = _array_problem(node, rule, where)
        if problem is not None:
            return problem
        stack.extend(reversed(inner))  # the first in document order is checked first
    return None


def user_message(
    style: Style, task: str, *, examples: str, question: Mapping[str, str], schema_in_prompt: bool
) -> str:
    """The user message of ``task`` in ``style``: its ``user`` template (``user zero-shot``
    when ``examples`` is empty and the style has one) filled with ``examples`` and the
    ``question``'s ``clues`` or ``groups``; with ``schema_in_prompt``, the ``schema in prompt``
    paragraph after a blank line."""
    section = f"{task} user"
    if not examples and f"{section} zero-shot" in style.sections:
        section += " zero-shot"
    text = style.template(section).substitute(examples=examples, **question)
    if schema_in_prompt:
        schema = json.dumps(style.schemas[task], ensure_ascii=False)
        text += "\n\n" + style.template("schema in prompt").substitute(schema=schema)
    return text


def response_format(style: Style, task: str) -> dict[str, Any]:
    """The ``response_format`` of a request whose answer is JSON (OpenAI's structured-output
    shape, which vLLM, llama.cpp and SGLang read too)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": f"ocw_{task}", "strict": True, "schema": style.schemas[task]},
    }


def style_lines() -> list[tuple[str, str]]:
    """``(name, description)`` of every style, in :data:`STYLE_NAMES` order."""
    return [(name, load_style(name).description) for name in STYLE_NAMES]


_ANSWER_SHOWN = {
    "text": "the whole answer",
    "after": "the text after the last line starting with `{marker}`",
    "json": "one JSON object, valid against the task's schema",
}


def styles_table() -> str:
    """The Markdown table of the styles (``docs/experiment.md`` holds it as is)."""
    rows = ["| style | what parse reads | the style | reproduces |", "| --- | --- | --- | --- |"]
    for name in STYLE_NAMES:
        style = load_style(name)
        read = _ANSWER_SHOWN[style.answer].format(marker=style.marker)
        rows.append(f"| `{name}` | {read} | {style.description} | {style.reproduces} |")
    return "\n".join(rows) + "\n"


def styles_markdown() -> str:
    """The exact text of every style as Markdown (``docs/prompt_styles.md`` is this text)."""
    parts = [
        "# Prompt styles: their exact text\n",
        "Generated from `src/ocw_hub/llm/prompt_styles/` (a test keeps this file equal to "
        "`ocw_hub.llm.styles.styles_markdown()`). Placeholders: `${examples}`, `${clues}`, "
        "`${groups}`, `${schema}` (see `ocw_hub/llm/styles.py`).\n",
    ]
    for name in STYLE_NAMES:
        style = load_style(name)
        parts.append(f"## `{name}`\n\n{style.description}\n")
        for section, text in style.sections.items():
            if section in ("description",):
                continue
            parts.append(f"### {section}\n\n````text\n{text}\n````\n")
        for task, schema in style.schemas.items():
            shown = json.dumps(schema, indent=2)
            parts.append(f"### {task} schema\n\n````json\n{shown}\n````\n")
    return "\n".join(parts)
