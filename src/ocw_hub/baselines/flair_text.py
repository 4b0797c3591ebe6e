"""Text as flair 0.9's ``Sentence`` prepared it for the paper's encoders (upstream
``utils.get_embeddings_static`` and ``utils.get_embeddings``), without flair.

Reproduced from flair's source (``flair/data.py``, 0.8-0.9 series):

* ``Sentence(text)`` (a string, ``use_tokenizer=True``): C1 control characters U+0080-U+0099
  replaced by their Windows-1252 characters (removed where there is none), then
  flair's ``SegtokTokenizer``: segtok's ``split_single`` (sentences), ``word_tokenizer`` and
  ``split_contractions`` ("murphy's" -> "murphy", "'s"), empty words dropped;
* ``Sentence(list_of_strings)``: each string is one token as it is (a multi-word clue stays
  one token, spaces inside), after the same Windows-1252 restoration;
* ``add_token``: U+200C, U+200B, U+FE0F and U+FEFF removed; a token left blank is dropped;
* ``to_tokenized_string()``: the tokens joined by single spaces.

segtok is imported inside :func:`sentence_tokens` (extra ``baselines``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_C1 = re.compile("[\u0080-\u0099]")
_ZERO_WIDTH = ("\u200c", "\u200b", "\ufe0f", "\ufeff")


def _windows_1252(match: re.Match[str]) -> str:
    try:
        return bytes([ord(match.group(0))]).decode("windows-1252")
    except UnicodeDecodeError:  # no character at that code point: removed, as flair does
        return ""


def restore_windows_1252(text: str) -> str:
    """flair's ``Sentence._restore_windows_1252_characters``."""
    return _C1.sub(_windows_1252, text)


def token_text(text: str) -> str | None:
    """A token's text after flair's ``Sentence.add_token`` (zero-width characters removed);
    None when it is left blank (flair drops such a token)."""
    for char in _ZERO_WIDTH:
        text = text.replace(char, "")
    return None if text.strip() == "" else text


def sentence_tokens(text: str) -> list[str]:
    """The tokens of ``Sentence(text)`` (a string, segtok), in order; [] for a blank text."""
    from segtok.segmenter import split_single
    from segtok.tokenizer import split_contractions, word_tokenizer

    words: list[str] = []
    for sentence in split_single(restore_windows_1252(text)):
        words.extend(split_contractions(word_tokenizer(sentence)))
    kept = (token_text(w) for w in words if w)
    return [w for w in kept if w is not None]


def list_tokens(texts: Sequence[str]) -> list[str | None]:
    """For each string of ``Sentence(list_of_strings)``, its token's text, None where flair
    drops the token (blank after :func:`token_text`)."""
    return [token_text(restore_windows_1252(t)) for t in texts]


def tokenized_string(text: str) -> str:
    """``Sentence(text).to_tokenized_string()``: :func:`sentence_tokens` joined by spaces."""
    return " ".join(sentence_tokens(text))
