"""Every config built from the fixtures of ``tests/data``, as ``tensorflow_datasets``'
``DatasetBuilderTestCase`` does: split sizes, features and a few exact values per config.

Sources: ``default`` and ``wote`` read ``tests/data/ocw/dataset`` (4 / 3 / 6 real walls) and
``tests/data/wote`` (3 / 3 / 5 synthetic questions); ``ocw_randomized`` and ``ocw_wordnet``
read stand-ins of 3 / 2 / 4 walls that :func:`ocw_fixtures.write_ablation` builds from the
fixture walls. Each config is built once per module through :func:`ocw_hub.get_builder` into
a temporary cache, with ``verification_mode="no_checks"`` (the fixtures are not the official
sizes). No ``../shared`` is needed.

WoTe offsets below are counted by hand on each context (title, description, ingredients and
steps joined by newlines); e.g. the soup context's lines are 15, 46, 17, 14, 15, 12, 18, 37,
48 and 34 characters long, so its last step starts at 15+1+46+1+...+48+1 = 231.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import datasets
import pytest
from ocw_fixtures import (
    OCW_FIXTURE,
    OCW_FIXTURE_SIZES,
    SIZES,
    WOTE_FIXTURE,
    WOTE_FIXTURE_SIZES,
    write_ablation,
)

import ocw_hub
from ocw_hub.configs import config_spec
from ocw_hub.resources import load_script

CONFIGS = ("default", "ocw_randomized", "ocw_wordnet", "wote")
EXPECTED_SIZES = {
    "default": OCW_FIXTURE_SIZES,
    "ocw_randomized": SIZES,
    "ocw_wordnet": SIZES,
    "wote": WOTE_FIXTURE_SIZES,
}


@dataclass
class Built:
    """One config prepared from its fixture."""

    config: str
    builder: datasets.DatasetBuilder
    splits: datasets.DatasetDict
    warnings: list[warnings.WarningMessage]


def _source(config: str, work: Path) -> Path:
    if config == "default":
        return OCW_FIXTURE
    if config == "wote":
        return WOTE_FIXTURE
    return write_ablation(OCW_FIXTURE, work / "src", config.removeprefix("ocw_"))


@pytest.fixture(scope="module", params=CONFIGS)
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    config = request.param
    work = tmp_path_factory.mktemp(config)
    builder = ocw_hub.get_builder(config, data_dir=_source(config, work), cache_dir=work / "cache")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        builder.download_and_prepare(verification_mode="no_checks")
    return Built(config, builder, builder.as_dataset(), list(caught))


def _script(config: str):
    return load_script(config_spec(config).script)


def _by_id(split: datasets.Dataset, key: str) -> dict[str, dict]:
    return {row[key]: row for row in split}


# --- every config -----------------------------------------------------------------------------


def test_split_sizes(built: Built) -> None:
    expected = EXPECTED_SIZES[built.config]
    assert {name: ds.num_rows for name, ds in built.splits.items()} == expected
    recorded = {name: info.num_examples for name, info in built.builder.info.splits.items()}
    assert recorded == expected


def test_features_are_the_scripts(built: Built) -> None:
    features = _script(built.config).FEATURES
    assert built.builder.info.features == features
    for split in built.splits.values():
        assert split.features == features


def test_ids_unique_across_splits(built: Built) -> None:
    key = "id" if built.config == "wote" else "wall_id"
    ids = [i for split in built.splits.values() for i in split[key]]
    assert len(ids) == len(set(ids)) == sum(EXPECTED_SIZES[built.config].values())


def test_data_warnings_name_the_quirk_walls(built: Built) -> None:
    """One ``OCWDataWarning`` per quirk, naming the wall and the clue; only ``default`` holds
    the quirk walls (the ablation stand-ins leave them out, WoTe has none)."""
    data_warning = load_script("OCW").OCWDataWarning
    quirks = [str(w.message) for w in built.warnings if issubclass(w.category, data_warning)]
    if built.config != "default":
        assert quirks == []
        return
    assert len(quirks) == 3, quirks
    assert any("0f1677" in m and "8.5" in m for m in quirks)
    assert any("654041" in m and "'Bask'" in m for m in quirks)
    assert any("b308e4" in m and "'Glamour'" in m for m in quirks)


# --- exact values per config ------------------------------------------------------------------


def _check_default(built: Built) -> None:
    wall = _by_id(built.splits["validation"], "wall_id")["0f1677"]
    assert (wall["season"], wall["episode"]) == (1, 15)
    assert wall["words"][8] == "8.5"  # the JSON number 8.5 of the release, as a string
    assert wall["groups"]["group_2"]["gt_words"] == ["Seven", "8.5", "1984", "2010"]
    test = _by_id(built.splits["test"], "wall_id")
    assert test["654041"]["groups"]["group_2"]["gt_words"] == ["Bask", "Mask", "Rok", "Bask"]
    glamour = [g["gt_connection"] for g in test["b308e4"]["groups"].values()]
    assert glamour == [
        "Fictional martial arts",
        "Vodka cocktails",
        "The ___ Kid movies",
        "Fashion magazines",
    ]
    assert test["b308e4"]["words"].count("Glamour") == 2
    assert test["46fa44"]["overall_human_performance"] == {
        "grouping": [1, 1, 1, 1],
        "connections": [1, 1, 0, 0],
    }
    assert built.splits["test"]["wall_id"] == [  # file order
        "46fa44",
        "740d45",
        "cb4d9e",
        "0436ff",
        "654041",
        "b308e4",
    ]


def _fixture_groups() -> dict[str, list[dict]]:
    """Every group of the fixture walls, by group name."""
    import json

    groups: dict[str, list[dict]] = {}
    for split in ("train", "validation", "test"):
        document = json.loads((OCW_FIXTURE / f"{split}.json").read_text(encoding="utf-8"))
        for wall in document["dataset"]:
            for name, group in wall["groups"].items():
                groups.setdefault(name, []).append(group)
    return groups


def _check_ocw_randomized(built: Built) -> None:
    assert built.splits["test"]["wall_id"] == ["r000", "r001", "r002", "r003"]
    groups = _fixture_groups()
    for wall in built.splits["test"]:
        for name, group in wall["groups"].items():
            assert group in groups[name]  # a real group, kept in its place
        sources = {g["group_id"] for g in wall["groups"].values()}
        assert len(sources) == 4
        assert sorted(wall["words"]) == sorted(
            c for g in wall["groups"].values() for c in g["gt_words"]
        )
    real = set(built.splits["train"]["wall_id"]) | set(built.splits["validation"]["wall_id"])
    assert real <= {w for w in _all_fixture_ids() if w not in {"0f1677", "654041", "b308e4"}}


def _check_ocw_wordnet(built: Built) -> None:
    fixture_ids = set(_all_fixture_ids())
    for split in built.splits.values():
        for wall_id in split["wall_id"]:
            assert wall_id.startswith("w") and wall_id[1:] in fixture_ids


def _all_fixture_ids() -> list[str]:
    import json

    return [
        wall["wall_id"]
        for split in ("train", "validation", "test")
        for wall in json.loads((OCW_FIXTURE / f"{split}.json").read_text(encoding="utf-8"))[
            "dataset"
        ]
    ]


def _check_wote(built: Built) -> None:
    rows = {row["id"]: row for split in built.splits.values() for row in split}
    answers = {
        key: (row["answers"]["text"], row["answers"]["answer_start"]) for key, row in rows.items()
    }
    prefix = "Wizard-of-Task-"
    # verbatim; ignoring case (the context's own case is returned); normalised (apostrophe)
    assert answers[f"{prefix}food-901/food-901-0"] == (["simmer for 20 minutes"], [208])
    assert answers[f"{prefix}food-901/food-901-1"] == (["Stir In The Lemon Juice"], [231])
    assert answers[f"{prefix}food-907/food-907-0"] == (["doesn't need stock"], [43])
    # not found: free text and a paraphrase keep the raw answer with -1
    assert answers[f"{prefix}diy-902/diy-902-0"] == (["You are done"], [-1])
    assert answers[f"{prefix}diy-908/diy-908-3"] == (["Vaseline"], [-1])
    # whole words only: "no" is the "No" of step 2, not the "no" inside "not" before it
    assert answers[f"{prefix}diy-909/diy-909-1"] == (["No"], [110])
    # the release's literal backslash-n join of two ingredient lines
    joined = rows[f"{prefix}food-903/food-903-2"]
    assert joined["extracted_answer"] == "1 tablespoon rice vinegar\\n1 teaspoon sugar"
    assert answers[joined["id"]] == (["1 tablespoon rice vinegar\n1 teaspoon sugar"], [36])
    # one question_id in two conversations: two rows, two ids
    twins = [row["id"] for row in built.splits["validation"] if row["question_id"] == "diy-904-1"]
    assert twins == [f"{prefix}diy-904/diy-904-1", f"{prefix}diy-905/diy-904-1"]
    assert [answers[twin][1] for twin in twins] == [[104], [155]]
    for row in rows.values():  # SQuAD invariant
        (text,), (start,) = row["answers"]["text"], row["answers"]["answer_start"]
        assert start == -1 or row["context"][start : start + len(text)] == text
    # Python-literal fields parsed, history split into turns
    first = rows[f"{prefix}food-901/food-901-1"]
    assert first["question_type"] == ["navigation", "history"]
    assert first["history"] == [
        {"role": "student", "text": "How long does it simmer?"},
        {"role": "teacher", "text": "About 20 minutes."},
    ]
    assert rows[f"{prefix}food-901/food-901-0"]["history"] == []
    assert first["task_data"]["description"] == "A quick weeknight soup; it doesn't need stock."
    assert first["context"].count("\n") == 2 + 4 + 4 - 1


CHECKS = {
    "default": _check_default,
    "ocw_randomized": _check_ocw_randomized,
    "ocw_wordnet": _check_ocw_wordnet,
    "wote": _check_wote,
}


def test_exact_values(built: Built) -> None:
    CHECKS[built.config](built)


# --- fixtures only vs full data -----------------------------------------------------------------

_SANDBOX_TESTS = """
import pytest

