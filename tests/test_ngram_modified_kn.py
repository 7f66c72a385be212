"""Modified Kneser-Ney (KenLM's lmplz rules) checked by hand and by a plain-dict re-implementation."""
from collections import defaultdict

import numpy as np
import pytest

from lmcore.ngram import NgramModel
from tests.kn_oracle import adjusted_counts, count_of_counts, kn_discounts, raw_counts

HAND_CORPUS = [["b"], ["b"], ["a"], ["c", "a", "a"], ["b", "a", "b"], ["c", "b"]]


def test_bigram_by_hand():
    """Bigram model on 6 sentences (padded):
        <s> b </s> | <s> b </s> | <s> a </s> | <s> c a a </s> | <s> b a b </s> | <s> c b </s>

    Order 2 (highest: raw counts), 17 bigram tokens:
        C(<s> b)=3  C(b </s>)=4  C(<s> a)=1  C(a </s>)=2  C(<s> c)=2
        C(c a)=1  C(a a)=1  C(b a)=1  C(a b)=1  C(c b)=1
      n1=6, n2=2, n3=1, n4=1;  Y = 6/(6+2·2) = 3/5
      D1 = 1 − 2·(3/5)·2/6 = 0.6;  D2 = 2 − 3·(3/5)·1/2 = 1.1;  D3+ = 3 − 4·(3/5)·1/1 = 0.6

    Order 1 (continuation counts = distinct left neighbours; <s> and <unk> get 0):
        a: {<s>, c, a, b} → 4;  b: {<s>, a, c} → 3;  c: {<s>} → 1;  </s>: {b, a} → 2
      n1=n2=n3=n4=1;  Y = 1/3;  D1 = 1 − 2/3 = 1/3;  D2 = 2 − 1 = 1;  D3+ = 3 − 4/3 = 5/3
      den = 4+3+1+2 = 10; removed = 5/3 + 5/3 + 1/3 + 1 = 14/3; γ = (14/3)/10 = 7/15; |V| = 5
      p(a) = (4 − 5/3)/10 + (7/15)/5 = 7/30 + 7/75 = 49/150
      p(b) = (3 − 5/3)/10 + 7/75 = 34/150;   p(c) = (1 − 1/3)/10 + 7/75 = 24/150
      p(</s>) = (2 − 1)/10 + 7/75 = 29/150;   p(<unk>) = 7/75 = 14/150   (Σ = 150/150)

    Context b: C(b </s>)=4 (D3+ 0.6), C(b a)=1 (D1 0.6); den = 5; γ(b) = 1.2/5 = 0.24
      p(</s>|b) = 3.4/5 + 0.24·29/150 = 0.68 + 0.0464 = 0.7264
      p(a|b) = 0.4/5 + 0.24·49/150 = 0.08 + 0.0784 = 0.1584
      p(c|b) = 0.24·24/150 = 0.0384;  p(<unk>|b) = 0.24·14/150 = 0.0224
    Context <s>: C(<s> b)=3 (D3+ 0.6), C(<s> c)=2 (D2 1.1), C(<s> a)=1 (D1 0.6); den = 6;
      γ(<s>) = 2.3/6;  p(c|<s>) = 0.9/6 + (2.3/6)·24/150 = 0.15 + 0.061333… = 0.211333…

    These are the textbook count-of-counts (``lmplz_exact=False``); lmplz itself counts the
    unigram c with its raw count 2 here and falls back (see test_ngram_lmplz.py).
    """
    lm = NgramModel.fit(HAND_CORPUS, order=2, method="modified-kn", lmplz_exact=False)
    np.testing.assert_allclose(lm.discounts[1][1:], [0.6, 1.1, 0.6], atol=1e-12)
    np.testing.assert_allclose(lm.discounts[0][1:], [1 / 3, 1.0, 5 / 3], atol=1e-12)
    assert lm.discount_fallback == [False, False]
    unigram = dict(zip(lm.vocab, lm.distribution(["zzz"])))  # unseen context: the unigram level
    assert unigram == pytest.approx({"a": 49 / 150, "b": 34 / 150, "c": 24 / 150,
                                     "</s>": 29 / 150, "<unk>": 14 / 150}, abs=1e-12)
    assert lm.prob("</s>", ["b"]) == pytest.approx(0.7264, abs=1e-12)
    assert lm.prob("a", ["b"]) == pytest.approx(0.1584, abs=1e-12)
    assert lm.prob("c", ["b"]) == pytest.approx(0.0384, abs=1e-12)
    assert lm.prob("never-seen", ["b"]) == pytest.approx(0.0224, abs=1e-12)
    assert lm.prob("c", ["<s>"]) == pytest.approx(0.15 + 2.3 / 6 * 24 / 150, abs=1e-12)
    # sentence "c b": p(c|<s>) p(b|c) p(</s>|b); context c: C(c a)=1, C(c b)=1, den 2, γ = 1.2/2
    p_b_c = 0.4 / 2 + 0.6 * 34 / 150
    assert lm.sentence_logprobs(["c", "b"]).logprobs.sum() == pytest.approx(
        np.log((0.15 + 2.3 / 6 * 24 / 150) * p_b_c * 0.7264), abs=1e-12)


