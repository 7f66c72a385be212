"""NgramQuery (hash indexes + telescoped log-values) gives the model's own perplexity, and its hash
index gives the sorted tables' own lookups; oracles: ``NgramModel.perplexity`` (itself checked
against one-by-one scoring, ``prob`` and KenLM elsewhere) and ``searchsorted``."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmcore.ngram import METHODS, NgramModel, count_ngrams
from lmcore.ngram.hashindex import HashIndex
from lmcore.ngram.query import NgramQuery, telescoped_values
from tests.test_ngram_normalisation import small_corpus

TRAIN = small_corpus(300, seed=41)
COUNTS = count_ngrams(TRAIN, 5)
TEST = small_corpus(120, seed=42) * 2
TEST[3] = TEST[3][:2] + ["oov-word", "<s>"] + TEST[3][2:]
TEST[7] = ["</s>", "w3", "<unk>"]


def assert_same_perplexity(got, want) -> None:
    assert (got.n_tokens, got.n_oov, got.n_zero) == (want.n_tokens, want.n_oov, want.n_zero)
    assert got.log_prob == pytest.approx(want.log_prob, rel=1e-12, abs=1e-9)
    for a, b in ((got.ppl, want.ppl), (got.ppl_excl_oov, want.ppl_excl_oov)):
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_query_perplexity_is_the_models(method, order):
    lm = NgramModel(COUNTS, order, method)
    query = NgramQuery(lm)
    want = lm.perplexity(TEST)
    assert_same_perplexity(query.perplexity(TEST), want)
    assert_same_perplexity(query.perplexity_of_lines(" ".join(s) for s in TEST), want)
    assert want.n_oov > 0  # the OOV sum is exercised


def test_the_fast_sum_serves_every_kneser_ney_method_and_not_mle_or_add_delta():
    served = {m for m in METHODS if telescoped_values(NgramModel(COUNTS, 3, m)) is not None}
    assert served == {"kn-interp", "kn-backoff", "modified-kn", "kn-notes"}


def test_query_counts_an_oov_only_when_the_model_did_not_train_unk():
    train = [["a", "b", "<unk>", "a"], ["b", "a"]]
    lm = NgramModel.fit(train, 3, "modified-kn")
    query = NgramQuery(lm)
    for test in ([["a", "zzz", "<unk>", "b"]], [["<unk>"]]):
        assert_same_perplexity(query.perplexity(test), lm.perplexity(test))


def test_lines_are_split_as_str_split_and_blank_lines_skipped():
    lm = NgramModel(COUNTS, 3, "modified-kn")
    query = NgramQuery(lm)
    lines = ["w1  w2\tw3", "", "   ", "w4\u3000w5 w1"]
    assert_same_perplexity(query.perplexity_of_lines(lines), lm.perplexity([s.split() for s in lines if s.split()]))
    empty = query.perplexity_of_lines([])
    assert empty.n_tokens == 0 and math.isnan(empty.ppl)


sentences_st = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "</s>", "<s>", "x"]), max_size=9),
                        min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(sentences_st, sentences_st, st.sampled_from(["modified-kn", "kn-backoff", "kn-interp"]),
       st.integers(1, 5))
def test_random_texts_have_the_models_perplexity(train, test, method, order):
    lm = NgramModel.fit(train, order, method)
    assert_same_perplexity(NgramQuery(lm).perplexity(test), lm.perplexity(test))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 2 ** 40), min_size=0, max_size=300, unique=True),
       st.lists(st.integers(0, 2 ** 40), max_size=200), st.sampled_from([0.5, 0.9]))
def test_hash_index_finds_what_a_dict_finds(keys, extra, load):
    index = HashIndex(np.array(sorted(keys), dtype=np.int64), load)
    row = {key: i for i, key in enumerate(sorted(keys))}
    query = extra + keys[::3]
    assert index.find(np.array(query, dtype=np.int64)).tolist() == [row.get(q, -1) for q in query]


def test_hash_index_with_keys_too_wide_to_pack_with_their_row():
    keys = np.array([0, 5, 2 ** 61, 2 ** 62 + 7], dtype=np.int64)
    index = HashIndex(keys)
    assert not index.packed
    assert index.find(np.array([2 ** 62 + 7, 3, 0, 2 ** 61], dtype=np.int64)).tolist() == [3, -1, 0, 2]


def test_hash_index_survives_keys_that_share_home_slots_and_wrap_around():
    keys = np.arange(0, 64 * 1024, 64, dtype=np.int64)  # regular strides: many keys per cluster
    index = HashIndex(keys, load=0.99)
    assert np.array_equal(index.find(keys), np.arange(len(keys)))
    assert (index.find(keys + 1) == -1).all()


def test_hash_index_probing_alone_finds_every_key(monkeypatch):
    """With the probe steps unbounded the sorted-key fallback is never needed: the probing itself
    (home slots, steps past occupied slots, wrap-around) must find every key and reject the rest."""
    import lmcore.ngram.hashindex as hashindex

    def no_fallback(*args):
        raise AssertionError("the sorted-key fallback was used")

    keys = np.unique(np.random.default_rng(5).integers(0, 2 ** 40, 5000))
    monkeypatch.setattr(hashindex, "PROBE_STEPS", len(keys) + 2)  # longer than any cluster can be
    monkeypatch.setattr(hashindex, "lookup", no_fallback)
    for load in (0.25, 0.9, 0.99):
        index = HashIndex(keys, load)
        assert np.array_equal(index.find(keys), np.arange(len(keys)))
        assert (index.find(keys + 1)[np.isin(keys + 1, keys, invert=True)] == -1).all()
