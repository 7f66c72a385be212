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
