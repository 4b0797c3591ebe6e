"""Chat-completion requests for the paper's few-shot LLM protocol (``ocw-hub prompts``).

The protocol, as the paper ran it (facts from the upstream notebook ``run_openai.ipynb``):

* **Task 1, grouping**: the model gets the wall's 16 clues in the order of ``words`` and is
  asked for the four groups of four, one group per line, clues separated by commas.
* **Task 2, connections**: the model gets the four gold groups (in gold group order, one per
  line, each followed by ``. Connection:``) and is asked to complete each line with the
  group's connection.
* **In-context examples**: K whole walls of the *train* split, the same for every wall of a
  run, drawn with ``random.Random(seed).sample(train_walls, K)`` (seed 42; the paper ran
  K in 0, 1, 3, 5, 10). Each example is written one line per group in gold group order as
  ``clue, clue, clue, clue. Connection: X``. A wall is never its own example: for a wall
  of the pool itself (``--split train``) the same draw is made from the pool without it.
* **Decoding**: temperature 0, at most 144 new tokens (the ``paper`` generation profile; the
  others, and where each body's generation fields come from: :mod:`ocw_hub.llm.profiles`).
* **Model**: the paper ran ``gpt-4-0314`` and ``gpt-3.5-turbo-0301``.

Prompt styles (``style``), their text in template files (``prompt_styles/``, :mod:`.styles`):

* ``paper`` (the default): the notebook's messages byte for byte (its system prompts, the
  ``Example solved wall(s):`` header, ``Clues:`` followed by two spaces, the closing
  ``Solved wall:``; with K = 0 the header stays, followed by an empty example block) and its
  request parameters (temperature 0.0, top_p 1.0, n 1, stop ``<|im_end|>``).
* ``ours``: our own wording of the same instructions, same examples and layout of the walls.
* ``cot``: ours, asking to think step by step and then answer after a ``Final answer:`` line.
* ``json``: ours, asking for one JSON object; its schema is sent as ``response_format``
  (``response_format="schema"``) or written in the prompt (``"prompt"``).

One request per wall, in the OpenAI batch *input* shape that OpenAI's Batch API, vLLM's
``run_batch`` read (the inspect tasks send the same messages)::

    {"custom_id": wall_id, "method": "POST", "url": "/v1/chat/completions",
     "body": {"model": ..., "messages": [system, user], "temperature": 0, "max_tokens": 144}}
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import OCWHubError
from ..outputs import jsonl_text
from .profiles import Generation, check_generation, generation_fields
from .styles import RESPONSE_FORMATS, STYLE_NAMES, StyleError, load_style, user_message
from .styles import response_format as schema_response_format

#: The two OCW tasks, by the names ``prompts`` and ``parse`` use.
TASKS = ("grouping", "connections")
#: The numbers of in-context examples the paper ran.
PAPER_SHOTS = (0, 1, 3, 5, 10)
#: Seed of the in-context example draw in the paper.
DEFAULT_SEED = 42
#: Decoding of the paper: greedy, at most 144 new tokens.
TEMPERATURE = 0
MAX_TOKENS = 144
#: Model named in the requests when none is given (the notebook's default; the paper's runs
#: used ``gpt-4-0314`` and ``gpt-3.5-turbo-0301``).
DEFAULT_MODEL = "gpt-3.5-turbo"
#: The endpoint of every request, as the batch input shape names it.
CHAT_COMPLETIONS_URL = "/v1/chat/completions"
#: What separates a group's clues from its connection in examples and task-2 answers.
CONNECTION_MARK = ". Connection:"

#: Prompt styles (their text is in ``prompt_styles/``, :mod:`.styles`).
STYLES = STYLE_NAMES

#: The paper's closing line (the last line of its user message, ``prompt_styles/paper.txt``).
PAPER_CLOSING = "Solved wall:"
#: Request parameters the notebook sent besides model, messages and max_tokens.
PAPER_PARAMETERS = {"temperature": 0.0, "top_p": 1.0, "n": 1, "stop": "<|im_end|>", "stream": False}


class PromptError(OCWHubError, ValueError):
    """Requests that cannot be built: an unknown task, a number of in-context examples the
    train split cannot supply, or a wall without its 16 clues or 4 groups."""


def gold_groups(wall: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The 4 groups of a wall row in gold group order (``group_1`` … ``group_4``), each
    ``{gt_words: [4 clues], gt_connection: str, ...}``.

    Raises:
        PromptError: the wall has no ``groups`` mapping of 4 groups.
    """
    groups = wall.get("groups")
    if not isinstance(groups, Mapping) or len(groups) != 4:
        raise PromptError(f"wall {wall.get('wall_id')!r}: field groups: expected 4 groups")
    return [groups[key] for key in sorted(groups, key=_group_number)]


@functools.cache
def _line_breaking_char() -> Callable[[str], tuple[int, str] | None]:
    from ..resources import load_sibling

    return load_sibling("source_files").line_breaking_char


