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
``prob`` is the full p_k(w|h) of every stored n-gram: the ARPA probability, with U(h) as the
backoff weight of context h.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmcore.ngram.counts import Stream, Table


@dataclass(frozen=True)
class Level:
    """Order k of a method: per stored n-gram S and seen, per context G, U and ctx_seen."""

    order: int
    S: np.ndarray
    seen: np.ndarray
    G: np.ndarray
    U: np.ndarray
    ctx_seen: np.ndarray
    prob: np.ndarray
    from_base: bool = False


def uniform_base(vocab_size: int) -> np.ndarray:
    """p_0(w) = 1/|V| over the predictable tokens, 0 for ``<s>`` (the last id)."""
    base = np.full(vocab_size + 1, 1.0 / vocab_size)
    base[-1] = 0.0
    return base


def make_level(table: Table, lower_prob: np.ndarray, S: np.ndarray, seen: np.ndarray,
               G: np.ndarray, U: np.ndarray, ctx_seen: np.ndarray, from_base: bool = False) -> Level:
    """A :class:`Level` with ``prob`` filled in; ``lower_prob`` = p_{k-1}(w|h') per stored row."""
    ctx = table.ctx
    prob = np.where(seen, S + G[ctx] * lower_prob, U[ctx] * lower_prob)
    return Level(table.order, S, seen, G, U, ctx_seen, prob, from_base)


def lower_prob_of(table: Table, previous: Level | None, base: np.ndarray) -> np.ndarray:
    """p_{k-1}(w|h') for every row (h, w) of ``table``: the previous level's prob of its suffix."""
    if previous is None:
        return base[table.word]
    return previous.prob[table.suffix]


def context_rows(rows: list[np.ndarray], stream: Stream, k: int) -> np.ndarray:
    """Row (in order k-1) of the context of length k-1 preceding each position; -1 if none."""
    if k == 1:
        return np.zeros(len(stream.ids), dtype=np.int64)
    ctx = np.full(len(stream.ids), -1, dtype=np.int64)
    ctx[1:] = rows[k - 2][:-1]
    ctx[stream.pos < k - 1] = -1
    return ctx


def apply_levels(levels: list[Level], rows: list[np.ndarray], stream: Stream,
                 base: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """p(x_t | history) at every position of ``stream`` (vectorised over positions).

    Returns (p, found, used): ``found`` = order of the longest seen n-gram (h, x_t) that entered
    (0: none), ``used`` = order of the longest seen context (the distribution actually used;
    0: the uniform base).
    """
    p0 = base[stream.ids].astype(np.float64)
    p = p0.copy()
    found = np.zeros(len(p), dtype=np.int64)
    used = np.zeros(len(p), dtype=np.int64)
    for lv in levels:
        k = lv.order
        c = context_rows(rows, stream, k)
        r = rows[k - 1]
        if lv.from_base:
            avail = stream.pos >= k - 1
            p[avail] = p0[avail]
            found[avail] = 0
            used[avail] = 0  # an unseen context leaves the uniform p_0
        cs = c >= 0
        cs[cs] = lv.ctx_seen[c[cs]]
        rs = cs & (r >= 0)
        rs[rs] = lv.seen[r[rs]]
        un = cs & ~rs
        p[un] = lv.U[c[un]] * p[un]
        p[rs] = lv.S[r[rs]] + lv.G[c[rs]] * p[rs]
        found[rs] = k
        used[cs] = k
    return p, found, used


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
        if c < 0:
            continue
        if not lv.ctx_seen[c]:
            continue
        table = tables[k - 1]
        lo, hi = int(table.ctx_start[c]), int(table.ctx_start[c + 1])
        words = table.word[lo:hi]
        seen = lv.seen[lo:hi]
        new = lv.U[c] * p
        new[words[seen]] = lv.S[lo:hi][seen] + lv.G[c] * p[words[seen]]
        p = new
    return p


def context_row(tables: list[Table], ids: list[int]) -> int:
    """Row of the n-gram ``ids`` in the table of order len(ids); -1 if never seen."""
    row = -1
    for j, w in enumerate(ids):
        if j == 0:
            row = int(w)
        else:
            row = int(tables[j].find(np.array([row]), np.array([w]))[0])
        if row < 0:
            return -1
    return row
