"""The metric's fast paths give the libraries' own figures, bit for bit: WD as
``scipy.stats.wasserstein_distance``, ROUGE-1 as rouge_score's ``RougeScorer``, AMI with
scikit-learn's EMI routine whether its margin terms are computed or restored from a memo."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_support import connections, grouping, partition
from rouge_score import rouge_scorer
from scipy.stats import wasserstein_distance

PIECES = st.sampled_from(list("abcAB 1,.-'é") + ["Ω", "ñ", "\t", "dog", "cat"])
TEXT = st.lists(PIECES, max_size=10).map("".join)


@pytest.mark.slow
def test_wd_of_every_run_equals_scipy() -> None:
    """Every predicted run (4 labels among 0..15; fresh labels reach 15) against every gold
    run: the point-mass formula equals SciPy's CDF integral exactly."""
    grouping.clear_caches()
    labels = range(16)
    for run in itertools.product(labels, repeat=4):
        for g in range(4):
            gold = (g,) * 4
            expected = min(float(wasserstein_distance(run, gold)), 1.0)
            assert grouping._wd_pair(run, gold) == expected, (run, gold)


def test_wd_of_a_non_constant_gold_run_uses_scipy() -> None:
    assert grouping._wd_pair((0, 0, 1, 1), (0, 1, 1, 1)) == float(
        wasserstein_distance((0, 0, 1, 1), (0, 1, 1, 1))
    )


@settings(max_examples=400, deadline=None)
@given(
    TEXT,
    TEXT,
    st.sampled_from(["default", "unicode"]),
)
@pytest.mark.slow
def test_rouge1_equals_rouge_scorer(prediction: str, reference: str, tokenizer: str) -> None:
    scorer = rouge_scorer.RougeScorer(
        ["rouge1"],
        use_stemmer=False,
        tokenizer=connections.UnicodeTokenizer() if tokenizer == "unicode" else None,
    )
    expected = scorer.score(reference, prediction)["rouge1"].fmeasure
    assert connections.rouge1(prediction, reference, tokenizer) == expected


def test_rouge1_by_hand() -> None:
    # "made of rubber" vs "made from rubber": 2 of 3 tokens each way, F = 2/3
    assert connections.rouge1("made of rubber", "Made from rubber") == 2 / 3
    assert connections.rouge1("Ωμέγα", "Ωμέγα") == 0.0  # the paper's tokenizer drops non-ASCII
    assert connections.rouge1("Ωμέγα", "Ωμέγα", "unicode") == 1.0


def test_restored_margin_terms_give_the_same_ami() -> None:
    labels = [(0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 0, 1, 2, 3), tuple(range(16))]
    grouping.clear_caches()
    computed = [partition.partition_scores(x) for x in labels]
    memo = dict(partition.margin_terms())
    grouping.clear_caches()
    partition.margin_terms().update(memo)
    assert [partition.partition_scores(x) for x in labels] == computed


@pytest.mark.slow
def test_scoring_a_wall_imports_no_scipy_sklearn_or_nltk_when_memoised() -> None:
    """With the margin terms restored, one wall's figures need numpy and rouge_score's light
    modules only: the start-up of a scoring run stays small."""
    code = (
        "import sys\n"
        "from ocw_hub.resources import load_metric_module as load\n"
        "grouping, partition = load('grouping'), load('partition')\n"
        "connections = load('connections')\n"
        "wall = [[f'c{g}{c}' for c in range(4)] for g in range(4)]\n"
        "pred = [wall[0], wall[1], [wall[2][0], *wall[3][1:]], [wall[3][0], *wall[2][1:]]]\n"
        "lower = grouping._sorted_lower\n"
        "table = partition.contingency_table(grouping.predicted_labels(lower(pred), lower(wall)))\n"
        "import numpy as np\n"
        "a = np.array(table)\n"
        "key = (tuple(a.sum(axis=1).tolist()), tuple(a.sum(axis=0).tolist()))\n"
        "partition.margin_terms()[key] = (0.5, 1.0)\n"
        "grouping.score_wall(pred, wall)\n"
        "connections.connection_scores([['a b', 'c', 'd', 'e']], [['a', 'c', 'd', 'f']])\n"
        "print(sorted(m for m in ('scipy', 'sklearn', 'nltk') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