def one_line(value: Any, item: str, field: str) -> str:
    """``str(value)``, refused when it holds a control character or a line break: data goes
    into a prompt one line per clue group, so a clue holding ``"\\n\\nSolved wall:"`` would
    add lines to the prompt's structure. The loaders refuse such walls already; this holds for
    rows from anywhere.

    Raises:
        PromptError: names the ``item`` (``"wall '46fa44'"``), the field and the character.
    """
    text = str(value)
    found = _line_breaking_char()(text)
    if found is not None:
        raise PromptError(
            f"{item}: field {field}: holds the control character or line "
            f"break {found[1]!r} at character {found[0]}; it would change the prompt's structure"
        )
    return text


def _checked_groups(wall: Mapping[str, Any], connections: bool) -> list[dict[str, Any]]:
    """:func:`gold_groups` with every clue (and connection) checked by :func:`one_line`."""
    item, checked = f"wall {wall.get('wall_id')!r}", []
    for i, group in enumerate(gold_groups(wall), 1):
        field = f"groups.group_{i}"
        words = [
            one_line(w, item, f"{field}.gt_words[{j}]") for j, w in enumerate(group["gt_words"])
        ]
        line: dict[str, Any] = {"gt_words": words}
        if connections:
            line["gt_connection"] = one_line(group["gt_connection"], item, f"{field}.gt_connection")
        checked.append(line)
    return checked


def _group_number(key: str) -> tuple[int, str]:
    tail = key.rsplit("_", 1)[-1]
    return (int(tail), key) if tail.isascii() and tail.isdigit() else (0, key)


def format_group(words: Sequence[str], connection: str | None = None) -> str:
    """One group as a line: ``clue, clue, clue, clue. Connection: X``.

    With ``connection=None`` the line ends with ``. Connection:`` (the task-2 question).
    """
    line = ", ".join(words) + CONNECTION_MARK
    return line if connection is None else f"{line} {connection}"


def format_example(wall: Mapping[str, Any]) -> str:
    """A solved wall as 4 lines, one group per line in gold group order with its connection.

    Raises:
        PromptError: a clue or connection that is not one line (:func:`one_line`).
    """
    groups = _checked_groups(wall, connections=True)
    return "\n".join(format_group(g["gt_words"], g["gt_connection"]) for g in groups)


def format_examples(walls: Sequence[Mapping[str, Any]]) -> str:
    """The in-context examples (``Example 1`` … ``Example K``, each its 4 lines, separated by
    blank lines), or ``""`` for K = 0: a style's ``${examples}``."""
    return "\n\n".join(f"Example {i}\n{format_example(w)}" for i, w in enumerate(walls, 1))


def format_clues(wall: Mapping[str, Any]) -> str:
    """The wall's 16 clues in the order of ``words``, comma-separated, after ``Clues:``.

    Raises:
        PromptError: ``words`` is not a list of 16 strings; a clue that is not one line
            (:func:`one_line`).
    """
    words = wall.get("words")
    if not isinstance(words, Sequence) or isinstance(words, str) or len(words) != 16:
        raise PromptError(f"wall {wall.get('wall_id')!r}: field words: expected 16 clues")
    item = f"wall {wall.get('wall_id')!r}"
    return "Clues: " + ", ".join(one_line(w, item, f"words[{i}]") for i, w in enumerate(words))


def sample_examples(
    train_walls: Sequence[Mapping[str, Any]], shots: int, seed: int = DEFAULT_SEED
) -> list[Mapping[str, Any]]:
    """The K in-context example walls: ``random.Random(seed).sample(train_walls, shots)``.

    The draw depends only on the number of train walls, K and the seed, so the examples are
    the same for every wall of a run (as in the paper). Note that Python's ``sample`` switches
    algorithm with K, so the 10 examples of K = 10 need not start with the 5 of K = 5.

    Raises:
        PromptError: ``shots`` is negative or larger than the number of train walls.
    """
    if not 0 <= shots <= len(train_walls):
        raise PromptError(
            f"{shots} in-context examples asked, but the train split has {len(train_walls)} "
            f"walls (the paper used K in {list(PAPER_SHOTS)})"
        )
    return random.Random(seed).sample(list(train_walls), shots)


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise PromptError(f"unknown prompt style {style!r}; expected one of {list(STYLES)}")


def _check_response_format(response_format: str) -> None:
    if response_format not in RESPONSE_FORMATS:
        raise PromptError(
            f"unknown response format {response_format!r}; expected one of {list(RESPONSE_FORMATS)}"
        )


def _messages(
    task: str,
    examples: Sequence[Mapping[str, Any]],
    question: dict[str, str],
    style: str,
    response_format: str,
) -> list[dict[str, str]]:
    """System and user messages of ``task`` in ``style`` (:mod:`.styles`)."""
    _check_style(style)
    _check_response_format(response_format)
    try:
        loaded = load_style(style)
    except StyleError as err:
        raise PromptError(str(err)) from err
    in_prompt = loaded.answer == "json" and response_format == "prompt"
    user = user_message(
        loaded,
        task,
        examples=format_examples(examples),
        question=question,
        schema_in_prompt=in_prompt,
    )
    system = loaded.sections[f"{task} system"]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def grouping_messages(
    wall: Mapping[str, Any],
    examples: Sequence[Mapping[str, Any]],
    style: str = "paper",
    response_format: str = "schema",
) -> list[dict[str, str]]:
    """The chat messages of task 1 for ``wall``: system instructions, then the examples and
    the wall's clues (``style``: one of :data:`STYLES`, its text in ``prompt_styles/``; a
    ``json`` style's schema goes in the prompt with ``response_format="prompt"``)."""
    clues = format_clues(wall).removeprefix("Clues: ")
    return _messages("grouping", examples, {"clues": clues}, style, response_format)


