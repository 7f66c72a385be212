"""Looking up many packed keys in a sorted key array: sort the queries, search each distinct one.

A ``searchsorted`` of sorted queries walks the keys in order (numpy keeps the previous answer as
the lower bound, and the probes of neighbouring queries share cache lines), several times faster
than random queries; queries repeat (the same n-gram at many positions), so each distinct one is
searched once.
"""
from __future__ import annotations

import numpy as np


def sort_queries(query: np.ndarray, bound: int, stable: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(permutation, sorted queries) of queries in [0, bound): packed with their index into one
    int64 and value-sorted when the bits allow (``stable``: run-aware, for nearly sorted input)."""
    n = len(query)
    index_bits = max(int(n - 1).bit_length(), 1)
    if int(bound).bit_length() + index_bits > 63:
        order = np.argsort(query, kind="stable")
        return order, query[order]
    packed = query << index_bits
    packed |= np.arange(n, dtype=np.int64)
    packed.sort(kind="stable" if stable else None)
    order = packed & ((1 << index_bits) - 1)
    packed >>= index_bits
    return order, packed


def search_sorted(keys: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Rows of sorted queries in sorted ``keys`` (-1: absent); each distinct query searched once."""
    if not len(keys) or not len(query):
        return np.full(len(query), -1, dtype=np.int64)
    new = np.empty(len(query), dtype=bool)
    new[0] = True
    np.not_equal(query[1:], query[:-1], out=new[1:])
    distinct = query[new]
    at = np.searchsorted(keys, distinct)
    np.minimum(at, len(keys) - 1, out=at)
    rows = np.where(keys[at] == distinct, at, -1)
    if len(distinct) == len(query):
        return rows
    return rows[np.cumsum(new) - 1]


def lookup(keys: np.ndarray, query: np.ndarray, bound: int) -> np.ndarray:
    """Rows of the queries (int64 in [0, bound)) in sorted ``keys``, -1 where absent, in the
    queries' own order."""
    if len(query) < 64:  # a few: searched as they are
        if not len(keys):
            return np.full(len(query), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(keys, query), len(keys) - 1)
        return np.where(keys[at] == query, at, -1)
    order, ordered = sort_queries(query, bound)
    out = np.empty(len(query), dtype=np.int64)
    out[order] = search_sorted(keys, ordered)
    return out
