"""ARPA round trip: kenlm (C++) reading our ARPA file scores held-out sentences like we do."""
import io

import kenlm
import numpy as np
import pytest

from lmcore.ngram import ARPA_METHODS, NgramModel, count_ngrams
from tests.test_ngram_normalisation import small_corpus

TRAIN = small_corpus(300, seed=11)
HELD_OUT = small_corpus(40, seed=12)
for i in range(0, 40, 4):
    HELD_OUT[i] = HELD_OUT[i][:2] + ["oov-token"] + HELD_OUT[i][2:]
COUNTS = count_ngrams(TRAIN, 4)


@pytest.mark.parametrize("method", ARPA_METHODS)
@pytest.mark.parametrize("order", [2, 3, 4])
def test_kenlm_reads_our_arpa(tmp_path, method, order):
    lm = NgramModel(COUNTS, order, method)
    path = tmp_path / "model.arpa"
    lm.to_arpa(path)
    ken = kenlm.Model(str(path))
    assert ken.order == order
    for sent in HELD_OUT:
        ours = lm.sentence_logprobs(sent)
        full = list(ken.full_scores(" ".join(sent), bos=True, eos=True))
        assert [oov for _, _, oov in full] == ours.oov.tolist()
        np.testing.assert_allclose([s for s, _, _ in full], ours.logprobs / np.log(10), atol=2e-5)
        assert ken.score(" ".join(sent)) == pytest.approx(ours.logprobs.sum() / np.log(10), abs=1e-4)


def test_arpa_header_and_refusal():
    lm = NgramModel(COUNTS, 3, "modified-kn")
    buf = io.StringIO()
    lm.to_arpa(buf)
    text = buf.getvalue().splitlines()
    assert text[:4] == ["\\data\\", f"ngram 1={len(lm.vocab) + 1}",
                        f"ngram 2={len(lm.tables[1])}", f"ngram 3={len(lm.tables[2])}"]
    assert "-99.0000000\t<s>" in "\n".join(text)
    with pytest.raises(ValueError):
        NgramModel(COUNTS, 3, "mle").to_arpa(io.StringIO())


def test_backoff_kn_by_hand_through_kenlm(tmp_path):
    """Backoff KN, d = 0.75, bigram, on the hand corpus of test_ngram_modified_kn:
        <s> b </s> | <s> b </s> | <s> a </s> | <s> c a a </s> | <s> b a b </s> | <s> c b </s>
    Unigrams (interpolated, continuation counts a: 4, b: 3, c: 1, </s>: 2; den 10; γ = 4·0.75/10 = 0.3):
        p(a) = 3.25/10 + 0.3/5 = 0.385   p(b) = 0.285   p(c) = 0.085   p(</s>) = 0.185   p(<unk>) = 0.06
    Context b (C(b </s>) = 4, C(b a) = 1, C(b) = 5):
        p(</s>|b) = 3.25/5 = 0.65   p(a|b) = 0.25/5 = 0.05
        α(b) = (1 − 0.7) / (1 − (0.185 + 0.385)) = 0.3/0.43;  p(c|b) = α(b)·0.085
    Context <s> (C = 3, 1, 2 for b, a, c; C(<s>) = 6): p(b|<s>) = 2.25/6 = 0.375
    Context c (C(c a) = C(c b) = 1): α(c) = (1 − 0.25)/(1 − (0.385 + 0.285)) = 0.75/0.33;
        p(</s>|c) = α(c)·0.185
    Sentence "b c": log10(0.375 · (0.3/0.43)·0.085 · (0.75/0.33)·0.185), read back through kenlm.
    """
    from tests.test_ngram_modified_kn import HAND_CORPUS

    lm = NgramModel.fit(HAND_CORPUS, 2, "kn-backoff", discount=0.75)
    path = tmp_path / "hand.arpa"
    lm.to_arpa(path)
    text = path.read_text()
    assert f"{np.log10(0.65):.7f}\tb </s>" in text
    assert f"{np.log10(0.285):.7f}\tb\t{np.log10(0.3 / 0.43):.7f}" in text
    expected = np.log10(0.375 * (0.3 / 0.43) * 0.085 * (0.75 / 0.33) * 0.185)
    assert kenlm.Model(str(path)).score("b c") == pytest.approx(expected, abs=1e-5)
    assert lm.sentence_logprobs(["b", "c"]).logprobs.sum() / np.log(10) == pytest.approx(expected, abs=1e-12)
