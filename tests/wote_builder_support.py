"""Helpers of the WoTe loading-script tests (``tests/test_wote_*.py``): the script and its
sibling modules, a build into a private cache, small synthetic releases in the release shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from ocw_fixtures import dumps

from ocw_hub.resources import load_script, load_sibling

wote = load_script("WoTe")
wote_questions = load_sibling("wote_questions")
wote_answers = load_sibling("wote_answers")
DATASETS_MAJOR = int(datasets.__version__.split(".")[0])
SPLITS = ("train", "validation", "test")


def _build(
    data_dir: Path, cache_dir: Path, verification_mode: str = "no_checks"
) -> datasets.DatasetDict:
    """Build; the small synthetic releases are not the official sizes (which datasets 3.x
    checks from dataset_infos.json), so only the full-scale build checks them."""
    builder = wote.WoTe(config_name="wote", data_dir=str(data_dir), cache_dir=str(cache_dir))
    builder.download_and_prepare(verification_mode=verification_mode)
    return builder.as_dataset()


# --- a small synthetic release -----------------------------------------------------------


def synthetic_question(n: int, split: str) -> dict[str, str]:
    """A question in the release shape (14 string fields), written for these tests."""
    task = {
        "title": f"Soup {n:03d}",
        "description": "A quick soup; it doesn't need stock.",
        "ingredients": [f"{n % 9 + 1} cups water", "1 pinch salt"],
        "steps": ["Boil the water.", "Add the salt and stir."],
    }
    return {
        "conversation_id": f"Wizard-of-Task-food-{n:03d}",
        "question_id": f"food-{n:03d}-0",
        "question": "What next?",
        "text_question": "What next?",
        "original_answer": "Add the salt.",
        "extracted_answer": "add the salt",
        "document_url": f"https://example.org/soup/{n:03d}",
        "domain": "cooking",
        "data_split": split,
        "intent_question": "request_next_step",
        "intent_answer": "answer_question_recipe_steps",
        "history": "student: Hi | teacher: Hello, boil the water first.",
        "question_type": "['navigation']",
        "task_data": repr(task),
    }


def write_release(root: Path, per_split: int = 2) -> dict[str, list[dict[str, str]]]:
    """Write ``train.json``, ``validation.json``, ``test.json`` of ``per_split`` questions."""
    root.mkdir(parents=True, exist_ok=True)
    release = {}
    for s, split in enumerate(SPLITS):
        rows = [synthetic_question(10 * s + i, split) for i in range(per_split)]
        (root / f"{split}.json").write_text(dumps(rows), encoding="utf-8")
        release[split] = rows
    return release


def _rewrite(path: Path, edit) -> None:
    records = json.loads(path.read_text(encoding="utf-8"))
    edit(records)
    path.write_text(dumps(records), encoding="utf-8")


def _assert_build_fails(data_dir: Path, cache_dir: Path, *fragments: str) -> str:
    with pytest.raises(wote.WoTeFormatError) as info:
        _build(data_dir, cache_dir)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert list(cache_dir.rglob("*.arrow")) == []
    return message


def _label(row: dict[str, str], index: int) -> str:
    return (
        f"question_id {row['question_id']!r} (conversation_id {row['conversation_id']!r}, #{index})"
    )
