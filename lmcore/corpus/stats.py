r"""Corpus statistics for the Corpus page: sizes, OOV rates, Zipf's and Heaps' laws."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lmcore.corpus.build import Corpus


@dataclass(frozen=True)
class PowerLaw:
    """A least-squares line in log-log space: log y = intercept + slope · log x."""

    slope: float
    intercept: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.exp(self.intercept) * np.asarray(x, dtype=float) ** self.slope


def fit_power_law(x: np.ndarray, y: np.ndarray) -> PowerLaw:
    """Fit y ≈ e^intercept · x^slope by least squares on (log x, log y)."""
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    return PowerLaw(float(slope), float(intercept))


def token_counts(corpus: Corpus) -> Counter:
    """Counts of every token in all three splits (raw tokens, no ``<unk>`` mapping)."""
    return Counter(tok for sentence in corpus.sentences for tok in sentence)


def oov_rate(corpus: Corpus, split: str) -> float:
    """Share of the tokens of ``split`` that the training vocabulary does not hold."""
    tokens = [tok for sentence in corpus.split(split) for tok in sentence]
    if not tokens:
        return 0.0
    return sum(tok not in corpus.vocab for tok in tokens) / len(tokens)


def summary(corpus: Corpus) -> dict[str, float | int | str]:
    """Characters, sentences, tokens, types, vocabulary size and OOV rates of valid and test."""
    counts = token_counts(corpus)
    return {
        "characters": len(corpus.text),
        "sentences": len(corpus.sentences),
        "tokens": sum(counts.values()),
        "types": len(counts),
        "vocab": len(corpus.vocab),
        "train_sentences": len(corpus.train),
        "oov_valid": oov_rate(corpus, "valid"),
        "oov_test": oov_rate(corpus, "test"),
        "encoding": corpus.encoding,
    }


def zipf(counts: Counter) -> tuple[np.ndarray, np.ndarray, PowerLaw]:
    r"""Ranks, frequencies (descending) and the fitted Zipf law :math:`f(r) \propto r^{s}` (s ≈ −1)."""
    freqs = np.array(sorted(counts.values(), reverse=True), dtype=float)
    ranks = np.arange(1, len(freqs) + 1, dtype=float)
    return ranks, freqs, fit_power_law(ranks, freqs) if len(freqs) > 1 else PowerLaw(0.0, 0.0)


def heaps(corpus: Corpus, points: int = 60) -> tuple[np.ndarray, np.ndarray, PowerLaw]:
    r"""Types seen after the first N tokens, at ``points`` values of N, and the fitted Heaps law
    :math:`V(N) = K N^{\beta}`. Vectorised: a type is counted from its first position on."""
    seen: set[str] = set()
    first_list, position = [], 0
    for sentence in corpus.sentences:  # positions where a new type appears (no string arrays built)
        for tok in sentence:
            if tok not in seen:
                seen.add(tok)
                first_list.append(position)
            position += 1
    first = np.array(first_list, dtype=np.int64)
    n_tokens = np.unique(np.linspace(1, max(position, 1), points).astype(int))
    n_types = np.searchsorted(first, n_tokens, side="left")
    law = fit_power_law(n_tokens, n_types) if len(n_tokens) > 1 else PowerLaw(0.0, 0.0)
    return n_tokens, n_types, law


def sentence_lengths(corpus: Corpus) -> np.ndarray:
    """Tokens per sentence, all splits."""
    return np.array([len(s) for s in corpus.sentences])


def top_tokens(counts: Counter, n: int = 50) -> list[tuple[str, int, float]]:
    """The ``n`` most frequent tokens as (token, count, share of all tokens)."""
    total = sum(counts.values()) or 1
    return [(tok, c, c / total) for tok, c in counts.most_common(n)]


@dataclass(frozen=True)
class ContinuationExample:
    """A word of this corpus that plays San Francisco's "Francisco": frequent (``count`` = C(w)) yet
    after few distinct words (``contexts`` = N1+(• w)), most often right after ``before``."""

    word: str
    count: int
    contexts: int
    before: str
    before_count: int


def overview(corpus: Corpus, n_top: int = 500) -> dict:
    """Everything the Corpus page shows: ``summary``, ``zipf``, ``heaps``, ``lengths`` and the
    ``top`` ``n_top`` tokens (computed where the corpus is built, for an upload: a worker process)."""
    counts = token_counts(corpus)
    return {"summary": summary(corpus), "zipf": zipf(counts), "heaps": heaps(corpus),
            "lengths": sentence_lengths(corpus), "top": top_tokens(counts, n_top)}


def continuation_example(words: Sequence[str], counts: np.ndarray, contexts: np.ndarray,
                         sentences: Sequence[Sequence[str]], min_count: int = 5) -> ContinuationExample | None:
    """The word (letters or Chinese characters only, seen ≥ ``min_count`` times) with the highest
    C(w) / N1+(• w), and the token (``<s>`` at a sentence start) most often right before it in
    ``sentences``; None when no word qualifies."""
    best, best_ratio = None, 0.0
    for i, w in enumerate(words):
        if counts[i] >= min_count and contexts[i] > 0 and str(w).isalpha() and counts[i] / contexts[i] > best_ratio:
            best, best_ratio = i, counts[i] / contexts[i]
    if best is None:
        return None
    word = str(words[best])
    before = Counter((["<s>"] + list(s))[j] for s in sentences for j, tok in enumerate(s) if tok == word)
    prev, n = before.most_common(1)[0] if before else ("<s>", 0)
    return ContinuationExample(word, int(counts[best]), int(contexts[best]), prev, n)
