"""A Hugging Face transformers model as the paper embedded it through flair 0.9 (upstream
``scripts/prediction.py``), with ``transformers`` and CPU torch directly (no flair).

Each clue on its own (the default; upstream ``TransformerDocumentEmbeddings(model)`` with
flair's defaults, one ``Sentence`` per lowercased clue):

* the text is ``Sentence(clue.lower()).to_tokenized_string()`` (:mod:`.flair_text`: segtok
  words joined by spaces), encoded by the model's own tokenizer with its special tokens,
  truncated at ``model_max_length`` (512 where the tokenizer's config sets none);
* ``pooling="cls"`` (flair's default): the vector of the first token of the last layer
  (``hidden_states[-1]``) where the tokenizer puts its CLS token first (``encode("a")[0] ==
  cls_token_id``, as flair checks), else of the last token; no normalisation;
  ``pooling="mean"`` (flair's ``pooling="mean"``, a named alternative): the mean of the last
  layer over every token of the input, the special tokens included.

Flair embedded one sentence per forward pass without an attention mask. Here the clues are
batched by input length, so no padding and no mask enter a pass either: the vectors equal
flair's up to float rounding.

Each clue in the context of its wall (``contextual=True``; upstream
``TransformerWordEmbeddings(model)`` on ``Sentence(lowercased clues of the wall)``, the clues
in the run's order, with flair's defaults ``layers="all"``, ``layer_mean=True``,
``subtoken_pooling="first"``):

* each clue is one token (:func:`.flair_text.list_tokens`); the input is the tokens joined by
  spaces, tokenised by the model's tokenizer;
* flair's ``reconstruct_tokens_from_subtokens`` assigns the sub-tokens to the clues in order
  (:func:`subtoken_counts`); a clue's vector is the mean over **all** hidden states (the
  embedding layer and every layer) of its **first** sub-token. A clue assigned no sub-token
  gets a zero vector, as in flair.
* Not reproduced: flair drops a clue that is blank after removing zero-width characters, and
  the wall's tensor then has fewer than 16 rows (upstream fails or misaligns); here such a
  clue gets a zero vector. A wall longer than ``model_max_length`` sub-tokens (flair splits
  it in strided windows) is an error; no OCW wall comes near 512.

torch and transformers are imported inside the methods (extra ``encoders``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import BaselineError
from .encoders import ModelUnavailableError, distinct_clues, rows_of
from .flair_text import list_tokens, tokenized_string

#: The poolings of a clue on its own (flair's ``TransformerDocumentEmbeddings(pooling=...)``).
POOLINGS = ("cls", "mean")
#: flair's stand-in when a tokenizer's config has no ``model_max_length``.
DEFAULT_MAX_LENGTH = 512
#: Word-piece markup flair removes before matching sub-tokens to tokens.
_MARKUP = (re.compile("^Ġ"), re.compile("^##"), re.compile("^▁"), re.compile("</w>$"))


def remove_markup(piece: str) -> str:
    """flair's ``_remove_special_markup``: RoBERTa's Ġ, BERT's ##, XLNet's ▁, XLM's </w>."""
    for pattern in _MARKUP:
        piece = pattern.sub("", piece)
    return piece


def _skip_omitted(
    counts: list[int], tokens: Iterator[str], processed: Callable[[str], str], piece: str
) -> tuple[str, str]:
    """flair: "some BERT tokenizers somehow omit words": zero sub-tokens for each token until
    one starts with ``piece``; returns that token and its processed text (StopIteration when
    none is left)."""
    while True:
        counts.append(0)
        token = next(tokens)
        text = processed(token)
        if text.startswith(piece.lower()):
            return token, text


def subtoken_counts(
    tokens: Sequence[str],
    subtokens: Sequence[str],
    processed: Callable[[str], str],
    special: Sequence[str] = (),
) -> list[int]:
    """How many of ``subtokens`` (the tokenizer's pieces of the tokens joined by spaces) belong
    to each token, by flair 0.9's ``TransformerWordEmbeddings.reconstruct_tokens_from_subtokens``:
    pieces (markup removed) are appended until they spell the token's ``processed`` text (its
    own pieces, markup removed, lowercased). The list is shorter than ``tokens`` where flair's
    matching ran out (those tokens get no vector in flair; zero vectors here)."""
    counts: list[int] = []
    remaining = iter(tokens)
    current = next(remaining)
    text = processed(current)
    rebuilt, count = "", 0
    try:
        for index, raw in enumerate(subtokens):
            piece = remove_markup(raw)
            if index == 0 and piece in special:
                continue
            if count == 0 and not text.startswith(piece.lower()):
                current, text = _skip_omitted(counts, remaining, processed, piece)
            count += 1
            rebuilt += piece
            if rebuilt.lower() != text:
                continue
            counts.append(count)
            rebuilt, count = "", 0
            if len(counts) >= len(tokens):
                break
            current = next(remaining)
            text = processed(current)
        while len(counts) < len(tokens) and len(current) == 1:  # flair: unaccounted tokens
            counts.append(0)
            if len(counts) < len(tokens):
                current = next(remaining)
    except StopIteration:
        pass
    return counts


