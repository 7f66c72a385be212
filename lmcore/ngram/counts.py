"""Vectorised n-gram counting with integer ids (no Python dict per token).

Every training sentence becomes ``<s> w1 … wT </s>`` (one ``<s>``, used as context only; ``</s>``
is predicted). The padded sentences are concatenated into one id stream; ``pos[t]`` is the position of
token ``t`` inside its sentence (0 at ``<s>``). The n-gram of order k ending at ``t`` exists when
``pos[t] >= k-1``.

Tables are tries stored as sorted arrays: row r of order k is the n-gram ``(h, w)`` with
``key = row_of(h in order k-1) * V1 + id(w)``, so all n-grams sharing a context h are contiguous
and ``ctx_start[c] : ctx_start[c+1]`` lists the continuations of context row c.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import chain
from collections.abc import Sequence

import numpy as np

from lmcore.symbols import BOS, EOS, UNK

UNK_ID, EOS_ID = 0, 1


@dataclass(frozen=True)
class Vocab:
    """Token ids: ``<unk>`` = 0, ``</s>`` = 1, training words by decreasing count, then ``<s>`` last.

    ``words`` are the predictable tokens (|V| of the notes, ``<s>`` excluded); ``bos`` = len(words).
    """

    words: list[str]
    stoi: dict[str, int]

    @property
    def size(self) -> int:
        """|V|: the number of predictable tokens (``<unk>`` and ``</s>`` included, ``<s>`` not)."""
        return len(self.words)

    @property
    def bos(self) -> int:
        return len(self.words)

    @property
    def n_ids(self) -> int:
        """V1 = |V| + 1 (``<s>`` included): the radix of the packed keys."""
        return len(self.words) + 1

    def ids(self, tokens: Sequence[str]) -> np.ndarray:
        """Ids of tokens; words outside the vocabulary become ``<unk>`` (id 0)."""
        get = self.stoi.get
        return np.fromiter((get(w, UNK_ID) for w in tokens), dtype=np.int64, count=len(tokens))


def build_vocab(sentences: Sequence[Sequence[str]]) -> tuple[Vocab, Counter]:
    """The vocabulary of the training sentences and their raw counts (literal ``<s>``/``</s>``
    inside sentences are kept in the counter, so callers know whether to clean them out)."""
    counter = Counter(chain.from_iterable(sentences))
    words = [UNK, EOS] + [w for w, _ in counter.most_common() if w not in (UNK, BOS, EOS)]
    stoi = {w: i for i, w in enumerate(words)}
    stoi[BOS] = len(words)
    return Vocab(words, stoi), counter


@dataclass(frozen=True)
class Stream:
    """Padded sentences as one id stream. ``oov[t]`` marks tokens unseen in training."""

    ids: np.ndarray
    pos: np.ndarray
    oov: np.ndarray
    starts: np.ndarray  # index of each sentence's <s>


def encode(sentences: Sequence[Sequence[str]], vocab: Vocab, unk_trained: bool = False,
           clean: bool = True, mark_oov: bool = True) -> Stream:
    """Turn sentences into a :class:`Stream` ``<s> w1 … wT </s> <s> …``.

    A token is OOV when it is not a training word: a string outside the vocabulary, or a literal
    ``<unk>`` when ``<unk>`` did not occur in training (``unk_trained`` False). Literal
    ``<s>``/``</s>`` tokens inside a sentence are dropped (``clean``; the training path skips this
    when the vocabulary counter saw none). ``mark_oov=False`` leaves the OOV mask empty.
    """
    sents = [[w for w in s if w != BOS and w != EOS] for s in sentences] if clean else sentences
    lengths = np.fromiter((len(s) for s in sents), dtype=np.int64, count=len(sents)) + 2
    total = int(lengths.sum())
    starts = np.zeros(len(sents), dtype=np.int64)
    if len(sents):
        starts[1:] = np.cumsum(lengths)[:-1]
    ends = starts + lengths - 1
    flat = list(chain.from_iterable(sents))
    words = vocab.ids(flat)
    mask = np.ones(total, dtype=bool)
    mask[starts] = False
    mask[ends] = False
    ids = np.empty(total, dtype=np.int64)
    ids[mask] = words
    ids[starts] = vocab.bos
    ids[ends] = EOS_ID
    pos = np.arange(total, dtype=np.int64) - np.repeat(starts, lengths)
    oov = np.zeros(total, dtype=bool)
    if mark_oov:
        stoi = vocab.stoi
        word_oov = np.fromiter((w not in stoi for w in flat), dtype=bool, count=len(flat))
        if not unk_trained:
            word_oov |= words == UNK_ID
        oov[mask] = word_oov
    return Stream(ids, pos, oov, starts)


@dataclass(frozen=True)
class Table:
    """All n-grams of one order k seen in training, sorted by (context row, word).

    ``keys = ctx * radix + word``; ``count`` = raw count C(h, w); ``ctx`` = row of h in order k-1;
    ``word`` = id of w; ``suffix`` = row of (h', w) in order k-1 (h' = h without its first word);
    ``first`` = id of the first word; ``ctx_start[c]:ctx_start[c+1]`` = rows whose context is c.
    """

    order: int
    radix: int
    keys: np.ndarray
    count: np.ndarray
    ctx: np.ndarray
    word: np.ndarray
    suffix: np.ndarray
    first: np.ndarray
    ctx_start: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)

    def find(self, ctx_rows: np.ndarray, words: np.ndarray) -> np.ndarray:
        """Rows of the n-grams (context row, word), -1 where not stored or ctx_row < 0."""
        ctx_rows = np.asarray(ctx_rows, dtype=np.int64)
        words = np.asarray(words, dtype=np.int64)
        if self.order == 1:
            return np.where(ctx_rows >= 0, words, -1)
        if len(self.keys) == 0:
            return np.full(np.broadcast(ctx_rows, words).shape, -1, dtype=np.int64)
        query = ctx_rows * self.radix + words
        idx = np.searchsorted(self.keys, query)
        hit = self.keys[np.minimum(idx, len(self.keys) - 1)] == query
        return np.where((ctx_rows >= 0) & (idx < len(self.keys)) & hit, idx, -1)


def count_tables(stream: Stream, n_ids: int, max_order: int) -> list[Table]:
    """Tables of orders 1..max_order from a training stream (np.unique on packed keys).

    Order 1 holds every id (``<s>`` and an unseen ``<unk>`` with count 0 included).
    """
    ids, pos = stream.ids, stream.pos
    unigram = np.arange(n_ids, dtype=np.int64)
    tables = [Table(1, n_ids, unigram, np.bincount(ids, minlength=n_ids).astype(np.int64),
                    np.zeros(n_ids, dtype=np.int64), unigram, np.full(n_ids, -1, dtype=np.int64),
                    unigram, np.array([0, n_ids], dtype=np.int64))]
    row_at = ids.copy()  # row of the (k-1)-gram ending at each position (-1: none)
    for k in range(2, max_order + 1):
        t = np.nonzero(pos >= k - 1)[0]
        keys_t = row_at[t - 1] * n_ids + ids[t]
        keys, inverse, count = np.unique(keys_t, return_inverse=True, return_counts=True)
        inverse = inverse.ravel()
        prev = tables[-1]
        ctx = keys // n_ids
        new_row_at = np.full(len(ids), -1, dtype=np.int64)
        new_row_at[t] = inverse
        suffix = np.empty(len(keys), dtype=np.int64)
        suffix[inverse] = row_at[t]  # every occurrence of (h, w) has the same suffix (h', w)
        tables.append(Table(
            order=k, radix=n_ids, keys=keys, count=count.astype(np.int64), ctx=ctx,
            word=keys % n_ids, suffix=suffix, first=prev.first[ctx],
            ctx_start=np.searchsorted(keys, np.arange(len(prev) + 1, dtype=np.int64) * n_ids),
        ))
        row_at = new_row_at
    return tables


def rows_in_stream(tables: Sequence[Table], stream: Stream) -> list[np.ndarray]:
    """For each order k, the table row of the k-gram ending at every position (-1 if unseen)."""
    rows = [np.where(stream.ids < tables[0].radix, stream.ids, -1)]
    for table in tables[1:]:
        k = table.order
        prev = np.full(len(stream.ids), -1, dtype=np.int64)
        prev[1:] = rows[-1][:-1]
        prev[stream.pos < k - 1] = -1
        rows.append(table.find(prev, stream.ids))
    return rows
