"""Text → token ids without a Python object per token (C kernels: NumPy masks, Arrow hashing).

A file is one sentence per line (lines end at ``\\n``, ``\\r`` or ``\\r\\n``; lines without a token are
skipped); tokens are separated by whitespace, exactly as Python's ``line.split()`` splits (every
character for which ``str.isspace()`` holds). The bytes are read in blocks cut at line ends; in
each block a whitespace mask gives the token boundaries, the token bytes are packed into one
Arrow binary array and hashed (``dictionary_encode``), and the block's small dictionary is merged
into the global one. The result: ``types`` (distinct tokens in order of first appearance),
``ids`` (int32 index into ``types`` per token) and ``lengths`` (tokens per sentence).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from collections.abc import Iterator, Sequence

import numpy as np

BLOCK_BYTES = 1 << 24
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_ASCII_SPACE_BYTES = bytes(np.flatnonzero(_ASCII_SPACE).tolist())
_LINE_END = np.zeros(256, dtype=bool)
_LINE_END[[10, 13]] = True
_WIDE_SPACES = [chr(c).encode() for c in (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029,
                                          0x202F, 0x205F, 0x3000)]
"""The non-ASCII characters ``str.split()`` splits on, UTF-8 encoded (2 or 3 bytes each)."""


@dataclass(frozen=True)
class TokenIds:
    """Tokens of many sentences: ``ids[i]`` indexes ``types``; ``lengths[s]`` tokens in sentence s."""

    types: list[str]
    ids: np.ndarray
    lengths: np.ndarray

    @property
    def n_sentences(self) -> int:
        return len(self.lengths)


class _Merger:
    """Merges block dictionaries (Arrow arrays of distinct tokens) into one global dictionary,
    first appearance order kept, with Arrow's hash lookups (no Python loop over the types)."""

    def __init__(self, pa) -> None:
        import pyarrow.compute as pc

        self.pa, self.pc, self.pool = pa, pc, pa.system_memory_pool()
        self.parts: list = []
        self.size = 0
        self.known = None

    def encode(self, tokens) -> np.ndarray:
        """Global ids of an Arrow array of tokens (new types appended in their order)."""
        encoded = self.pc.dictionary_encode(tokens, memory_pool=self.pool)
        local, block = int32_values(encoded.indices), encoded.dictionary
        if self.known is None:
            where = np.full(len(block), -1, dtype=np.int64)
        else:
            where = index_in(self.pc, block, self.known, self.pool)
        new = np.flatnonzero(where < 0)
        if len(new):
            pa = self.pa
            take = pa.Array.from_buffers(pa.int64(), len(new), [None, pa.py_buffer(new)])
            added = block if len(new) == len(block) else block.take(take)
            where[new] = self.size + np.arange(len(new))
            self.parts.append(added)
            self.size += len(added)
            self.known = self.pa.concat_arrays(self.parts) if len(self.parts) > 1 else added
            self.parts = [self.known]
        return where.astype(np.int32)[local]

    def types(self) -> list[str]:
        """The global dictionary as Python strings (checks the bytes are UTF-8)."""
        if self.known is None:
            return []
        try:
            return self.pc.cast(self.known, self.pa.large_string(), memory_pool=self.pool).to_pylist()
        except self.pa.ArrowInvalid as err:
            raise ValueError(f"the text is not valid UTF-8 ({err})") from None


def index_in(pc, values, value_set, pool=None) -> np.ndarray:
    """Index of each of the Arrow ``values`` in the Arrow ``value_set`` (int64, -1: absent), by
    Arrow's hash lookup; the validity bits are read directly (``fill_null`` imports pandas)."""
    found = pc.index_in(values, value_set=value_set, memory_pool=pool)
    where = int32_values(found).astype(np.int64)
    if found.null_count:
        bits = np.unpackbits(np.frombuffer(found.buffers()[0], dtype=np.uint8), bitorder="little")
        where[bits[found.offset:found.offset + len(found)] == 0] = -1
    return where


def int32_values(array) -> np.ndarray:
    """The int32 values of an Arrow array without nulls, read from its buffer (``np.asarray``
    would import pandas through pyarrow's compatibility layer: half a second at start-up)."""
    data = np.frombuffer(array.buffers()[1], dtype=np.int32)
    return data[array.offset:array.offset + len(array)]


