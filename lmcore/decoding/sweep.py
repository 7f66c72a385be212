"""Beam-width sweep: separates search error from model error.

For each k the best score found, :math:`\\max_{y \\in \\text{beam}_k} s(y)/|y|^\\alpha`, against the
exhaustive optimum :math:`\\max_y s(y)/|y|^\\alpha` of the same model. The gap is the *search
error* (the model prefers a sequence the search did not find); whether that optimum is a good
output at all is the *model error*, which no search width can fix.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lmcore.decoding.beam import beam_search
from lmcore.decoding.exhaustive import exhaustive_search
from lmcore.decoding.scorers import Scorer
from lmcore.decoding.tree import Hypothesis


@dataclass(frozen=True)
class SweepPoint:
    beam_width: int
    best: Hypothesis


def beam_width_sweep(score: Scorer, widths: Sequence[int], max_len: int,
                     end_id: int | None = None, alpha: float = 0.0,
                     pruned_per_parent: int | None = 0) -> list[SweepPoint]:
    """The best hypothesis found by beam search for each width in ``widths``."""
    return [SweepPoint(k, beam_search(score, k, max_len, end_id, alpha, pruned_per_parent).best)
            for k in widths]


def exhaustive_optimum(score: Scorer, max_len: int, end_id: int | None = None,
                       alpha: float = 0.0, max_prefixes: int = 200_000) -> Hypothesis | None:
    """The true optimum, or None when the space is too large to enumerate."""
    try:
        found = exhaustive_search(score, max_len, end_id, alpha, max_prefixes, n_best=1)
    except ValueError:
        return None
    return found[0] if found else None
