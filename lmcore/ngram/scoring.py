"""p(x_t | history) at every position of a stream, advanced one level (order) at a time.

Level k (see :mod:`lmcore.ngram.levels`) needs, at position t, the row c of the context (the
(k−1)-gram ending at t−1) and the row r of the k-gram (h, x_t). Both only exist where the
(k−1)-gram ending at t−1 was seen, and r only where the (k−1)-gram ending at t was seen too (a
stored n-gram's suffix is stored); so each order works on the positions the previous one found —
a set that shrinks with k — and looks up only those (:meth:`Table.find`).
"""
from __future__ import annotations

import numpy as np

from lmcore.ngram.counts import Table
from lmcore.ngram.levels import Level
from lmcore.ngram.vocab import Stream


class StreamScorer:
    """Running probabilities ``p`` of a stream; ``found`` / ``used`` orders as in
    :func:`~lmcore.ngram.levels.apply_levels`. Call :meth:`advance` with levels 1, 2, … in turn."""

    def __init__(self, tables: list[Table], stream: Stream, base: np.ndarray) -> None:
        self.tables, self.stream = tables, stream
        self.ids = stream.ids.astype(np.int64)
        self.p0 = base[self.ids]
        self.p = self.p0.copy()
        self.found = np.zeros(len(self.ids), dtype=np.int8)
        self.used = np.zeros(len(self.ids), dtype=np.int8)
        self.rows = self.ids  # row of the (k-1)-gram ending at each position (order 1: the id)
        self.cand = np.flatnonzero(stream.pos >= 1)  # positions whose context row exists

    def advance(self, lv: Level) -> None:
        k, p, found, used, ids = lv.order, self.p, self.found, self.used, self.ids
        if lv.from_base:
            avail = self.stream.pos >= k - 1
            p[avail] = self.p0[avail]
            found[avail] = 0
            used[avail] = 0  # an unseen context leaves the uniform p_0
        if k == 1:
            if lv.ctx_seen[0]:
                hit = lv.seen[ids]
                p[~hit] *= lv.U[0]
                p[hit] = lv.prob[ids[hit]]
                found[hit] = 1
                used[:] = 1
            return
        t = self.cand
        prev = self.rows
        c = prev[t - 1]
        look = prev[t] >= 0
        r = np.full(len(t), -1, dtype=np.int64)
        r[look] = self.tables[k - 1].find(c[look], ids[t[look]])
        cs = lv.ctx_seen[c]
        tc, cc, rc = t[cs], c[cs], r[cs]
        hit = rc >= 0
        hit[hit] = lv.seen[rc[hit]]
        miss = ~hit
        p[tc[miss]] *= lv.U[cc[miss]]
        p[tc[hit]] = lv.prob[rc[hit]]
        found[tc[hit]] = k
        used[tc] = k
        rows = np.full(len(ids), -1, dtype=np.int64)
        rows[t] = r
        self.rows = rows
        nxt = t[r >= 0] + 1
        nxt = nxt[nxt < len(ids)]
        self.cand = nxt[self.stream.pos[nxt] >= k]
