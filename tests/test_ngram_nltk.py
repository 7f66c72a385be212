"""add-δ equals nltk.lm.Laplace / Lidstone (independent implementation) on a shared corpus.

nltk pads with n−1 ``<s>``; we feed it our own n-grams (one ``<s>``, one ``</s>``, every order
1..N, the unigram ``<s>`` left out) and a vocabulary of the training words plus ``</s>``, so its
len(vocab) (with its own ``<UNK>``) is our |V|. nltk maps ``<s>`` to ``<UNK>`` consistently in
counts and contexts; an OOV word becomes ``<UNK>``, never seen after any context, like our ``<unk>``.
The one place the setups differ: an OOV *in a context* is also ``<UNK>`` for nltk, i.e. the same
context as ``<s>``; those positions are compared with the formula's own value for an unseen
context instead, (0 + δ)/(0 + δ|V|) = 1/|V|.
"""
import numpy as np
import pytest
from nltk.lm import Laplace, Lidstone
from nltk.lm.vocabulary import Vocabulary

from lmcore.ngram import NgramModel
from tests.test_ngram_normalisation import small_corpus

TRAIN = small_corpus(200, seed=3)
HELD_OUT = small_corpus(15, seed=4)
HELD_OUT[0] = HELD_OUT[0] + ["an-oov-word"]
HELD_OUT[1] = ["w5", "another-oov"] + HELD_OUT[1]


def nltk_model(cls, order, **kwargs):
    lm = cls(order=order, vocabulary=Vocabulary([w for s in TRAIN for w in s] + ["</s>"], unk_cutoff=1),
             **kwargs)
    text = []
    for s in TRAIN:
        padded = ["<s>"] + s + ["</s>"]
        text.append([tuple(padded[i:i + n]) for n in range(1, order + 1)
                     for i in range(len(padded) - n + 1) if padded[i:i + n] != ["<s>"]])
    lm.fit(text)
    return lm


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("delta", [1.0, 0.1])
def test_add_delta_equals_nltk(order, delta):
    ref = nltk_model(Laplace, order) if delta == 1.0 else nltk_model(Lidstone, order, gamma=delta)
    lm = NgramModel.fit(TRAIN, order, "add-delta", delta=delta)
    assert len(ref.vocab) == len(lm.vocab)
    for sent in HELD_OUT:
        ours = lm.sentence_logprobs(sent)
        history = ["<s>"]
        theirs = []
        for tok in ours.tokens:
            ctx = tuple(history[max(0, len(history) - (order - 1)):]) if order > 1 else None
            oov_in_context = ctx is not None and any(w not in lm.vocab and w != "<s>" for w in ctx)
            theirs.append(1 / len(lm.vocab) if oov_in_context else ref.score(tok, ctx))
            history.append(tok)
        np.testing.assert_allclose(ours.probs, theirs, rtol=1e-12)
        assert ours.oov.sum() == sum(w not in lm.vocab for w in sent)
