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

A level is built in two passes over row chunks (per-context sums, then per-row probabilities),
so its working memory stays a few chunk-sized arrays whatever the order's size.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from lmcore.ngram.counts import Table
from lmcore.ngram.discounts import adjusted_count, bos_starts, lmplz_rows, modified_discounts
from lmcore.ngram.levels import Level, lower_prob_of, make_prob, row_chunks

KN_FORMS = ("interp", "backoff", "notes")


def kn_discounts(tables: Sequence[Table], order: int, modified: bool, discount: float,
                 kenlm_ids: np.ndarray | None = None) -> Iterator[tuple[np.ndarray, np.ndarray, bool]]:
    """(adjusted counts, [0, D1, D2, D3+], fallback flag) of orders 1..order, one order at a time.

    With ``kenlm_ids`` the modified-KN count-of-counts are lmplz's (see :mod:`discounts`)."""
    raw_rows = lmplz_rows(tables, order, kenlm_ids) if modified and kenlm_ids is not None else [-1] * order
    starts = bos_starts(tables, order)
    for k in range(1, order + 1):
        a = adjusted_count(tables, order, k, starts[k - 1])
        if modified:
            row = raw_rows[k - 1]
            d, fell_back = modified_discounts(a, row, int(tables[k - 1].count[row]) if row >= 0 else 0)
        else:
            d, fell_back = np.array([0.0, discount, discount, discount]), False
        yield a, d, fell_back


def _kept(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """max(a − D(a), 0) as float64."""
    kept = a.astype(np.float64)
    kept -= d[np.minimum(a, 3)]
    np.maximum(kept, 0.0, out=kept)
    return kept


def kn_level(table: Table, a: np.ndarray, d: np.ndarray, previous: Level | None, base: np.ndarray,
             form: str) -> Level:
    """Level k of a KN variant from the adjusted counts ``a`` and discounts ``d`` of its order."""
    n_ctx = table.n_contexts
    den = np.zeros(n_ctx)
    removed = np.zeros(n_ctx)
    lower_seen = np.zeros(n_ctx) if form == "backoff" and previous is not None else None
    for lo, hi, ctx in row_chunks(table):
        ac = a[lo:hi]
        af = ac.astype(np.float64)
        den += np.bincount(ctx, weights=af, minlength=n_ctx)
        af -= _kept(ac, d)
        removed += np.bincount(ctx, weights=af, minlength=n_ctx)
        if lower_seen is not None:
            lower = np.where(ac > 0, lower_prob_of(table, previous, base, lo, hi), 0.0)
            lower_seen += np.bincount(ctx, weights=lower, minlength=n_ctx)
    ctx_seen = den > 0
    safe = np.where(ctx_seen, den, 1.0)
    gamma = removed / safe
    del removed
    G = U = gamma
    scale = None
    if form == "notes":
        U = np.broadcast_to(1.0, gamma.shape)  # a constant: no memory
    elif form == "backoff" and previous is not None:
        room = 1.0 - lower_seen
        full = room <= 1e-12
        U = np.where(full, 0.0, gamma / np.where(full, 1.0, room))
        G = np.broadcast_to(0.0, gamma.shape)
        if np.any(full):
            kept_mass = 1.0 - gamma
            scale = np.where(full & (kept_mass > 0), 1.0 / np.where(kept_mass > 0, kept_mass, 1.0), 1.0)
    seen = a > 0
    prob = np.empty(len(table))
    for lo, hi, ctx in row_chunks(table):
        S = _kept(a[lo:hi], d)
        S /= safe[ctx]
        if scale is not None:
            S *= scale[ctx]
        prob[lo:hi] = make_prob(S, seen[lo:hi], G, U, ctx, lower_prob_of(table, previous, base, lo, hi))
    return Level(table.order, prob, seen, G, U, ctx_seen)


def iter_kn_levels(tables: Sequence[Table], order: int, base: np.ndarray, form: str, modified: bool,
                   discount: float, kenlm_ids: np.ndarray | None = None,
                   discounts_out: list | None = None) -> Iterator[Level]:
    """Levels 1..order of a KN variant ``form`` in {"interp", "backoff", "notes"}, one at a time
    (each order's adjusted counts live only while its level is built). ``discounts_out`` collects
    ([0, D1, D2, D3+], fallback flag) per order."""
    if form not in KN_FORMS:
        raise ValueError(f"unknown KN form {form!r}")
    previous = None
    for a, d, fell_back in kn_discounts(tables, order, modified, discount, kenlm_ids):
        if discounts_out is not None:
            discounts_out.append((d, fell_back))
        previous = kn_level(tables[previous.order if previous else 0], a, d, previous, base, form)
        del a
        yield previous
