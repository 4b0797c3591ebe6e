"""The part that ``OCW.py`` and ``WoTe.py`` share is the same in both.

A Hub loading script gets only its own file, so the two scripts cannot import common code:
the error design (``Where``), the strict JSON loader, the text checks, the missing-source
error and the content-keyed config are written in both, between two banners. These tests keep
the copies identical, definition by definition, and check that the two scripts behave alike
where the copies are used.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from ocw_hub.resources import load_script, script_path

SCRIPTS = ("OCW", "WoTe")
BEGIN = "# Shared by OCW.py and WoTe.py"
END = "# End of the part shared with the other script"
#: Definitions the shared part must hold (each script also defines FORMAT_ERROR and _item_at).
EXPECTED = {
    "_SURROGATE",
    "_SHOWN_CHARS",
    "Where",
    "_missing_source",
    "_short",
    "_is_blank",
    "_check_text",
    "_check_name",
    "_load_json",
    "_reject_repeated_key",
    "_json_path",
    "_field_name",
    "_source_digest",
    "_ContentKeyedConfig",
}


def _shared_part(name: str) -> str:
    text = script_path(name).read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1, f"{name}.py: banners missing"
    return text[text.index(BEGIN) : text.index(END)]


def _definitions(source: str) -> dict[str, str]:
    """Top-level name -> its source text (decorators and comments included)."""
    lines = source.splitlines()
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = ast.unparse(node.targets[0])
        else:
            continue
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        out[name] = "\n".join(lines[first - 1 : node.end_lineno])
    return out


def test_the_shared_part_is_identical_in_both_scripts() -> None:
    ocw, wote = (_definitions(_shared_part(name)) for name in SCRIPTS)
    assert set(ocw) == set(wote) == EXPECTED
    for name in sorted(EXPECTED):
        assert ocw[name] == wote[name], f"{name} differs between OCW.py and WoTe.py"
    assert _shared_part("OCW") == _shared_part("WoTe")  # comments between definitions too


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_script_provides_what_the_shared_part_uses(name: str) -> None:
    module = load_script(name)
    assert issubclass(module.FORMAT_ERROR, ValueError)
    error = module.Where("f.json", "item").error("field", "problem")
    assert type(error) is module.FORMAT_ERROR
    assert str(error) == "f.json: item: field 'field': problem"
    assert str(module.Where("f.json").error(None, "problem")) == "f.json: problem"
    assert callable(module._item_at)
    assert {name for name in EXPECTED if not hasattr(module, name)} == set()


@pytest.mark.parametrize("name", SCRIPTS)
def test_missing_data_dir_is_the_same_error_in_both(name: str, tmp_path: Path) -> None:
    module = load_script(name)
    builder_cls = getattr(module, name)
    missing = tmp_path / "missing"
    builder = builder_cls(data_dir=str(missing), cache_dir=str(tmp_path / "cache"))
    with pytest.raises(FileNotFoundError) as info:
        builder.download_and_prepare()
    assert str(info.value) == f"{missing}: data_dir not found (no such file or folder)"


def test_repeated_keys_give_the_same_message_shape(tmp_path: Path) -> None:
    """``<file>: <item>: field '<field>': key '<key>' appears more than once ...``."""
    ocw, wote = (load_script(name) for name in SCRIPTS)
    wall_file = tmp_path / "walls.json"
    wall_file.write_text('{"dataset": [{"wall_id": "a", "wall_id": "b"}]}', encoding="utf-8")
    rows_file = tmp_path / "rows.json"
    rows_file.write_text('[{"question_id": "q", "domain": "x", "domain": "y"}]', encoding="utf-8")
    shape = r"^{file}: {item}: field '{key}': key '{key}' appears more than once in one JSON "
    with pytest.raises(ocw.OCWFormatError) as from_ocw:
        ocw.read_walls(wall_file, "test")
    with pytest.raises(wote.WoTeFormatError) as from_wote:
        wote.read_questions(str(rows_file), "test")
    item = re.escape("wall 'b' (#0)")
    assert re.match(
        shape.format(file=re.escape(str(wall_file)), item=item, key="wall_id"), str(from_ocw.value)
    )
    item = re.escape("question_id 'q' (#0)")
    assert re.match(
        shape.format(file=re.escape(str(rows_file)), item=item, key="domain"), str(from_wote.value)
    )


@pytest.mark.parametrize("name", SCRIPTS)
def test_strict_loader_and_checks(name: str, tmp_path: Path) -> None:
    module = load_script(name)
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"a": [1, {"b": 2}]}), encoding="utf-8")
    assert module._load_json(path, "split 'x'") == {"a": [1, {"b": 2}]}
    path.write_text('{"a": [1, {"b": 2, "b": 3}]}', encoding="utf-8")
    with pytest.raises(module.FORMAT_ERROR, match=r"field 'a\[1\]\.b': key 'b' .*\(values 2, 3\)"):
        module._load_json(path, "split 'x'")
    assert module._field_name(["groups", "group_2", "gt_words", 1]) == "groups.group_2.gt_words[1]"
    for blank in ("", " ", "\u200b", "\x00\t", "\ufeff\u2060"):
        assert module._is_blank(blank), repr(blank)
    for visible in ("a", "\u200ba", "\u3000x", "-"):
        assert not module._is_blank(visible), repr(visible)
    with pytest.raises(module.FORMAT_ERROR, match=r"lone surrogate '\\udc80' at character 2"):
        module._check_text("ab\udc80", module.Where("f"), "field")
