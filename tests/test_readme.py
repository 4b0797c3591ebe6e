"""The README's examples run as written: the scoring example (from any folder:
``ocw_hub.load_metric``) gives the figures it shows (hand-checked here), the records it shows
are the rows its load snippet returns, its list-feature snippet works on this ``datasets``
version, and its test command requires the real data and runs both ``datasets`` versions.

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

import ast
import re
from pathlib import Path

import pytest


def _block(readme: str, first_line: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    return next(b for b in blocks if b.startswith(first_line))


def test_scoring_example(repo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # any folder: the metric is found through the install
    namespace: dict = {}
    exec(_block((repo_root / "README.md").read_text(), "import ocw_hub\n\n# task 1"), namespace)
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


def _record(readme: str, first_line: str) -> dict:
    """A record the card shows: the Python literal of the block starting with ``first_line``."""
    return ast.literal_eval(_block(readme, first_line))


@pytest.fixture(scope="module")
def card_root(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A folder laid out as the README assumes (``../shared/data`` beside it) after the quick
    start's first command built the exports in ``build/hub``."""
    from typer.testing import CliRunner

    from ocw_hub.cli import app

    work = tmp_path_factory.mktemp("card")
    (work / "shared").symlink_to(shared_data.parent)
    root = work / "repo"
    root.mkdir()
    result = CliRunner().invoke(
        app,
        ["build", "--data-dir", f"default={shared_data / 'ocw' / 'dataset'}",
         "--data-dir", f"wote={shared_data / 'wote'}", "--out", str(root / "build" / "hub"),
         "--no-checks"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return root


def test_card_records_and_load_snippet(
    repo_root: Path, card_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wall and the question the card shows are the rows its load snippet returns."""
    readme = (repo_root / "README.md").read_text()
    monkeypatch.chdir(card_root)
    namespace: dict = {}
    exec(_block(readme, "from datasets import load_dataset\n"), namespace)
    assert namespace["wall"] == _record(readme, '{"wall_id": "46fa44"')
    question = _record(readme, '{"id": "Wizard-of-Task-food-171/food-171-1"')
    assert {key: namespace["question"][key] for key in question} == question
    assert len(namespace["question"]) == 17
    words = namespace["walls"].features["words"]
    assert words.feature.dtype == "string"  # the spelling the card gives for every version


def test_package_loading_snippet(
    repo_root: Path, card_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (repo_root / "README.md").read_text()
    monkeypatch.chdir(card_root)
    namespace: dict = {}
    exec(_block(readme, "import ocw_hub\n\nwalls ="), namespace)
    assert namespace["walls"]["test"].num_rows == 494
    assert namespace["wote"].num_rows == 169
    assert namespace["test"].num_rows == 494
    assert namespace["seasons"][0].season == 1


def test_ci_requires_the_real_data_and_runs_both_datasets_versions(repo_root: Path) -> None:
    """`bash .ci/run` (the README's test command) turns a missing ../shared/data into failures
    (the variable conftest reads) and runs the datasets_era tests on datasets 3.6.0 and the
    whole suite on the newest."""
    from conftest import REQUIRE_ENV

    ci = (repo_root / ".ci" / "run").read_text()
    assert f"export {REQUIRE_ENV}=1\n" in ci
    assert '"datasets==3.6.0"' in ci
    runs = re.findall(r"^suite (\S+) ?(\S*)$", ci, flags=re.M)
    assert runs == [(".venv-ds3/bin/python", "datasets_era"), (".venv/bin/python", "")]


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
def test_feature_access_snippet(repo_root: Path, fixture_exports: Path, source: str) -> None:
    """The card's list-feature snippet gives the element types on the datasets version this
    suite runs on (3.x: ``Sequence``; 4 and later: ``List``), from an export and from the
    package's builders."""
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
    exec(_block((repo_root / "README.md").read_text(), "words_type = "), namespace)
    assert (namespace["words_type"], namespace["scores_type"]) == ("string", "int32")
