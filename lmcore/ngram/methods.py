"""The smoothing methods an :class:`~lmcore.ngram.model.NgramModel` can use."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from lmcore.ngram.counts import Table
from lmcore.ngram.levels import Level
from lmcore.ngram.smoothing_kn import iter_kn_levels
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


def check_method(method: str, delta: float, discount: float) -> None:
    """Raise ValueError on an unknown method or an out-of-range δ / d."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if method == "add-delta" and not delta > 0:
        raise ValueError("add-delta needs delta > 0")
    if method in KN_METHODS and method != "modified-kn" and not 0.0 <= discount < 1.0:
        raise ValueError("the KN discount d must satisfy 0 <= d < 1")


def iter_levels(tables: Sequence[Table], order: int, method: str, base: np.ndarray, delta: float,
                discount: float, kenlm_ids: np.ndarray | None = None,
                discounts_out: list | None = None) -> Iterator[Level]:
    """The levels 1..order of ``method``, lowest first, one at a time (KN: see
    :func:`~lmcore.ngram.smoothing_kn.iter_kn_levels` for ``kenlm_ids`` and ``discounts_out``)."""
    check_method(method, delta, discount)
    if method == "mle":
        yield from mle_levels(tables, order, base)
    elif method == "add-delta":
        yield from add_delta_levels(tables, order, base, delta)
    else:
        form = {"kn-backoff": "backoff", "kn-notes": "notes"}.get(method, "interp")
        yield from iter_kn_levels(tables, order, base, form, method == "modified-kn", discount, kenlm_ids,
                                  discounts_out)


def build_levels(tables: Sequence[Table], order: int, method: str, base: np.ndarray, delta: float,
                 discount: float, kenlm_ids: np.ndarray | None = None
                 ) -> tuple[list[Level], list[np.ndarray] | None, list[bool]]:
    """(levels, discounts per order or None, fallback flags) of ``method`` at ``order``."""
    info: list = []
    levels = list(iter_levels(tables, order, method, base, delta, discount, kenlm_ids, info))
    if method not in KN_METHODS:
        return levels, None, []
    return levels, [d for d, _ in info], [f for _, f in info]
