"""Sorting n-gram occurrences by packed integer keys: one ``np.sort`` of uint64 per order.

The occurrences of order k are the positions t with a k-gram ending there; their key is
``row(h) · V1 + w`` (h = the (k−1)-gram ending at t−1, w = the token at t). Key and position are
packed into one uint64, ``key << pos_bits | t``, so a plain (SIMD) value sort orders the keys and
carries each occurrence's position along — 4× faster than ``argsort``. When key and position
need more than 64 bits, the occurrences are first split into 2^extra buckets by the key's top bits
(each bucket sorted on its own; the buckets in order are the sorted whole).
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterator

import numpy as np

CHUNK = 1 << 21
MIN_EXTRA_BITS = 0
"""At least this many top key bits split the buckets (a test raises it to exercise the buckets)."""


def bits(n: int) -> int:
    """Bits needed to hold the values 0..n-1 (at least 1)."""
    return max(int(n - 1).bit_length(), 1)


@dataclass(frozen=True)
class Occurrences:
    """The k-gram occurrences of a stream: positions ``pos >= k-1``, key ``ctx_row[t-1]·radix + ids[t]``."""

    ids: np.ndarray
    pos: np.ndarray
    ctx_rows: np.ndarray
    radix: int
    k: int

    def chunks(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(positions t, keys) in position order, a chunk at a time."""
        for a in range(0, len(self.ids), CHUNK):
            t = np.flatnonzero(self.pos[a:a + CHUNK] >= self.k - 1)
            if len(t) == 0:
                continue
            t += a
            key = self.ctx_rows[t - 1].astype(np.uint64)
            key *= np.uint64(self.radix)
            key += self.ids[t].astype(np.uint64)
            yield t.astype(np.uint64), key


@dataclass(frozen=True)
class SortedGroup:
    """One sorted bucket: distinct keys, their first index and count, and the sorted positions."""

    keys: np.ndarray
    starts: np.ndarray
    positions: np.ndarray


def sorted_groups(occ: Occurrences, n_keys: int) -> Iterator[SortedGroup]:
    """The occurrences sorted by key (ties by position), bucket by bucket, keys in increasing order.

    One bucket's packed array lives at a time: each bucket is filled by its own pass over the
    occurrences (the keys are recomputed: cheaper than holding every bucket at once)."""
    pos_bits = bits(len(occ.ids))
    key_bits = bits(n_keys)
    extra = min(max(MIN_EXTRA_BITS, key_bits + pos_bits - 64), key_bits)
    shift = key_bits - extra
    n_buckets = 1 << extra
    sizes = np.zeros(n_buckets, dtype=np.int64)
    for _, key in occ.chunks():
        sizes += np.bincount((key >> np.uint64(shift)).astype(np.int64), minlength=n_buckets) if extra else len(key)
    low = np.uint64((1 << shift) - 1)
    pos_mask = np.uint64((1 << pos_bits) - 1)
    for b in range(n_buckets):
        if sizes[b] == 0:
            continue
        block = np.empty(int(sizes[b]), dtype=np.uint64)
        fill = 0
        for t, key in occ.chunks():
            if extra:
                keep = (key >> np.uint64(shift)) == np.uint64(b)
                key, t = key[keep] & low, t[keep]
            key <<= np.uint64(pos_bits)
            key |= t
            block[fill:fill + len(key)] = key
            fill += len(key)
        block.sort()
        positions = np.empty(len(block), dtype=np.int32)
        for a in range(0, len(block), CHUNK):
            positions[a:a + CHUNK] = block[a:a + CHUNK] & pos_mask
        block >>= np.uint64(pos_bits)
        new = np.empty(len(block), dtype=bool)
        new[0] = True
        np.not_equal(block[1:], block[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        del new
        keys = block[starts]
        del block
        if extra:
            keys |= np.uint64(b << shift)
        yield SortedGroup(keys, starts, positions)
