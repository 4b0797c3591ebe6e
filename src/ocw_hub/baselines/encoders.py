"""Clue encoders for the embedding baseline: each clue of a wall becomes one vector.

The encoders follow the paper's protocol (upstream ``scripts/prediction.py`` with
``utils.get_embeddings_static``): every clue is embedded **lowercased and on its own**. Each
distinct lowercased clue of the split is embedded once (one call for the whole split), and a
wall's vectors are rows of that table, so the 16 runs of the protocol, which only reorder a
wall's clues, reuse them. The one exception is the paper's contextual mode
(``TransformerEncoder(contextual=True)``), where a clue's vector depends on the other clues of
its wall and their order, so each run is embedded on its own (``encode_runs``).

* :class:`TfidfEncoder` (the default, no download): character n-gram TF-IDF from scikit-learn,
  a *lexical* baseline (clues that share letters end up close), not the paper's model.
* :class:`ocw_hub.baselines.transformer.TransformerEncoder`: a Hugging Face transformers model
  as the paper embedded it through flair 0.9 (first token of the last layer; ``mean`` pooling
  and the contextual mode as options).
* :class:`SentenceTransformerEncoder`: a ``sentence-transformers`` model's ``encode`` (its
  own pooling and normalisation), a named alternative, not the paper's path.
* :class:`ocw_hub.baselines.vectors.WordVectorsEncoder`: static word vectors (GloVe,
  word2vec/FastText ``.vec``) from a local text file, mean of a clue's words.

``encode_walls(walls)`` returns, for each wall, a float32 array of shape (16, d): one row per
clue, in the order of the wall's ``words``; ``describe()`` the encoder's protocol as a dict.
Heavy modules (scikit-learn, torch) are imported inside the methods; the extra ``encoders``
brings transformers, torch and sentence-transformers, ``baselines`` segtok.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import OCWHubError
from ..extras import install_command

#: The n-gram lengths of the built-in encoder (characters, inside word boundaries).
TFIDF_NGRAM_RANGE = (2, 4)


class ModelUnavailableError(OCWHubError, OSError):
    """A model that cannot be loaded: its package (``transformers``, ``sentence-transformers``)
    is not installed, or the name is neither a local model folder nor a model in the Hugging
    Face cache (and the Hub cannot be reached).

    Attributes:
        model: the name or path that was given.
        reason: what went wrong, in one line.
        kind: the encoder kind (``transformers`` or ``sentence-transformers``).
    """

    def __init__(self, model: str, reason: str, kind: str = "sentence-transformers") -> None:
        super().__init__(
            f"model {model!r} cannot be loaded ({reason}); give the local path of a "
            f"{kind} model folder instead"
        )
        self.model = model
        self.reason = reason
        self.kind = kind


class Encoder(Protocol):
    """What the embedding baseline needs from an encoder."""

    #: The model's name (a Hub name, a local path, or the built-in encoder's name).
    model: str
    #: The kind of encoder: ``tfidf``, ``transformers``, ``sentence-transformers`` or
    #: ``word-vectors``.
    kind: str

    def encode_walls(self, walls: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One float32 array of shape (16, d) per wall, rows in the order of its clues."""
        ...

    def describe(self) -> dict[str, Any]:
        """The encoder's protocol (kind, model, pooling, context, ...), JSON-serialisable."""
        ...


def distinct_clues(walls: Sequence[Sequence[str]]) -> list[str]:
    """The distinct lowercased clues of ``walls``, sorted (the order they are embedded in)."""
    return sorted({str(clue).lower() for words in walls for clue in words})


def rows_of(walls: Sequence[Sequence[str]], clues: list[str]) -> list[list[int]]:
    """For each wall, the row of each of its clues in the table of :func:`distinct_clues`."""
    index = {clue: row for row, clue in enumerate(clues)}
    return [[index[str(clue).lower()] for clue in words] for words in walls]


