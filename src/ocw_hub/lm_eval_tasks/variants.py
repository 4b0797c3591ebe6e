"""Task folders for a prompt style and a generation profile (``ocw-hub lm-eval-tasks --out``).

The shipped tasks are the paper's (prompt style ``paper``, profile ``paper``). A variant is a
folder of YAML files, one per task, each ``include:`` of the shipped task file (by absolute
path, so the hooks stay the installed package's) with its own ``task`` name and ``tag``, the
settings in ``dataset_kwargs`` (``prompt_style``, ``response_format``, ``profile`` and the
body fields ``prompts`` would send as ``generation``) and the decoding in
``generation_kwargs``. The settings reach the docs hook, so the request-cache digest
(:mod:`.request_cache`) sees them: two variants under one task name never share lm-eval's
cached requests.

Body fields -> ``generation_kwargs`` (:func:`lm_eval_generation`): ``max_tokens`` /
``max_completion_tokens`` -> ``max_gen_toks``; ``stop`` -> ``until`` (a list; ``[]`` when
none: without ``until`` lm-eval stops at the first blank line); ``temperature`` as is, with
``do_sample`` = temperature above 0; the API's defaults ``top_p`` 1, ``n`` 1 and ``stream``
false are left out (lm-eval sends neither ``n`` nor ``stream``); any other field
(``top_p``, ``seed``, ``reasoning_effort``, ``response_format``) is passed as is, which
lm-eval's API models send in the body. ``n`` above 1 is refused (lm-eval reads one answer
per request).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import GenerationProfileError
from ..llm.profiles import Generation, generation_fields
from . import TASKS_DIR

#: lm-eval task -> the ocw-hub task of its docs (None: WoTe).
OCW_TASKS = {"ocw_grouping": "grouping", "ocw_connections": "connections"}
#: Fields equal to the API's default, left to the server.
_DEFAULTS = {"top_p": 1.0, "n": 1, "stream": False}
#: WoTe's fields under the paper profile (``ocw-hub prompts --config wote``).
WOTE_FIELDS = {"temperature": 0, "max_tokens": 256}


def lm_eval_generation(fields: Mapping[str, Any]) -> dict[str, Any]:
    """lm-eval's ``generation_kwargs`` for the body fields ``fields`` (module docstring).

    Raises:
        GenerationProfileError: ``n`` above 1.
    """
    rest = {k: v for k, v in fields.items() if _DEFAULTS.get(k, object()) != v}
    if "n" in rest:
        raise GenerationProfileError(
            f"-n {rest['n']}: lm-eval reads one answer per request (its --repeats sends "
            "a request again)",
            option="-n",
        )
    stop = rest.pop("stop", [])
    kwargs: dict[str, Any] = {"until": [stop] if isinstance(stop, str) else list(stop)}
    kwargs["max_gen_toks"] = rest.pop("max_tokens", None) or rest.pop("max_completion_tokens")
    if "temperature" in rest:
        temperature = float(rest.pop("temperature"))
        kwargs.update(do_sample=temperature > 0, temperature=temperature)
    return {**kwargs, **rest}


def suffix(style: str | None, profile: str) -> str:
    """``_cot_custom``: the style (unless paper or not given) and the profile (unless paper)
    added to each task name and to the tag ``ocw``."""
    parts = [p for p in (style, profile) if p not in (None, "paper")]
    return "".join(f"_{p}" for p in parts)


def variant_configs(
    style: str | None, response_format: str | None, generation: Generation
) -> dict[str, dict[str, Any]]:
    """``{task name: YAML config}`` of the variant; WoTe is in it only when no style is
    given (its one prompt is ``ours``).

    Raises:
        GenerationProfileError: see :func:`ocw_hub.llm.profiles.generation_fields` and
            :func:`lm_eval_generation`.
        StyleError: an unknown style; a ``response_format`` for a style not answered in JSON,
            or not one of :data:`~ocw_hub.llm.styles.RESPONSE_FORMATS`.
    """
    from ..llm.prompts import schema_response_format, style_fields
    from ..llm.styles import load_style, response_format_of

    shown = style or "paper"
    response_format = response_format_of(shown, response_format)
    ending = suffix(style, generation.profile)
    configs: dict[str, dict[str, Any]] = {}
    bases = [*OCW_TASKS, *([] if style else ["wote"])]
    for base in bases:
        task = OCW_TASKS.get(base)
        fields = generation_fields(generation, style_fields(shown) if task else WOTE_FIELDS)
        settings: dict[str, Any] = {"lm_eval_task": base + ending, "profile": generation.profile}
        if task is not None:
            settings = {"task": task, **settings, "prompt_style": shown}
            if response_format is not None:  # a style answered in JSON
                settings["response_format"] = response_format
                if response_format == "schema":
                    fields["response_format"] = schema_response_format(load_style(shown), task)
        settings["generation"] = {k: v for k, v in fields.items() if k != "response_format"}
        configs[base + ending] = {
            "include": str(TASKS_DIR / f"{base}.yaml"),
            "task": base + ending,
            "tag": "ocw" + ending,
            "dataset_kwargs": settings,
            "generation_kwargs": lm_eval_generation(fields),
        }
    return configs


def command_line(
    out: Path, style: str | None, response_format: str | None, generation: Generation
) -> str:
    """The ``ocw-hub lm-eval-tasks`` command that writes this variant (each YAML's head)."""
    import shlex

    from ..llm.profiles import OPTIONS

    words = ["ocw-hub", "lm-eval-tasks", "--out", str(out)]
    for option, value in (("--prompt-style", style), ("--response-format", response_format)):
        words += [option, value] if value is not None else []
    words += ["--profile", generation.profile]
    for name, value in generation.given().items():
        for one in value if isinstance(value, list) else [value]:
            words += [OPTIONS[name], str(one)]
    return shlex.join(words)


def comment_text(text: str) -> str:
    """``text`` fit for one YAML comment line: each character that is not printable (line
    breaks, tabs, controls; what could end the comment or that YAML refuses) written as its
    Python escape (``\\n``), so the comment never becomes data."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def write_variant(out: Path, configs: Mapping[str, Mapping[str, Any]], command: str) -> list[Path]:
    """Write one ``<task>.yaml`` per config into ``out`` (made if absent), each headed by the
    ``command`` that wrote it (as a comment, :func:`comment_text`) above the config dumped by
    PyYAML; the files written.

    Raises:
        ocw_hub.errors.OutputPathError: ``out`` or a file in it is a link or not writable.
    """
    import shlex

    from ..outputs import write_text_atomic, yaml_text

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, config in configs.items():
        run = f"lm_eval --include_path {shlex.quote(str(out))} --tasks {name}"
        head = f"# Written by: {comment_text(command)}\n# Run: {comment_text(run)}\n"
        text = head + yaml_text(dict(config))
        path = out / f"{name}.yaml"
        write_text_atomic(path, text)
        written.append(path)
    return written
