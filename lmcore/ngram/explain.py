"""Live numbers behind one probability, for the pages' formulas and zero-probability messages."""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from lmcore.lm_protocol import TokenLogProbs
from lmcore.ngram.counts import BOS
from lmcore.ngram.discounts import adjusted_counts
from lmcore.ngram.levels import context_row, distribution_for
from lmcore.ngram.model import NgramModel


@dataclass(frozen=True)
class KnTerms:
    """P_KN(w | h) = max(C(h,w) − d, 0)/C(h) + λ(h)·P_KN(w | h_{-1}) if C(h,w) > 0, with the numbers
    of the highest order whose context was seen (``context`` = that h). ``value`` is the model's P."""

    context: list[str]
    count: float
    context_count: float
    discount: float
    lam: float
    lower: float
    value: float

    @property
    def seen(self) -> bool:
        return self.count > 0


def kn_terms(model: NgramModel, word: str, context: Sequence[str]) -> KnTerms:
    """The terms of the notes' KN formula for ``word`` after ``context`` (a single-d KN model):
    C = adjusted counts (raw at the top order), λ(h) = G of the level, P_KN(w | h_{-1}) = the
    model's lower levels evaluated on the shortened context."""
    ctx = list(context)[max(0, len(context) - (model.order - 1)):] if model.order > 1 else []
    ids, wid = model.token_ids(ctx), model.token_ids([word])[0]
    adjusted = adjusted_counts(model.tables, model.order)
    for k in range(len(ctx) + 1, 0, -1):
        h = ids[len(ids) - (k - 1):] if k > 1 else []
        c = context_row(model.tables, h) if k > 1 else 0
        level = model.levels[k - 1]
        if c < 0 or not level.ctx_seen[c]:
            continue
        table = model.tables[k - 1]
        row = int(table.find(np.array([c]), np.array([wid]))[0])
        a = adjusted[k - 1]
        lo, hi = table.ctx_range(c)
        lower = distribution_for(model.levels[:k - 1], model.tables, h[1:], model.base)[wid]
        return KnTerms([model.vocab[i] if i < len(model.vocab) else BOS for i in h],
                       float(a[row]) if row >= 0 else 0.0, float(a[lo:hi].sum()), model.discount,
                       float(level.G[c]), float(lower), model.prob(word, context))
    raise ValueError("no seen context")  # unreachable: the unigram context is always seen


@dataclass(frozen=True)
class ZeroReason:
    """Why P(x_t | history) = 0: the token is an OOV, or the n-gram (context, token) is unseen."""

    index: int
    token: str
    kind: str  # "oov" | "unseen_ngram"
    context: list[str]


def zero_reasons(scores: TokenLogProbs) -> list[ZeroReason]:
    """Every token of probability 0 with its reason (context = the one the model used)."""
    history = [BOS] + list(scores.tokens)
    out = []
    for i in np.nonzero(np.isneginf(scores.logprobs))[0]:
        used = int(scores.context_order[i]) if scores.context_order is not None else 1
        ctx = history[i + 1 - (used - 1): i + 1] if used > 1 else []
        out.append(ZeroReason(int(i), scores.tokens[i], "oov" if scores.oov[i] else "unseen_ngram", ctx))
    return out
