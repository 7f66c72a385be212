"""ARPA export: log10 P(w | h) of every stored n-gram and log10 backoff weight of every context.

For an interpolated model the stored probability is the full interpolated P(w | h) and the
backoff weight of h is γ(h) (as KenLM's lmplz writes it); for backoff KN it is α(h); for the
notes' formula it is 1 (log10 = 0). A query then reads
    log10 P(w | h) = log10 P_stored(w | h_m) + Σ_{contexts longer than h_m} log10 bow(context).
MLE and add-δ are not of this form (their unseen words are not α(h)·P_lower) and are refused.

The file is streamed: order k is written as soon as level k+1 (which holds the backoff weights
of the k-grams) is known, in blocks of formatted bytes (:mod:`lmcore.ngram.arpa_text`).
"""
from __future__ import annotations

import io
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import islice
from pathlib import Path
from typing import IO, TYPE_CHECKING
from collections.abc import Callable, Sequence

import numpy as np

from lmcore.ngram.arpa_text import LOG_ZERO, WordPool, log10_or_zero, ngram_lines
from lmcore.ngram.counts import Table
from lmcore.ngram.levels import Level
from lmcore.ngram.methods import ARPA_METHODS

if TYPE_CHECKING:
    from lmcore.ngram.model import NgramModel

BLOCK_ROWS = 1 << 16
WORKERS = 2
__all__ = ["ArpaWriter", "LOG_ZERO", "arpa_lines", "check_arpa_method", "write_arpa"]


def check_arpa_method(method: str) -> None:
    """Raise ValueError for a method that has no ARPA (backoff) form."""
    if method not in ARPA_METHODS:
        raise ValueError(f"{method!r} cannot be written as a backoff (ARPA) model; "
                         f"use one of {', '.join(ARPA_METHODS)}")


class ArpaWriter:
    """Writes an ARPA file level by level: ``feed`` levels 1..order in turn, then ``close``."""

    def __init__(self, write: Callable[[bytes], object], tables: Sequence[Table], order: int,
                 words: list[str]) -> None:
        self.write, self.tables, self.order = write, tables, order  # not copied: the caller may release
        self.pool = WordPool(list(words) + ["<s>"])
        self.pending: Level | None = None
        header = ["\\data\\"] + [f"ngram {t.order}={len(t)}" for t in tables[:order]] + ["", ""]
        self.write("\n".join(header).encode())

    def feed(self, level: Level) -> None:
        if self.pending is not None:
            self._write_order(self.pending, level)
        self.pending = level

    def close(self) -> None:
        if self.pending is not None:
            self._write_order(self.pending, None)
            self.pending = None
        self.write(b"\\end\\\n")

    def _write_order(self, level: Level, following: Level | None) -> None:
        k = level.order
        self.write(f"\\{k}-grams:\n".encode())
        starts = range(0, len(self.tables[k - 1]), BLOCK_ROWS)
        render = partial(self._block, level, following)
        if len(starts) <= 2:
            for lo in starts:
                self.write(render(lo))
        else:  # NumPy releases the GIL: the next blocks are formatted while one is written
            with ThreadPoolExecutor(max_workers=WORKERS) as pool:
                for text in _in_order(pool, render, starts, ahead=WORKERS + 1):
                    self.write(text)
        self.write(b"\n")

    def _block(self, level: Level, following: Level | None, lo: int) -> np.ndarray:
        """The ARPA lines of rows lo:lo+BLOCK_ROWS of order ``level.order``, as bytes."""
        k = level.order
        table = self.tables[k - 1]
        hi = min(lo + BLOCK_ROWS, len(table))
        logp = log10_or_zero(level.prob[lo:hi])
        bos = table.radix - 1
        if k == 1 and lo <= bos < hi:
            logp[bos - lo] = LOG_ZERO
        bow = None
        if following is not None:
            bow = np.where(following.ctx_seen[lo:hi], log10_or_zero(following.U[lo:hi]), 0.0)
        keys = table.keys[lo:hi]
        columns = [keys % table.radix]
        for j in range(k - 1, 0, -1):
            keys = self.tables[j - 1].keys[keys // table.radix]
            columns.append(keys % table.radix)
        return ngram_lines(self.pool, columns[::-1], logp, bow)


def _in_order(pool: ThreadPoolExecutor, fn, items, ahead: int):
    """``map(fn, items)`` on the pool, results in order, at most ``ahead`` in flight."""
    items = iter(items)
    pending = deque(pool.submit(fn, x) for x in islice(items, ahead))
    while pending:
        result = pending.popleft().result()
        for x in islice(items, 1):
            pending.append(pool.submit(fn, x))
        yield result


def _sink(target: str | Path | IO[str] | IO[bytes]):
    """(write function for bytes, closer) of a path or an open text/binary file."""
    if isinstance(target, (str, Path)):
        f = open(target, "wb")
        return f.write, f.close
    if isinstance(target, io.TextIOBase) or hasattr(target, "encoding"):
        return (lambda b: target.write(bytes(b).decode("utf-8"))), (lambda: None)
    return target.write, (lambda: None)


def write_levels(target, tables: Sequence[Table], order: int, words: list[str], levels) -> None:
    """Write an ARPA file from an iterable of levels 1..order (consumed one at a time)."""
    write, close = _sink(target)
    try:
        writer = ArpaWriter(write, tables, order, words)
        for level in levels:
            writer.feed(level)
        writer.close()
    finally:
        close()


def write_arpa(model: NgramModel, target: str | Path | IO[str]) -> None:
    """Write ``model`` in ARPA format to a path or an open text (or binary) file."""
    check_arpa_method(model.method)
    write_levels(target, model.tables, model.order, model.vocab, model.levels)


def arpa_lines(model: NgramModel) -> list[str]:
    """The ARPA text of ``model`` as lines."""
    buf = io.BytesIO()
    write_arpa(model, buf)
    return buf.getvalue().decode("utf-8").split("\n")[:-1]
