"""The snippets of ``docs/`` run as written, and no snippet of the README or the docs goes
untested: each Python block is run by a test named in :data:`PYTHON_SNIPPETS`, and each
``ocw-hub`` command line of their shell blocks names a command and options that exist.

Grouping (wall 46fa44, groups 2 and 3 swap `Santa` and `Lag`): predicted labels per group,
clues sorted, are 0000 | 1211 | 2212 | 3333. Correct groups 2. WD: runs 0000 and 3333 match and
are dropped; W(1211, 1111) = W(2212, 2222) = 0.25, so (0.25 + 0.25) / 4 = 0.125. ARI: pair
counts sum C(n_ij, 2) = 6+6+3+3 = 18, rows 4 x 6 = 24, columns 24, expected 24 x 24 / 120 =
4.8, so (18 - 4.8) / (24 - 4.8) = 0.6875. FMS = 18 / sqrt(24 x 24) = 0.75.
Connections: exact match 2 of 4; ROUGE-1 F = (2/3 + 1 + 2/3 + 1) / 4 = 0.8333.
Spans: EM (100 + 0) / 2 = 50; F1 of "350 degrees" vs "bake at 350 degrees f" is 2 x 1 x 0.4 /
1.4 = 57.14, so (100 + 57.14) / 2 = 78.57.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from doc_snippets import DOC_FILES, REPO_ROOT, block, code_blocks, command_lines, unknown_options

USAGE = "docs/usage.md"

#: Every Python block of the README and the docs, by file and first line, with the test that
#: runs it (a new snippet is added here with its test).
README_LOAD = "test_readme.py::test_card_records_and_load_snippet"
PYTHON_SNIPPETS = {
    ("README.md", "from datasets import load_dataset\n"): README_LOAD,
    ("README.md", '{"wall_id": "46fa44"'): README_LOAD,
    ("README.md", '{"id": "Wizard-of-Task-food-171'): README_LOAD,
    (USAGE, "import ocw_hub\n\nwalls = "): "test_docs.py::test_package_loading_snippet",
    (USAGE, "import datasets\n\nds = "): "compat3/test_readme_scripts.py::test_script_snippet",
    (USAGE, "words_type = "): "test_docs.py::test_feature_access_snippet",
    (USAGE, "import ocw_hub\n\n# task 1"): "test_docs.py::test_scoring_example",
    ("docs/experiment.md", "# requests for a Batch API"): (
        "test_batch_docs.py::test_batch_conversion_in_the_docs"
    ),
}


def test_every_python_snippet_is_run_by_a_test() -> None:
    found = [
        (path, body)
        for path in DOC_FILES
        for body in code_blocks((REPO_ROOT / path).read_text(encoding="utf-8"))
    ]
    unregistered = [
        (path, body.splitlines()[0])
        for path, body in found
        if not any(path == p and body.startswith(head) for p, head in PYTHON_SNIPPETS)
    ]
    assert unregistered == []
    assert len(found) == len(PYTHON_SNIPPETS)  # each registered snippet is still there, once
    for (path, head), test in PYTHON_SNIPPETS.items():
        block(path, head)  # exactly one block starts so
        file, name = test.split("::")
        assert f"def {name}(" in (REPO_ROOT / "tests" / file).read_text(encoding="utf-8")


@pytest.mark.parametrize("path", DOC_FILES)
def test_command_lines_name_commands_and_options_that_exist(path: str) -> None:
    lines = command_lines((REPO_ROOT / path).read_text(encoding="utf-8"))
    assert {" ".join(argv): unknown_options(argv) for argv in lines if unknown_options(argv)} == {}


def test_unknown_options_finds_what_the_command_table_lacks() -> None:
    """The check above can fail: a typo in a command or an option is reported."""
    assert unknown_options(["evaluate", "x.json", "--data-dir", "d", "--out=r.json"]) == []
    assert unknown_options(["derive", "randomized", "--seed", "1"]) == []
    assert unknown_options(["evaluate", "x.json", "--data-dri", "d"]) == ["--data-dri"]
    assert unknown_options(["derive", "randomised"]) == ["command randomised"]
    assert unknown_options(["evalute"]) == ["command evalute"]


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lowercased, punctuation dropped, spaces to
    hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("path", DOC_FILES)
def test_links_resolve(path: str) -> None:
    """Every relative link of the card and the docs names a file of the repository and, with
    ``#anchor``, a heading of that file."""
    source = REPO_ROOT / path
    broken = []
    for target in re.findall(r"\]\((?!https?:)([^)\s]+)\)", source.read_text(encoding="utf-8")):
        file, _, anchor = target.partition("#")
        linked = (source.parent / file).resolve() if file else source
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), flags=re.M)
            if anchor not in {_anchor(h) for h in headings}:
                broken.append(target)
    assert broken == []


