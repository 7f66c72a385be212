r"""A synthetic corpus from a known source, so every perplexity chart can draw the true floor.

The source is a first-order Markov chain over a small readable vocabulary. Each sentence starts
in the boundary state ``<s>``, emits words, and ends by emitting ``</s>`` (which returns to the
boundary). Counting every emitted token, ``</s>`` included (the n-gram convention), the entropy
rate of the token stream is

.. math:: H = \sum_s \pi(s)\, H\big(P(\cdot \mid s)\big) = -\sum_s \pi(s) \sum_w P(w|s) \log P(w|s)

with :math:`\pi` the stationary distribution of the chain (``</s>`` identified with ``<s>``). No
model can beat :math:`\mathrm{PPL}^* = e^H` on average; a well-estimated bigram model reaches it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lmcore.symbols import BOS, EOS

BOUNDARY = EOS

# Word classes and which classes may follow which (with class-level weights).
_CLASSES: dict[str, list[str]] = {
    "DET": ["the", "a", "my", "every", "one"],
    "ADJ": ["small", "red", "happy", "old", "quiet", "bright", "green", "lazy"],
    "NOUN": ["cat", "dog", "teacher", "river", "garden", "bird", "child", "robot", "city", "song"],
    "VERB": ["sees", "likes", "finds", "paints", "follows", "hears", "sleeps", "runs"],
    "PREP": ["near", "under", "with", "behind"],
    "ADV": ["today", "slowly", "again", "quietly"],
    "CONJ": ["and"],
}
_NEXT: dict[str, dict[str, float]] = {
    BOS: {"DET": 0.85, "NOUN": 0.15},
    "DET": {"ADJ": 0.4, "NOUN": 0.6},
    "ADJ": {"ADJ": 0.15, "NOUN": 0.85},
    "NOUN": {"VERB": 0.6, EOS: 0.2, "CONJ": 0.1, "PREP": 0.1},
    "VERB": {"DET": 0.5, "PREP": 0.15, "ADV": 0.15, EOS: 0.2},
    "PREP": {"DET": 1.0},
    "ADV": {EOS: 0.7, "PREP": 0.3},
    "CONJ": {"DET": 1.0},
}


@dataclass(frozen=True)
class MarkovSource:
    """States ``["</s>", *words]`` (state 0 is the sentence boundary); ``transition[s, j]`` = P(j | s)."""

    states: list[str]
    transition: np.ndarray

    def stationary(self) -> np.ndarray:
        """π with π P = π, Σπ = 1 (the left eigenvector of P for eigenvalue 1)."""
        values, vectors = np.linalg.eig(self.transition.T)
        pi = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
        return pi / pi.sum()

    def entropy_rate(self) -> float:
        """H in nats per token (``</s>`` counted): Σ_s π(s) H(P(·|s))."""
        p = self.transition
        with np.errstate(divide="ignore", invalid="ignore"):
            row_entropy = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
        return float(self.stationary() @ row_entropy)

    def sample(self, n_sentences: int, seed: int = 0) -> list[list[str]]:
        """``n_sentences`` sentences (word lists, without ``</s>``), reproducibly from ``seed``.

        Every sentence runs until the chain emits ``</s>`` (mean length about 9 words), so the
        sample is an exact draw from the source.
        """
        rng = np.random.default_rng(seed)
        cumulative = np.cumsum(self.transition, axis=1)
        sentences = []
        for _ in range(n_sentences):
            state, words = 0, []
            while True:
                state = int(np.searchsorted(cumulative[state], rng.random(), side="right"))
                if state == 0:
                    break
                words.append(self.states[state])
            sentences.append(words)
        return sentences


@lru_cache(maxsize=4)
def markov_source(seed: int = 7) -> MarkovSource:
    """The built-in source: class transitions from ``_NEXT``, words within a class weighted by a
    seeded Dirichlet draw (so some words are frequent and others rare, as in real text)."""
    rng = np.random.default_rng(seed)
    words = [w for members in _CLASSES.values() for w in members]
    states = [BOUNDARY, *words]
    index = {w: i for i, w in enumerate(states)}
    word_class = {w: c for c, members in _CLASSES.items() for w in members}
    p = np.zeros((len(states), len(states)))
    for s, state in enumerate(states):
        cls = BOS if state == BOUNDARY else word_class[state]
        for next_cls, weight in _NEXT[cls].items():
            if next_cls == EOS:
                p[s, 0] += weight
                continue
            members = _CLASSES[next_cls]
            share = rng.dirichlet(np.full(len(members), 0.8))
            for w, q in zip(members, share):
                p[s, index[w]] += weight * q
    return MarkovSource(states, p / p.sum(axis=1, keepdims=True))


def synthetic_text(n_sentences: int = 3000, seed: int = 0) -> tuple[str, float]:
    """The corpus text (one sentence per line) and the source's entropy rate in nats per token."""
    source = markov_source()
    lines = [" ".join(words) for words in source.sample(n_sentences, seed) if words]
    return "\n".join(lines) + "\n", source.entropy_rate()
