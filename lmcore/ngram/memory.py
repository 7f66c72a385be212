"""Memory of n-gram counting, stated before counting (for the app's budget).

n_tokens = predicted tokens = words + one ``</s>`` per sentence (as ``Perplexity.n_tokens``).
Bounds, per order k ≥ 2: at most n_tokens distinct k-grams (one can end at each predicted token).

Held by :class:`~lmcore.ngram.model.NgramCounts` (``nbytes``):
- 16 bytes per n-gram of order ≥ 2 (word, count, suffix link: int32 each; one int32 ``ctx_start``
  entry in the next order), so at most ``16 · (max_order − 1)`` bytes per token;
- 24 bytes per unigram type (word, count, suffix, KenLM id), plus the vocabulary as Python
  objects: ``VOCAB_BYTES_PER_TYPE`` per word type (the string, its list slot and dict entry).

Transient while counting (freed when ``count_ngrams`` returns), per padded token
(n_tokens + one ``<s>`` per sentence ≤ 2 · n_tokens): the id stream and positions (5 bytes), the
row of the current and the previous order at every position (8), and one order's packed sort:
the uint64 keys, the positions, the group starts and keys (≤ 28) — ``TRANSIENT_BYTES_PER_TOKEN``.
The tokenised text (4 bytes per word) lives alongside while the stream is built.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache

MAX_ORDER = 6
TABLE_BYTES_PER_NGRAM = 16
UNIGRAM_BYTES_PER_TYPE = 24
VOCAB_BYTES_PER_TYPE = 160
TRANSIENT_BYTES_PER_TOKEN = 45
OVERHEAD_BYTES = 1 << 20


def estimate_count_bytes(n_tokens: int, max_order: int, n_types: int | None = None) -> int:
    """Upper bound on the peak bytes of ``count_ngrams`` (what the counts hold, plus the working
    memory while counting), before counting, from the number of predicted tokens (words plus one
    ``</s>`` per sentence). ``n_types`` (distinct words) defaults to its worst case, n_tokens.

    Per token: 16·(max_order − 1) held + 45·2 transient (+ 184 per word type).
    """
    if n_tokens < 0 or not 1 <= max_order <= MAX_ORDER:
        raise ValueError(f"need n_tokens >= 0 and 1 <= max_order <= {MAX_ORDER}")
    types = n_tokens if n_types is None else min(n_types, n_tokens)
    held = TABLE_BYTES_PER_NGRAM * (max_order - 1) * n_tokens
    held += (UNIGRAM_BYTES_PER_TYPE + VOCAB_BYTES_PER_TYPE) * (types + 3)
    transient = TRANSIENT_BYTES_PER_TOKEN * 2 * n_tokens
    return int(held + transient + OVERHEAD_BYTES)


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
