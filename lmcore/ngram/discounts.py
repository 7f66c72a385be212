"""Kneser-Ney adjusted (continuation) counts and the modified-KN discounts, as KenLM's lmplz.

Adjusted count a(g) of an n-gram g of order k in a model of order N:
- k = N: the raw count C(g);
- k < N: the continuation count N1+(• g) = |{v : (v, g) seen}|, except n-grams beginning with
  ``<s>``, which keep C(g) (nothing stands left of ``<s>``);
- the unigram ``<s>`` gets 0 (it is never predicted).

Modified-KN discounts of order k (Chen & Goodman), from n_j = #{g : a(g) = j}:
    Y = n1 / (n1 + 2 n2),  D1 = 1 − 2Y n2/n1,  D2 = 2 − 3Y n3/n2,  D3+ = 3 − 4Y n4/n3,
and D(a) = D_min(a,3). When some n_j is 0 or a D_j falls outside [0, j] (tiny corpora), lmplz's
``--discount_fallback`` values (0.5, 1, 1.5) are used instead.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lmcore.ngram.counts import Table

FALLBACK_DISCOUNTS = (0.5, 1.0, 1.5)


def adjusted_counts(tables: Sequence[Table], order: int) -> list[np.ndarray]:
    """a(g) for every stored n-gram of orders 1..order (the model's order is ``order``)."""
    bos = tables[0].radix - 1
    adjusted = []
    for k in range(1, order + 1):
        table = tables[k - 1]
        if k == order:
            a = table.count.copy()
        else:
            a = np.bincount(tables[k].suffix, minlength=len(table)).astype(np.int64)
            starts_with_bos = table.first == bos
            a[starts_with_bos] = table.count[starts_with_bos]
        if k == 1:
            a[bos] = 0
        adjusted.append(a)
    return adjusted


def count_of_counts(adjusted: np.ndarray, upto: int = 4) -> np.ndarray:
    """[n_1, …, n_upto]: how many n-grams have adjusted count exactly j."""
    hist = np.bincount(np.minimum(adjusted, upto + 1), minlength=upto + 2)
    return hist[1:upto + 1].astype(np.int64)


def modified_discounts(adjusted: np.ndarray) -> tuple[np.ndarray, bool]:
    """([0, D1, D2, D3+], used_fallback) for one order, from its adjusted counts."""
    n = count_of_counts(adjusted).astype(np.float64)
    if np.any(n == 0):
        return np.array((0.0,) + FALLBACK_DISCOUNTS), True
    y = n[0] / (n[0] + 2.0 * n[1])
    d = np.array([0.0] + [j - (j + 1) * y * n[j] / n[j - 1] for j in (1, 2, 3)])
    if np.any(d[1:] < 0) or np.any(d[1:] > np.array([1.0, 2.0, 3.0])):
        return np.array((0.0,) + FALLBACK_DISCOUNTS), True
    return d, False
