"""Batched scoring (sorted queries, distinct lookups, level by level) equals scoring one sentence
at a time, which test_ngram_normalisation checks against ``prob`` and ``distribution``; the file
pipeline of the command line equals the in-memory model; lookups equal a plain dict."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmcore.lm_protocol import perplexity_from_logprobs
from lmcore.ngram import METHODS, NgramModel, count_ngrams
from lmcore.ngram.pipeline import run
from tests.test_ngram_normalisation import small_corpus

TRAIN = small_corpus(300, seed=41)
COUNTS = count_ngrams(TRAIN, 5)
TEST = small_corpus(120, seed=42) * 2  # repeats: the same n-grams at many positions
TEST[3] = TEST[3][:2] + ["oov-word", "<s>"] + TEST[3][2:]
TEST[7] = ["</s>", "w3", "<unk>"]
TEST[9] = []


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_batched_scores_equal_one_by_one(method, order):
    lm = NgramModel(COUNTS, order, method)
    batch = lm.score_stream(TEST)
    ones = [lm.sentence_logprobs(s) for s in TEST]
    np.testing.assert_array_equal(batch.logprobs, np.concatenate([o.logprobs for o in ones]))
    np.testing.assert_array_equal(batch.oov, np.concatenate([o.oov for o in ones]))
    np.testing.assert_array_equal(batch.found_order, np.concatenate([o.found_order for o in ones]))
    np.testing.assert_array_equal(batch.context_order, np.concatenate([o.context_order for o in ones]))
    assert batch.sentence.tolist() == [i for i, o in enumerate(ones) for _ in o.tokens]
    expected = perplexity_from_logprobs(batch.logprobs, batch.oov)
    assert lm.perplexity(TEST) == expected


@pytest.mark.parametrize("method", list(METHODS))
def test_file_pipeline_equals_the_model(tmp_path, method):
    (tmp_path / "train.txt").write_text("\n".join(" ".join(s) for s in TRAIN) + "\n", encoding="utf-8")
    (tmp_path / "test.txt").write_text("\n".join(" ".join(s) for s in TEST if s) + "\n", encoding="utf-8")
    arpa = tmp_path / "m.arpa" if method in ("kn-interp", "modified-kn") else None
    result = run(tmp_path / "train.txt", 4, method, test=tmp_path / "test.txt", arpa=arpa)
    lm = NgramModel.fit(TRAIN, 4, method)
    assert result.perplexity == lm.perplexity([s for s in TEST if s])
    assert result.ngrams == [len(t) for t in lm.tables]
    if arpa:
        from lmcore.ngram.arpa import arpa_lines
        assert arpa.read_text(encoding="utf-8") == "\n".join(arpa_lines(lm)) + "\n"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 400), st.integers(-2, 45)), min_size=1, max_size=300))
def test_find_equals_a_dict(pairs):
    for table in COUNTS.tables[1:]:
        stored = {(int(c), int(w)): r for r, (c, w) in enumerate(zip(table.ctx.tolist(), table.word.tolist()))}
        c = np.array([p[0] for p in pairs]) % (table.n_contexts + 3) - 1
        w = np.array([p[1] for p in pairs])
        rows = np.array([stored.get((int(a), int(b)), -1) for a, b in zip(c, w)])
        hits = rows[rows >= 0]
        queries = np.concatenate([np.stack([c, w], 1), np.stack([table.ctx[hits], table.word[hits]], 1)])
        expected = np.concatenate([rows, hits])
        np.testing.assert_array_equal(table.find(queries[:, 0], queries[:, 1]), expected)
