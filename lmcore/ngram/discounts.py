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

lmplz's count-of-counts (``lmplz_rows``): lmplz walks the highest-order n-grams sorted by their
words read right to left (KenLM's ids: ``<unk>`` 0, ``<s>`` 1, ``</s>`` 2, then words by first
appearance) and adds each lower-order n-gram to n_j when it leaves its stream. The n-grams still
in the streams at the very end — for every order k < N, the k-gram that sorts last, i.e. the
length-k suffix of the last N-gram — are flushed with their raw count C(g) instead of a(g)
(``lm/builder/adjust_counts.cc``, the loop after the main one uses ``actual_counts``). On PTB this
moves the unigram D3+ from 1.26227 to 1.26492 and the ``<unk>`` log10 probability from −5.3321 to
lmplz's −5.3312. ``lmplz_exact=False`` gives the textbook count-of-counts of the rule above.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lmcore.ngram.counts import Table

FALLBACK_DISCOUNTS = (0.5, 1.0, 1.5)


def bos_starts(tables: Sequence[Table], order: int) -> list[int]:
    """Per order, the first row of the n-grams beginning with ``<s>`` (they are the last rows)."""
    start = [tables[0].radix - 1]
    for k in range(2, order + 1):
        start.append(tables[k - 1].ctx_range(start[-1])[0])
    return start


def adjusted_count(tables: Sequence[Table], order: int, k: int, bos_start: int | None = None) -> np.ndarray:
    """a(g) of the stored n-grams of order k in a model of order ``order`` (int32 when it fits)."""
    table = tables[k - 1]
    if k == order:
        a = table.count.copy()
    else:
        a = np.bincount(tables[k].suffix, minlength=len(table)).astype(table.count.dtype)
        start = bos_starts(tables, k)[-1] if bos_start is None else bos_start
        a[start:] = table.count[start:]
    if k == 1:
        a[tables[0].radix - 1] = 0
    return a


def adjusted_counts(tables: Sequence[Table], order: int) -> list[np.ndarray]:
    """a(g) for every stored n-gram of orders 1..order (the model's order is ``order``)."""
    starts = bos_starts(tables, order)
    return [adjusted_count(tables, order, k, starts[k - 1]) for k in range(1, order + 1)]


def first_words(tables: Sequence[Table], k: int, rows: np.ndarray) -> np.ndarray:
    """Id of the first word of the given rows of order k."""
    rows = np.asarray(rows, dtype=np.int64)
    for j in range(k, 1, -1):
        rows = tables[j - 1].ctx_of(rows)
    return rows


def lmplz_rows(tables: Sequence[Table], order: int, kenlm_ids: np.ndarray) -> list[int]:
    """Per order k < ``order``: the row lmplz counts with its raw count (-1: none), see above."""
    bos = tables[0].radix - 1
    unigram = tables[0]
    words = np.flatnonzero(unigram.count > 0)
    words = words[words != bos]
    out = [-1] * order
    if order < 2 or len(words) == 0:
        return out
    row = int(words[np.argmax(kenlm_ids[words])])
    out[0] = row
    for k in range(2, order):
        rows = np.flatnonzero(tables[k - 1].suffix == row)
        if len(rows) == 0:
            break
        first = first_words(tables, k, rows)
        best = int(np.argmax(kenlm_ids[first]))
        row = int(rows[best])
        out[k - 1] = row  # a row beginning with <s> has no left extension: the loop ends after it
    return out


def count_of_counts(adjusted: np.ndarray, upto: int = 4) -> np.ndarray:
    """[n_1, …, n_upto]: how many n-grams have adjusted count exactly j."""
    hist = np.bincount(np.minimum(adjusted, upto + 1), minlength=upto + 2)
    return hist[1:upto + 1].astype(np.int64)


def modified_discounts(adjusted: np.ndarray, raw_row: int = -1,
                       raw_count: int = 0) -> tuple[np.ndarray, bool]:
    """([0, D1, D2, D3+], used_fallback) for one order, from its adjusted counts; ``raw_row`` ≥ 0
    enters the count-of-counts with ``raw_count`` instead of its adjusted count (lmplz)."""
    n = count_of_counts(adjusted).astype(np.float64)
    if raw_row >= 0:
        for value, step in ((int(adjusted[raw_row]), -1), (int(raw_count), 1)):
            if 1 <= value <= 4:
                n[value - 1] += step
    if np.any(n == 0):
        return np.array((0.0,) + FALLBACK_DISCOUNTS), True
    y = n[0] / (n[0] + 2.0 * n[1])
    d = np.array([0.0] + [j - (j + 1) * y * n[j] / n[j - 1] for j in (1, 2, 3)])
    if np.any(d[1:] < 0) or np.any(d[1:] > np.array([1.0, 2.0, 3.0])):
        return np.array((0.0,) + FALLBACK_DISCOUNTS), True
    return d, False
