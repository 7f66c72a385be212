"""Modified KN exactly as KenLM's lmplz: the one raw count per order in its count-of-counts.

lmplz (``lm/builder/adjust_counts.cc``) adds each lower-order n-gram to the count-of-counts n_j
when it leaves its stream while it walks the highest-order n-grams in suffix order (words read
right to left, KenLM ids: ``<unk>`` 0, ``<s>`` 1, ``</s>`` 2, words by first appearance; each
sentence padded on the left with ``<s>``). The n-grams still in the streams at the end — the
suffixes of the last N-gram, up to the one starting at its last ``<s>`` — are flushed with their
raw count instead of their adjusted count. This file checks that rule three ways: by hand, against
figures printed by lmplz itself, and against an independent plain-Python re-implementation.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmcore.ngram import NgramModel
from tests.kn_oracle import adjusted_counts, count_of_counts, kn_discounts, raw_counts
from tests.test_ngram_modified_kn import HAND_CORPUS

LMPLZ_HAND_ARPA = {
    # ``lmplz -o 2 --discount_fallback`` (KenLM 0.3.0 built from source) on HAND_CORPUS, one
    # sentence per line; lmplz prints float32 values, hence the 1e-6 tolerance below.
    "<unk>": (-1.0457575, 0.0), "</s>": (-0.7212464, 0.0), "b": (-0.61978877, -0.61978877),
    "a": (-0.46852106, -0.24033217), "c": (-0.85387194, -0.22184873),
    "b </s>": (-0.13930273,), "a </s>": (-0.47592854,), "<s> b": (-0.3080349,), "a b": (-0.62342304,),
    "c b": (-0.46344158,), "<s> a": (-0.7055338,), "b a": (-0.7915587,), "a a": (-0.52944255,),
    "c a": (-0.39361864,), "<s> c": (-0.69108,),
}


def arpa_values(lm) -> dict[str, tuple[float, ...]]:
    from lmcore.ngram.arpa import arpa_lines
    out = {}
    for line in arpa_lines(lm):
        parts = line.split("\t")
        if len(parts) >= 2 and parts[1] != "<s>":
            out[parts[1]] = tuple(float(x) for x in [parts[0]] + parts[2:])
    return out


def test_hand_corpus_as_lmplz():
    """KenLM ids: b 3, a 4, c 5 (first appearance). The unigram that sorts last is c; its
    adjusted count is 1 (only <s> precedes it) but lmplz counts it with its raw count 2, so the
    unigram count-of-counts become n1 = 0 (c no longer has 1), n2 = 2 (c, </s>), n3 = 1 (b),
    n4 = 1 (a): D1 = 1 − 2Y·n2/n1 divides by zero and lmplz needs ``--discount_fallback``
    (0.5, 1, 1.5). The bigram discounts (0.6, 1.1, 0.6) are the textbook ones (no lower order
    is flushed at the top order). Every value then equals lmplz's own output."""
    lm = NgramModel.fit(HAND_CORPUS, 2, "modified-kn")
    assert lm.discount_fallback == [True, False]
    np.testing.assert_allclose(lm.discounts[0][1:], [0.5, 1.0, 1.5])
    np.testing.assert_allclose(lm.discounts[1][1:], [0.6, 1.1, 0.6], atol=1e-12)
    ours = arpa_values(lm)
    assert ours.keys() == LMPLZ_HAND_ARPA.keys()
    for gram, values in LMPLZ_HAND_ARPA.items():
        np.testing.assert_allclose(ours[gram], values, atol=1e-6, err_msg=gram)
    textbook = NgramModel.fit(HAND_CORPUS, 2, "modified-kn", lmplz_exact=False)
    assert abs(arpa_values(textbook)["c"][0] - LMPLZ_HAND_ARPA["c"][0]) > 1e-3  # the rule matters here


def reference_discounts(sentences, order, lmplz):
    """[0, D1, D2, D3+] per order from plain dicts; ``lmplz``: with the flushed raw counts."""
    grams = raw_counts(sentences, order)
    adjusted = adjusted_counts(grams, order)
    first = {"<unk>": 0, "<s>": 1, "</s>": 2}
    full = []  # the highest-order n-grams as lmplz streams them: left-padded with <s>
    for s in sentences:
        for w in s:
            first.setdefault(w, len(first))
        left = ["<s>"] * order + s + ["</s>"]
        full += [tuple(left[i:i + order]) for i in range(len(left) - order + 1) if left[i + order - 1] != "<s>"]
    raw = {}
    if lmplz and order > 1:
        last = max(full, key=lambda g: [first[w] for w in reversed(g)])
        for n in range(1, order):
            suffix = last[order - n:]
            if "<s>" in suffix[1:]:
                break
            raw[n] = suffix
    out = []
    for n in range(1, order + 1):
        values = dict(adjusted[n])
        if n in raw:
            values[raw[n]] = grams[n][raw[n]]
        nk = count_of_counts(values.values())
        if 0 in nk:
            out.append([0.0, 0.5, 1.0, 1.5])
            continue
        d = kn_discounts(nk)
        out.append(d if all(0 <= d[j] <= j for j in (1, 2, 3)) else [0.0, 0.5, 1.0, 1.5])
    return out


sentences_st = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", "g"]), min_size=1, max_size=8),
                        min_size=5, max_size=60)


@settings(max_examples=40, deadline=None)
@given(sentences_st, st.integers(2, 5))
def test_discounts_equal_the_plain_reference(sentences, order):
    for lmplz in (True, False):
        lm = NgramModel.fit(sentences, order, "modified-kn", lmplz_exact=lmplz)
        np.testing.assert_allclose(np.array(lm.discounts), reference_discounts(sentences, order, lmplz),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("order", [3, 4])
def test_zipf_corpus_probabilities_with_lmplz_counts(order):
    """Probabilities of the lmplz-exact model equal the plain reference of test_ngram_modified_kn
    fed with the lmplz discounts (the rule moves the discounts, nothing else)."""
    from tests.test_ngram_modified_kn import reference_lmplz
    rng = np.random.default_rng(order + 10)
    words = [f"w{i}" for i in range(300)]
    zipf = 1.0 / np.arange(1, 301) ** 1.1
    sents = [list(rng.choice(words, size=int(rng.integers(1, 9)), p=zipf / zipf.sum())) for _ in range(800)]
    sents += [["w0", "new"], ["w0", "new"]]  # sorts last: continuation count 1, raw count 2
    lm = NgramModel.fit(sents, order, "modified-kn")
    assert not any(lm.discount_fallback)
    lmplz = reference_discounts(sents, order, True)
    assert not np.allclose(lmplz, reference_discounts(sents, order, False))  # the rule matters here
    ref, _ = reference_lmplz(sents, order, discounts=lmplz)
    for hist in (["<s>"], ["<s>", "w1"], ["w0", "w1", "w2"], ["w5", "zzz"]):
        h = tuple(hist[max(0, len(hist) - (order - 1)):])
        h = tuple("<unk>" if w not in lm.vocab and w != "<s>" else w for w in h)
        np.testing.assert_allclose(lm.distribution(hist), [ref(w, h) for w in lm.vocab], rtol=1e-10)
