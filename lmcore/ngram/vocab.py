"""Vocabulary (token ids) and the padded id stream ``<s> w1 … wT </s> <s> …`` of many sentences.

Ids: ``<unk>`` = 0, ``</s>`` = 1, training words by decreasing count (ties: first appearance),
then ``<s>`` last. ``kenlm_ids`` numbers the same tokens as KenLM's lmplz does (``<unk>`` = 0,
``<s>`` = 1, ``</s>`` = 2, then words in order of first appearance): lmplz's sort order, needed
only to reproduce its count-of-counts exactly (see :mod:`lmcore.ngram.discounts`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain, repeat
from collections.abc import Sequence

import numpy as np

from lmcore.symbols import BOS, EOS, UNK

from lmcore.ngram.textio import TokenIds

UNK_ID, EOS_ID = 0, 1
POS_CLIP = 255


@dataclass(frozen=True)
class Vocab:
    """Token ids: ``<unk>`` = 0, ``</s>`` = 1, training words by decreasing count, then ``<s>`` last.

    ``words`` are the predictable tokens (|V| of the notes, ``<s>`` excluded); ``bos`` = len(words).
    """

    words: list[str]
    stoi: dict[str, int]
    kenlm_ids: np.ndarray | None = field(default=None, compare=False, repr=False)

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


def build_vocab(tokens: TokenIds) -> tuple[Vocab, np.ndarray, bool]:
    """(vocabulary, our id of every type of ``tokens`` (-1: a literal ``<s>``/``</s>``, dropped),
    whether ``<unk>`` occurred in training)."""
    types = tokens.types
    counts = np.bincount(tokens.ids, minlength=len(types)).astype(np.int64)
    special = {w: i for i, w in enumerate(types) if w in (UNK, BOS, EOS)}
    plain = np.ones(len(types), dtype=bool)
    plain[list(special.values())] = False
    order = np.flatnonzero(plain)
    order = order[np.argsort(-counts[order], kind="stable")]  # Counter.most_common's order
    words = [UNK, EOS] + [types[i] for i in order.tolist()]
    id_map = np.full(len(types), -1, dtype=np.int32)
    id_map[order] = np.arange(2, 2 + len(order), dtype=np.int32)
    if UNK in special:
        id_map[special[UNK]] = UNK_ID
    stoi = dict(zip(words, range(len(words))))
    stoi[BOS] = len(words)
    kenlm = np.empty(len(words) + 1, dtype=np.int64)
    kenlm[[UNK_ID, EOS_ID, len(words)]] = [0, 2, 1]
    plain_ids = id_map[plain]  # plain types in first-appearance order
    kenlm[plain_ids] = np.arange(3, 3 + len(plain_ids))
    return Vocab(words, stoi, kenlm), id_map, UNK in special and counts[special[UNK]] > 0


@dataclass(frozen=True)
class Stream:
    """Padded sentences as one id stream ``<s> w1 … </s> <s> …``.

    ``ids`` int32; ``pos[t]`` = position of token t inside its sentence (0 at ``<s>``), clipped
    at 255 (uint8); ``oov[t]`` marks tokens unseen in training (None: not marked); ``starts`` =
    index of each sentence's ``<s>``.
    """

    ids: np.ndarray
    pos: np.ndarray
    oov: np.ndarray | None
    starts: np.ndarray

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.ids, self.pos, self.starts) if a is not None) + (
            self.oov.nbytes if self.oov is not None else 0)


def pad(words: np.ndarray, lengths: np.ndarray, bos: int, oov: np.ndarray | None = None) -> Stream:
    """The stream of sentences given as one flat id array ``words`` and ``lengths`` per sentence."""
    lengths = np.asarray(lengths, dtype=np.int64)
    padded = lengths + 2
    total = int(padded.sum())
    if total >= 2 ** 31 - 1:
        raise ValueError("text too long: more than 2**31 tokens")
    starts = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(padded[:-1], out=starts[1:])
    ends = starts + padded - 1
    ids = np.empty(total, dtype=np.int32)
    mask = np.ones(total, dtype=bool)
    mask[starts] = False
    mask[ends] = False
    ids[mask] = words
    ids[starts] = bos
    ids[ends] = EOS_ID
    pos32 = np.arange(total, dtype=np.int32)
    pos32 -= np.repeat(starts.astype(np.int32), padded)
    pos = np.minimum(pos32, POS_CLIP).astype(np.uint8)
    del pos32
    full_oov = None
    if oov is not None:
        full_oov = np.zeros(total, dtype=bool)
        full_oov[mask] = oov
    return Stream(ids, pos, full_oov, starts)


def drop_boundary_literals(ids: np.ndarray, lengths: np.ndarray, drop: np.ndarray,
                           *others: np.ndarray) -> tuple:
    """Remove the tokens marked ``drop`` (literal ``<s>``/``</s>``), keeping every sentence."""
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    lengths = lengths - np.bincount(sentence[drop], minlength=len(lengths))
    keep = ~drop
    return (ids[keep], lengths, *(o[keep] for o in others))


def encode(sentences: Sequence[Sequence[str]], vocab: Vocab, unk_trained: bool = False) -> Stream:
    """Stream of ``sentences`` with OOVs marked: a token is OOV when it is not a training word (a
    string outside the vocabulary, or a literal ``<unk>`` when ``<unk>`` did not occur in
    training); OOVs get id ``<unk>``. Literal ``<s>``/``</s>`` inside a sentence are dropped."""
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
    n = int(lengths.sum())
    ids = np.fromiter(map(vocab.stoi.get, chain.from_iterable(sentences), repeat(-1, n)), dtype=np.int64, count=n)
    return stream_of_ids(ids, lengths, vocab, unk_trained)


def encode_tokens(tokens: TokenIds, vocab: Vocab, unk_trained: bool = False) -> Stream:
    """:func:`encode` for tokenised text (one dictionary lookup per distinct token)."""
    get = vocab.stoi.get
    type_ids = np.fromiter((get(w, -1) for w in tokens.types), dtype=np.int64, count=len(tokens.types))
    return stream_of_ids(type_ids[tokens.ids], tokens.lengths, vocab, unk_trained)


def stream_of_ids(ids: np.ndarray, lengths: np.ndarray, vocab: Vocab, unk_trained: bool) -> Stream:
    """Word ids (-1: not in the vocabulary) → the padded stream: unknown words become ``<unk>``
    (and count as OOV unless the model was trained with ``<unk>``); literal ``<s>``/``</s>`` dropped."""
    oov = ids < 0
    if not unk_trained:
        oov |= ids == UNK_ID
    ids[ids < 0] = UNK_ID
    literal = (ids == vocab.bos) | (ids == EOS_ID)
    if literal.any():
        ids, lengths, oov = drop_boundary_literals(ids, lengths, literal, oov)
    return pad(ids, lengths, vocab.bos, oov)
