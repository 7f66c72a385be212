"""The smoothing methods an :class:`~lmcore.ngram.model.NgramModel` can use."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lmcore.ngram.counts import Table
from lmcore.ngram.levels import Level
from lmcore.ngram.smoothing_kn import kn_discount_table, kn_levels
from lmcore.ngram.smoothing_simple import add_delta_levels, mle_levels

METHODS: dict[str, str] = {
    "mle": "maximum likelihood C(h,w)/C(h) (unseen context: shorter context)",
    "add-delta": "add-delta (C(h,w)+delta)/(C(h)+delta|V|); delta=1 is Laplace, else Lidstone",
    "kn-interp": "interpolated Kneser-Ney, one discount d, continuation counts below the top order",
    "kn-backoff": "backoff Kneser-Ney: discounted seen words, alpha(h)*P_lower for unseen words",
    "modified-kn": "modified Kneser-Ney (D1, D2, D3+ per order), exactly as KenLM's lmplz",
    "kn-notes": "Kneser-Ney as written in the course notes (does NOT sum to 1)",
}
NORMALISED = ("mle", "add-delta", "kn-interp", "kn-backoff", "modified-kn")
ARPA_METHODS = ("kn-interp", "kn-backoff", "modified-kn", "kn-notes")
KN_METHODS = ("kn-interp", "kn-backoff", "modified-kn", "kn-notes")


def build_levels(tables: Sequence[Table], order: int, method: str, base: np.ndarray, delta: float,
                 discount: float) -> tuple[list[Level], list[np.ndarray] | None, list[bool]]:
    """(levels, discounts per order or None, fallback flags) of ``method`` at ``order``."""
    if method == "mle":
        return mle_levels(tables, order, base), None, []
    if method == "add-delta":
        if not delta > 0:
            raise ValueError("add-delta needs delta > 0")
        return add_delta_levels(tables, order, base, delta), None, []
    if method not in KN_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if method != "modified-kn" and not 0.0 <= discount < 1.0:
        raise ValueError("the KN discount d must satisfy 0 <= d < 1")
    adjusted, discounts, fallbacks = kn_discount_table(tables, order, method == "modified-kn", discount)
    form = {"kn-backoff": "backoff", "kn-notes": "notes"}.get(method, "interp")
    return kn_levels(tables, order, base, form, adjusted, discounts), discounts, fallbacks
