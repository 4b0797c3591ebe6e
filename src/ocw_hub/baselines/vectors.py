"""Static word vectors (GloVe, word2vec, FastText) from a local text file, as the paper's
static rows embedded a clue (upstream: ``DocumentPoolEmbeddings([WordEmbeddings(name),
BytePairEmbeddings("en")])`` in flair 0.9, on ``Sentence(clue.lower())``).

Reproduced from flair's source (``WordEmbeddings.get_cached_vec``, ``DocumentPoolEmbeddings``
with its default ``pooling="mean"``):

* a clue is split into words as ``Sentence`` does (:func:`.flair_text.sentence_tokens`:
  segtok, so "murphy's" is "murphy" and "'s");
* a word's vector is the file's vector of the word, else of the word lowercased, else of the
  word with every digit replaced by ``#``, else by ``0``; a word in none of these forms gets
  a **zero vector** (which still counts in the mean);
* a clue's vector is the mean of its words' vectors (float32). A clue with no word at all
  gets a zero vector (flair fails on such a clue; no OCW clue is one).

Not reproduced: upstream concatenates to each word vector the BPEmb vectors (English,
100,000 sub-words, 50 dimensions: first and last sub-word of the word) of
``BytePairEmbeddings("en")``, downloaded at run time, which give unknown words a non-zero
vector. Only the word-vector half is computed here, so figures from a file are the paper's
static rows without that half.

File formats (UTF-8 text, one word a line, the vector's numbers separated by spaces): GloVe's
``.txt`` without a header, word2vec/FastText ``.vec`` with a first line ``<count> <dim>``.
The word is everything before the last ``dim`` fields (GloVe 840B has words with spaces). The
file is read once per call, one bounded line at a time (:data:`MAX_LINE_CHARS`), and only the
vectors of the words the split needs are parsed and kept: a 2M-word FastText crawl file would
take 2.4 GB in memory whole. Those vectors must be finite float32 numbers, and a needed word
listed twice must have the same vector both times (gensim, which flair used, kept the first
silently; here the file is refused, as it is ambiguous).

**Coverage**: a clue is covered when one of its words has a vector in the file (else its
vector is zero, and the clustering of its wall is partly at chance). The share of the split's
distinct clues covered is recorded in the encoder's protocol (``coverage``) and shown by
``predict``; below a floor (:data:`DEFAULT_MIN_COVERAGE`, ``--min-coverage``) the file is
refused before any clustering, as the wrong file for these clues.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import OCWHubError
from .encoders import distinct_clues, rows_of
from .flair_text import sentence_tokens

_DIGIT = re.compile(r"\d")
#: The longest line read (characters): a 300-dimension GloVe line is about 3,000, a
#: 4,096-dimension one about 50,000; a longer line (a file with no line break) is refused
#: before more of it is read.
MAX_LINE_CHARS = 2**20


#: The least share of a split's distinct clues a vectors file must cover (see the module
#: docstring): a general English file covers most OCW clues; a file of another language or
#: a toy file covers a few, and its figures would be near chance.
DEFAULT_MIN_COVERAGE = 0.5


class VectorsFileError(OCWHubError, ValueError):
    """A word-vectors file that cannot be read: missing, empty, a line longer than
    :data:`MAX_LINE_CHARS`, a line with the wrong number of fields, a field that is not a
    finite float32 number, a word listed twice with different vectors; the message names the
    file and the line. Its subclass :class:`VectorsCoverageError`: too few clues covered."""


def lookup_forms(word: str) -> list[str]:
    """The forms flair's ``WordEmbeddings`` looks a word up under, in order: the word, lowercased,
    digits as ``#``, digits as ``0``."""
    lower = word.lower()
    return [word, lower, _DIGIT.sub("#", lower), _DIGIT.sub("0", lower)]


