"""The loading scripts' sibling modules: what they import, and their shared parts on their own.

``OCW.py`` and ``WoTe.py`` import their siblings relatively; ``datasets`` 3.x copies only the
siblings a script imports itself (it does not read the siblings' imports), and the siblings
must run without ``datasets``.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ocw_fixtures import OCW_FIXTURE, OCW_FIXTURE_SIZES, dumps

from ocw_hub.data import builders
from ocw_hub.resources import SCRIPTS, load_sibling, script_files

source_files = load_sibling("source_files")
ocw_walls = load_sibling("ocw_walls")
SIBLINGS = sorted({path.stem for name in SCRIPTS for path in script_files(name)[1:]})


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """``(top-level absolute imports, relative imports)`` of a module."""
    absolute, relative = set(), set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            absolute |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            relative.add(node.module)
        elif isinstance(node, ast.ImportFrom):
            absolute.add(node.module.split(".")[0])
    return absolute, relative


def test_the_siblings_of_each_script() -> None:
    assert [p.name for p in script_files("OCW")] == [
        "OCW.py",
        "ocw_releases.py",
        "ocw_walls.py",
        "source_files.py",
    ]
    assert [p.name for p in script_files("WoTe")] == [
        "WoTe.py",
        "source_files.py",
        "wote_answers.py",
        "wote_questions.py",
    ]


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_script_imports_every_sibling_its_siblings_need(script: str) -> None:
    """``datasets`` 3.x does not follow a sibling's own imports: the script names them all."""
    files = script_files(script)
    absolute, imported = _imports(files[0])
    assert absolute <= set(sys.stdlib_module_names) | {"__future__", "datasets"}
    for sibling in files[1:]:
        assert _imports(sibling)[1] <= imported, sibling.name


def test_mypy_reads_every_script_and_sibling() -> None:
    """mypy checks the scripts through the links of typecheck/hub_assets (pyproject.toml)."""
    root = Path(__file__).resolve().parents[1]
    links = sorted((root / "typecheck" / "hub_assets").iterdir())
    assert all(link.is_symlink() and link.resolve() == root / link.name for link in links)
    assert [link.name for link in links] == sorted(
        {path.name for name in SCRIPTS for path in script_files(name)}
    )


@pytest.mark.parametrize("sibling", SIBLINGS)
def test_siblings_use_the_standard_library_only(sibling: str) -> None:
    path = script_files("OCW")[0].parent / f"{sibling}.py"
    assert _imports(path)[0] <= set(sys.stdlib_module_names) | {"__future__"}


def test_siblings_import_without_datasets() -> None:
    code = (
        "import sys; sys.modules['datasets'] = None\n"
        "from ocw_hub.resources import load_sibling\n"
        f"for name in {SIBLINGS!r}: load_sibling(name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('ocw_hub._hub.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == str([f"ocw_hub._hub.{name}" for name in SIBLINGS])


def test_strict_json_names_the_repeated_key_and_the_wall(tmp_path: Path) -> None:
    path = tmp_path / "train.json"
    wall = '{"wall_id": "w1", "season": 1, "season": 2}'
    path.write_text(f'{{"dataset": [{{"wall_id": "w0"}}, {wall}]}}', encoding="utf-8")
    with pytest.raises(ocw_walls.OCWFormatError) as info:
        source_files.load_json(path, "split 'train'", ocw_walls.OCWWhere)
    message = str(info.value)
    assert message.startswith(f"{path}: wall 'w1' (#1): field 'season': key 'season'")
    assert "1, 2" in message  # both values


def test_strict_json_without_a_dataset_where_is_a_value_error(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"a": {"b": 1, "b": 1}}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"field 'a\.b': key 'b'"):
        source_files.load_json(path, "a file")
    path.write_text('{"a": [1], "b": {"a": 2}}', encoding="utf-8")  # one key in two objects
    assert source_files.load_json(path, "a file") == {"a": [1], "b": {"a": 2}}


def test_source_digest_covers_content_and_names(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "a.json").write_text("{}", encoding="utf-8")
    first = source_files.source_digest(folder)
    assert first == source_files.source_digest(folder)
    (folder / "a.json").write_text("[]", encoding="utf-8")  # same size, other bytes
    second = source_files.source_digest(folder)
    (folder / "a.json").rename(folder / "b.json")
    assert len({first, second, source_files.source_digest(folder)}) == 3


def test_script_key_changes_when_a_sibling_changes(tmp_path: Path, monkeypatch) -> None:
    copies = []
    for path in script_files("OCW"):
        copies.append(Path(shutil.copy(path, tmp_path / path.name)))
    monkeypatch.setattr(builders, "script_files", lambda name: copies)
    before = builders.script_key("default")
    with open(tmp_path / "ocw_walls.py", "a", encoding="utf-8") as handle:
        handle.write("\n# edited\n")
    assert builders.script_key("default") != before


def test_read_walls_on_the_fixture() -> None:
    files = ocw_walls.find_wall_files(OCW_FIXTURE)
    with pytest.warns(ocw_walls.OCWDataWarning):
        walls = {split: ocw_walls.read_walls(files[split], split) for split in files}
    assert {split: len(rows) for split, rows in walls.items()} == OCW_FIXTURE_SIZES
    wall = next(w for w in walls["validation"] if w["wall_id"] == "0f1677")
    assert wall["groups"]["group_2"]["gt_words"] == ["Seven", "8.5", "1984", "2010"]
    assert len(wall["words"]) == ocw_walls.N_CLUES == ocw_walls.N_GROUPS * ocw_walls.GROUP_SIZE


def test_read_walls_error_names_the_wall_and_field(tmp_path: Path) -> None:
    document = {"dataset": [{"wall_id": "w9", "season": 0}]}
    path = tmp_path / "test.json"
    path.write_text(dumps(document), encoding="utf-8")
    with pytest.raises(ocw_walls.OCWFormatError) as info:
        ocw_walls.read_walls(path, "test")
    assert "wall 'w9' (#0)" in str(info.value) and "field 'season'" in str(info.value)


def test_read_season_map_of_a_folder_is_that_of_the_test_file() -> None:
    from_folder = ocw_walls.read_season_map(OCW_FIXTURE)
    assert from_folder == ocw_walls.read_season_map(OCW_FIXTURE / "test.json")
    assert sum(info["num_walls"] for info in from_folder.values()) == 13


def test_read_season_map_of_an_archive_needs_a_cache_dir(tmp_path: Path) -> None:
    archive = tmp_path / "OCW.tar.gz"
    archive.write_bytes(b"")
    with pytest.raises(ocw_walls.OCWFormatError, match=r"cache_dir"):
        ocw_walls.read_season_map(archive)
