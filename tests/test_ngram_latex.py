"""The formulas the pages render carry the model's own numbers."""
import math

import numpy as np
import pytest

from lmcore.lm_protocol import perplexity_of
from lmcore.ngram import NgramModel
from lmcore.ngram.explain import kn_terms
from lmcore.ngram.latex import (add_delta_latex, chain_product_latex, kn_notes_latex, perplexity_latex, tex,
                                tex_number)
from tests.test_ngram_modified_kn import HAND_CORPUS


@pytest.mark.parametrize("x, expected", [(0.25, "0.25"), (8.177e-17, r"8.18\times 10^{-17}"),
                                         (float("inf"), r"\infty"), (float("-inf"), r"-\infty")])
def test_tex_number(x, expected):
    assert tex_number(x) == expected


def test_tex_escapes_specials():
    assert tex("a_b$<s>") == r"a\_b\$\textless{}s\textgreater{}"


def test_add_delta_and_kn_formulas_show_the_counts():
    """Bigram on the hand corpus: C(b a) = 1, C(b) = 5, |V| = 5; add-δ (1+0.5)/(5+0.5·5) = 0.2;
    notes' KN (d = 0.75): unigram continuation level p(a) = 3.25/10 + 0.3/5 = 0.385,
    λ(b) = 2·0.75/5 = 0.3 → max(1 − 0.75, 0)/5 + 0.3·0.385 = 0.1655."""
    add = NgramModel.fit(HAND_CORPUS, 2, "add-delta", delta=0.5)
    text = add_delta_latex("a", add.count(["b", "a"]), add.context_count(["b"]), 0.5, len(add.vocab),
                           add.prob("a", ["b"]))
    assert r"\frac{1+0.5}{5+0.5\cdot 5}=0.20000" in text
    notes = NgramModel.fit(HAND_CORPUS, 2, "kn-notes", discount=0.75)
    text = kn_notes_latex("a", kn_terms(notes, "a", ["b"]))
    assert r"\frac{\max(1-0.75,0)}{5}+0.3000\cdot 0.38500=0.16550" in text
    unseen = kn_notes_latex("c", kn_terms(notes, "c", ["b"]))  # C(b c) = 0: p(c) = 0.25/10 + 0.06
    assert r"P_{KN}(w\mid h_{-1})\\&=0.08500=0.08500" in unseen


def test_chain_product_and_perplexity():
    lm = NgramModel.fit(HAND_CORPUS, 2, "modified-kn")
    scores = lm.sentence_logprobs(["c", "b"])
    text = chain_product_latex(scores, span=1)
    for p in scores.probs:
        assert tex_number(p) in text
    assert r"P(\text{b}\mid \ldots\,\text{c})" in text and r"\mid \langle s\rangle" in text
    assert tex_number(math.exp(scores.logprobs.sum())) in text
    result = perplexity_of([scores])
    assert tex_number(result.ppl, 5) in perplexity_latex(result)
    long = lm.sentence_logprobs(["a"] * 30)
    assert r"\cdots" in chain_product_latex(long, span=1, max_factors=12)
    assert np.isinf(perplexity_of([NgramModel.fit(HAND_CORPUS, 2, "mle").sentence_logprobs(["c", "c"])]).ppl)
