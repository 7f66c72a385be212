"""Test oracle: a plain per-hypothesis Python beam search (the reference for tests and the benchmark).

Same rule as :func:`lmcore.decoding.beam.beam_search` (keep the best ``k - #finished`` of
s(y_<t) + log P(w | y_<t)), written the slow, obvious way: one scorer call per hypothesis and a
Python loop over every token. No tree is recorded.
"""
from __future__ import annotations

import heapq

from lmcore.decoding.scorers import Prefix, Scorer, as_logprob_tensor
from lmcore.decoding.tree import Hypothesis, normalised_score


def beam_search_loop(score: Scorer, beam_width: int, max_len: int, end_id: int | None = None,
                     alpha: float = 0.0) -> list[Hypothesis]:
    """The n-best list of beam search, hypothesis by hypothesis, token by token."""
    beam: list[tuple[float, Prefix]] = [(0.0, ())]
    finished: list[tuple[float, Prefix]] = []
    for _ in range(max_len):
        slots = beam_width - len(finished)
        if slots <= 0 or not beam:
            break
        candidates: list[tuple[float, int, int]] = []
        for h, (s, prefix) in enumerate(beam):
            row = as_logprob_tensor(score([prefix]))[0].tolist()
            for tok, lp in enumerate(row):
                if lp != float("-inf"):
                    candidates.append((s + lp, h, tok))
        best = heapq.nlargest(slots, candidates, key=lambda c: c[0])
        new_beam = []
        for s, h, tok in best:
            y = beam[h][1] + (tok,)
            (finished if tok == end_id else new_beam).append((s, y))
        beam = new_beam
    pool = [(s, y, True) for s, y in finished] or [(s, y, False) for s, y in beam]
    hyps = [Hypothesis(y, s, normalised_score(s, len(y), alpha), done, -1) for s, y, done in pool]
    return sorted(hyps, key=lambda h: -h.normalised)
