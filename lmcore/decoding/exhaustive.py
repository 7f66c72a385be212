"""Exhaustive search: the true :math:`\\arg\\max_y P(y \\mid x)` by scoring every sequence.

Enumerates every output of length ≤ ``max_len`` (ending with the end token, or exactly
``max_len`` tokens when there is no end token); costs |V|^L scorer rows, so only for small spaces.
"""
from __future__ import annotations

from lmcore.decoding.scorers import Prefix, Scorer, as_logprob_tensor
from lmcore.decoding.tree import Hypothesis, normalised_score


def exhaustive_search(score: Scorer, max_len: int, end_id: int | None = None, alpha: float = 0.0,
                      max_prefixes: int = 200_000, n_best: int = 10) -> list[Hypothesis]:
    """The ``n_best`` complete outputs with the highest s(y)/|y|^α, best first (``end_id``: the
    scorer's by default)."""
    end_id = getattr(score, "end_id", None) if end_id is None else end_id
    frontier: list[tuple[Prefix, float]] = [((), 0.0)]
    complete: list[tuple[Prefix, float, bool]] = []
    vocab = 1
    for depth in range(1, max_len + 1):
        if not frontier:
            break
        if len(frontier) * vocab > max_prefixes:
            raise ValueError("search space too large for exhaustive search")
        rows = as_logprob_tensor(score([p for p, _ in frontier])).tolist()
        vocab = len(rows[0])
        nxt: list[tuple[Prefix, float]] = []
        for (prefix, s), row in zip(frontier, rows):
            for tok, lp in enumerate(row):
                if lp == float("-inf"):
                    continue
                if tok == end_id:
                    complete.append((prefix + (tok,), s + lp, True))
                elif depth == max_len:
                    complete.append((prefix + (tok,), s + lp, False))
                else:
                    nxt.append((prefix + (tok,), s + lp))
        frontier = nxt
    if end_id is not None and any(done for *_, done in complete):
        complete = [c for c in complete if c[2]]
    hyps = [Hypothesis(y, s, normalised_score(s, len(y), alpha), done, -1)
            for y, s, done in complete]
    return sorted(hyps, key=lambda h: -h.normalised)[:n_best]