def _header(path: Path, first: str) -> int | None:
    """The dimension of a word2vec/FastText header line ``<count> <dim>``, None for a GloVe
    file (whose first line is a vector)."""
    fields = first.split()
    if len(fields) == 2 and all(f.isascii() and f.isdigit() for f in fields):
        dim = int(fields[1])
        if dim < 1:
            raise VectorsFileError(f"{path}: line 1: field 'dim' must be at least 1, not {dim}")
        return dim
    return None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line without its line end and trailing spaces), blank lines skipped;
    each line read with at most :data:`MAX_LINE_CHARS` characters in memory."""
    try:
        with path.open(encoding="utf-8") as handle:
            number = 0
            while line := handle.readline(MAX_LINE_CHARS + 1):
                number += 1
                if len(line) > MAX_LINE_CHARS:
                    raise VectorsFileError(
                        f"{path}: line {number}: longer than {MAX_LINE_CHARS} characters "
                        "(MAX_LINE_CHARS); a vectors file holds one word and its numbers a line"
                    )
                line = line.rstrip()
                if line:
                    yield number, line
    except UnicodeDecodeError as err:
        raise VectorsFileError(f"{path}: not UTF-8 text ({err.reason})") from None
    except OSError as err:
        raise VectorsFileError(f"{path}: cannot be read ({err.strerror or err})") from None


def file_dimension(path: str | Path) -> int:
    """The vector dimension of a word-vectors file (from its header or its first vector).

    Raises:
        VectorsFileError: missing, not a file, empty, or a first line that is not a vector.
    """
    path = Path(path)
    if not path.is_file():
        raise VectorsFileError(f"{path}: no such file")
    for number, line in _lines(path):
        dim = _header(path, line)
        if dim is not None:
            return dim
        fields = line.split(" ")
        if len(fields) < 2:
            raise VectorsFileError(f"{path}: line {number}: a word without a vector")
        return len(fields) - 1
    raise VectorsFileError(f"{path}: empty")


class VectorsCoverageError(VectorsFileError):
    """A vectors file that covers fewer of the split's clues than the floor asked for (the
    message gives the counts, the share and the floor)."""


def coverage(words: dict[str, list[str]], table: dict[str, np.ndarray]) -> tuple[int, int]:
    """(clues covered, clues) of ``words`` (clue -> its words): a clue is covered when one of
    its words has a vector in ``table`` in one of its :func:`lookup_forms`."""
    covered = sum(any(f in table for w in ws for f in lookup_forms(w)) for ws in words.values())
    return covered, len(words)


def read_vectors(path: str | Path, words: set[str]) -> tuple[int, dict[str, np.ndarray]]:
    """The dimension and the float32 vectors of those of ``words`` that ``path`` lists.

    Raises:
        VectorsFileError: see :func:`file_dimension`; a line with another number of fields
            than its dimension, a needed word's field that is not a finite float32 number, or
            a needed word listed twice with different vectors (the lines named).
    """
    path = Path(path)
    dim = file_dimension(path)
    found: dict[str, np.ndarray] = {}
    first_line: dict[str, int] = {}
    lines = _lines(path)
    for number, line in lines:
        if number == 1 and _header(path, line) is not None:
            continue
        fields = line.rsplit(" ", dim)
        if len(fields) != dim + 1 or not fields[0]:
            raise VectorsFileError(
                f"{path}: line {number}: expected a word and {dim} numbers, "
                f"found {len(line.split(' '))} fields"
            )
        word = fields[0]
        if word not in words:
            continue
        vector = _vector(path, number, word, fields[1:])
        if word not in found:
            found[word], first_line[word] = vector, number
        elif not np.array_equal(found[word], vector):
            raise VectorsFileError(
                f"{path}: line {number} (word {word!r}): listed on line {first_line[word]} "
                "with another vector; keep one"
            )
    return dim, found


def _vector(path: Path, number: int, word: str, fields: list[str]) -> np.ndarray:
    """The float32 vector of a line's number fields; each must be finite in float32."""
    where = f"{path}: line {number} (word {word!r})"
    try:
        values = np.array(fields, dtype=np.float64)
    except ValueError:
        raise VectorsFileError(f"{where}: a vector field is not a number") from None
    with np.errstate(over="ignore"):
        vector = values.astype(np.float32)  # 1e308 becomes inf here
    bad = ~np.isfinite(vector)
    if bad.any():
        field = fields[int(np.argmax(bad))]
        raise VectorsFileError(f"{where}: field {field!r} is not a finite float32 number")
    return vector


def clue_vector(words: Sequence[str], table: dict[str, np.ndarray], dim: int) -> np.ndarray:
    """The mean of the words' vectors (each by :func:`lookup_forms`, zero when unknown), float32
    of shape (dim,); zeros for no word."""
    if not words:
        return np.zeros(dim, dtype=np.float32)
    rows = []
    for word in words:
        vector = next((table[f] for f in lookup_forms(word) if f in table), None)
        rows.append(vector if vector is not None else np.zeros(dim, dtype=np.float32))
    return np.stack(rows).mean(axis=0, dtype=np.float32)


class WordVectorsEncoder:
    """Static word vectors from a local text file, a clue's vector the mean of its words' (see
    the module docstring). The file is checked on construction and read by
    :meth:`encode_walls`.

    Raises:
        VectorsFileError: the file is missing, empty or its first line is not a vector.
    """

    kind = "word-vectors"

    def __init__(self, path: str | Path, min_coverage: float = DEFAULT_MIN_COVERAGE) -> None:
        if not 0.0 <= min_coverage <= 1.0:
            raise ValueError(f"min_coverage {min_coverage}: expected a share from 0 to 1")
        self.path = Path(path)
        self.model = str(path)
        self.dim = file_dimension(self.path)
        self.min_coverage = min_coverage
        #: ``{"covered", "clues", "share"}`` of the last :meth:`encode_walls`, else None.
        self.coverage: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        """The encoder's protocol, for a results file's provenance."""
        return {
            "encoder": self.kind,
            "model": self.model,
            "context": "clue",
            "pooling": "mean of the words' vectors (segtok words), unknown words zero",
            "reproduces": "flair 0.9 DocumentPoolEmbeddings([WordEmbeddings]) without "
            "its BytePairEmbeddings half",
            "lowercase": True,
            "normalised": False,
            **({"coverage": self.coverage} if self.coverage is not None else {}),
        }

    def encode_walls(self, walls: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One float32 array of shape (16, dim) per wall, rows in the order of its clues."""
        clues = distinct_clues(walls)
        if not clues:
            return []
        words = {clue: sentence_tokens(clue) for clue in clues}
        needed = {form for ws in words.values() for w in ws for form in lookup_forms(w)}
        dim, table = read_vectors(self.path, needed)
        covered, total = coverage(words, table)
        share = covered / total
        self.coverage = {"covered": covered, "clues": total, "share": round(share, 4)}
        if share < self.min_coverage:
            raise VectorsCoverageError(
                f"{self.path}: covers {covered} of the {total} distinct clues of the split "
                f"({share:.1%}; a clue is covered when one of its words has a vector), below "
                f"the floor of {self.min_coverage:.0%}: is it the right file for these clues? "
                f"Pass --min-coverage {math.floor(share * 100) / 100:g} to run on it anyway"
            )
        matrix = np.stack([clue_vector(words[clue], table, dim) for clue in clues])
        return [matrix[rows] for rows in rows_of(walls, clues)]
