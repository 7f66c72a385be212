"""ARPA lines as bytes, built with NumPy a block at a time (no Python string per line).

Numbers: Python's ``"%.7f"`` exactly. q = rint(|x|·10^7) = ip·10^7 + fp; the text is a head
``[-]ip.`` (from a 200-entry table) followed by the 7 digits of fp (two lookup tables of 4 and 3
ASCII digits) and the end byte, packed into two uint64 words. The float product |x|·10^7 can be
off by one unit in the last place; that matters only within 10^-6 of a rounding tie, and such
values — like those of |x| ≥ 100 — are formatted by Python itself.

Lines: each line is a row of fragments (the probability with its tab, the words each with the
space, tab or newline after it, the backoff weight with its newline), read from 8-byte aligned
sources and copied 8 bytes per store through an overlapping uint64 view of the output (one
fancy-index store per 8 bytes, not per byte). The bytes a store writes past its fragment's end
are overwritten by the fragments that follow, which are copied later; the ≤ 7 it spills into
the next line's start are repaired at the end by storing the first 8 bytes of every line again
(its probability is ≥ 10 bytes long).
"""
from __future__ import annotations

import numpy as np

LOG_ZERO = -99.0
SLACK = 8


def _ascii_table(width: int) -> np.ndarray:
    """The ``width`` ASCII digits of 0 … 10^width − 1, packed little-endian into uint64."""
    values = np.arange(10 ** width, dtype=np.uint64)
    out = np.zeros(10 ** width, dtype=np.uint64)
    for j in range(width):
        digit = (values // np.uint64(10 ** (width - 1 - j))) % np.uint64(10) + np.uint64(48)
        out |= digit << np.uint64(8 * j)
    return out


def _heads() -> tuple[np.ndarray, np.ndarray]:
    """``[-]ip.`` for ip in 0..99 (positive, then negative) as uint64, and their lengths."""
    texts = [f"{ip}." for ip in range(100)] + [f"-{ip}." for ip in range(100)]
    packed = np.array([int.from_bytes(t.encode(), "little") for t in texts], dtype=np.uint64)
    return packed, np.array([len(t) for t in texts], dtype=np.int64)


DIGITS4, DIGITS3 = _ascii_table(4), _ascii_table(3)
HEADS, HEAD_LENGTHS = _heads()


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


def format_fixed7(x: np.ndarray, end: bytes) -> tuple[np.ndarray, np.ndarray]:
    """``("%.7f" % v).encode() + end`` for every v of ``x``: (records, length) with the text of v
    left-aligned in ``records[i]`` (two uint64 words; more for a block holding a huge value)."""
    if len(end) != 1:
        raise ValueError("one end byte")
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    ax = np.abs(x)
    ok = ax < 99.99999995  # at most two integer digits after rounding (also False for NaN)
    scaled = np.where(ok, ax, 0.0)
    scaled *= 1e7
    q = np.rint(scaled)
    tie = np.abs(scaled - q) > 0.5 - 1e-6
    q = q.astype(np.int64)
    slow = ~ok | tie | (q >= 1_000_000_000)
    ip, fp = np.divmod(q, 10_000_000)
    np.minimum(ip, 99, out=ip)
    ip += np.signbit(x) * 100
    head, head_len = HEADS[ip], HEAD_LENGTHS[ip]
    f4, f3 = np.divmod(fp, 1000)
    tail = DIGITS4[f4]
    tail |= DIGITS3[f3] << np.uint64(32)
    tail |= np.uint64(end[0] << 56)
    shift = (head_len * 8).astype(np.uint64)
    records = np.empty((n, 2), dtype=np.uint64)
    records[:, 0] = head | (tail << shift)
    records[:, 1] = tail >> (np.uint64(64) - shift)
    length = head_len + 8
    texts = {i: f"{x[i]:.7f}".encode() + end for i in np.flatnonzero(slow).tolist()}
    width = max([16] + [len(t) for t in texts.values()])
    if width > 16:  # a huge value (|x| ≥ 10^8): wider records for this block
        width = -(-width // 8) * 8
        wide = np.zeros((n, width // 8), dtype=np.uint64)
        wide[:, :2] = records
        records = wide
    for i, text in texts.items():
        records[i] = np.frombuffer(text.ljust(width, b"\0"), dtype=np.uint64)
        length[i] = len(text)
    return records, length


class WordPool:
    """The vocabulary's bytes three times over (each word followed by a space, a tab, a newline),
    every entry starting at a multiple of 8 bytes: ``start[sep]`` = index of the entry in uint64
    units, ``length`` = bytes of the word plus its separator."""

    def __init__(self, words: list[str]) -> None:
        encoded = [w.encode("utf-8") for w in words]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        flat = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        self.length = lengths + 1
        slots = (self.length + 7) // 8
        offsets = np.zeros(len(encoded), dtype=np.int64)
        np.cumsum(slots[:-1], out=offsets[1:])
        size = int(slots.sum())
        self.words = np.zeros(3 * size + 1, dtype=np.uint64)
        raw = self.words.view(np.uint8)
        source = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(lengths, out=source[1:])
        # byte i of word j goes to 8·offset[j] + i: one scatter for all words
        within = np.arange(len(flat), dtype=np.int64) - np.repeat(source[:-1], lengths)
        target = np.repeat(8 * offsets, lengths) + within
        self.start = {}
        for j, sep in enumerate((" ", "\t", "\n")):
            raw[8 * j * size + target] = flat
            raw[8 * j * size + 8 * offsets + lengths] = ord(sep)
            self.start[sep] = offsets + j * size


def copy_fragments(out64: np.ndarray, src64: np.ndarray, dst: np.ndarray, src: np.ndarray,
                   length: np.ndarray, first: int = 0) -> None:
    """out[dst_i : dst_i + length_i] = the bytes of ``src64`` from uint64 slot src_i on, 8 bytes
    per store, from byte ``8·first`` of each fragment on (may write up to 7 bytes past its end)."""
    step = first
    act = np.arange(len(dst)) if first == 0 else np.flatnonzero(length > 8 * first)
    while len(act):
        if len(act) == len(dst):
            out64[dst + 8 * step] = src64[src + step]
        else:
            out64[dst[act] + 8 * step] = src64[src[act] + step]
        step += 1
        act = act[length[act] > 8 * step]


def ngram_lines(words: WordPool, columns: list[np.ndarray], logp: np.ndarray,
                bow: np.ndarray | None) -> np.ndarray:
    """ARPA lines ``logp<TAB>w1 … wk[<TAB>bow]`` for n-grams given as word-id columns w1 … wk
    (a uint8 array of the bytes)."""
    if not np.all(np.isfinite(logp)):
        raise ValueError("an ARPA probability must be finite")
    n = len(logp)
    p_rec, p_len = format_fixed7(logp, b"\t")
    fragments = [(p_rec.ravel(), np.arange(n, dtype=np.int64) * p_rec.shape[1], p_len)]
    last = "\t" if bow is not None else "\n"
    for j, col in enumerate(columns):
        sep = last if j == len(columns) - 1 else " "
        fragments.append((words.words, words.start[sep][col], words.length[col]))
    if bow is not None:
        b_rec, b_len = format_fixed7(bow, b"\n")
        fragments.append((b_rec.ravel(), np.arange(n, dtype=np.int64) * b_rec.shape[1], b_len))
    line_len = np.zeros(n, dtype=np.int64)
    for _, _, length in fragments:
        line_len += length
    line_start = np.zeros(n, dtype=np.int64)
    np.cumsum(line_len[:-1], out=line_start[1:])
    total = int(line_start[-1] + line_len[-1]) if n else 0
    out = np.empty(total + SLACK, dtype=np.uint8)
    out64 = words64(out)
    dst = line_start.copy()
    for j, (source, src, length) in enumerate(fragments):
        copy_fragments(out64, source, dst, src, length, first=1 if j == 0 else 0)
        dst += length
    if n:
        out64[line_start] = p_rec[:, 0]  # the probability's first 8 bytes, over the previous line's spill
    return out[:total]
