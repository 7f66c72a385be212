"""p(x_t | history) at every position of a stream, advanced one level (order) at a time.

Level k (see :mod:`lmcore.ngram.levels`) needs, at position t, the row c of the context (the
(k−1)-gram ending at t−1) and the row r of the k-gram (h, x_t). Both only exist where the
(k−1)-gram ending at t−1 was seen, and r only where the (k−1)-gram ending at t was seen too (a
stored n-gram's suffix is stored); so each order works on the positions the previous one found —
a set that shrinks with k — with the context rows carried along, and looks up only those.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from lmcore.lm_protocol import Perplexity, perplexity_from_logprobs
from lmcore.ngram.counts import Table
from lmcore.ngram.search import search_sorted, sort_queries
from lmcore.ngram.levels import Level
from lmcore.ngram.vocab import EOS_ID, Stream


class StreamScorer:
    """Running probabilities ``p`` of a stream. Call :meth:`advance` with levels 1, 2, … in turn.

    With ``track``, ``found`` / ``used`` hold per position the order of the longest seen n-gram
    (h, x_t) that entered and of the longest seen context (0: none / the uniform base).

    Each order works in the order of its packed keys (context row, word): the lookups walk the
    table's keys, and the per-context and per-row values are read in increasing row order
    (cache-friendly). The rows found are then increasing, so the next order's keys come out
    nearly sorted already."""

    def __init__(self, tables: list[Table], stream: Stream, base: np.ndarray, track: bool = True) -> None:
        self.tables, self.stream, self.track = tables, stream, track
        self.ids = stream.ids.astype(np.int64)
        self.p0 = base[self.ids]
        self.p = self.p0.copy()
        n = len(self.ids)
        self.found = np.zeros(n, dtype=np.int8) if track else None
        self.used = np.zeros(n, dtype=np.int8) if track else None
        self.t = np.flatnonzero(stream.pos >= 1)  # positions whose context row exists (order 2)
        self.c = self.ids[self.t - 1]  # that context row (order 1: the id)

    def advance_all(self, levels: Iterable[Level]) -> StreamScorer:
        """:meth:`advance` with every level in turn (1, 2, …); the scorer itself."""
        for level in levels:
            self.advance(level)
        return self

    @property
    def predicted(self) -> np.ndarray:
        """Mask of the predicted positions (``pos ≥ 1``: every token and ``</s>``, never ``<s>``)."""
        return self.stream.pos >= 1

    def logprobs(self) -> np.ndarray:
        """ln p(x_t | history) at the predicted positions (−inf where p = 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.p[self.predicted])

    def perplexity(self) -> Perplexity:
        """exp(−Σ_t ln p(x_t | history) / N) over the predicted positions, with and without OOVs."""
        return perplexity_from_logprobs(self.logprobs(), self.stream.oov[self.predicted])

    def advance(self, lv: Level) -> None:
        k, p = lv.order, self.p
        if lv.from_base:
            avail = self.stream.pos >= k - 1
            p[avail] = self.p0[avail]
            if self.track:
                self.found[avail] = 0
                self.used[avail] = 0  # an unseen context leaves the uniform p_0
        if k == 1:
            self._unigram(lv)
            return
        table = self.tables[k - 1]
        if k == 2:
            order, query = sort_queries(self.c * table.radix + self.ids[self.t], table.n_contexts * table.radix)
            t, c = self.t[order], query // table.radix
            r = search_sorted(table.keys, query)
        else:  # nearly sorted already: c are the rows found at order k-1, in their keys' order
            t, c = self.t, self.c
            query = c * table.radix + self.ids[t]
            look = np.flatnonzero(self.has[t])  # the (k-1)-gram ending at t was seen
            r = np.full(len(t), -1, dtype=np.int64)
            r[look] = search_sorted(table.keys, query[look])
        cs = lv.ctx_seen[c]
        if cs.all():
            tc, cc, rc = t, c, r
        else:
            tc, cc, rc = t[cs], c[cs], r[cs]
        hit = rc >= 0
        if not lv.all_seen:
            hit[hit] = lv.seen[rc[hit]]
        new = p[tc]
        new *= lv.U[cc]
        new[hit] = lv.prob[rc[hit]]
        p[tc] = new
        if self.track:
            self.found[tc[hit]] = k
            self.used[tc] = k
        # the next order's positions follow a found k-gram inside its sentence (not after </s>)
        go = r >= 0
        self.has = np.zeros(len(self.ids), dtype=bool)
        self.has[t[go]] = True
        go &= (query % table.radix) != EOS_ID
        self.t, self.c = t[go] + 1, r[go]

    def _unigram(self, lv: Level) -> None:
        if not lv.ctx_seen[0]:
            return
        ids, p = self.ids, self.p
        if lv.all_seen:
            p[:] = lv.prob[ids]
            hit = None
        else:
            hit = lv.seen[ids]
            p[~hit] *= lv.U[0]
            p[hit] = lv.prob[ids[hit]]
        if self.track:
            self.found[:] = 1 if hit is None else hit
            self.used[:] = 1
