"""The synthetic source: its entropy rate against an independent Monte-Carlo estimate."""
import math

import numpy as np

from lmcore.samples import load_sample
from lmcore.synthetic import markov_source, synthetic_text


def test_transition_rows_are_distributions_and_stationary_is_fixed_point():
    source = markov_source()
    assert np.allclose(source.transition.sum(axis=1), 1.0, atol=1e-12)
    pi = source.stationary()
    assert np.allclose(pi @ source.transition, pi, atol=1e-12) and abs(pi.sum() - 1) < 1e-12


def test_entropy_rate_matches_the_sample_average_surprisal():
    """Law of large numbers: −(1/N) Σ log P(token | previous) over a long sample → H."""
    source = markov_source()
    index = {w: i for i, w in enumerate(source.states)}
    total, count = 0.0, 0
    for words in source.sample(30_000, seed=5):
        state = 0
        for word in [*words, "</s>"]:
            nxt = index[word]
            total -= math.log(source.transition[state, nxt])
            state, count = nxt, count + 1
    assert abs(total / count - source.entropy_rate()) < 0.02 * source.entropy_rate()


def test_bigram_mle_on_a_large_sample_approaches_the_floor_from_above_on_its_training_text():
    text, entropy = synthetic_text(20_000, seed=3)
    lines = [line.split() + ["</s>"] for line in text.splitlines()]
    counts: dict[tuple[str, str], int] = {}
    context: dict[str, int] = {}
    for line in lines:
        prev = "<s>"
        for word in line:
            counts[prev, word] = counts.get((prev, word), 0) + 1
            context[prev] = context.get(prev, 0) + 1
            prev = word
    nll = -sum(c * math.log(c / context[h]) for (h, _), c in counts.items()) / sum(counts.values())
    assert abs(nll - entropy) < 0.03


def test_synthetic_corpus_carries_its_floor_only_when_tokens_are_the_source_words():
    corpus = load_sample("synthetic", n_sentences=500)
    assert corpus.true_entropy is not None and math.exp(corpus.true_entropy) > 2
    assert set(corpus.vocab.itos[1:]) <= set(markov_source().states)
