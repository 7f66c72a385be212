"""NgramQuery: a model made ready for many perplexity queries (as ``kenlm.Model`` is for KenLM).

Built once from an :class:`~lmcore.ngram.model.NgramModel`: a :class:`HashIndex` per order and,
per level k, the log-values a query adds up. Along a history, level k turns p_{k-1} into
p_k = prob_k[r] where the k-gram r = (h, w) is stored, and into U(h) · p_{k-1} where only the
context h is; a stored k-gram's suffix (h', w) is stored and was level k-1's answer, so

    ln p(w | history) = Σ_{k ≤ m} d_k[r_k] + Σ_{m < k ≤ j} ln U_k(h_k),
    d_1[w] = ln prob_1[w],   d_k[r] = ln prob_k[r] − ln prob_{k-1}[suffix(r)],

where m is the longest stored n-gram ending at w and j the longest seen context. A query
therefore never holds a probability per position: each order adds the values of the positions
it reaches and hands the rows it found to the next order. Holds when every level builds on the
one below and no value is ln 0 (every Kneser-Ney method); otherwise (MLE, add-δ) a query is the
model's own ``perplexity``.

``perplexity_of_lines`` takes the text as KenLM's ``score`` does, one sentence per string, split
at whitespace as ``str.split`` splits, tokenised by Arrow (:mod:`lmcore.ngram.textio`) with one
dictionary lookup per distinct token; lines without a token are skipped, as when a file is read.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat

import numpy as np

from lmcore.lm_protocol import Perplexity, perplexity_from_sums
from lmcore.ngram.hashindex import HashIndex
from lmcore.ngram.model import NgramModel
from lmcore.ngram.textio import int32_values, split_text
from lmcore.ngram.vocab import EOS_ID, Stream, encode, stream_of_ids


def telescoped_values(model: NgramModel) -> list[np.ndarray] | None:
    """Per level k: d_k of every stored k-gram followed by ln U_k of every context row (0 where
    the context was never seen: p is then left as it is); None when the identity does not hold."""
    values = []
    below = None
    with np.errstate(divide="ignore"):
        for lv, table in zip(model.levels, model.tables):
            if lv.from_base:
                return None
            log_prob = np.log(lv.prob)
            d = log_prob if below is None else log_prob - below[table.suffix]
            log_u = np.log(np.where(lv.ctx_seen, lv.U, 1.0))
            predictable = np.ones(len(d), dtype=bool)
            if lv.order == 1:
                predictable[model.counts.vocab.bos] = False  # <s> is never predicted (p = 0)
                if not lv.ctx_seen[0]:
                    return None
            if not (np.isfinite(d[predictable]).all() and np.isfinite(log_u).all()):
                return None
            values.append(np.concatenate([d, log_u]))
            below = log_prob
    return values


class NgramQuery:
    """Fast perplexity of many sentences with one model; build once, query often."""

    def __init__(self, model: NgramModel) -> None:
        self.model = model
        self.values = telescoped_values(model)
        self.indexes = [HashIndex(t.keys) for t in model.tables[1:]] if self.values is not None else []
        self._id_of_bytes = {w.encode("utf-8"): i for w, i in model.counts.vocab.stoi.items()}

    @property
    def nbytes(self) -> int:
        """Bytes of the indexes and the per-level values (the model's own not counted)."""
        values = sum(v.nbytes for v in self.values) if self.values is not None else 0
        return values + sum(ix.nbytes for ix in self.indexes)

    def perplexity(self, sentences: Sequence[Sequence[str]]) -> Perplexity:
        """The model's ``perplexity(sentences)``, the same numbers."""
        counts = self.model.counts
        return self.perplexity_of_stream(encode(sentences, counts.vocab, counts.unk_trained))

    def perplexity_of_lines(self, lines: Iterable[str]) -> Perplexity:
        """Perplexity of the sentences ``lines`` (one per string, words separated by whitespace)."""
        text = "\n".join(lines)
        tokens, lengths = split_text(text.encode("utf-8"))
        counts = self.model.counts
        ids = self._ids_of(tokens)
        return self.perplexity_of_stream(stream_of_ids(ids, lengths, counts.vocab, counts.unk_trained))

    def _ids_of(self, tokens) -> np.ndarray:
        """Model ids of an Arrow array of token bytes (-1: not in the vocabulary): Arrow hashes
        the tokens into distinct ones, each distinct one is looked up once in a dictionary."""
        import pyarrow.compute as pc

        if tokens is None:
            return np.zeros(0, dtype=np.int64)
        encoded = pc.dictionary_encode(tokens)
        distinct = encoded.dictionary.to_pylist()
        type_ids = np.fromiter(map(self._id_of_bytes.get, distinct, repeat(-1, len(distinct))), dtype=np.int64,
                               count=len(distinct))
        return type_ids[int32_values(encoded.indices)]

    def perplexity_of_stream(self, stream: Stream) -> Perplexity:
        """Perplexity of an encoded stream (see the module docstring for the sum)."""
        if self.values is None:
            return self.model.perplexity_of_stream(stream)
        ids = stream.ids.astype(np.int64)
        where = np.flatnonzero(stream.pos >= 1)  # every predicted position
        n, oov = len(where), stream.oov
        any_oov = bool(oov[where].any())
        unigram = self.values[0][ids[where]]
        total, total_oov = float(unigram.sum()), float(unigram[oov[where]].sum()) if any_oov else 0.0
        context = ids[where - 1]  # order 2: the context row is the previous word's id
        look = None  # order 2: every (h', w) = w is a stored unigram
        for values, index, table in zip(self.values[1:], self.indexes, self.model.tables[1:]):
            words = ids[where]
            if look is None:
                rows = index.find(context * table.radix + words)
            else:
                rows = np.full(len(where), -1, dtype=np.int64)
                rows[look] = index.find(context[look] * table.radix + words[look])
            hit = rows >= 0
            added = values[np.where(hit, rows, len(table) + context)]
            total += float(added.sum())
            if any_oov:
                total_oov += float(added[oov[where]].sum())
            # the next order's positions follow a found k-gram inside its sentence (not after </s>);
            # each is itself a position of this order (its context's suffix was found), the next
            # one in ``where``, and its k-gram (h', w) was found there if ``hit`` holds there
            go = np.flatnonzero(hit & (words != EOS_ID))
            look = np.flatnonzero(hit[go + 1])
            where, context = where[go] + 1, rows[go]
        return perplexity_from_sums(total, total - total_oov, n, int(np.count_nonzero(oov)))  # all finite here
