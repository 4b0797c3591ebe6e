"""Tests for the WoTe loading script ``WoTe.py`` (run on the installed ``datasets``).

The full-scale tests build the real release in ``../shared/data/wote`` offline (fixture
``wote_dir``); the other tests write small synthetic releases (rows in the release shape,
written here) to ``tmp_path``.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import datasets
import pytest
from wote_builder_support import DATASETS_MAJOR, _build, wote, wote_answers, write_release

from ocw_hub.resources import load_metric_module

# Measured on the real release: extracted answers located in the rendered context.
LOCATED = {"train": 229, "validation": 154, "test": 376}


@pytest.fixture(scope="module")
def built(wote_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> datasets.DatasetDict:
    return _build(wote_dir, tmp_path_factory.mktemp("wote_cache"), "basic_checks")


@pytest.fixture(scope="module")
def raw(wote_dir: Path) -> dict[str, list[dict[str, str]]]:
    return {
        split: json.loads((wote_dir / f"{split}.json").read_text(encoding="utf-8"))
        for split in wote.SPLITS
    }


# --- full scale -------------------------------------------------------------------------


def test_split_sizes_and_features(built: datasets.DatasetDict) -> None:
    assert {split: built[split].num_rows for split in built} == {
        "train": 248,
        "validation": 169,
        "test": 412,
    }
    assert dict(wote.OFFICIAL_SPLIT_SIZES) == {"train": 248, "validation": 169, "test": 412}
    for split in wote.SPLITS:
        assert built[split].features == wote.FEATURES
    assert list(wote.FEATURES) == [
        "id",
        "conversation_id",
        "question_id",
        "domain",
        "data_split",
        "document_url",
        "question",
        "text_question",
        "history",
        "question_type",
        "intent_question",
        "intent_answer",
        "original_answer",
        "extracted_answer",
        "task_data",
        "context",
        "answers",
    ]


def test_ids_unique_and_duplicated_question_ids_disambiguated(
    built: datasets.DatasetDict,
) -> None:
    ids = [i for split in wote.SPLITS for i in built[split]["id"]]
    assert len(ids) == 829
    assert len(set(ids)) == 829
    validation = built["validation"]
    pairs = sorted(
        (row["question_id"], row["id"])
        for row in validation
        if row["question_id"] in ("diy-63-5", "diy-64-6")
    )
    assert pairs == [
        ("diy-63-5", "Wizard-of-Task-diy-63/diy-63-5"),
        ("diy-63-5", "Wizard-of-Task-diy-64/diy-63-5"),
        ("diy-64-6", "Wizard-of-Task-diy-63/diy-64-6"),
        ("diy-64-6", "Wizard-of-Task-diy-64/diy-64-6"),
    ]


def test_answer_spans_and_located_counts(built: datasets.DatasetDict) -> None:
    located = {}
    for split in wote.SPLITS:
        count = 0
        for row in built[split]:
            (text,), (start,) = row["answers"]["text"], row["answers"]["answer_start"]
            if start >= 0:
                count += 1
                assert row["context"][start : start + len(text)] == text
            else:
                assert start == -1
                assert text == row["extracted_answer"]
        located[split] = count
    assert located == LOCATED


def test_gold_differs_from_extracted_answer_after_squad_normalisation(
    built: datasets.DatasetDict,
) -> None:
    """The README's figures: located answers whose gold (the context slice) and
    ``extracted_answer`` differ after SQuAD's normalisation, by cause."""
    normalize = load_metric_module("spans").normalize_answer
    causes: dict[str, dict[str, int]] = {split: {} for split in wote.SPLITS}
    for split in wote.SPLITS:
        for row in built[split]:
            (text,), (start,) = row["answers"]["text"], row["answers"]["answer_start"]
            answer = row["extracted_answer"]
            if start < 0 or normalize(text) == normalize(answer):
                continue
            cause = "backslash-n" if "\\n" in answer else "accent"
            # what remains once the joins are line breaks and accents and entities dropped
            plain = wote_answers._normalise
            assert normalize(plain(text)) == normalize(plain(answer.replace("\\n", "\n")))
            causes[split][cause] = causes[split].get(cause, 0) + 1
    assert causes == {
        "train": {"backslash-n": 11, "accent": 4},
        "validation": {"backslash-n": 7, "accent": 2},
        "test": {"backslash-n": 19, "accent": 3},
    }


