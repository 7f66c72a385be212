"""File in, perplexity and ARPA file out, holding one order's model at a time (the CLI's engine).

count (:func:`~lmcore.ngram.model.count_ngrams_file`) → for k = 1..N: build level k, advance the
test text's probabilities by it, write order k−1 of the ARPA file (its backoff weights are level
k's) → done. The levels are the very ones :class:`~lmcore.ngram.model.NgramModel` builds (same
code), so the numbers are the model's; only the memory differs: the counts plus two levels.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lmcore.lm_protocol import Perplexity, perplexity_from_logprobs
from lmcore.ngram.arpa import ArpaWriter, _sink, check_arpa_method
from lmcore.ngram.levels import uniform_base
from lmcore.ngram.methods import check_method, iter_levels
from lmcore.ngram.model import NgramCounts, count_ngrams_file
from lmcore.ngram.scoring import StreamScorer
from lmcore.ngram.textio import read_token_file
from lmcore.ngram.vocab import encode_tokens


@dataclass
class PipelineResult:
    """What a run produced: the counts, the test perplexity (None without a test text), the
    discounts per order (KN) and seconds per phase."""

    counts: NgramCounts
    perplexity: Perplexity | None
    discounts: list = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


class _Scorer(StreamScorer):
    """The test text's probabilities, advanced one level at a time."""

    def __init__(self, counts: NgramCounts, order: int, path: str | Path, base: np.ndarray) -> None:
        super().__init__(counts.tables[:order], encode_tokens(read_token_file(path), counts.vocab,
                                                              counts.unk_trained), base, track=False)

    def result(self) -> Perplexity:
        keep = self.stream.pos >= 1
        with np.errstate(divide="ignore"):
            logp = np.log(self.p[keep])
        return perplexity_from_logprobs(logp, self.stream.oov[keep])


def run(train: str | Path, order: int, method: str = "modified-kn", delta: float = 1.0,
        discount: float = 0.75, test: str | Path | None = None, arpa: str | Path | None = None,
        lmplz_exact: bool = True) -> PipelineResult:
    """Count ``train``, smooth with ``method`` at ``order``, score ``test``, write ``arpa``."""
    check_method(method, delta, discount)
    if arpa is not None:
        check_arpa_method(method)
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    counts = count_ngrams_file(train, order)
    seconds["count"] = time.perf_counter() - start
    base = uniform_base(counts.vocab.size)
    scorer = None
    if test is not None:
        mark = time.perf_counter()
        scorer = _Scorer(counts, order, test, base)
        seconds["score"] = time.perf_counter() - mark
    info: list = []
    kenlm_ids = counts.vocab.kenlm_ids if lmplz_exact else None
    levels = iter_levels(counts.tables[:order], order, method, base, delta, discount, kenlm_ids, info)
    write, close = _sink(arpa) if arpa is not None else (None, None)
    seconds.setdefault("score", 0.0)
    seconds["smooth"] = seconds["write"] = 0.0
    try:
        writer = ArpaWriter(write, counts.tables, order, counts.vocab.words) if write else None
        mark = time.perf_counter()
        for level in levels:
            now = time.perf_counter()
            seconds["smooth"] += now - mark
            if scorer is not None:
                scorer.advance(level)
            mark = time.perf_counter()
            seconds["score"] += mark - now
            if writer is not None:
                writer.feed(level)
            del level
            now, mark = mark, time.perf_counter()
            seconds["write"] += mark - now
        if writer is not None:
            writer.close()
            seconds["write"] += time.perf_counter() - mark
    finally:
        if close is not None:
            close()
    return PipelineResult(counts, scorer.result() if scorer else None, info, seconds)