class TransformerEncoder:
    """A transformers model (Hub name or local folder), loaded on construction, embedding clues
    as the paper did (see the module docstring).

    Args:
        model: ``AutoModel``/``AutoTokenizer`` name or folder.
        pooling: ``cls`` (first token, the paper's) or ``mean``; clues on their own only.
        contextual: each clue in the context of its wall (flair's word embeddings).
        device: torch device (CPU by default).
        batch_size: inputs per forward pass (inputs of one length only).

    Raises:
        ModelUnavailableError: transformers or torch is not installed, or the model cannot be
            loaded (unknown name, offline without it in the cache, not a model folder).
        ValueError: an unknown pooling.
    """

    kind = "transformers"

    def __init__(
        self,
        model: str,
        *,
        pooling: str = "cls",
        contextual: bool = False,
        device: str = "cpu",
        batch_size: int = 64,
    ) -> None:
        if pooling not in POOLINGS:
            raise ValueError(f"pooling {pooling!r}: expected one of {list(POOLINGS)}")
        self.model = str(model)
        self.pooling = pooling
        self.contextual = contextual
        self.device = device
        self.batch_size = batch_size
        self._tokenizer, self._model = load_transformer(self.model, device=device)
        tokenizer = self._tokenizer
        length = tokenizer.model_max_length
        self.max_length = DEFAULT_MAX_LENGTH if length > 1_000_000_000 else int(length)
        first = tokenizer("a")["input_ids"]
        self.initial_cls = bool(first) and first[0] == tokenizer.cls_token_id
        self.begin_offset = _begin_offset(tokenizer, first)
        self.special = [t for t in (tokenizer.bos_token, tokenizer.cls_token) if t]
        self._processed: dict[str, str] = {}

    def describe(self) -> dict[str, Any]:
        """The encoder's protocol, for a results file's provenance."""
        if self.contextual:
            return {
                "encoder": self.kind,
                "model": self.model,
                "context": "wall",
                "pooling": "first sub-token, mean of all hidden states",
                "reproduces": "flair 0.9 TransformerWordEmbeddings defaults",
                "lowercase": True,
                "normalised": False,
            }
        return {
            "encoder": self.kind,
            "model": self.model,
            "context": "clue",
            "pooling": "first token, last layer" if self.pooling == "cls" else "mean, last layer",
            "reproduces": "flair 0.9 TransformerDocumentEmbeddings"
            + (" defaults" if self.pooling == "cls" else " pooling='mean'"),
            "tokenization": "segtok words joined by spaces, then the model's tokenizer",
            "lowercase": True,
            "normalised": False,
        }

    # --- clues on their own -------------------------------------------------------------

    def encode_walls(self, walls: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One float32 array of shape (16, d) per wall, rows in the order of its clues; each
        distinct lowercased clue embedded once."""
        clues = distinct_clues(walls)
        if not clues:
            return []
        table = self.encode_clues(clues)
        return [table[rows] for rows in rows_of(walls, clues)]

    def encode_clues(self, clues: Sequence[str]) -> np.ndarray:
        """float32 array (len(clues), d): each text as ``Sentence(text)`` embedded with the
        encoder's pooling (the texts as given: lowercase them first for the paper's protocol)."""
        tokenizer = self._tokenizer
        ids = [
            tokenizer(tokenized_string(c), truncation=True, max_length=self.max_length)["input_ids"]
            for c in clues
        ]
        out: list[np.ndarray | None] = [None] * len(ids)
        for members, hidden in self._forward(ids, all_layers=False):
            if self.pooling == "cls":
                index = 0 if self.initial_cls else hidden.shape[1] - 1
                vectors = hidden[:, index]
            else:
                vectors = hidden.mean(dim=1)
            for member, vector in zip(members, vectors.numpy(), strict=True):
                out[member] = vector
        return np.stack(out).astype(np.float32)  # type: ignore[arg-type]

    # --- clues in the context of their wall -----------------------------------------------

    def encode_runs(
        self, walls: Sequence[Sequence[str]], orders: Sequence[Sequence[int]]
    ) -> list[np.ndarray]:
        """Contextual vectors: per wall a float32 array (runs, 16, d); row [s, i] is the vector
        of clue ``words[orders[s][i]]`` in the sentence of the wall's lowercased clues in
        run s's order."""
        inputs, layouts = [], []
        for number, words in enumerate(walls):
            for order in orders:
                ids, layout = self._wall_input([str(words[i]).lower() for i in order], number)
                inputs.append(ids)
                layouts.append(layout)
        width = self._model.config.hidden_size
        flat = np.zeros((len(inputs), len(orders[0]) if orders else 0, width), np.float32)
        for members, hidden in self._forward(inputs, all_layers=True):
            mean = hidden.mean(dim=0).numpy()  # (batch, length, d): mean of all hidden states
            for member, states in zip(members, mean, strict=True):
                for row, position in layouts[member]:
                    flat[member, row] = states[position]
        runs = len(orders)
        return [flat[w * runs : (w + 1) * runs] for w in range(len(walls))]

    def _wall_input(self, clues: list[str], number: int) -> tuple[list[int], list[tuple]]:
        """The input ids of one wall in one order and, for each clue that gets a vector, (its
        row, the position of its first sub-token)."""
        texts = list_tokens(clues)
        kept = [(row, t) for row, t in enumerate(texts) if t is not None]
        if not kept:
            return self._tokenizer("")["input_ids"], []
        string = " ".join(t for _, t in kept)
        tokenizer = self._tokenizer
        counts = subtoken_counts(
            [t for _, t in kept], tokenizer.tokenize(string), self._processed_text, self.special
        )
        ids = tokenizer(string)["input_ids"]
        if len(ids) > self.max_length:
            raise BaselineError(
                f"wall #{number}: field 'words' makes {len(ids)} sub-tokens in context, more "
                f"than the model's {self.max_length}"
            )
        layout, start = [], self.begin_offset
        for (row, _), count in zip(kept, counts, strict=False):
            if count:
                layout.append((row, start))
            start += count
        return ids, layout

    def _processed_text(self, token: str) -> str:
        """flair's ``_get_processed_token_text``: the token's pieces, markup removed, joined,
        lowercased (cached)."""
        text = self._processed.get(token)
        if text is None:
            pieces = self._tokenizer.tokenize(token)
            text = "".join(remove_markup(p) for p in pieces).lower()
            self._processed[token] = text
        return text

    # --- forward passes -------------------------------------------------------------------

    def _forward(self, ids: Sequence[list[int]], *, all_layers: bool) -> Iterator[tuple[list, Any]]:
        """Batches of inputs of one length, no padding and no mask (as flair's one-sentence
        passes): yields (input indexes, hidden states): the last layer (batch, length, d), or
        all hidden states stacked (layers + 1, batch, length, d)."""
        import torch

        by_length: dict[int, list[int]] = {}
        for index, sequence in enumerate(ids):
            by_length.setdefault(len(sequence), []).append(index)
        with torch.inference_mode():
            for _, members in sorted(by_length.items()):
                for start in range(0, len(members), self.batch_size):
                    batch = members[start : start + self.batch_size]
                    tensor = torch.tensor([ids[i] for i in batch], device=self.device)
                    states = self._model(input_ids=tensor, output_hidden_states=True)
                    hidden = states.hidden_states
                    yield batch, (torch.stack(hidden) if all_layers else hidden[-1]).float().cpu()