def test_located_counts_logged(wote_dir: Path, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO, logger=wote.__name__)
    _build(wote_dir, tmp_path)
    messages = [r.getMessage() for r in caplog.records if r.name == wote.__name__]
    assert messages == [
        "WoTe train: 248 questions, extracted answer located in context for 229, not for 19",
        "WoTe validation: 169 questions, extracted answer located in context for 154, not for 15",
        "WoTe test: 412 questions, extracted answer located in context for 376, not for 36",
    ]


def test_real_row_field_by_field(built: datasets.DatasetDict, raw: dict) -> None:
    row = built["test"][398]
    source = raw["test"][398]
    assert row["id"] == "Wizard-of-Task-food-61/food-61-8"
    for field in wote.RAW_FIELDS:
        if field not in ("history", "question_type", "task_data"):
            assert row[field] == source[field], field
    assert row["question"] == "Should I add some oil to the pan first?"
    assert row["question_type"] == ["confirmation", "complex"]
    assert row["history"] == [
        {"role": "student", "text": "Make 8 flour tortillos"},
        {
            "role": "teacher",
            "text": "Actually, the next step doesn't have anything to do with the tortillas. "
            "You're going to want to grill your meat for about 5 minutes on each side. "
            "Since you're using minced beef instead of fish the cooking time may vary, but "
            "you want to make sure that the internal temperature reaches 160 degrees F to "
            "be safe.",
        },
        {
            "role": "student",
            "text": "Should I be making beef patties to grill or am I just grilling loose "
            "ground meat?",
        },
        {
            "role": "teacher",
            "text": "Use a cast iron pan on the grill to cook the loose ground meat.",
        },
    ]
    task = row["task_data"]
    assert task["title"] == "Grilled Fish Tacos with Chipotle Ranch"
    assert task["description"].startswith("Don't have a grill? You can broil the fish")
    assert len(task["ingredients"]) == 10
    assert task["ingredients"][0] == "1 (12.0-ounce) package frozen mahi-mahi fillets, defrosted"
    assert task["ingredients"][-1] == "1/4 cup chipotle ranch dressing"
    assert task["steps"] == [
        "Prepare a grill for medium heat cooking.",
        "Coat fillets with oil and sprinkle with seasoning.",
        "Grill fish over medium heat until cooked through and browned, about 5 minutes each side.",
        "While fish is cooking, warm tortillas in a large skillet over medium heat or "
        "sprinkle lightly with water and warm on grill.",
        "Wrap in a clean towel or foil to keep warm.",
        "When fish is cooked, break gently into bite-sized pieces, divide among tortillas "
        "and top with cheese, cabbage, tomatoes, onions and other toppings, as desired.",
        "Drizzle with dressing before serving.",
    ]
    assert row["context"] == "\n".join(
        [task["title"], task["description"], *task["ingredients"], *task["steps"]]
    )
    # The raw answer joins two steps with a literal backslash-n.
    assert source["extracted_answer"] == (
        "prepare a grill for medium heat cooking.\\ncoat fillets with oil and sprinkle "
        "with seasoning"
    )
    assert row["answers"] == {
        "text": [
            "Prepare a grill for medium heat cooking.\n"
            "Coat fillets with oil and sprinkle with seasoning"
        ],
        "answer_start": [536],
    }


def test_read_questions_matches_builder(wote_dir: Path, built: datasets.DatasetDict) -> None:
    rows = wote.read_questions(str(wote_dir / "validation.json"), "validation")
    assert rows == built["validation"].to_list()


