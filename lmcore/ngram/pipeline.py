"""File in, perplexity and ARPA file out, holding one order's model at a time (the CLI's engine).

count (:func:`~lmcore.ngram.model.count_ngrams_file`) → for k = 1..N: build level k, advance the
test text's probabilities by it, write order k−1 of the ARPA file (its backoff weights are level
k's) → done. The levels are the very ones :class:`~lmcore.ngram.model.NgramModel` builds (same
code), so the numbers are the model's; only the memory differs: the counts plus two levels.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from lmcore.lm_protocol import Perplexity
from lmcore.ngram.arpa import ArpaWriter, _sink, check_arpa_method
from lmcore.ngram.levels import uniform_base
from lmcore.ngram.memory import release_freed_memory
from lmcore.ngram.methods import check_method, iter_levels
from lmcore.ngram.model import NgramCounts, count_ngrams_file
from lmcore.ngram.scoring import StreamScorer
from lmcore.ngram.textio import read_token_file
from lmcore.ngram.vocab import encode_tokens


@dataclass
class PipelineResult:
    """What a run produced: the vocabulary size |V|, n-grams per order, the test perplexity (None
    without a test text), the discounts per order (KN) and seconds per phase."""

    vocab_size: int
    ngrams: list[int]
    perplexity: Perplexity | None
    discounts: list = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


class _Clock:
    """Seconds per phase, added up."""

    def __init__(self) -> None:
        self.seconds = {"count": 0.0, "smooth": 0.0, "score": 0.0, "write": 0.0}
        self.mark = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.seconds[phase] += now - self.mark
        self.mark = now


class _Scorer(StreamScorer):
    """The test text's probabilities, advanced one level at a time."""

    def __init__(self, counts: NgramCounts, order: int, path: str | Path, base: np.ndarray) -> None:
        super().__init__(counts.tables, encode_tokens(read_token_file(path), counts.vocab,
                                                              counts.unk_trained), base, track=False)


def run(train: str | Path, order: int, method: str = "modified-kn", delta: float = 1.0,
        discount: float = 0.75, test: str | Path | None = None, arpa: str | Path | None = None,
        lmplz_exact: bool = True) -> PipelineResult:
    """Count ``train``, smooth with ``method`` at ``order``, score ``test``, write ``arpa``.

    Memory: once level k is built, the counts and suffix links of order k are no longer needed
    (the ARPA text and the lookups use the keys alone) and are released."""
    check_method(method, delta, discount)
    if arpa is not None:
        check_arpa_method(method)
    clock = _Clock()
    counts = count_ngrams_file(train, order)
    tables = counts.tables  # this run's own counts: stripped as the levels pass
    release_freed_memory()
    clock.lap("count")
    base = uniform_base(counts.vocab.size)
    scorer = _Scorer(counts, order, test, base) if test is not None else None
    clock.lap("score")
    info: list = []
    kenlm_ids = counts.vocab.kenlm_ids if lmplz_exact else None
    levels = iter_levels(tables, order, method, base, delta, discount, kenlm_ids, info)
    write, close = _sink(arpa) if arpa is not None else (None, None)
    try:
        writer = ArpaWriter(write, tables, order, counts.vocab.words) if write else None
        clock.lap("write")
        for level in levels:
            clock.lap("smooth")
            if scorer is not None:
                scorer.advance(level)
            clock.lap("score")
            if writer is not None:
                writer.feed(level)
            k = level.order
            del level
            done = tables[k - 1]
            tables[k - 1] = replace(done, count=np.zeros(0, done.count.dtype), suffix=np.zeros(0, done.suffix.dtype))
            del done
            release_freed_memory()
            clock.lap("write")
        if writer is not None:
            writer.close()
    finally:
        if close is not None:
            close()
    clock.lap("write")
    return PipelineResult(counts.vocab.size, [len(t) for t in tables], scorer.perplexity() if scorer else None,
                          info, clock.seconds)
