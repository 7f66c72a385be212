"""NgramModel: fit, P(w | h), next-word distributions, sentence scores, perplexity, sampling, ARPA.

Conventions (KenLM/SRILM): a sentence is ``<s> x1 … xT </s>``; ``</s>`` is predicted and counted as
a token, ``<s>`` only ever a context; the vocabulary is the training words plus ``</s>`` and
``<unk>``; a word unseen in training is an OOV, scored as ``<unk>``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import IO
from collections.abc import Sequence

import numpy as np

from lmcore.lm_protocol import LanguageModelMixin, Perplexity, TokenLogProbs
from lmcore.ngram.arpa import write_arpa
from lmcore.ngram.counts import Table, count_tables
from lmcore.ngram.levels import context_row, distribution_for, uniform_base
from lmcore.ngram.memory import MAX_ORDER
from lmcore.ngram.methods import build_levels
from lmcore.ngram.scoring import StreamScorer
from lmcore.ngram.textio import TokenIds, read_token_file, tokens_of_sentences
from lmcore.ngram.vocab import (BOS, EOS, UNK_ID, Stream, Vocab, build_vocab, drop_boundary_literals,
                                encode, pad)


@dataclass(frozen=True)
class NgramCounts:
    """Counts of all n-grams up to ``max_order`` of a training set (shared by every method/order)."""

    vocab: Vocab
    tables: list[Table]
    unk_trained: bool

    @property
    def max_order(self) -> int:
        return len(self.tables)

    @cached_property
    def nbytes(self) -> int:
        """Bytes held: the count tables (16 per n-gram of order ≥ 2) plus the vocabulary's Python
        strings, list and dict (≈ 100–150 per word type)."""
        words = self.vocab.words
        strings = sum(sys.getsizeof(w) for w in words) + sys.getsizeof(words) + sys.getsizeof(self.vocab.stoi)
        ids = self.vocab.kenlm_ids.nbytes if self.vocab.kenlm_ids is not None else 0
        return int(sum(t.nbytes for t in self.tables) + strings + ids)


def _stream_of(tokens: TokenIds) -> tuple[Vocab, Stream, bool]:
    """(vocabulary, padded id stream, ``<unk>`` seen in training) of tokenised training text."""
    vocab, id_map, unk_trained = build_vocab(tokens)
    words, lengths = id_map[tokens.ids], tokens.lengths
    literal = words < 0
    if literal.any():
        words, lengths = drop_boundary_literals(words, lengths, literal)
    return vocab, pad(words, lengths, vocab.bos), bool(unk_trained)


def _check_order(max_order: int) -> None:
    if not 1 <= max_order <= MAX_ORDER:
        raise ValueError(f"order must be between 1 and {MAX_ORDER}")


def count_ngrams(sentences: Sequence[Sequence[str]], max_order: int) -> NgramCounts:
    """Count the n-grams of orders 1..max_order of ``<s> sentence </s>`` (vectorised)."""
    _check_order(max_order)
    vocab, stream, unk_trained = _stream_of(tokens_of_sentences(sentences))  # the tokens are freed here
    return NgramCounts(vocab, count_tables(stream, vocab.n_ids, max_order), unk_trained)


def count_ngrams_file(path: str | Path, max_order: int) -> NgramCounts:
    """:func:`count_ngrams` of a text file, one sentence per line, without Python lists."""
    _check_order(max_order)
    vocab, stream, unk_trained = _stream_of(read_token_file(path))
    return NgramCounts(vocab, count_tables(stream, vocab.n_ids, max_order), unk_trained)


@dataclass(frozen=True)
class StreamScores:
    """Vectorised scores of many sentences: one entry per predicted token (``<s>`` excluded)."""

    logprobs: np.ndarray
    oov: np.ndarray
    found_order: np.ndarray
    context_order: np.ndarray
    available_order: np.ndarray
    sentence: np.ndarray
    ids: np.ndarray


class NgramModel(LanguageModelMixin):
    """An n-gram language model of order N (1..6) with one smoothing method (see ``METHODS``).

    ``lmplz_exact`` (modified KN only): take the count-of-counts exactly as KenLM's lmplz does,
    one raw count per order included (see :mod:`lmcore.ngram.discounts`); False: the textbook
    count-of-counts.
    """

    def __init__(self, counts: NgramCounts, order: int, method: str = "modified-kn",
                 delta: float = 1.0, discount: float = 0.75, *, lmplz_exact: bool = True) -> None:
        if not 1 <= order <= counts.max_order:
            raise ValueError(f"order must be between 1 and {counts.max_order}")
        self.counts, self.order, self.method = counts, order, method
        self.delta, self.discount = float(delta), float(discount)
        self.tables = counts.tables[:order]
        self.base = uniform_base(counts.vocab.size)
        self.levels, self.discounts, self.discount_fallback = build_levels(
            self.tables, order, method, self.base, self.delta, self.discount,
            counts.vocab.kenlm_ids if lmplz_exact else None)

    @classmethod
    def fit(cls, sentences: Sequence[Sequence[str]], order: int = 3, method: str = "modified-kn",
            delta: float = 1.0, discount: float = 0.75, *, lmplz_exact: bool = True) -> NgramModel:
        """Count and smooth in one go: ``NgramModel.fit(train, 5, "modified-kn")``."""
        return cls(count_ngrams(sentences, order), order, method, delta, discount, lmplz_exact=lmplz_exact)

    @property
    def vocab(self) -> list[str]:
        """The predictable tokens: ``<unk>``, ``</s>``, then training words by decreasing count."""
        return self.counts.vocab.words

    @property
    def nbytes(self) -> int:
        """Bytes held by the levels (the counts are shared: see ``NgramCounts.nbytes``)."""
        return sum(lv.nbytes for lv in self.levels)

    def __repr__(self) -> str:
        return f"NgramModel(order={self.order}, method={self.method!r}, |V|={len(self.vocab)})"

    # --- counts -----------------------------------------------------------------------------
    def token_ids(self, tokens: Sequence[str]) -> list[int]:
        """Ids of tokens (``<s>`` included; words outside the vocabulary map to ``<unk>``)."""
        stoi = self.counts.vocab.stoi
        return [stoi.get(w, UNK_ID) for w in tokens]

    def count(self, ngram: Sequence[str]) -> int:
        """Raw count C(ngram) in training (``<s>`` allowed in front); 0 if never seen."""
        if not ngram or len(ngram) > self.order:
            return 0
        row = context_row(self.tables, self.token_ids(ngram))
        return int(self.tables[len(ngram) - 1].count[row]) if row >= 0 else 0

    def context_count(self, context: Sequence[str]) -> int:
        """C(h) = Σ_w C(h, w): how often the context h was followed by a predicted token."""
        if len(context) == 0:
            return int(self.tables[0].count[:-1].sum())
        if len(context) >= self.order:
            return 0
        row = context_row(self.tables, self.token_ids(context))
        if row < 0:
            return 0
        nxt = self.tables[len(context)]
        lo, hi = nxt.ctx_range(row)
        return int(nxt.count[lo:hi].sum())

    # --- probabilities ----------------------------------------------------------------------
    def distribution(self, context: Sequence[str]) -> np.ndarray:
        """P(· | context) over ``vocab`` (the last N−1 tokens count; ``<s>`` marks a start)."""
        ids = self.token_ids(list(context)[max(0, len(context) - (self.order - 1)):]) if self.order > 1 else []
        return distribution_for(self.levels, self.tables, ids, self.base)[:-1]

    def prob(self, word: str, context: Sequence[str] = ()) -> float:
        """P(word | context); a word outside the vocabulary is scored as ``<unk>``."""
        return float(self.distribution(context)[self.token_ids([word])[0]])

    def score_ids(self, stream: Stream, track: bool = True) -> StreamScores:
        """Scores of every predicted token of an encoded stream (vectorised); ``track=False``
        skips the orders of the path (``found_order``/``context_order`` are then None)."""
        scorer = StreamScorer(self.tables, stream, self.base, track).advance_all(self.levels)
        keep = scorer.predicted
        logp = scorer.logprobs()
        sentence = np.repeat(np.arange(len(stream.starts)), np.diff(np.append(stream.starts, len(stream.ids))) - 1)
        available = np.minimum(stream.pos[keep].astype(np.int64) + 1, self.order)
        found = scorer.found[keep].astype(np.int64) if track else None
        used = scorer.used[keep].astype(np.int64) if track else None
        return StreamScores(logp, stream.oov[keep], found, used, available, sentence, scorer.ids[keep])

    def score_stream(self, sentences: Sequence[Sequence[str]], track: bool = True) -> StreamScores:
        """Scores of every predicted token of many sentences at once (vectorised)."""
        return self.score_ids(encode(sentences, self.counts.vocab, self.counts.unk_trained), track)

    def sentence_logprobs(self, tokens: Sequence[str]) -> TokenLogProbs:
        """ln P(x_t | x_<t) token by token for ``<s> tokens </s>``, with the path of each."""
        s = self.score_stream([list(tokens)])
        words = [w for w in tokens if w not in (BOS, EOS)] + [EOS]
        return TokenLogProbs(words, s.logprobs, s.oov, s.found_order, s.context_order,
                             s.available_order)

    def perplexity(self, sentences: Sequence[Sequence[str]]) -> Perplexity:
        """Perplexity with and without OOVs, OOV and token counts (``</s>`` counted)."""
        return self.perplexity_of_stream(encode(sentences, self.counts.vocab, self.counts.unk_trained))

    def perplexity_of_stream(self, stream: Stream) -> Perplexity:
        """:meth:`perplexity` of an encoded stream."""
        return StreamScorer(self.tables, stream, self.base, track=False).advance_all(self.levels).perplexity()

    def to_arpa(self, target: str | Path | IO[str]) -> None:
        """Write the model as an ARPA file (log10 probabilities and backoff weights)."""
        write_arpa(self, target)
