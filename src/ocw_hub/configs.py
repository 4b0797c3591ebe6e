"""The public configs of this project, in one table (no heavy imports: the CLI reads it for
its help texts and options)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class ConfigSpec:
    """One public config of this project.

    Attributes:
        name: the public config name (``default``, ``ocw_randomized``, ``ocw_wordnet``, ``wote``).
        script: the loading script at the repository root that builds it (``OCW`` or ``WoTe``).
        builder_config: the config name inside that script.
        source: what a local ``data_dir`` of this config is (for help texts).
    """

    name: str
    script: str
    builder_config: str
    source: str


CONFIGS: dict[str, ConfigSpec] = {
    spec.name: spec
    for spec in (
        ConfigSpec("default", "OCW", "default", "the OCW release: `dataset/` or OCW.tar.gz"),
        ConfigSpec(
            "ocw_randomized", "OCW", "ocw_randomized", "the OCW_randomized folder or tarball"
        ),
        ConfigSpec("ocw_wordnet", "OCW", "ocw_wordnet", "the OCW_wordnet folder or tarball"),
        ConfigSpec("wote", "WoTe", "wote", "a folder with WoTe train/validation/test.json"),
    )
}

#: Other names of configs: ``ocw`` is the upstream name of ``default``.
ALIASES = {"ocw": "default"}


def config_spec(name: str) -> ConfigSpec:
    """The :class:`ConfigSpec` of a public config name.

    Raises:
        ValueError: ``name`` is not one of :data:`CONFIGS`.
    """
    try:
        return CONFIGS[ALIASES.get(name, name)]
    except KeyError:
        raise ValueError(f"unknown config {name!r}; expected one of {list(CONFIGS)}") from None


def verification_mode(no_checks: bool) -> str | None:
    """``datasets``' ``verification_mode`` of the ``no_checks`` flag (``--no-checks``, the
    lm-eval tasks' ``"no_checks"`` metadata): ``"no_checks"`` skips the split-size check, None
    keeps the default check."""
    return "no_checks" if no_checks else None
