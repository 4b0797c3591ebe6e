"""dataset_infos.json: generated from the builders, current, and readable by every version."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.data import infos
from ocw_hub.resources import load_script

runner = CliRunner()


def test_committed_file_is_current(repo_root: Path) -> None:
    """Fails when a builder's features or official sizes change without `ocw-hub infos`."""
    committed = (repo_root / "dataset_infos.json").read_text(encoding="utf-8")
    assert committed == infos.render_dataset_infos()
    result = runner.invoke(app, ["infos", "--check"])
    assert result.exit_code == 0 and "is current" in result.output


def test_stale_file_is_detected_and_rewritten(
    tmp_path: Path, repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = tmp_path / "dataset_infos.json"
    stale.write_text((repo_root / "dataset_infos.json").read_text().replace("494", "495", 1))
    monkeypatch.setattr(infos, "dataset_infos_path", lambda: stale)
    assert not infos.dataset_infos_is_current()
    assert infos.write_dataset_infos() is True
    assert infos.dataset_infos_is_current()
    assert infos.write_dataset_infos() is False


def test_3x_sequence_of_a_struct_is_written_as_4x_renders_it() -> None:
    """datasets 3.x renders Sequence({...}) as one Sequence of a struct, 4.x as a struct of
    Sequences: the same Arrow type, written one way so the file does not depend on the
    version that generated it."""
    value = {"dtype": "int32", "_type": "Value"}
    v3 = {"feature": {"text": value, "start": value}, "_type": "Sequence"}
    assert infos.legacy_features(v3) == {
        "text": {"feature": value, "_type": "Sequence"},
        "start": {"feature": value, "_type": "Sequence"},
    }
    assert (
        datasets.Features.from_dict({"a": v3}).arrow_schema
        == datasets.Features.from_dict({"a": infos.legacy_features(v3)}).arrow_schema
    )


def test_official_sizes_and_features(repo_root: Path) -> None:
    payload = json.loads((repo_root / "dataset_infos.json").read_text())
    assert list(payload) == ["default", "ocw_randomized", "ocw_wordnet", "wote"]
    sizes = {
        name: [entry["splits"][s]["num_examples"] for s in ("train", "validation", "test")]
        for name, entry in payload.items()
    }
    assert sizes == {
        "default": [62, 62, 494],
        "ocw_randomized": [62, 62, 494],
        "ocw_wordnet": [62, 62, 494],
        "wote": [248, 169, 412],
    }
    for name, entry in payload.items():
        script = "WoTe" if name == "wote" else "OCW"
        # written in 3.x notation (no "List"), read back equal by this version
        assert '"List"' not in json.dumps(entry["features"])
        recorded, declared = (
            datasets.Features.from_dict(entry["features"]),
            load_script(script).FEATURES,
        )
        assert recorded.type == declared.type  # the same Arrow types on every version
        if not datasets.__version__.startswith("3."):
            assert recorded == declared  # 3.x spells Sequence(struct) differently


@pytest.mark.parametrize(
    ("modern", "legacy"),
    [
        (
            {"_type": "List", "feature": {"dtype": "string", "_type": "Value"}},
            {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
        ),
        (
            {"_type": "List", "feature": {"role": {"dtype": "string", "_type": "Value"}}},
            [{"role": {"dtype": "string", "_type": "Value"}}],
        ),
        (
            {"_type": "List", "feature": {"dtype": "int32", "_type": "Value"}, "length": 4},
            {"feature": {"dtype": "int32", "_type": "Value"}, "_type": "Sequence", "length": 4},
        ),
        (
            {"a": {"b": {"_type": "List", "feature": {"dtype": "int32", "_type": "Value"}}}},
            {"a": {"b": {"feature": {"dtype": "int32", "_type": "Value"}, "_type": "Sequence"}}},
        ),
    ],
)
def test_legacy_feature_notation(modern: dict, legacy: object) -> None:
    assert infos.legacy_features(modern) == legacy
    if datasets.__version__.startswith("3."):
        return  # 3.x cannot read the "List" notation it is converted from
    wrapped = {"x": legacy} if not isinstance(legacy, dict) or "_type" in legacy else legacy
    modern_wrapped = {"x": modern} if "_type" in modern else modern
    assert datasets.Features.from_dict(wrapped) == datasets.Features.from_dict(modern_wrapped)


@pytest.mark.parametrize("script", ["OCW", "WoTe"])
def test_card_yaml_features_read_back_to_the_same_arrow_types(script: str) -> None:
    """The card's ``dataset_info.features`` in 3.x notation: ``sequence: string`` for lists
    of values, ``list: [fields]`` for lists of structs; every era reads the same Arrow types."""
    features = load_script(script).FEATURES
    yaml_features = infos.legacy_yaml_features(features)
    by_name = {entry["name"]: entry for entry in yaml_features}
    if script == "OCW":
        assert by_name["words"] == {"name": "words", "sequence": "string"}
        assert by_name["overall_human_performance"]["struct"][0] == {
            "name": "grouping",
            "sequence": "int32",
        }
    else:
        assert by_name["history"] == {
            "name": "history",
            "list": [{"name": "role", "dtype": "string"}, {"name": "text", "dtype": "string"}],
        }
        assert by_name["answers"]["struct"] == [
            {"name": "text", "sequence": "string"},
            {"name": "answer_start", "sequence": "int32"},
        ]
    read_back = datasets.Features._from_yaml_list(yaml_features)
    assert read_back.arrow_schema == features.arrow_schema
    if datasets.__version__.startswith("3."):
        # exactly what datasets 3.x itself writes for the same features
        legacy = datasets.Features.from_dict(infos.legacy_features_of(features))
        assert legacy._to_yaml_list() == yaml_features
    else:
        assert read_back == features


def test_fixed_length_and_other_types_in_card_yaml() -> None:
    legacy = {
        "pair": {"feature": {"dtype": "int32", "_type": "Value"}, "_type": "Sequence", "length": 2},
        "label": {"names": ["no", "yes"], "_type": "ClassLabel"},
    }
    assert infos._yaml_node(legacy)["struct"] == [
        {"name": "pair", "sequence": "int32", "length": 2},
        {"name": "label", "dtype": {"class_label": {"names": {"0": "no", "1": "yes"}}}},
    ]
    features = datasets.Features.from_dict(legacy)
    assert datasets.Features._from_yaml_list(infos.legacy_yaml_features(features)) == features