class TfidfEncoder:
    """Character n-gram TF-IDF (scikit-learn ``TfidfVectorizer(analyzer="char_wb",
    ngram_range=(2, 4))``), fitted on the distinct lowercased clues of the split.

    A lexical baseline, not the paper's: clues that share letter sequences (a stem, a suffix)
    get close vectors. The vocabulary and the IDF weights come from the whole split (one fit
    per call of :meth:`encode_walls`), so a clue has the same vector in every wall of the split;
    rows are L2-normalised (scikit-learn's default).

    A wall's array keeps only the columns of the n-grams that occur in the wall (the other
    columns are zero for all 16 clues, so distances and the clustering are unchanged): d varies
    per wall, typically 150-350 on OCW. Deterministic: same split, same vectors.
    """

    kind = "tfidf"

    def __init__(self, ngram_range: tuple[int, int] = TFIDF_NGRAM_RANGE) -> None:
        self.ngram_range = ngram_range
        self.model = f"tfidf-char_wb-{ngram_range[0]}-{ngram_range[1]}"

    def describe(self) -> dict[str, Any]:
        """The encoder's protocol, for a results file's provenance."""
        return {
            "encoder": self.kind,
            "model": self.model,
            "context": "clue",
            "ngram_range": list(self.ngram_range),
            "lowercase": True,
            "normalised": True,
        }

    def encode_walls(self, walls: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One float32 array of shape (16, d_wall) per wall (see the class docstring)."""
        from sklearn.feature_extraction.text import TfidfVectorizer

        clues = distinct_clues(walls)
        if not clues:
            return []
        vectorizer = TfidfVectorizer(
            analyzer="char_wb", ngram_range=self.ngram_range, dtype=np.float32
        )
        try:
            table = vectorizer.fit_transform(clues).tocsr()
        except ValueError:  # empty vocabulary: no clue of the split has a single n-gram
            from scipy.sparse import csr_matrix

            table = csr_matrix((len(clues), 0), dtype=np.float32)
        arrays = []
        for rows in rows_of(walls, clues):
            wall = table[rows]
            columns = np.unique(wall.indices)
            if columns.size == 0:  # no n-gram at all (e.g. 16 one-character clues): one column
                arrays.append(np.zeros((len(rows), 1), dtype=np.float32))
            else:
                arrays.append(wall[:, columns].toarray())
        return arrays


class SentenceTransformerEncoder:
    """A ``sentence-transformers`` model (Hub name or local folder), loaded on construction.

    Each distinct lowercased clue of the split is encoded once, as a sentence of its own
    (``model.encode``, no normalisation: the vectors the model returns), on the CPU unless
    ``device`` says otherwise.

    Raises:
        ModelUnavailableError: ``sentence-transformers`` is not installed, or the model cannot
            be loaded (unknown name, offline without it in the cache, not a model folder).
    """

    kind = "sentence-transformers"

    def __init__(self, model: str, *, device: str | None = "cpu", batch_size: int = 256) -> None:
        self.model = str(model)
        self.batch_size = batch_size
        self._st = load_sentence_transformer(self.model, device=device)

    def describe(self) -> dict[str, Any]:
        """The encoder's protocol, for a results file's provenance."""
        return {
            "encoder": self.kind,
            "model": self.model,
            "context": "clue",
            "pooling": "the model's own (SentenceTransformer.encode)",
            "lowercase": True,
            "normalised": "as the model's modules do",
        }

    def encode_walls(self, walls: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One float32 array of shape (16, d) per wall, d the model's dimension."""
        clues = distinct_clues(walls)
        if not clues:
            return []
        table = np.asarray(
            self._st.encode(
                clues,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                show_progress_bar=False,
            ),
            dtype=np.float32,
        )
        return [table[rows] for rows in rows_of(walls, clues)]


def load_sentence_transformer(model: str, *, device: str | None = "cpu") -> Any:
    """``sentence_transformers.SentenceTransformer(model, device=device)``; a name that is not a
    local path is looked up in the Hugging Face cache first, then on the Hub.

    Raises:
        ModelUnavailableError: the package is missing or the model cannot be loaded.
    """
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ModelUnavailableError(
            model, f"sentence-transformers is not installed: {install_command('encoders')}"
        ) from None
    try:
        if not Path(model).expanduser().exists():
            try:  # the Hugging Face cache first: no request to the Hub when it is there
                return SentenceTransformer(model, device=device, local_files_only=True)
            except (OSError, ValueError, TypeError):  # TypeError: sentence-transformers < 2.7
                pass
        return SentenceTransformer(model, device=device)
    except (OSError, ValueError) as err:  # HF hub errors (offline, not found) are OSErrors
        reason = " ".join(str(err).split()) or type(err).__name__
        if len(reason) > 200:
            reason = reason[:197] + "..."
        raise ModelUnavailableError(model, reason) from err