def test_scoring_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # any folder: the metric is found through the install
    namespace: dict = {}
    exec(block(USAGE, "import ocw_hub\n\n# task 1"), namespace)
    groups, names, answers = namespace["groups"], namespace["names"], namespace["answers"]
    assert groups["wd"] == 0.125
    assert groups["ari"] == 0.6875
    assert groups["fms"] == pytest.approx(0.75)
    assert groups["ami"] == pytest.approx(0.717, abs=5e-4)
    assert (groups["correct_groups"], groups["full_wall"]) == (2, 0)
    assert names["exact_match"] == 0.5
    assert names["rouge1"] == pytest.approx(5 / 6)
    assert answers["exact_match"] == 50.0
    assert answers["f1"] == pytest.approx((100 + 100 * 2 * 0.4 / 1.4) / 2)


def test_package_loading_snippet(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a folder with ``../shared/data`` beside it, as the docs assume."""
    (tmp_path / "shared").symlink_to(shared_data.parent)
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    namespace: dict = {}
    exec(block(USAGE, "import ocw_hub\n\nwalls = "), namespace)
    assert namespace["walls"]["test"].num_rows == 494
    assert namespace["wote"].num_rows == 169
    assert namespace["test"].num_rows == 494
    assert namespace["seasons"][0].season == 1


@pytest.fixture(scope="module")
def fixture_exports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The export of the OCW fixture, as ``ocw-hub build`` writes it."""
    from ocw_fixtures import OCW_FIXTURE

    from ocw_hub.data.export import build_export

    out = tmp_path_factory.mktemp("hub")
    with pytest.warns(UserWarning):  # the fixture is the stand-in: a provenance warning
        build_export(
            {"default": OCW_FIXTURE},
            out,
            cache_dir=tmp_path_factory.mktemp("cache"),
            verification_mode="no_checks",
        )
    return out


@pytest.mark.parametrize("source", ["export", "package"])
def test_feature_access_snippet(fixture_exports: Path, source: str) -> None:
    """The list-feature snippet gives the element types on the datasets version this suite
    runs on (3.x: ``Sequence``; 4 and later: ``List``), from an export and from the package's
    builders."""
    import datasets
    from ocw_fixtures import OCW_FIXTURE

    import ocw_hub

    if source == "export":
        walls = datasets.load_dataset(str(fixture_exports / "ocw"), "default", split="test")
    else:
        walls = ocw_hub.load_dataset(
            "default", "test", data_dir=OCW_FIXTURE, verification_mode="no_checks"
        )
    namespace = {"walls": walls}
    exec(block(USAGE, "words_type = "), namespace)
    assert (namespace["words_type"], namespace["scores_type"]) == ("string", "int32")


def test_the_prompt_styles_are_documented_from_their_files() -> None:
    """docs/prompt_styles.md is the styles' exact text generated from their template files,
    and docs/experiment.md holds the styles' table as generated: neither can drift."""
    from ocw_hub.llm.styles import styles_markdown, styles_table

    assert (REPO_ROOT / "docs" / "prompt_styles.md").read_text(encoding="utf-8") == (
        styles_markdown()
    )
    assert styles_table() in (REPO_ROOT / "docs" / "experiment.md").read_text(encoding="utf-8")
