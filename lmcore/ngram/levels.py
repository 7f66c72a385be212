"""The chain of orders every n-gram method is evaluated with.

Each method is a list of *levels* (orders k, lowest first) on top of the uniform base
p_0(w) = 1/|V|. For a history whose last k-1 words form the context h (h' = h without its first
word), level k turns p_{k-1}(·|h') into

    p_k(w | h) = S[h,w] + G(h) · p_{k-1}(w | h')    if the n-gram (h, w) was seen,
    p_k(w | h) = U(h) · p_{k-1}(w | h')             if h was seen but (h, w) was not,
    p_k(w | h) = p_{k-1}(w | h')                    if the context h was never seen.

Interpolated KN: S = max(c−D,0)/C(h), G = U = γ(h). Backoff KN: G = 0, U = α(h). MLE: G = U = 0.
A level with ``from_base`` (add-δ) ignores the lower orders: it starts again from p_0 whenever its
context is available (a sentence's history is long enough), seen or not.
``prob`` is the full p_k(w|h) of every stored n-gram (the ARPA probability, with U(h) as the
backoff weight of context h). A seen (h, w) has a seen suffix (h', w) under a seen context, so
along any history p_{k-1}(w | h') is exactly the ``prob`` it was built from: scoring reads
``prob`` for seen n-grams and needs S only while a level is built.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from lmcore.ngram.counts import Table

ROW_CHUNK = 1 << 21


@dataclass(frozen=True)
class Level:
    """Order k of a method: per stored n-gram ``prob`` and ``seen``; per context G, U, ctx_seen."""

    order: int
    prob: np.ndarray
    seen: np.ndarray
    G: np.ndarray
    U: np.ndarray
    ctx_seen: np.ndarray
    from_base: bool = False

    @cached_property
    def all_seen(self) -> bool:
        """Every stored n-gram of this level is seen (KN and MLE above the unigrams)."""
        return bool(self.seen.all())

    @property
    def nbytes(self) -> int:
        arrays = {id(a): a for a in (self.prob, self.seen, self.G, self.U, self.ctx_seen)}
        return sum(a.nbytes for a in arrays.values() if a.base is None or a.flags.owndata)


def uniform_base(vocab_size: int) -> np.ndarray:
    """p_0(w) = 1/|V| over the predictable tokens, 0 for ``<s>`` (the last id)."""
    base = np.full(vocab_size + 1, 1.0 / vocab_size)
    base[-1] = 0.0
    return base


def row_chunks(table: Table):
    """(lo, hi, ctx rows of lo:hi) over the table's rows, a chunk at a time."""
    for lo in range(0, len(table), ROW_CHUNK):
        hi = min(lo + ROW_CHUNK, len(table))
        yield lo, hi, table.keys[lo:hi] // table.radix


def make_prob(S: np.ndarray, seen: np.ndarray, G: np.ndarray, U: np.ndarray, ctx: np.ndarray,
              lower: np.ndarray) -> np.ndarray:
    """p_k of stored rows: S + G(h)·lower if seen, else U(h)·lower (S overwritten in place)."""
    prob = G[ctx]
    prob *= lower
    prob += S
    unseen = ~seen
    if unseen.any():
        prob[unseen] = U[ctx[unseen]] * lower[unseen]
    return prob


def lower_prob_of(table: Table, previous: Level | None, base: np.ndarray, lo: int = 0,
                  hi: int | None = None) -> np.ndarray:
    """p_{k-1}(w|h') for rows lo:hi of ``table``: the previous level's prob of its suffix."""
    if previous is None:
        return base[table.words(lo, hi)]
    return previous.prob[table.suffix[lo:hi]]


def distribution_for(levels: list[Level], tables: list[Table], context_ids: list[int],
                     base: np.ndarray) -> np.ndarray:
    """The whole vector p(· | context) over all ids (``<s>`` last, always 0).

    ``context_ids`` are the last (order-1) context ids, ``<s>`` allowed in front.
    """
    p = base.astype(np.float64).copy()
    for lv in levels:
        k = lv.order
        if len(context_ids) < k - 1:
            continue
        if lv.from_base:
            p = base.astype(np.float64).copy()
        c = 0 if k == 1 else context_row(tables, context_ids[len(context_ids) - (k - 1):])
        if c < 0 or not lv.ctx_seen[c]:
            continue
        table = tables[k - 1]
        lo, hi = table.ctx_range(c)
        seen = lv.seen[lo:hi]
        words = table.words(lo, hi)[seen]
        p *= lv.U[c]
        p[words] = lv.prob[lo:hi][seen]
    return p


def context_row(tables: list[Table], ids: list[int]) -> int:
    """Row of the n-gram ``ids`` in the table of order len(ids); -1 if never seen."""
    row = -1
    for j, w in enumerate(ids):
        if j == 0:
            row = int(w) if 0 <= int(w) < len(tables[0]) else -1
        else:
            row = int(tables[j].find(np.array([row]), np.array([w]))[0])
        if row < 0:
            return -1
    return row