def _begin_offset(tokenizer: Any, ids: list[int]) -> int:
    """flair's ``_get_begin_offset_of_tokenizer``: the position of "a" in ``encode("a")`` (1
    for BERT, after [CLS]; 0 for GPT-2)."""
    for offset, token in enumerate(ids):
        if tokenizer.decode([token]) in ("a", tokenizer.unk_token):
            return offset
    return max(len(ids) - 1, 0)  # flair: the loop's last index


def load_transformer(model: str, *, device: str = "cpu") -> tuple[Any, Any]:
    """``AutoTokenizer`` and ``AutoModel`` (eval mode, on ``device``) of ``model``; a name that
    is not a local path is looked up in the Hugging Face cache first, then on the Hub.

    Raises:
        ModelUnavailableError: transformers/torch missing, or the model cannot be loaded.
    """
    try:
        import torch  # noqa: F401
        from transformers import AutoModel, AutoTokenizer
    except ImportError:
        from ..extras import install_command

        raise ModelUnavailableError(
            model,
            f"transformers and torch are not installed: {install_command('encoders')}",
            kind="transformers",
        ) from None

    from transformers.utils import logging as hf_logging

    def load(**options: Any) -> tuple[Any, Any]:
        verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
        hf_logging.set_verbosity_error()  # as flair: no weight-loading reports or bars
        hf_logging.disable_progress_bar()
        try:
            tokenizer = AutoTokenizer.from_pretrained(model, **options)
            network = AutoModel.from_pretrained(model, **options)
        finally:
            hf_logging.set_verbosity(verbosity)
            if bars:
                hf_logging.enable_progress_bar()
        return tokenizer, network.to(device).eval()

    try:
        if not Path(model).expanduser().exists():
            try:  # the Hugging Face cache first: no request to the Hub when it is there
                return load(local_files_only=True)
            except (OSError, ValueError):
                pass
        return load()
    except (OSError, ValueError) as err:  # HF hub errors (offline, not found) are OSErrors
        reason = " ".join(str(err).split()) or type(err).__name__
        raise ModelUnavailableError(
            model, reason[:197] + "..." if len(reason) > 200 else reason, kind="transformers"
        ) from err
