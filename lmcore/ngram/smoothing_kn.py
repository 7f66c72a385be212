"""Kneser-Ney family as levels of the chain, on adjusted counts a (see :mod:`discounts`).

With den(h) = Σ_w a(h, w) and D(a) the discount of a count a (D_min(a,3) for modified KN, one d
otherwise; the mass removed from a seen n-gram is a − max(a − D, 0)):

- interpolated ("kn-interp", "modified-kn", KenLM's lmplz):
    P(w | h) = max(a(h,w) − D, 0)/den(h) + γ(h) P(w | h'),  γ(h) = Σ_w removed(h, w) / den(h);
- backoff ("kn-backoff"):
    P(w | h) = (a(h,w) − d)/den(h)        if a(h,w) > 0,
    P(w | h) = α(h) P(w | h')              otherwise,
    α(h) = (1 − Σ_{w seen} (a(h,w)−d)/den(h)) / (1 − Σ_{w seen} P(w | h'));
- as written in the course notes ("kn-notes"):
    P_KN(w | h) = max(C(h,w) − d, 0)/C(h) + λ(h) P_KN(w | h_{-1})   if C(h,w) > 0,
    P_KN(w | h) = P_KN(w | h_{-1})                                    otherwise,
  with λ(h) = γ(h) and C = a; the unseen branch carries no weight, so
  Σ_w P(w | h) = 1 + (1 − λ(h))(1 − S(h)) > 1, S(h) = Σ_{w seen after h} P(w | h_{-1}).

At every order an unseen context h (den(h) = 0) backs off fully: P(w | h) = P(w | h'). As in
KenLM the unigram level interpolates with the uniform distribution (1/|V|) in every variant.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lmcore.ngram.counts import Table
from lmcore.ngram.discounts import adjusted_counts, modified_discounts
from lmcore.ngram.levels import Level, lower_prob_of, make_level
from lmcore.ngram.smoothing_simple import context_totals

KN_FORMS = ("interp", "backoff", "notes")


def kn_discount_table(tables: Sequence[Table], order: int, modified: bool,
                      discount: float) -> tuple[list[np.ndarray], list[np.ndarray], list[bool]]:
    """(adjusted counts, [0, D1, D2, D3+] per order, fallback flags per order)."""
    adjusted = adjusted_counts(tables, order)
    discounts, fallbacks = [], []
    for a in adjusted:
        if modified:
            d, fell_back = modified_discounts(a)
        else:
            d, fell_back = np.array([0.0, discount, discount, discount]), False
        discounts.append(d)
        fallbacks.append(fell_back)
    return adjusted, discounts, fallbacks


def kn_levels(tables: Sequence[Table], order: int, base: np.ndarray, form: str,
              adjusted: list[np.ndarray], discounts: list[np.ndarray]) -> list[Level]:
    """Levels 1..order of a KN variant ``form`` in {"interp", "backoff", "notes"}."""
    if form not in KN_FORMS:
        raise ValueError(f"unknown KN form {form!r}")
    levels: list[Level] = []
    for k in range(1, order + 1):
        table = tables[k - 1]
        a = adjusted[k - 1].astype(np.float64)
        D = discounts[k - 1][np.minimum(adjusted[k - 1], 3)]
        kept = np.maximum(a - D, 0.0)
        den = context_totals(table, a)
        ctx_seen = den > 0
        safe = np.where(ctx_seen, den, 1.0)
        seen = a > 0
        S = kept / safe[table.ctx]
        gamma = context_totals(table, a - kept) / safe
        lower = lower_prob_of(table, levels[-1] if levels else None, base)
        if form == "interp" or (form == "backoff" and k == 1):
            G, U = gamma, gamma
        elif form == "notes":
            G, U = gamma, np.ones_like(gamma)
        else:
            S, G, U = _backoff_weights(table, S, seen, gamma, lower)
        levels.append(make_level(table, lower, S, seen, G, U, ctx_seen))
    return levels


def _backoff_weights(table: Table, S: np.ndarray, seen: np.ndarray, gamma: np.ndarray,
                     lower: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(S, G = 0, U = α) of backoff KN; contexts followed by every word renormalise S instead."""
    lower_seen = context_totals(table, np.where(seen, lower, 0.0))
    room = 1.0 - lower_seen
    full = room <= 1e-12
    alpha = np.where(full, 0.0, gamma / np.where(full, 1.0, room))
    if np.any(full):
        kept = 1.0 - gamma
        scale = np.where(full & (kept > 0), 1.0 / np.where(kept > 0, kept, 1.0), 1.0)
        S = S * scale[table.ctx]
    return S, np.zeros_like(gamma), alpha
