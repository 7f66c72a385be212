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
from lmcore.ngram.levels import Level, lower_prob_of, make_prob, row_chunks


def raw_counts(table: Table, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """C(h, w) of rows lo:hi as float64, with the unigram ``<s>`` zeroed (it is never predicted)."""
    c = table.count[lo:hi].astype(np.float64)
    bos = table.radix - 1
    if table.order == 1 and lo <= bos < lo + len(c):
        c[bos - lo] = 0.0
    return c


def context_totals(table: Table, values: np.ndarray) -> np.ndarray:
    """Σ_w values[h, w] per context row h (one entry for the unigram's empty context)."""
    return np.bincount(table.ctx, weights=values, minlength=table.n_contexts)


def _raw_totals(table: Table) -> np.ndarray:
    """C(h) = Σ_w C(h, w) per context row, a chunk of rows at a time."""
    den = np.zeros(table.n_contexts)
    for lo, hi, ctx in row_chunks(table):
        den += np.bincount(ctx, weights=raw_counts(table, lo, hi), minlength=table.n_contexts)
    return den


def _level(table: Table, previous: Level | None, base: np.ndarray, den: np.ndarray, G: np.ndarray,
           ctx_seen: np.ndarray, from_base: bool) -> Level:
    """S = C(h,w)/den(h) with the given G = U per context."""
    prob = np.empty(len(table))
    seen = table.count > 0
    if table.order == 1:
        seen[table.radix - 1] = False
    for lo, hi, ctx in row_chunks(table):
        S = raw_counts(table, lo, hi)
        S /= den[ctx]
        prob[lo:hi] = make_prob(S, seen[lo:hi], G, G, ctx, lower_prob_of(table, previous, base, lo, hi))
    return Level(table.order, prob, seen, G, G, ctx_seen, from_base)


def mle_levels(tables: Sequence[Table], order: int, base: np.ndarray) -> list[Level]:
    """Levels 1..order of MLE: S = C(h,w)/C(h), G = U = 0."""
    levels: list[Level] = []
    for k in range(1, order + 1):
        table = tables[k - 1]
        den = _raw_totals(table)
        ctx_seen = den > 0
        levels.append(_level(table, levels[-1] if levels else None, base, np.where(ctx_seen, den, 1.0),
                             np.broadcast_to(0.0, den.shape), ctx_seen, False))
    return levels


def add_delta_levels(tables: Sequence[Table], order: int, base: np.ndarray, delta: float) -> list[Level]:
    """Levels of add-δ: S = C(h,w)/(C(h)+δ|V|), G = U = δ|V|/(C(h)+δ|V|) on the uniform base."""
    vocab_size = len(base) - 1
    levels: list[Level] = []
    for k in range(1, order + 1):
        table = tables[k - 1]
        den = _raw_totals(table) + delta * vocab_size
        levels.append(_level(table, None, base, den, delta * vocab_size / den, den > delta * vocab_size, True))
    return levels