def reference_lmplz(sentences, order, discounts=None):
    """Plain-dict modified KN following the conventions note word by word (independent code);
    ``discounts`` ([0, D1, D2, D3+] per order) replaces the textbook count-of-counts ones."""
    grams = raw_counts(sentences, order)
    adj = adjusted_counts(grams, order)
    vocab = {g[0] for g in grams[1]} - {"<s>"} | {"<unk>"}
    disc = [None] + [kn_discounts(count_of_counts(adj[n].values())) for n in range(1, order + 1)]
    if discounts is not None:
        disc = [None] + [list(d) for d in discounts]
    den, gam = [defaultdict(float) for _ in range(order + 1)], [defaultdict(float) for _ in range(order + 1)]
    for n in range(1, order + 1):
        for g, a in adj[n].items():
            if a > 0:
                den[n][g[:-1]] += a
                gam[n][g[:-1]] += disc[n][min(a, 3)]

    def p(w, h):
        n = len(h) + 1
        if n == 1:
            a = adj[1].get((w,), 0)
            return max(a - disc[1][min(a, 3)], 0) / den[1][()] + gam[1][()] / den[1][()] / len(vocab)
        if den[n].get(h, 0) == 0:
            return p(w, h[1:])
        a = adj[n].get(h + (w,), 0)
        return max(a - disc[n][min(a, 3)], 0) / den[n][h] + gam[n][h] / den[n][h] * p(w, h[1:])

    return p, vocab


@pytest.mark.parametrize("order", [3, 4])
def test_matches_plain_reference(order):
    """Same probabilities as the dict re-implementation (adjusted counts with the <s> rule,
    per-order D1/D2/D3+, interpolation, uniform base) on a corpus with a repetitive phrase."""
    rng = np.random.default_rng(order)
    words = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran"] + [f"w{i}" for i in range(40)]
    zipf = 1.0 / np.arange(1, len(words) + 1) ** 1.3
    sents = [list(rng.choice(words, size=int(rng.integers(1, 9)), p=zipf / zipf.sum()))
             for _ in range(300)]
    sents += [["the", "cat", "sat", "on", "the", "mat"]] * 5
    ref, vocab = reference_lmplz(sents, order)
    lm = NgramModel.fit(sents, order, "modified-kn", lmplz_exact=False)
    assert set(lm.vocab) == vocab
    assert not any(lm.discount_fallback)
    for hist in (["<s>"], ["<s>", "the"], ["the", "cat", "sat"], ["dog", "dog", "ran"], ["on", "zzz"]):
        h = tuple(hist[max(0, len(hist) - (order - 1)):])
        h = tuple("<unk>" if w not in vocab | {"<s>"} else w for w in h)
        dist = lm.distribution(hist)
        np.testing.assert_allclose(dist, [ref(w, h) for w in lm.vocab], rtol=1e-10)


def test_tiny_corpus_falls_back_to_lmplz_fallback_discounts():
    """With no n-gram of count 3 or 4, n3 = n4 = 0: D would divide by zero; lmplz's
    --discount_fallback values (0.5, 1, 1.5) are used, and the model still normalises."""
    lm = NgramModel.fit([["a", "b"], ["b", "a"]], 2, "modified-kn")
    assert lm.discount_fallback == [True, True]
    np.testing.assert_allclose(lm.discounts[1][1:], [0.5, 1.0, 1.5])
    assert lm.distribution(["a"]).sum() == pytest.approx(1.0, abs=1e-12)
