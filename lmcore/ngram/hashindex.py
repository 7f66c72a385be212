"""A hash index over a table's sorted packed keys: row of a key in O(1) expected memory reads.

Open addressing with linear probing, a quarter full (``LOAD``). Slot s holds ``key << row_bits | row``
(one int64), or -1 when empty; a key's home slot comes from the top bits of ``key · φ·2⁶⁴``
(Fibonacci hashing). Lookups are exact: the key itself is compared, so there are no false positives. The build and the lookups are NumPy passes over all keys at once,
one pass per probe step (a step moves only the keys still looking).

Memory: 8 bytes per slot, 4 slots per key (when a key and its row do not fit in 63 bits
together, there are no slots: the sorted keys are searched). Small matters here: a lookup is a random
read, several times dearer once the table no longer fits in the CPU's cache.
"""
from __future__ import annotations

import numpy as np

from lmcore.ngram.search import lookup

_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = -1
_HIGH = np.uint64(32)
LOAD = 0.25
"""Keys per slot: a quarter full, most lookups end at their first slot (measured on PTB order 5:
the lookups took 1.4× as long half full)."""
PROBE_STEPS = 6
"""Probe steps before the keys still looking (in the longest clusters) are searched instead."""


class HashIndex:
    """Rows of the sorted packed keys (int64 ≥ 0, increasing) of one table; ``find(query)`` =
    the row of each query or -1. Keys too wide to pack with their row are searched (sorted)."""

    def __init__(self, keys: np.ndarray, load: float = LOAD) -> None:
        self.keys = np.ascontiguousarray(keys, dtype=np.int64)
        n = len(self.keys)
        self.n_slots = max(int(n / load) + 1, 8)
        self.row_bits = max(int(n - 1).bit_length(), 1)
        self.packed = int(self.keys[-1] if n else 0).bit_length() + self.row_bits <= 63
        self.slots = np.full(self.n_slots if self.packed else 0, _EMPTY, dtype=np.int64)
        if self.packed:
            self._insert((self.keys << self.row_bits) | np.arange(n, dtype=np.int64))

    def home(self, query: np.ndarray) -> np.ndarray:
        """Home slot of each key: h = the top 32 bits of key · φ·2⁶⁴ (mod 2⁶⁴), scaled to the
        table: ⌊h · n_slots / 2³²⌋ (any table size, so the table is no bigger than it must be)."""
        h = query.view(np.uint64) * _FIBONACCI
        h >>= _HIGH
        h *= np.uint64(self.n_slots)
        h >>= _HIGH
        return h.view(np.int64)

    def _next(self, slot: np.ndarray) -> np.ndarray:
        """The slot after each (the last one wraps to 0), in place."""
        slot += 1
        slot[slot == self.n_slots] = 0
        return slot

    def _insert(self, values: np.ndarray) -> None:
        """Every key into the first free slot at or after its home: per step, the keys whose slot
        is free write there, one of each colliding group lands, the rest move one slot on."""
        slot = self.home(values >> self.row_bits)
        waiting = np.arange(len(values))
        while len(waiting):
            free = self.slots[slot] == _EMPTY
            trying, at = waiting[free], slot[free]
            self.slots[at] = values[trying]  # of several writes to one slot, one lands
            won = self.slots[at] == values[trying]
            waiting = np.concatenate([waiting[~free], trying[~won]])
            slot = self._next(np.concatenate([slot[~free], at[~won]]))

    def find(self, query: np.ndarray) -> np.ndarray:
        """Row of each packed key in ``query`` (int64 ≥ 0), -1 where the table does not hold it.

        ``PROBE_STEPS`` steps answer nearly every key (an empty slot ends a probe: the key is
        absent); the few left in longer clusters are searched in the sorted keys, so a long
        cluster costs no more passes."""
        query = np.ascontiguousarray(query, dtype=np.int64)
        if not self.packed:
            return lookup(self.keys, query, _bound(self.keys, query))
        row_mask = (1 << self.row_bits) - 1
        slot = self.home(query)
        held = self.slots[slot]
        out = np.where((held >> self.row_bits) == query, held & row_mask, -1)
        looking = np.flatnonzero((out < 0) & (held != _EMPTY))
        wanted, slot = query[looking], slot[looking]
        for _ in range(PROBE_STEPS - 1):
            if not len(looking):
                return out
            held = self.slots[self._next(slot)]
            hit = (held >> self.row_bits) == wanted
            out[looking[hit]] = held[hit] & row_mask
            on = ~hit
            on &= held != _EMPTY
            looking, slot, wanted = looking[on], slot[on], wanted[on]
        if len(looking):
            out[looking] = lookup(self.keys, wanted, _bound(self.keys, wanted))
        return out

    @property
    def nbytes(self) -> int:
        """Bytes of the slots (the keys are the table's own)."""
        return self.slots.nbytes



def _bound(keys: np.ndarray, query: np.ndarray) -> int:
    """A bound above every key and query (what :func:`lookup` packs its sort with)."""
    return max(int(keys[-1]) if len(keys) else 0, int(query.max()) if len(query) else 0) + 1
