"""Hostile ``--vectors`` files: one huge line, numbers that are no finite float32, a word listed
twice with two vectors. Each is a one-line ``VectorsFileError`` naming the file and the line,
read with bounded memory; ``predict --vectors`` shows it as one line, no traceback."""

from __future__ import annotations

import importlib.util
import re
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.baselines import vectors
from ocw_hub.baselines.vectors import VectorsFileError, WordVectorsEncoder, read_vectors
from ocw_hub.cli import app

#: Files whose needed word ``red`` has a vector that is no finite float32: (text, field shown).
NOT_FINITE = {
    "nan": ("red 0.1 nan 0.3\n", "nan"),
    "NaN, GloVe-style": ("blue 1 2 3\nred NaN 0.2 0.3\n", "NaN"),
    "inf": ("red 0.1 0.2 inf\n", "inf"),
    "-Infinity, with a header": ("1 3\nred -Infinity 0.2 0.3\n", "-Infinity"),
    "1e308 (inf in float32)": ("red 1e308 0.2 0.3\n", "1e308"),
    "3.5e38 (just over float32)": ("red 0.1 3.5e38 0.3\n", "3.5e38"),
}

#: A needed word listed twice with different vectors: (text, the second line's number).
TWICE = {
    "adjacent": ("red 1 0 0\nred 0 1 0\n", 2),
    "far apart, with a header": ("4 3\nred 1 0 0\nblue 0 0 1\ncat 0 1 0\nred 1 0 0.5\n", 5),
    "a float32-sized difference": ("red 1 0 0\nred 1.0000001 0 0\n", 2),
}


def _one_line_error(err: VectorsFileError, path: Path) -> str:
    message = str(err)
    assert message.startswith(str(path)) and "\n" not in message
    return message


@pytest.mark.parametrize("name", list(NOT_FINITE))
def test_a_vector_that_is_no_finite_float32_is_refused(tmp_path, name):
    text, field = NOT_FINITE[name]
    path = tmp_path / "v.txt"
    path.write_text(text, encoding="utf-8")
    number = text.split("\n").index(next(x for x in text.split("\n") if x.startswith("red"))) + 1
    with pytest.raises(VectorsFileError) as raised:
        read_vectors(path, {"red"})
    message = _one_line_error(raised.value, path)
    assert f"line {number} (word 'red')" in message and repr(field) in message


def test_float32_max_itself_is_kept(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("red 3.4028235e38 -3.4028235e38 0\n", encoding="utf-8")
    (vector,) = read_vectors(path, {"red"})[1].values()
    assert vector.tolist() == [3.4028234663852886e38, -3.4028234663852886e38, 0.0]


@pytest.mark.parametrize("name", list(TWICE))
def test_a_word_listed_twice_with_two_vectors_is_refused(tmp_path, name):
    text, number = TWICE[name]
    path = tmp_path / "v.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VectorsFileError) as raised:
        read_vectors(path, {"red"})
    assert f"line {number} (word 'red')" in _one_line_error(raised.value, path)


def test_a_word_listed_twice_with_one_vector_and_unneeded_repeats_are_kept(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("red 1 0 0\nblue 0 1 0\nblue 0 0 1\nred 1 0 0\n", encoding="utf-8")
    dim, found = read_vectors(path, {"red"})
    assert dim == 3 and {w: v.tolist() for w, v in found.items()} == {"red": [1.0, 0.0, 0.0]}


@pytest.mark.parametrize(
    "body",
    [
        "0.5 " * 400_000,  # numbers and spaces, no line break
        "red" + " 0.25" * 300_000,  # one word and a huge vector
        "x" * 1_500_000,  # one long word
    ],
    ids=["numbers", "huge-vector", "one-word"],
)
@pytest.mark.parametrize("after", ["", "\nred 1 2 3\n"], ids=["alone", "first-line"])
def test_a_line_over_the_cap_is_refused_without_reading_it_whole(
    tmp_path, monkeypatch, body, after
):
    """A file of more than ``MAX_LINE_CHARS`` characters on one line: refused at line 1 with a
    peak allocation of a few caps, not of the line (1.2-1.6 MB here, the cap 10,000)."""
    monkeypatch.setattr(vectors, "MAX_LINE_CHARS", 10_000)
    path = tmp_path / "one-line.txt"
    path.write_text(body + after, encoding="utf-8")
    tracemalloc.start()
    try:
        with pytest.raises(VectorsFileError) as raised:
            WordVectorsEncoder(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "line 1: longer than 10000" in _one_line_error(raised.value, path)
    assert peak < 200_000 < len(body) // 6


def test_a_long_line_later_in_the_file_is_refused_at_its_number(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "MAX_LINE_CHARS", 100)
    path = tmp_path / "v.txt"
    path.write_text("red 1 2 3\nblue 4 5 6\ncat" + " 7" * 60 + "\n", encoding="utf-8")
    with pytest.raises(VectorsFileError) as raised:
        read_vectors(path, {"red"})
    assert "line 3: longer than 100" in _one_line_error(raised.value, path)


@pytest.mark.skipif(importlib.util.find_spec("segtok") is None, reason="needs segtok")
@pytest.mark.parametrize(
    ("text", "line"),
    [("a 0.1 nan\n", 1), ("a 1 2\na 3 4\n", 2), ("z" * 2_000_000, 1)],
    ids=["nan", "twice", "one-line"],
)
def test_predict_shows_a_bad_vectors_file_in_one_line(tmp_path, ocw_fixture_dir, text, line):
    """Through the command, every word of the fixture walls' clues is needed: ``a`` is one."""
    path = tmp_path / "v.txt"
    lower = {c.lower() for c in _fixture_clues(ocw_fixture_dir)}
    word = next(iter(sorted(w for w in lower if re.fullmatch(r"[a-z]+", w))))
    path.write_text(text.replace("a ", f"{word} "), encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [
            "predict",
            "--method",
            "embedding",
            "--vectors",
            str(path),
            "--data-dir",
            str(ocw_fixture_dir),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-checks",
            "--runs",
            "1",
            "--jobs",
            "1",
            "--out",
            str(tmp_path / "runs"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert errors == lines[-1:] and f"v.txt: line {line}" in errors[0]  # the fixture warns first
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").glob("run-*"))


def _fixture_clues(folder: Path) -> list[str]:
    import json

    data = json.loads((folder / "test.json").read_text(encoding="utf-8"))
    return [clue for wall in data["dataset"] for clue in wall["words"]]
