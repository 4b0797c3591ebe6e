"""The encoder of the embedding baseline chosen from its options (a model, a vectors file or
neither): the one place that picks among :mod:`ocw_hub.baselines.encoders`,
:mod:`ocw_hub.baselines.transformer` and :mod:`ocw_hub.baselines.vectors`, which build on the
first."""

from __future__ import annotations

from pathlib import Path

from .encoders import Encoder, SentenceTransformerEncoder, TfidfEncoder

#: The encoders of a model given by name or folder (``make_encoder(encoder=...)``).
MODEL_ENCODERS = ("transformers", "sentence-transformers")


def make_encoder(
    model: str | None = None,
    *,
    encoder: str = "transformers",
    pooling: str = "cls",
    contextual: bool = False,
    vectors: str | Path | None = None,
    min_coverage: float | None = None,
) -> Encoder:
    """The encoder of the embedding baseline.

    * ``vectors`` (a word-vectors file): :class:`ocw_hub.baselines.vectors.WordVectorsEncoder`
      (``min_coverage``: its floor, default ``DEFAULT_MIN_COVERAGE``);
    * ``model`` with ``encoder="transformers"`` (the default, the paper's path):
      :class:`ocw_hub.baselines.transformer.TransformerEncoder` with ``pooling`` and
      ``contextual``; with ``encoder="sentence-transformers"``:
      :class:`SentenceTransformerEncoder`;
    * neither: the built-in :class:`TfidfEncoder`.

    Raises:
        ModelUnavailableError: the model cannot be loaded.
        ValueError: ``model`` and ``vectors`` together, an unknown encoder or pooling,
            ``pooling``/``contextual`` with sentence-transformers.
        ocw_hub.baselines.vectors.VectorsFileError: a vectors file that cannot be read.
    """
    if encoder not in MODEL_ENCODERS:
        raise ValueError(f"encoder {encoder!r}: expected one of {list(MODEL_ENCODERS)}")
    if vectors is not None:
        if model is not None:
            raise ValueError("a model and a vectors file exclude each other")
        from .vectors import WordVectorsEncoder

        if min_coverage is None:
            return WordVectorsEncoder(vectors)
        return WordVectorsEncoder(vectors, min_coverage)
    if model is None:
        return TfidfEncoder()
    if encoder == "sentence-transformers":
        if pooling != "cls" or contextual:
            raise ValueError("pooling and contextual apply to the transformers encoder only")
        return SentenceTransformerEncoder(model)
    from .transformer import TransformerEncoder

    return TransformerEncoder(model, pooling=pooling, contextual=contextual)