def connections_messages(
    wall: Mapping[str, Any],
    examples: Sequence[Mapping[str, Any]],
    style: str = "paper",
    response_format: str = "schema",
) -> list[dict[str, str]]:
    """The chat messages of task 2 for ``wall``: system instructions, then the examples and
    the wall's 4 gold groups, each line ending with ``. Connection:``."""
    checked = _checked_groups(wall, connections=False)
    groups = "\n".join(format_group(g["gt_words"]) for g in checked)
    return _messages("connections", examples, {"groups": groups}, style, response_format)


def style_fields(style: str) -> dict[str, Any]:
    """The generation fields a prompt style sends under the paper profile, in body order:
    the notebook's for ``paper`` (``max_tokens`` 144 then :data:`PAPER_PARAMETERS`), else
    ``max_tokens`` 144 and temperature 0."""
    if style == "paper":
        return {"max_tokens": MAX_TOKENS, **PAPER_PARAMETERS}
    return {"max_tokens": MAX_TOKENS, "temperature": TEMPERATURE}


def make_request(
    wall: Mapping[str, Any],
    task: str,
    examples: Sequence[Mapping[str, Any]],
    model: str = DEFAULT_MODEL,
    style: str = "paper",
    response_format: str = "schema",
    generation: Generation | None = None,
) -> dict[str, Any]:
    """One request in the OpenAI batch input shape (see the module docstring), ``custom_id``
    the wall id; a ``json`` style's body carries its schema as ``response_format`` unless
    ``response_format="prompt"`` (then the schema is in the user message). The other
    generation fields are those of ``generation``'s profile (:mod:`ocw_hub.llm.profiles`;
    None: the paper profile, :func:`style_fields`).

    Raises:
        PromptError: unknown ``task``, ``style`` or ``response_format``; a malformed wall.
        GenerationProfileError: options the profile does not take.
    """
    if task == "grouping":
        messages = grouping_messages(wall, examples, style, response_format)
    elif task == "connections":
        messages = connections_messages(wall, examples, style, response_format)
    else:
        raise PromptError(f"unknown task {task!r}; expected one of {list(TASKS)}")
    body: dict[str, Any] = {"model": model, "messages": messages}
    body.update(generation_fields(generation, style_fields(style)))
    if load_style(style).answer == "json" and response_format == "schema":
        body["response_format"] = schema_response_format(load_style(style), task)
    return {
        "custom_id": str(wall["wall_id"]),
        "method": "POST",
        "url": CHAT_COMPLETIONS_URL,
        "body": body,
    }


def build_requests(
    walls: Sequence[Mapping[str, Any]],
    train_walls: Sequence[Mapping[str, Any]],
    *,
    task: str,
    shots: int,
    seed: int = DEFAULT_SEED,
    model: str = DEFAULT_MODEL,
    style: str = "paper",
    response_format: str = "schema",
    generation: Generation | None = None,
) -> list[dict[str, Any]]:
    """One request per wall of ``walls`` (in order), with the same ``shots`` in-context
    examples drawn from ``train_walls`` (:func:`sample_examples`). A wall that is itself in
    ``train_walls`` (same ``wall_id``) gets the same draw from the other train walls, so a
    wall is never its own example.

    Raises:
        PromptError: unknown task or style, too many shots for the train split (or for the
            train split less the wall asked), a malformed wall.
        GenerationProfileError: options the profile does not take (before any wall).
    """
    if task not in TASKS:
        raise PromptError(f"unknown task {task!r}; expected one of {list(TASKS)}")
    _check_style(style)
    if generation is not None:
        check_generation(generation)
    pool_ids = [str(w["wall_id"]) for w in train_walls]
    shared: list[Mapping[str, Any]] | None = None
    requests = []
    for wall in walls:
        wall_id = str(wall["wall_id"])
        if wall_id in pool_ids:
            others = [w for w, i in zip(train_walls, pool_ids, strict=True) if i != wall_id]
            if shots > len(others):
                raise PromptError(
                    f"{shots} in-context examples asked, but the train split has only "
                    f"{len(others)} walls besides wall {wall_id}"
                )
            examples = sample_examples(others, shots, seed)
        else:
            shared = sample_examples(train_walls, shots, seed) if shared is None else shared
            examples = shared
        requests.append(
            make_request(wall, task, examples, model, style, response_format, generation)
        )
    return requests


def requests_jsonl(requests: Sequence[Mapping[str, Any]]) -> str:
    """JSON Lines text: one request per line (UTF-8 kept as is), ending with a newline."""
    return jsonl_text(requests)
