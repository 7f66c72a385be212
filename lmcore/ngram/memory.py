"""Memory of n-gram counting, stated before counting (for the app's budget).

n_tokens = predicted tokens = words + one ``</s>`` per sentence (as ``Perplexity.n_tokens``);
padded tokens T = n_tokens + one ``<s>`` per sentence. At most n_tokens distinct k-grams exist
for each k ≥ 2 (one can end at each predicted token).

Held by :class:`~lmcore.ngram.model.NgramCounts` (``nbytes``):
- 16 bytes per n-gram of order ≥ 2 (packed key int64, count and suffix link int32), so at most
  ``16 · (max_order − 1)`` bytes per token — natural text has fewer distinct n-grams than
  tokens at low orders: PTB-like text up to order 6 holds 53 bytes per token;
- per word type ≤ 200 bytes: the unigram row (key, count, suffix, KenLM id: 24) and the
  vocabulary as Python objects (its string, list slot and dict entry).

Transient while counting (freed when ``count_ngrams`` returns), per padded token: the id
stream and positions (5 bytes), the n-gram row at every position for two orders (8), one
order's packed sort — uint64 words, positions, group flags and ranks (17), group starts and keys
(16 per distinct n-gram) — at most 48; the chunk buffers add 40 bytes per token up to 2^21
tokens; counting a list of sentences (not a file) adds 32 per token for the flat list and
Arrow's copy of one block. Measured on a 50 MB upload (PTB-like, 7.3 M tokens, 331 k sentences,
80 k types, orders 1..6): the counts hold 373 MB (53 bytes per token); counting peaks 770 MB
above the process's start from the file, 819 MB from lists of sentences (the lists themselves,
510 MB, not counted); ``estimate_count_bytes(7_320_922, 6, 79_992, 331_256)`` = 1.24 GB (GiB).
Budget for the app: a 50 MB upload counted up to order 6 needs ≤ 1.25 GiB while counting and
keeps ≤ 0.6 GiB (held bound; 0.37 measured) per cached corpus, plus ≤ 18 bytes per n-gram of
its orders for each model built on it (``NgramModel.nbytes``: probability and seen flag per row,
γ and seen flag per context; 15 measured on PTB order 5). The command line's peak (PTB × 16, order 5,
14.9 M tokens, ARPA written) is 1.16 GB, 78 bytes per token.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache

MAX_ORDER = 6
TABLE_BYTES_PER_NGRAM = 16
BYTES_PER_TYPE = 200
TRANSIENT_BYTES_PER_PADDED_TOKEN = 48
CHUNK_BYTES_PER_TOKEN = 40
CHUNK_TOKENS = 1 << 21
LIST_BYTES_PER_TOKEN = 32
OVERHEAD_BYTES = 16 << 20


def held_count_bytes(n_tokens: int, max_order: int, n_types: int | None = None) -> int:
    """Upper bound on ``NgramCounts.nbytes`` for ``n_tokens`` predicted tokens and ``n_types``
    word types (default: its worst case, n_tokens)."""
    if n_tokens < 0 or not 1 <= max_order <= MAX_ORDER:
        raise ValueError(f"need n_tokens >= 0 and 1 <= max_order <= {MAX_ORDER}")
    types = n_tokens if n_types is None else min(n_types, n_tokens)
    return TABLE_BYTES_PER_NGRAM * (max_order - 1) * n_tokens + BYTES_PER_TYPE * (types + 3)


def estimate_count_bytes(n_tokens: int, max_order: int, n_types: int | None = None,
                         n_sentences: int | None = None) -> int:
    """Upper bound on the peak bytes ``count_ngrams`` adds to a process (what the counts hold
    plus the working memory while counting), known before counting. ``n_tokens`` = words plus
    one ``</s>`` per sentence; ``n_types`` and ``n_sentences`` default to their worst case
    (n_tokens each).

    Per token: 16·(max_order − 1) held + 48 per padded token (≤ 2 per token) + 32 + the chunk
    buffers (40 per token up to 2^21 tokens) + 200 per word type + 16 MB.
    """
    held = held_count_bytes(n_tokens, max_order, n_types)
    padded = n_tokens + (n_tokens if n_sentences is None else min(n_sentences, n_tokens))
    transient = (TRANSIENT_BYTES_PER_PADDED_TOKEN * padded + LIST_BYTES_PER_TOKEN * n_tokens
                 + CHUNK_BYTES_PER_TOKEN * min(padded, CHUNK_TOKENS))
    return int(held + transient + OVERHEAD_BYTES)


def largest_order_within(n_tokens: int, limit: int) -> int:
    """The highest order 1..MAX_ORDER whose counting fits ``limit`` bytes by
    :func:`estimate_count_bytes` (``n_tokens`` = words plus one ``</s>`` per sentence); 0 if none."""
    return max((n for n in range(1, MAX_ORDER + 1) if estimate_count_bytes(n_tokens, n) <= limit), default=0)


@lru_cache(maxsize=1)
def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def release_freed_memory() -> None:
    """Give the heap's freed pages back to the operating system (glibc ``malloc_trim``; a no-op
    elsewhere). Large NumPy temporaries freed inside a long computation otherwise stay in the
    process's resident memory until the allocator reuses them."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