def test_fixture_only(ocw_fixture_dir):
    assert ocw_fixture_dir.name == "dataset"

def test_by_fixture(ocw_dir):
    assert ocw_dir.parts[-2:] == ("ocw", "dataset")

@pytest.mark.full_data
def test_by_marker():
    pass
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("shared", "require", "outcomes"),
    [
        (False, None, {"passed": 1, "skipped": 2}),
        (False, "1", {"passed": 1, "errors": 2}),
        (True, "1", {"passed": 3}),
    ],
    ids=["plain-clone", "ci-without-data", "ci"],
)
def test_full_data_tests_are_skipped_or_required(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    shared: bool,
    require: str | None,
    outcomes: dict[str, int],
) -> None:
    """This conftest in a sandbox ``<sandbox>/repo/tests``, with or without
    ``<sandbox>/shared/data``: a test that asks for a full-data fixture or carries the marker
    is skipped (plain clone) or fails (``OCW_HUB_REQUIRE_FULL_DATA=1``) without the data."""
    tests = pytester.path / "repo" / "tests"
    tests.mkdir(parents=True)
    here = Path(__file__).parent
    for path in [here / "conftest.py", here / "ocw_fixtures.py", *here.glob("*_support.py")]:
        (tests / path.name).write_text(path.read_text())
    (tests / "test_sandbox.py").write_text(_SANDBOX_TESTS)
    if shared:
        (pytester.path / "shared" / "data").mkdir(parents=True)
    if require is None:
        monkeypatch.delenv("OCW_HUB_REQUIRE_FULL_DATA", raising=False)
    else:
        monkeypatch.setenv("OCW_HUB_REQUIRE_FULL_DATA", require)
    result = pytester.runpytest_subprocess(str(tests), "-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(**outcomes)
    if not shared:
        missing = str(pytester.path / "shared" / "data")
        result.stdout.fnmatch_lines([f"*needs the real data at {missing}*"])
