"""The root ``dataset_infos.json``: features and official split sizes of every config.

``datasets`` 3.x reads this file next to a loading script and checks the split sizes of a
fresh build against it; the Hub shows it for script repos. It is generated from the builders'
``_info()`` and their ``OFFICIAL_SPLIT_SIZES`` (``ocw-hub infos`` rewrites it, ``ocw-hub infos
--check`` and the test suite fail when it is stale), in the feature notation that ``datasets``
3.x reads (``Sequence``), which 4.x and 5.x read too.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Any

import datasets

from ..configs import CONFIGS, config_spec
from ..outputs import json_text
from ..resources import dataset_infos_path
from .builders import get_builder, official_splits


def legacy_features(node: Any) -> Any:
    """Rewrite a ``Features.to_dict()`` of ``datasets`` >= 4 (``List``) in 3.x notation.

    ``List(Value)`` becomes ``{"feature": ..., "_type": "Sequence"}``; a ``List`` of a struct
    becomes ``[struct]`` (a list of structs in every version: a 3.x ``Sequence`` of a struct
    would be a struct of lists). A 3.x ``Sequence`` is kept as it is, so the output is the same
    whichever version renders it. Structs are walked recursively.

    This is the one notation the project writes features in: ``dataset_infos.json``, the
    ``huggingface`` schema metadata of every exported Parquet file and (through
    :func:`legacy_yaml_features`) the card's ``dataset_info``. ``datasets`` 3.x raises
    "Feature type 'List' not found" on the 4.x notation; 4.x and 5.x read this one.
    """
    if isinstance(node, list):
        return [legacy_features(item) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("_type") == "List":
        inner = node["feature"]
        length = node.get("length", -1)
        if isinstance(inner, dict) and "_type" not in inner and length == -1:
            return [legacy_features(inner)]
        out = {"feature": legacy_features(inner), "_type": "Sequence"}
        if length != -1:
            out["length"] = length
        return out
    if node.get("_type") == "Sequence":
        inner = node["feature"]
        if isinstance(inner, dict) and "_type" not in inner and "length" not in node:
            return {
                key: legacy_features({"feature": value, "_type": "Sequence"})
                for key, value in inner.items()
            }
        return {**node, "feature": legacy_features(inner)}
    return {key: legacy_features(value) for key, value in node.items()}


def legacy_features_of(features: datasets.Features) -> dict[str, Any]:
    """The features in the 3.x notation of :func:`legacy_features` (a JSON-ready dict)."""
    return legacy_features(features.to_dict())


def _yaml_node(node: Any) -> dict[str, Any]:
    """One feature of the 3.x notation as ``datasets`` 3.x writes it in a card's YAML."""
    if isinstance(node, list):
        return {"list": _yaml_short(_yaml_node(node[0]))}
    kind = node.get("_type")
    if kind == "Sequence":
        out = {"sequence": _yaml_short(_yaml_node(node["feature"]))}
        if "length" in node:
            out["length"] = node["length"]
        return out
    if kind == "Value":
        return {"dtype": node["dtype"]}
    if kind is None:
        return {"struct": [{"name": key, **_yaml_node(value)} for key, value in node.items()]}
    rest = {key: value for key, value in node.items() if key != "_type"}
    if isinstance(rest.get("names"), list):  # ClassLabel: the Hub wants string keys
        rest["names"] = {str(i): label for i, label in enumerate(rest["names"])}
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", kind).lower()
    return {"dtype": {snake: rest} if rest else snake}


def _yaml_short(node: dict[str, Any]) -> Any:
    """``{"dtype": "string"}`` -> ``"string"`` and ``{"struct": [...]}`` -> ``[...]`` inside
    a list, as ``datasets`` shortens them."""
    if list(node) == ["dtype"] and isinstance(node["dtype"], str):
        return node["dtype"]
    if list(node) == ["struct"]:
        return node["struct"]
    return node


def legacy_yaml_features(features: datasets.Features) -> list[dict[str, Any]]:
    """The card YAML (``dataset_info.features``) of ``features`` in the notation ``datasets``
    3.x writes: ``sequence: string`` for a list of values, ``list: [fields]`` for a list of
    structs. Every version from 3.x to 5.x reads it back to the same Arrow types (4.x and 5.x
    write ``list: string``, which 3.x reads as a plain Python list instead of a ``Sequence``).
    """
    return _yaml_node(legacy_features_of(features))["struct"]


def config_info(name: str) -> datasets.DatasetInfo:
    """The ``DatasetInfo`` of a config with its official split sizes (no data is read)."""
    spec = config_spec(name)
    builder = get_builder(name)
    info = builder._info()
    info.version = builder.config.version
    info.config_name = name
    info.builder_name = spec.script.lower()
    info.dataset_name = spec.script.lower()
    info.splits = official_splits(name)
    return info


def render_dataset_infos() -> str:
    """The text of ``dataset_infos.json`` for every config (deterministic, indent 2)."""
    payload = {}
    for name in CONFIGS:
        info = config_info(name)
        entry = asdict(info)
        entry["features"] = legacy_features_of(info.features)
        for key in ("download_checksums", "download_size", "dataset_size", "size_in_bytes"):
            entry.pop(key, None)
        entry["splits"] = {
            split: {"name": split, "num_examples": value["num_examples"]}
            for split, value in entry["splits"].items()
        }
        payload[name] = entry
    return json_text(payload)


def write_dataset_infos() -> bool:
    """Rewrite the root ``dataset_infos.json``; returns whether its content changed."""
    path = dataset_infos_path()
    text = render_dataset_infos()
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old != text:
        path.write_text(text, encoding="utf-8")
    return old != text


def dataset_infos_is_current() -> bool:
    """Whether the committed ``dataset_infos.json`` equals what the builders give now."""
    path = dataset_infos_path()
    return path.exists() and path.read_text(encoding="utf-8") == render_dataset_infos()
