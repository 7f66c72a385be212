"""Memory of the counts: 16 bytes per n-gram, bounded before counting by ``estimate_count_bytes``.

The working memory is measured with tracemalloc (NumPy reports its buffers to it); the bound
must hold for every text, whatever its vocabulary and sentence lengths.
"""
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmcore.ngram import MAX_ORDER, count_ngrams, estimate_count_bytes
from lmcore.ngram.memory import held_count_bytes


@st.composite
def texts(draw):
    n_words = draw(st.sampled_from([3, 30, 3000]))
    n_sentences = draw(st.integers(1, 400))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    max_len = draw(st.sampled_from([1, 5, 40]))
    return [[f"w{i}" for i in rng.integers(0, n_words, int(rng.integers(0, max_len + 1)))]
            for _ in range(n_sentences)]


@settings(max_examples=25, deadline=None)
@given(texts(), st.integers(1, MAX_ORDER))
def test_counts_stay_within_the_stated_bounds(sentences, order):
    n_tokens = sum(len(s) + 1 for s in sentences)
    count_ngrams([["warm", "up"]], 2)  # imports (Arrow's compute module) are not the counting's
    tracemalloc.start()
    try:
        counts = count_ngrams(sentences, order)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    n_types = counts.vocab.size - 2
    assert counts.nbytes <= held_count_bytes(n_tokens, order, n_types)
    assert peak <= estimate_count_bytes(n_tokens, order, n_types, len(sentences))
    assert estimate_count_bytes(n_tokens, order, n_types, len(sentences)) <= estimate_count_bytes(n_tokens, order)


def test_sixteen_bytes_per_ngram_linear_in_the_text():
    """Orders ≥ 2 hold exactly 16 bytes per stored n-gram; twice the (disjoint) text, twice the
    n-grams and twice the bytes."""
    rng = np.random.default_rng(0)
    one = [[f"w{i}" for i in rng.integers(0, 500, 12)] for _ in range(2000)]
    two = one + [[w + "_b" for w in s] for s in one]
    a, b = count_ngrams(one, 5), count_ngrams(two, 5)
    for counts in (a, b):
        for table in counts.tables[1:]:
            assert table.nbytes == 16 * len(table)
    for ta, tb in zip(a.tables[1:], b.tables[1:]):
        assert len(tb) == 2 * len(ta) and tb.nbytes == 2 * ta.nbytes


def test_estimate_rejects_nonsense():
    with pytest.raises(ValueError):
        estimate_count_bytes(-1, 3)
    with pytest.raises(ValueError):
        estimate_count_bytes(10, MAX_ORDER + 1)
