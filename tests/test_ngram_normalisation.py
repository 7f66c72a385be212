"""Σ_w P(w | h) = 1 over the vocabulary (``</s>`` and ``<unk>`` included) for every method and
order, on seen and unseen contexts; the notes' KN formula is the one that does not normalise."""
import numpy as np
import pytest

from lmcore.ngram import METHODS, NORMALISED, NgramModel, count_ngrams


def small_corpus(n_sentences: int = 300, seed: int = 0) -> list[list[str]]:
    """Sentences from a seeded Zipf-ish bigram process: many seen and unseen contexts."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(40)]
    nxt = rng.dirichlet(np.full(40, 0.3), size=40)
    sents = []
    for _ in range(n_sentences):
        w, s = int(rng.integers(40)), []
        for _ in range(int(rng.integers(2, 12))):
            s.append(words[w])
            w = int(rng.choice(40, p=nxt[w]))
        sents.append(s)
    return sents


TRAIN = small_corpus()
COUNTS = count_ngrams(TRAIN, 5)


def contexts(order: int) -> list[list[str]]:
    """Seen contexts (from training), unseen ones (shuffled words, an OOV) and a sentence start."""
    rng = np.random.default_rng(order)
    seen = []
    for s in TRAIN[:12]:
        padded = ["<s>"] + s
        j = int(rng.integers(1, len(padded) + 1))
        seen.append(padded[max(0, j - (order - 1)):j])
    unseen = [list(rng.choice([f"w{i}" for i in range(40)], size=order - 1)) for _ in range(8)]
    return seen + unseen + [["<s>"], ["w1", "never-seen-word"], ["<s>", "w3", "w3", "w3", "w3"]]


@pytest.mark.parametrize("method", [m for m in METHODS if m in NORMALISED])
@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
def test_distribution_sums_to_one(method, order):
    lm = NgramModel(COUNTS, order, method, delta=0.3, discount=0.6)
    assert lm.vocab[:2] == ["<unk>", "</s>"]
    assert len(lm.vocab) == 40 + 2
    for ctx in contexts(order):
        p = lm.distribution(ctx)
        assert p.shape == (len(lm.vocab),)
        assert np.all(p >= 0)
        assert abs(p.sum() - 1.0) < 1e-9, (method, order, ctx, p.sum())


@pytest.mark.parametrize("order", [2, 3, 4])
def test_notes_formula_sums_to_more_than_one(order):
    """As written in the notes, an unseen word gets P_KN(w|h_{-1}) with no weight: the seen words
    keep 1 − λ(h) of their own mass plus λ(h)·S and the unseen ones add 1 − S, so
    Σ_w P(w|h) = 1 + (1 − λ(h))(1 − S) > 1 whenever the context was seen and some word was not.
    For a bigram context h that excess is checked exactly (with T = Σ_w P_KN(w), the unigram
    level's own sum, instead of 1: the notes' rule also gives the unseen unigram ``<unk>`` full
    weight)."""
    lm = NgramModel(COUNTS, order, "kn-notes", discount=0.75)
    interp = NgramModel(COUNTS, order, "kn-interp", discount=0.75)
    ctx = ["<s>"] + TRAIN[0][: order - 2]
    p = lm.distribution(ctx)
    assert p.sum() > 1.0 + 1e-3
    if order == 2:
        lower = lm.distribution(["a-context-never-seen"])  # unseen context: the unigram level
        seen = np.array([lm.count(["<s>", w]) > 0 for w in lm.vocab])
        lam = 0.75 * seen.sum() / lm.context_count(["<s>"])
        S, T = lower[seen].sum(), lower.sum()
        assert p.sum() == pytest.approx((1 - lam) + lam * S + (T - S), abs=1e-12)
        assert (1 - lam) + lam * S + (T - S) > 1 + (1 - lam) * (1 - S) - 1e-12
        # seen words get the interpolated-KN value; unseen ones lack the weight λ(h)
        real = np.array([w != "<unk>" for w in lm.vocab])
        q = interp.distribution(ctx)
        np.testing.assert_allclose(p[seen & real], q[seen & real], rtol=1e-12)
        np.testing.assert_allclose(p[~seen & real] * lam, q[~seen & real], rtol=1e-12)


def test_sampling_is_seeded_and_in_vocabulary():
    lm = NgramModel(COUNTS, 3, "modified-kn")
    a, b = lm.sample(seed=7, max_len=20), lm.sample(seed=7, max_len=20)
    assert a == b and len(a) <= 20
    assert set(a) <= set(lm.vocab) - {"</s>"}
    assert any(lm.sample(seed=s) != a for s in range(1, 5))


def test_prob_matches_distribution_and_sentence_scores():
    """prob(), distribution() and the vectorised sentence scorer agree token by token."""
    for method in METHODS:
        lm = NgramModel(COUNTS, 3, method)
        sent = TRAIN[5][:4] + ["never-seen-word"] + TRAIN[6][:3]
        scores = lm.sentence_logprobs(sent)
        history = ["<s>"]
        for tok, lp in zip(scores.tokens, scores.logprobs):
            with np.errstate(divide="ignore"):
                assert np.log(lm.prob(tok, history)) == pytest.approx(lp, abs=1e-12)
            history.append(tok)
        assert scores.tokens[-1] == "</s>"
        assert scores.oov.tolist() == [t == "never-seen-word" for t in scores.tokens]


def test_literal_boundary_tokens_inside_sentences_are_dropped():
    clean = NgramModel.fit(TRAIN[:50], 3, "modified-kn")
    noisy = NgramModel.fit([s[:2] + ["</s>", "<s>"] + s[2:] for s in TRAIN[:50]], 3, "modified-kn")
    assert noisy.vocab == clean.vocab
    np.testing.assert_array_equal(noisy.distribution(["<s>", "w1"]), clean.distribution(["<s>", "w1"]))
