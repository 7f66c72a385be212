"""ARPA lines as bytes, built with NumPy a block at a time (no Python string per line).

Numbers: Python's ``"%.7f"`` exactly. q = rint(|x|·10^7) is split into digits with scalar
divisions and laid out in a 16-byte record ``[sign][tens][units].[7 digits][end]``, the text
starting at the sign or the first digit. The float product |x|·10^7 can be off by one unit in the
last place; that matters only within 10^-6 of a rounding tie, and such values — like those of
|x| ≥ 100 — are formatted by Python itself.

Lines: each line is a row of fragments (the probability with its tab, the words each with the
space, tab or newline after it, the backoff weight with its newline). A fragment is copied 8 bytes
at a time through overlapping uint64 views (one fancy-index gather and scatter per 8 bytes, not
per byte); the bytes a copy writes past its fragment's end are overwritten by the fragments that
follow, which are copied later, and the ≤ 7 it spills into the next line's start are repaired
at the end by re-copying the first 8 bytes of every line (its probability is ≥ 10 bytes long).
"""
from __future__ import annotations

import numpy as np

LOG_ZERO = -99.0
RECORD = 16
SLACK = 8


def log10_or_zero(x: np.ndarray) -> np.ndarray:
    """log10(x) where x > 0, else ``LOG_ZERO`` (-99)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log10(x)
    out[~(x > 0)] = LOG_ZERO
    return out


def words64(buf: np.ndarray) -> np.ndarray:
    """A uint64 view starting at every byte of ``buf`` (overlapping, unaligned; ``buf`` ends
    with ≥ 7 bytes of slack)."""
    return np.ndarray((len(buf) - 7,), dtype=np.uint64, buffer=buf, strides=(1,))


def format_fixed7(x: np.ndarray, end: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``("%.7f" % v).encode() + end`` for every v of ``x``: (records, start, length) with the text
    of v at ``records[i, start[i] : start[i] + length[i]]`` (records of 16 bytes, +8 of slack)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    ax = np.abs(x)
    ok = ax < 99.99999995  # at most two integer digits after rounding (also False for NaN)
    scaled = np.where(ok, ax, 0.0) * 1e7
    q = np.rint(scaled)
    tie = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    q = q.astype(np.int64)
    slow = ~ok | tie | (q >= 1_000_000_000)
    ip, fp = np.divmod(q, 10_000_000)
    two = ip >= 10
    neg = np.signbit(x)
    records = np.zeros(n * RECORD + SLACK, dtype=np.uint8)
    rec = records[:n * RECORD].reshape(n, RECORD)
    rec[:, 1] = ip // 10 + 48
    rec[:, 2] = ip % 10 + 48
    rec[:, 3] = ord(".")
    for j in range(7):
        rec[:, 4 + j] = (fp // 10 ** (6 - j)) % 10 + 48
    for j, byte in enumerate(end):
        rec[:, 11 + j] = byte
    start = np.where(two, 1, 2) - neg
    rec[np.flatnonzero(neg), start[neg]] = ord("-")
    length = 11 + len(end) - start
    for i in np.flatnonzero(slow).tolist():
        text = ("%.7f" % x[i]).encode() + end
        if len(text) > RECORD:
            raise ValueError(f"number too large for an ARPA field: {x[i]}")
        rec[i, :] = 0
        rec[i, :len(text)] = np.frombuffer(text, dtype=np.uint8)
        start[i], length[i] = 0, len(text)
    return records, start + np.arange(n, dtype=np.int64) * RECORD, length


class WordPool:
    """The vocabulary's bytes three times over: each word followed by a space, a tab, a newline."""

    def __init__(self, words: list[str]) -> None:
        encoded = [w.encode("utf-8") for w in words]
        lengths = np.fromiter((len(b) for b in encoded), dtype=np.int64, count=len(encoded)) + 1
        joined = [b"".join(b + sep for b in encoded) for sep in (b" ", b"\t", b"\n")]
        self.bytes = np.frombuffer(b"".join(joined) + bytes(SLACK), dtype=np.uint8)
        offsets = np.zeros(len(encoded), dtype=np.int64)
        np.cumsum(lengths[:-1], out=offsets[1:])
        size = len(joined[0])
        self.start = {" ": offsets, "\t": offsets + size, "\n": offsets + 2 * size}
        self.length = lengths
        self.view = words64(self.bytes)


def copy_fragments(out64: np.ndarray, src64: np.ndarray, dst: np.ndarray, src: np.ndarray,
                   length: np.ndarray) -> None:
    """out[dst_i : dst_i + length_i] = src[src_i : …] for all i, 8 bytes per store (may write up
    to 7 bytes past each fragment's end)."""
    out64[dst] = src64[src]
    act = np.flatnonzero(length > 8)
    step = 8
    while len(act):
        out64[dst[act] + step] = src64[src[act] + step]
        step += 8
        act = act[length[act] > step]


def ngram_lines(words: WordPool, columns: list[np.ndarray], logp: np.ndarray,
                bow: np.ndarray | None) -> np.ndarray:
    """ARPA lines ``logp<TAB>w1 … wk[<TAB>bow]`` for n-grams given as word-id columns w1 … wk
    (a uint8 array of the bytes)."""
    if not np.all(np.isfinite(logp)):
        raise ValueError("an ARPA probability must be finite")
    p_rec, p_src, p_len = format_fixed7(logp, b"\t")
    fragments = [(words64(p_rec), p_src, p_len)]
    last = "\t" if bow is not None else "\n"
    for j, col in enumerate(columns):
        sep = last if j == len(columns) - 1 else " "
        fragments.append((words.view, words.start[sep][col], words.length[col]))
    if bow is not None:
        b_rec, b_src, b_len = format_fixed7(bow, b"\n")
        fragments.append((words64(b_rec), b_src, b_len))
    line_len = np.zeros(len(logp), dtype=np.int64)
    for _, _, length in fragments:
        line_len += length
    line_start = np.zeros(len(logp), dtype=np.int64)
    np.cumsum(line_len[:-1], out=line_start[1:])
    total = int(line_start[-1] + line_len[-1]) if len(logp) else 0
    out = np.empty(total + SLACK, dtype=np.uint8)
    out64 = words64(out)
    dst = line_start.copy()
    for view, src, length in fragments:
        copy_fragments(out64, view, dst, src, length)
        dst += length
    if len(logp):
        out64[line_start] = fragments[0][0][p_src]
    return out[:total]
