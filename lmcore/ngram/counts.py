"""n-gram counting on the padded id stream (see :mod:`lmcore.ngram.vocab`), tables as sorted arrays.

Every training sentence becomes ``<s> w1 … wT </s>`` (one ``<s>``, used as context only; ``</s>``
is predicted). The n-gram of order k ending at position t exists when ``pos[t] >= k-1``.

A table of order k is a trie level stored as one sorted array of packed keys: row r is the
n-gram ``(h, w)`` with ``key = row of h in order k-1 · V1 + id of w``. Rows are therefore sorted
lexicographically by their word ids, and all n-grams sharing a context h are contiguous, by
increasing word id. A lookup is a ``searchsorted`` of the packed query; the word and context of
a row are ``key % V1`` and ``key // V1``. Each order is counted with one packed sort of its
occurrences (:mod:`lmcore.ngram.sorting`); the rank of every occurrence is the next order's
context row. Held per n-gram: key (8 bytes), count and suffix link (int32) — 16 bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from lmcore.ngram.memory import release_freed_memory
from lmcore.ngram.search import lookup
from lmcore.ngram.sorting import Occurrences, sorted_groups
from lmcore.ngram.vocab import (BOS, EOS, EOS_ID, UNK, UNK_ID, Stream, Vocab, build_vocab,  # noqa: F401
                                encode)

__all__ = ["BOS", "EOS", "UNK", "UNK_ID", "EOS_ID", "Stream", "Vocab", "Table", "build_vocab", "encode",
           "count_tables", "rows_in_stream"]


@dataclass(frozen=True)
class Table:
    """All n-grams of one order k seen in training, sorted by (context row, word).

    ``keys = ctx · radix + word`` (int64, increasing); ``count`` = raw count C(h, w); ``suffix`` =
    row of (h', w) in order k-1 (h' = h without its first word; -1 for unigrams);
    ``n_contexts`` = rows of order k-1 (1 for unigrams: the empty context).
    """

    order: int
    radix: int
    n_contexts: int
    keys: np.ndarray
    count: np.ndarray
    suffix: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.count.nbytes + self.suffix.nbytes

    @property
    def word(self) -> np.ndarray:
        """Id of w per row (int32; computed from the keys)."""
        return (self.keys % self.radix).astype(np.int32)

    def words(self, lo: int, hi: int) -> np.ndarray:
        """Ids of w of rows lo:hi."""
        return self.keys[lo:hi] % self.radix

    @property
    def ctx(self) -> np.ndarray:
        """Row of the context h in order k-1, per row (computed from the keys)."""
        return self.keys // self.radix

    def ctx_of(self, rows) -> np.ndarray:
        """Context row of each of ``rows``."""
        return self.keys[rows] // self.radix

    def ctx_range(self, c: int) -> tuple[int, int]:
        """Rows ``lo:hi`` of the continuations of context row c."""
        lo, hi = np.searchsorted(self.keys, np.array([c, c + 1], dtype=np.int64) * self.radix)
        return int(lo), int(hi)

    @property
    def ctx_start(self) -> np.ndarray:
        """``ctx_start[c]:ctx_start[c+1]`` = rows of context c, for every c (computed, not kept)."""
        return np.searchsorted(self.keys, np.arange(self.n_contexts + 1, dtype=np.int64) * self.radix)

    def find(self, ctx_rows: np.ndarray, words: np.ndarray) -> np.ndarray:
        """Rows of the n-grams (context row, word), -1 where not stored or ctx_row < 0.

        The packed queries are sorted first (:mod:`lmcore.ngram.search`)."""
        ctx_rows = np.asarray(ctx_rows, dtype=np.int64)
        words = np.asarray(words, dtype=np.int64)
        ctx_rows, words = np.broadcast_arrays(ctx_rows, words)
        shape = ctx_rows.shape
        ctx_rows, words = ctx_rows.ravel(), words.ravel()
        out = np.full(len(ctx_rows), -1, dtype=np.int64)
        live = np.flatnonzero((ctx_rows >= 0) & (ctx_rows < self.n_contexts) & (words >= 0) & (words < self.radix))
        if len(live) and len(self):
            out[live] = self.lookup(ctx_rows[live] * self.radix + words[live])
        return out.reshape(shape)

    def lookup(self, query: np.ndarray) -> np.ndarray:
        """Rows of packed keys ``query`` (int64), -1 where not stored."""
        return lookup(self.keys, query, self.n_contexts * self.radix)


def unigram_table(ids: np.ndarray, n_ids: int) -> Table:
    """Order 1: every id (``<s>`` and an unseen ``<unk>`` with count 0 included)."""
    return Table(1, n_ids, 1, np.arange(n_ids, dtype=np.int64), np.bincount(ids, minlength=n_ids).astype(np.int64),
                 np.full(n_ids, -1, dtype=np.int32))


def next_table(stream: Stream, prev: Table, prev_rows: np.ndarray) -> tuple[Table, np.ndarray]:
    """(table of order prev.order + 1, row of its n-gram ending at every position, -1 if none)."""
    k, radix = prev.order + 1, prev.radix
    occ = Occurrences(stream.ids, stream.pos, prev_rows, radix, k)
    rows_at = np.full(len(stream.ids), -1, dtype=np.int32)
    n_occ = int(np.count_nonzero(stream.pos >= k - 1))
    # at most one n-gram per occurrence: allocated at that bound (pages never written cost no
    # memory), filled bucket by bucket, shrunk in place at the end
    keys = np.empty(n_occ, dtype=np.int64)
    counts = np.empty(n_occ, dtype=np.int32)
    suffix = np.empty(n_occ, dtype=np.int32)
    n = 0
    for group in sorted_groups(occ, len(prev) * radix):
        m = len(group.keys)
        rank = np.zeros(len(group.positions), dtype=np.int32)
        rank[group.starts[1:]] = 1
        np.cumsum(rank, out=rank)
        rank += n
        rows_at[group.positions] = rank
        del rank
        keys[n:n + m] = group.keys.view(np.int64)
        counts[n:n + m - 1] = np.diff(group.starts)
        counts[n + m - 1] = len(group.positions) - group.starts[-1]
        suffix[n:n + m] = prev_rows[group.positions[group.starts]]
        n += m
    for array in (keys, counts, suffix):
        array.resize(n, refcheck=False)
    return Table(k, radix, len(prev), keys, counts, suffix), rows_at


def count_tables(stream: Stream, n_ids: int, max_order: int) -> list[Table]:
    """Tables of orders 1..max_order from a training stream."""
    tables = [unigram_table(stream.ids, n_ids)]
    rows = stream.ids
    for _ in range(2, max_order + 1):
        table, rows = next_table(stream, tables[-1], rows)
        tables.append(table)
        release_freed_memory()  # this order's sort buffers, before the next order allocates its own
    return tables


def rows_in_stream(tables: Sequence[Table], stream: Stream) -> list[np.ndarray]:
    """For each order k, the table row of the k-gram ending at every position (-1 if unseen).

    Only positions whose (k−1)-gram ending there was seen are looked up at order k (a k-gram is
    stored only if its suffix is), with the context row read at the position before."""
    ids = stream.ids.astype(np.int64)
    rows = [np.where(ids < tables[0].radix, ids, -1)]
    for table in tables[1:]:
        k = table.order
        prev = rows[-1]
        t = np.flatnonzero(prev >= 0)
        t = t[t >= 1]
        t = t[(stream.pos[t] >= k - 1) & (prev[t - 1] >= 0)]
        row = np.full(len(ids), -1, dtype=np.int64)
        row[t] = table.find(prev[t - 1], ids[t])
        rows.append(row)
    return rows
