"""Corpus-level views for the n-gram page: sparsity by n, continuation counts, a perplexity grid."""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from lmcore.ngram.counts import encode, rows_in_stream
from lmcore.ngram.model import NgramCounts, NgramModel


def unseen_share_by_order(counts: NgramCounts, held_out: Sequence[Sequence[str]],
                          max_order: int) -> np.ndarray:
    """For n = 1..max_order: share of the held-out n-gram tokens (of ``<s> x </s>``, ending at a
    predicted token) never seen in training — the MLE zeros an n-gram model of order n meets."""
    stream = encode(held_out, counts.vocab, counts.unk_trained)
    rows = rows_in_stream(counts.tables[:max_order], stream)
    shares = []
    for n in range(1, max_order + 1):
        ends = stream.pos >= max(n - 1, 1)
        r = rows[n - 1][ends]
        seen = r >= 0
        if n == 1:
            seen &= counts.tables[0].count[np.maximum(r, 0)] > 0
        shares.append(1.0 - seen.mean() if len(r) else float("nan"))
    return np.array(shares)


@dataclass(frozen=True)
class ContinuationCounts:
    """Per word: C(w) and N1+(• w) = the number of distinct words seen just before w."""

    words: list[str]
    count: np.ndarray
    continuation: np.ndarray


def continuation_counts(counts: NgramCounts) -> ContinuationCounts:
    """C(w) and N1+(• w) of every word (``<s>`` counts as a left context; needs max_order ≥ 2)."""
    if counts.max_order < 2:
        raise ValueError("continuation counts need bigram tables (max_order >= 2)")
    v = counts.vocab.size
    cont = np.bincount(counts.tables[1].word, minlength=v + 1)[:v]
    return ContinuationCounts(counts.vocab.words, counts.tables[0].count[:v].copy(), cont)


def top_by(cc: ContinuationCounts, key: str, k: int = 15) -> list[int]:
    """Indices of the k words with the highest ``key`` ("count" or "continuation"), ``</s>``/``<unk>`` excluded."""
    values = getattr(cc, key).astype(np.float64).copy()
    values[:2] = -1
    return [int(i) for i in np.argsort(-values, kind="stable")[:k] if values[i] > 0]


def perplexity_grid(counts: NgramCounts, held_out: Sequence[Sequence[str]], orders: Sequence[int],
                    methods: Sequence[str], delta: float = 1.0, discount: float = 0.75) -> np.ndarray:
    """Held-out perplexity (OOVs included) for every (order, method): rows orders, columns methods."""
    grid = np.full((len(orders), len(methods)), np.nan)
    for i, n in enumerate(orders):
        for j, m in enumerate(methods):
            grid[i, j] = NgramModel(counts, n, m, delta=delta, discount=discount).perplexity(held_out).ppl
    return grid
