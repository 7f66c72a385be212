"""Greedy decoding: take the most probable next token at every step,

.. math:: \\hat y_t = \\arg\\max_{w} P(w \\mid \\hat y_{<t}, x),

until the end token or the maximum length. Fast, but the product of locally best choices need not
be the most probable sequence :math:`\\arg\\max_y P(y \\mid x)`.
"""
from __future__ import annotations

from lmcore.decoding.scorers import Scorer, as_logprob_tensor
from lmcore.decoding.tree import Hypothesis, normalised_score


def greedy_decode(score: Scorer, max_len: int, end_id: int | None = None,
                  alpha: float = 0.0) -> Hypothesis:
    """The greedy output and its log-prob Σ_t log P(ŷ_t | ŷ_<t) (``end_id``: the scorer's by default)."""
    end_id = getattr(score, "end_id", None) if end_id is None else end_id
    tokens: list[int] = []
    logprob = 0.0
    for _ in range(max_len):
        row = as_logprob_tensor(score([tuple(tokens)]))[0]
        tok = int(row.argmax())
        tokens.append(tok)
        logprob += float(row[tok])
        if tok == end_id:
            break
    finished = end_id is not None and tokens[-1:] == [end_id]
    return Hypothesis(tuple(tokens), logprob, normalised_score(logprob, len(tokens), alpha),
                      finished, node=-1)
