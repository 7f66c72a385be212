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

import numpy as np

from lmcore.ngram.counts import Stream, Table

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
    starts = table.ctx_start
    for lo in range(0, len(table), ROW_CHUNK):
        hi = min(lo + ROW_CHUNK, len(table))
        c_lo = int(np.searchsorted(starts, lo, side="right")) - 1
        c_hi = int(np.searchsorted(starts, hi - 1, side="right"))
        lengths = np.diff(np.clip(starts[c_lo:c_hi + 1], lo, hi))
        yield lo, hi, np.repeat(np.arange(c_lo, c_hi, dtype=np.int64), lengths)


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
        return base[table.word[lo:hi]]
    return previous.prob[table.suffix[lo:hi]]


def context_rows(rows: list[np.ndarray], stream: Stream, k: int) -> np.ndarray:
    """Row (in order k-1) of the context of length k-1 preceding each position; -1 if none."""
    if k == 1:
        return np.zeros(len(stream.ids), dtype=np.int64)
    ctx = np.full(len(stream.ids), -1, dtype=np.int64)
    ctx[1:] = rows[k - 2][:-1]
    ctx[stream.pos < k - 1] = -1
    return ctx


def apply_level(lv: Level, p: np.ndarray, p0: np.ndarray, found: np.ndarray, used: np.ndarray,
                c: np.ndarray, r: np.ndarray, stream: Stream) -> None:
    """Advance p (and found/used orders) by one level, in place (see the module docstring)."""
    k = lv.order
    if lv.from_base:
        avail = stream.pos >= k - 1
        p[avail] = p0[avail]
        found[avail] = 0
        used[avail] = 0  # an unseen context leaves the uniform p_0
    cs = np.flatnonzero(c >= 0)
    cs = cs[lv.ctx_seen[c[cs]]]
    rr = r[cs]
    hit = rr >= 0
    hit[hit] = lv.seen[rr[hit]]
    rs, un = cs[hit], cs[~hit]
    p[un] *= lv.U[c[un]]
    p[rs] = lv.prob[r[rs]]
    found[rs] = k
    used[cs] = k


def apply_levels(levels: list[Level], rows: list[np.ndarray], stream: Stream,
                 base: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """p(x_t | history) at every position of ``stream`` (vectorised over positions).

    Returns (p, found, used): ``found`` = order of the longest seen n-gram (h, x_t) that entered
    (0: none), ``used`` = order of the longest seen context (the distribution actually used;
    0: the uniform base).
    """
    p0 = base[stream.ids].astype(np.float64)
    p = p0.copy()
    found = np.zeros(len(p), dtype=np.int8)
    used = np.zeros(len(p), dtype=np.int8)
    for lv in levels:
        apply_level(lv, p, p0, found, used, context_rows(rows, stream, lv.order), rows[lv.order - 1], stream)
    return p, found.astype(np.int64), used.astype(np.int64)


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
        lo, hi = int(table.ctx_start[c]), int(table.ctx_start[c + 1])
        seen = lv.seen[lo:hi]
        words = table.word[lo:hi][seen]
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
            table = tables[j]
            lo, hi = int(table.ctx_start[row]), int(table.ctx_start[row + 1])
            i = lo + int(np.searchsorted(table.word[lo:hi], w))
            row = i if i < hi and table.word[i] == w else -1
        if row < 0:
            return -1
    return row