def _whitespace(buf: np.ndarray, control: np.ndarray, ascii_only: bool) -> np.ndarray:
    """Mask of the bytes that belong to a whitespace character. ``control``: where the bytes
    below 32 are (only some of them are spaces); ``ascii_only``: no multi-byte space can occur."""
    ws = buf <= 32
    ws[control] = _ASCII_SPACE[buf[control]]
    if ascii_only:
        return ws
    lead = np.flatnonzero((buf == 0xC2) | (buf == 0xE1) | (buf == 0xE2) | (buf == 0xE3))
    if len(lead):
        for seq in _WIDE_SPACES:
            at = lead[lead + len(seq) <= len(buf)]
            hit = np.ones(len(at), dtype=bool)
            for j, byte in enumerate(seq):
                hit &= buf[at + j] == byte
            for j in range(len(seq)):
                ws[at[hit] + j] = True
    return ws


def _split_block(pa, block: bytes):
    """(Arrow binary array of the tokens, tokens per non-empty line) of a block of whole lines."""
    buf = np.frombuffer(block, dtype=np.uint8)
    if len(buf) == 0:
        return None, np.zeros(0, np.int64)
    control = np.flatnonzero(buf < 32)
    ascii_only = block.isascii()
    word = ~_whitespace(buf, control, ascii_only)
    change = np.empty(len(buf) + 1, dtype=bool)
    change[0], change[-1] = word[0], word[-1]
    np.not_equal(word[1:], word[:-1], out=change[1:-1])
    edge = np.flatnonzero(change)
    del change
    starts, ends = edge[0::2], edge[1::2]
    if len(starts) == 0:
        return None, np.zeros(0, np.int64)
    line_ends = control[_LINE_END[buf[control]]]
    before_line_end = np.searchsorted(starts, line_ends)  # tokens before each line end
    lengths = np.diff(before_line_end, prepend=0, append=len(starts))
    lengths = lengths[lengths > 0]  # lines without a token are skipped
    offsets = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=offsets[1:])
    # the token bytes, spaces removed (bytes.translate is the faster C loop when all are ASCII)
    data = block.translate(None, _ASCII_SPACE_BYTES) if ascii_only else buf[word]
    tokens = pa.LargeBinaryArray.from_buffers(pa.large_binary(), len(starts), [
        None, pa.py_buffer(offsets), pa.py_buffer(data)])
    return tokens, lengths


def split_text(data: bytes):
    """(Arrow binary array of the tokens or None, tokens per non-blank line) of whole lines of
    UTF-8 text, split as :func:`read_token_file` splits a file."""
    import pyarrow as pa

    return _split_block(pa, data)


def _blocks(path: str | Path, size: int = BLOCK_BYTES) -> Iterator[bytes]:
    """The file's bytes in blocks that end at a line end (the last block: at end of file)."""
    with open(path, "rb") as f:
        rest = b""
        while True:
            data = f.read(size)
            if not data:
                if rest:
                    yield rest
                return
            data = rest + data
            cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
            if cut < 0:
                rest = data
                continue
            yield data[:cut + 1]
            rest = data[cut + 1:]


def read_token_file(path: str | Path, block_bytes: int = BLOCK_BYTES) -> TokenIds:
    """Tokens of a text file, one sentence per non-blank line (see the module docstring)."""
    import pyarrow as pa

    merger = _Merger(pa)
    ids, lengths = [], []
    for block in _blocks(path, block_bytes):
        tokens, lens = _split_block(pa, block)
        if tokens is not None:
            ids.append(merger.encode(tokens))
            lengths.append(lens)
    return TokenIds(merger.types(), _concat(ids, np.int32), _concat(lengths, np.int64))


def tokens_of_sentences(sentences: Sequence[Sequence[str]], block_tokens: int = 1 << 20) -> TokenIds:
    """Tokens of already split sentences (every sentence kept, empty ones too), hashed by Arrow
    about ``block_tokens`` at a time (the flat list and Arrow's copy exist for one block only)."""
    import pyarrow as pa

    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
    ids = np.empty(int(lengths.sum()), dtype=np.int32)
    merger, done, first = _Merger(pa), 0, 0
    ends = np.searchsorted(np.cumsum(lengths), np.arange(block_tokens, len(ids) + block_tokens, block_tokens),
                           side="right")
    for last in ends.tolist():
        flat = list(chain.from_iterable(sentences[first:last + 1]))
        first = last + 1
        if flat:
            ids[done:done + len(flat)] = merger.encode(pa.array(flat, type=pa.large_string()))
            done += len(flat)
    return TokenIds(merger.types(), ids, lengths)


def _concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)
