"""A process-wide count of optimizer steps, per training loop, under a lock.

Every training loop in lmcore calls :func:`count_step` once per parameter update (``"adam"``: the
recurrent LMs of :mod:`lmcore.training.loop`; ``"sgd-clip"``: the clipping lab's deliberately
unstable run; ``"seq2seq"``: the encoder-decoders). Tests read :func:`step_counts` before and after
opening a page to prove that the page trained nothing; nothing else depends on it.
"""
from __future__ import annotations

import threading
from collections import Counter

_lock = threading.Lock()
_counts: Counter[str] = Counter()


def count_step(loop: str) -> None:
    """Record one optimizer step of ``loop`` (thread-safe)."""
    with _lock:
        _counts[loop] += 1


def step_counts() -> dict[str, int]:
    """A snapshot: steps taken so far in this process, per loop."""
    with _lock:
        return dict(_counts)


def total_steps() -> int:
    """All steps taken so far in this process, any loop."""
    with _lock:
        return sum(_counts.values())