def test_answers_not_located_inside_a_word(built: datasets.DatasetDict) -> None:
    """``diy-112-2`` ("no") was located inside "not"; ``diy-202-3`` is cut off mid-word in
    the release ("... from the vomi" of "vomit"). Neither context has the answer as whole
    words, so both keep the release's answer, unlocated."""
    rows = {row["id"]: row for row in built["test"]}
    for key, answer in [
        ("Wizard-of-Task-diy-112/diy-112-2", "no"),
        ("Wizard-of-Task-diy-202/diy-202-3", "use a dry cloth to soak up any liquid from the vomi"),
    ]:
        row = rows[key]
        assert row["extracted_answer"] == answer
        assert row["answers"] == {"text": [answer], "answer_start": [-1]}
        assert answer in row["context"].lower()
        assert re.search(rf"\b{re.escape(answer)}\b", row["context"], re.IGNORECASE) is None


# --- rows travel in gen_kwargs; the data_dir ---------------------------------------------


def test_validated_rows_travel_in_gen_kwargs(tmp_path: Path) -> None:
    release = write_release(tmp_path / "data")
    builder = wote.WoTe(
        config_name="wote", data_dir=str(tmp_path / "data"), cache_dir=str(tmp_path / "c")
    )
    generators = builder._split_generators(datasets.DownloadManager())
    for path in (tmp_path / "data").iterdir():
        path.unlink()  # nothing is read again: the rows are in gen_kwargs
    for generator in generators:
        assert set(generator.gen_kwargs) == {"rows", "split"}
        rows = [row for _, row in builder._generate_examples(**generator.gen_kwargs)]
        expected = release[generator.name]
        assert [r["question_id"] for r in rows] == [r["question_id"] for r in expected]
        # context lines: "Soup 0n0" (8), the description (36), "k cups water" (12),
        # "1 pinch salt" (12), "Boil the water." (15): the last step starts at 9+37+13+13+16
        assert rows[0]["answers"] == {"text": ["Add the salt"], "answer_start": [88]}
    assert not [name for name in vars(builder) if "row" in name.lower()]


def test_missing_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    pattern = rf"^{re.escape(str(missing))}: data_dir not found \(no such file or folder\)$"
    with pytest.raises(FileNotFoundError, match=pattern):
        _build(missing, tmp_path / "cache")


def test_data_dir_that_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "train.json"
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(wote.WoTeFormatError, match=rf"^{re.escape(str(path))}: data_dir is neith"):
        _build(path, tmp_path / "cache")


def test_edited_file_with_same_size_and_mtime_gives_new_rows(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)
    cache = tmp_path / "cache"
    assert _build(data, cache)["train"][0]["domain"] == "cooking"
    _edit_keeping_stat(data / "train.json", '"cooking"', '"diyxxxx"')
    assert _build(data, cache)["train"][0]["domain"] == "diyxxxx"


def test_edited_file_through_the_package_api(tmp_path: Path) -> None:
    import ocw_hub

    data = tmp_path / "data"
    write_release(data)

    def load() -> datasets.Dataset:
        return ocw_hub.load_dataset(
            "wote",
            "validation",
            data_dir=data,
            cache_dir=tmp_path / "cache",
            verification_mode="no_checks",
        )

    assert load()[1]["question"] == "What next?"
    _edit_keeping_stat(data / "validation.json", '"What next?"', '"What then?"')
    assert load()[1]["question"] == "What then?"


def _edit_keeping_stat(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (same length) in ``path``; keep its size and mtime."""
    assert len(old) == len(new)
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.mark.skipif(DATASETS_MAJOR >= 4, reason="the script path needs datasets 3.x")
def test_script_path_on_datasets_3_gives_new_rows(repo_root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_release(data)

    def load() -> datasets.DatasetDict:
        return datasets.load_dataset(
            str(repo_root / "WoTe.py"),
            "wote",
            data_dir=str(data),
            trust_remote_code=True,
            cache_dir=str(tmp_path / "cache"),
            verification_mode="no_checks",
        )

    assert load()["test"][0]["domain"] == "cooking"
    _edit_keeping_stat(data / "test.json", '"cooking"', '"diyxxxx"')
    assert load()["test"][0]["domain"] == "diyxxxx"
