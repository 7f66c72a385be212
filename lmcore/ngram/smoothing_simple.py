"""Maximum likelihood and add-δ (Laplace / Lidstone) as levels of the chain (raw counts C).

MLE (notes):  P(w | h) = C(h, w) / C(h),  C(h) = Σ_w' C(h, w').
  A context never seen (C(h) = 0) leaves 0/0 undefined; the model then uses the longest seen
  suffix of the history (the Markov model of lower order). Seen context, unseen (h, w): 0.
add-δ (notes): P(w | h) = (C(h, w) + δ) / (C(h) + δ|V|)  (δ = 1: Laplace; else Lidstone).
  An unseen context gives the uniform 1/|V|, as the formula says.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lmcore.ngram.counts import Table
from lmcore.ngram.levels import Level, lower_prob_of, make_level


def raw_counts(table: Table) -> np.ndarray:
    """C(h, w) with the unigram ``<s>`` zeroed (it is never predicted)."""
    c = table.count.astype(np.float64)
    if table.order == 1:
        c[-1] = 0.0
    return c


def context_totals(table: Table, values: np.ndarray) -> np.ndarray:
    """Σ_w values[h, w] per context row h (one entry for the unigram's empty context)."""
    n_ctx = len(table.ctx_start) - 1
    return np.bincount(table.ctx, weights=values, minlength=n_ctx)


def mle_levels(tables: Sequence[Table], order: int, base: np.ndarray) -> list[Level]:
    """Levels 1..order of MLE: S = C(h,w)/C(h), G = U = 0."""
    levels: list[Level] = []
    for k in range(1, order + 1):
        table = tables[k - 1]
        c = raw_counts(table)
        den = context_totals(table, c)
        ctx_seen = den > 0
        S = c / np.where(ctx_seen, den, 1.0)[table.ctx]
        zero = np.zeros(len(den))
        previous = levels[-1] if levels else None
        levels.append(make_level(table, lower_prob_of(table, previous, base), S, c > 0, zero, zero,
                                 ctx_seen))
    return levels


def add_delta_levels(tables: Sequence[Table], order: int, base: np.ndarray, delta: float) -> list[Level]:
    """Levels of add-δ: S = C(h,w)/(C(h)+δ|V|), G = U = δ|V|/(C(h)+δ|V|) on the uniform base."""
    vocab_size = len(base) - 1
    levels: list[Level] = []
    for k in range(1, order + 1):
        table = tables[k - 1]
        c = raw_counts(table)
        den = context_totals(table, c) + delta * vocab_size
        S = c / den[table.ctx]
        G = delta * vocab_size / den
        levels.append(make_level(table, lower_prob_of(table, None, base), S, c > 0, G, G,
                                 den > delta * vocab_size, from_base=True))
    return levels
