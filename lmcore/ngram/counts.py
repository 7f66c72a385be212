"""n-gram counting on the padded id stream (see :mod:`lmcore.ngram.vocab`), tables as sorted arrays.

Every training sentence becomes ``<s> w1 … wT </s>`` (one ``<s>``, used as context only; ``</s>``
is predicted). The n-gram of order k ending at position t exists when ``pos[t] >= k-1``.

A table of order k is a trie level stored as sorted arrays: row r is the n-gram ``(h, w)``; rows
are sorted by (row of h in order k-1, id of w), i.e. lexicographically by their word ids, so all
n-grams sharing a context h are contiguous: ``ctx_start[c] : ctx_start[c+1]`` lists the
continuations of context row c, by increasing word id. Each order is counted with one packed
sort of its occurrences (:mod:`lmcore.ngram.sorting`); the rank of every occurrence is the next
order's context row. Held per n-gram: word, count, suffix (int32) and one ``ctx_start`` entry in
the next order — 16 bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from lmcore.ngram.sorting import Occurrences, sorted_groups
from lmcore.ngram.vocab import (BOS, EOS, EOS_ID, UNK, UNK_ID, Stream, Vocab, build_vocab,  # noqa: F401
                                encode)

__all__ = ["BOS", "EOS", "UNK", "UNK_ID", "EOS_ID", "Stream", "Vocab", "Table", "build_vocab", "encode",
           "count_tables", "rows_in_stream"]


@dataclass(frozen=True)
class Table:
    """All n-grams of one order k seen in training, sorted by (context row, word).

    ``word`` = id of w (int32); ``count`` = raw count C(h, w); ``suffix`` = row of (h', w) in order
    k-1 (h' = h without its first word; -1 for unigrams); ``ctx_start[c]:ctx_start[c+1]`` = rows
    whose context is row c of order k-1. ``ctx``, ``keys`` and ``first`` are computed on demand.
    """

    order: int
    radix: int
    word: np.ndarray
    count: np.ndarray
    suffix: np.ndarray
    ctx_start: np.ndarray

    def __len__(self) -> int:
        return len(self.word)

    @property
    def n_contexts(self) -> int:
        return len(self.ctx_start) - 1

    @property
    def nbytes(self) -> int:
        return self.word.nbytes + self.count.nbytes + self.suffix.nbytes + self.ctx_start.nbytes

    @property
    def ctx(self) -> np.ndarray:
        """Row of the context h in order k-1, per row (int32; computed, not stored)."""
        return np.repeat(np.arange(self.n_contexts, dtype=np.int32), np.diff(self.ctx_start))

    @property
    def keys(self) -> np.ndarray:
        """``ctx · radix + word`` per row, increasing (computed, not stored)."""
        return self.ctx.astype(np.int64) * self.radix + self.word

    def ctx_of(self, rows: np.ndarray) -> np.ndarray:
        """Context row of each of ``rows`` (binary search in ``ctx_start``)."""
        return np.searchsorted(self.ctx_start, rows, side="right") - 1

    def bos_rows(self, previous_bos_start: int) -> int:
        """First row of the n-grams beginning with ``<s>`` (``<s>`` has the largest id, so those
        n-grams are the last rows), given that row in order k-1."""
        return int(self.ctx_start[previous_bos_start])

    def find(self, ctx_rows: np.ndarray, words: np.ndarray) -> np.ndarray:
        """Rows of the n-grams (context row, word), -1 where not stored or ctx_row < 0.

        A binary search inside each context's range ``ctx_start[c]:ctx_start[c+1]`` (vectorised;
        searches drop out as their range closes)."""
        ctx_rows = np.asarray(ctx_rows, dtype=np.int64)
        words = np.asarray(words, dtype=np.int64)
        ctx_rows, words = np.broadcast_arrays(ctx_rows, words)
        shape = ctx_rows.shape
        ctx_rows, words = ctx_rows.ravel(), words.ravel()
        if self.order == 1:
            return np.where((ctx_rows >= 0) & (words >= 0) & (words < len(self)), words, -1).reshape(shape)
        out = np.full(len(ctx_rows), -1, dtype=np.int64)
        live = np.flatnonzero((ctx_rows >= 0) & (ctx_rows < self.n_contexts))
        c = ctx_rows[live]
        lo = self.ctx_start[c].astype(np.int64)
        hi = self.ctx_start[c + 1].astype(np.int64)
        w = words[live]
        act = np.flatnonzero(lo < hi)
        while len(act):
            mid = (lo[act] + hi[act]) >> 1
            right = self.word[mid] < w[act]
            lo[act] = np.where(right, mid + 1, lo[act])
            hi[act] = np.where(right, hi[act], mid)
            act = act[lo[act] < hi[act]]
        end = self.ctx_start[c + 1]
        inside = lo < end
        hit = inside.copy()
        hit[inside] = self.word[lo[inside]] == w[inside]
        out[live[hit]] = lo[hit]
        return out.reshape(shape)


def index_dtype(n: int) -> type:
    return np.int32 if n < 2 ** 31 - 1 else np.int64


def unigram_table(ids: np.ndarray, n_ids: int) -> Table:
    """Order 1: every id (``<s>`` and an unseen ``<unk>`` with count 0 included)."""
    return Table(1, n_ids, np.arange(n_ids, dtype=np.int32), np.bincount(ids, minlength=n_ids).astype(np.int64),
                 np.full(n_ids, -1, dtype=np.int32), np.array([0, n_ids], dtype=np.int64))


def next_table(stream: Stream, prev: Table, prev_rows: np.ndarray) -> tuple[Table, np.ndarray]:
    """(table of order prev.order + 1, row of its n-gram ending at every position, -1 if none)."""
    k, radix = prev.order + 1, prev.radix
    occ = Occurrences(stream.ids, stream.pos, prev_rows, radix, k)
    rows_at = np.full(len(stream.ids), -1, dtype=np.int32)
    keys, counts, suffix = [], [], []
    seen = 0
    for group in sorted_groups(occ, len(prev) * radix):
        rank = np.zeros(len(group.positions), dtype=np.int32)
        rank[group.starts[1:]] = 1
        np.cumsum(rank, out=rank)
        rank += seen
        rows_at[group.positions] = rank
        del rank
        keys.append(group.keys)
        counts.append(np.diff(np.append(group.starts, len(group.positions))).astype(np.int32))
        suffix.append(prev_rows[group.positions[group.starts]].astype(np.int32))
        seen += len(group.keys)
    keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)
    ctx = (keys // np.uint64(radix)).astype(np.int64)
    word = (keys % np.uint64(radix)).astype(np.int32)
    del keys
    ctx_start = np.zeros(len(prev) + 1, dtype=index_dtype(len(word)))
    np.cumsum(np.bincount(ctx, minlength=len(prev)), out=ctx_start[1:])
    del ctx
    table = Table(k, radix, word, _concat(counts), _concat(suffix), ctx_start)
    return table, rows_at


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)


def count_tables(stream: Stream, n_ids: int, max_order: int) -> list[Table]:
    """Tables of orders 1..max_order from a training stream."""
    tables = [unigram_table(stream.ids, n_ids)]
    rows = stream.ids
    for _ in range(2, max_order + 1):
        table, rows = next_table(stream, tables[-1], rows)
        tables.append(table)
    return tables


def rows_in_stream(tables: Sequence[Table], stream: Stream) -> list[np.ndarray]:
    """For each order k, the table row of the k-gram ending at every position (-1 if unseen)."""
    ids = stream.ids.astype(np.int64)
    rows = [np.where(ids < tables[0].radix, ids, -1)]
    for table in tables[1:]:
        k = table.order
        prev = np.full(len(ids), -1, dtype=np.int64)
        prev[1:] = rows[-1][:-1]
        prev[stream.pos < k - 1] = -1
        rows.append(table.find(prev, ids))
    return rows
