"""Toy seq2seq tasks whose answers are exactly checkable, with adjustable source length m.

* ``copy``: y = x;  * ``reverse``: y = x_m … x_1;  * ``sort``: y = the digits of x in order;
* ``translate``: x = the digits of a number (no leading zero, m ≤ 8), y = its Chinese reading.

Held-out examples: a source is held out when crc32 of its text is divisible by 5; training batches
never contain one, so evaluation on held-out sources measures generalisation.
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lmcore.seq2seq.numerals import chinese_numeral
from lmcore.seq2seq.vocab import BOS_ID, EOS_ID, PAD_ID, encode

TASKS: tuple[str, ...] = ("copy", "reverse", "sort", "translate")
MAX_SOURCE_LEN: dict[str, int] = {"copy": 20, "reverse": 20, "sort": 20, "translate": 8}


def target_of(task: str, source: Sequence[str]) -> list[str]:
    """The exact answer y for the source tokens x."""
    if task == "copy":
        return list(source)
    if task == "reverse":
        return list(reversed(source))
    if task == "sort":
        return sorted(source)
    if task == "translate":
        return chinese_numeral(int("".join(source)))
    raise ValueError(f"unknown task {task!r}; choose one of {TASKS}")


def is_heldout(source: Sequence[str]) -> bool:
    return zlib.crc32("".join(source).encode()) % 5 == 0


def parse_source(task: str, text: str, min_len: int, max_len: int) -> list[str] | None:
    """The source tokens of a typed digit string, or None when it is not a valid source
    (only ASCII digits, length in [min_len, max_len], no leading zero for ``translate``)."""
    text = text.strip()
    ok = text.isascii() and text.isdigit() and min_len <= len(text) <= max_len
    if not ok or (task == "translate" and text.startswith("0")):
        return None
    return list(text)


def sample_source(task: str, length: int, rng: np.random.Generator) -> list[str]:
    digits = rng.integers(0, 10, size=length)
    if task == "translate":
        digits[0] = rng.integers(1, 10)
    return [str(d) for d in digits]


def sample_pairs(task: str, n: int, lengths: Sequence[int], rng: np.random.Generator,
                 heldout: bool) -> list[tuple[list[str], list[str]]]:
    """``n`` (x, y) pairs with source lengths drawn uniformly from ``lengths``, from one split."""
    pairs = []
    while len(pairs) < n:
        x = sample_source(task, int(rng.choice(lengths)), rng)
        if is_heldout(x) == heldout:
            pairs.append((x, target_of(task, x)))
    return pairs


@dataclass(frozen=True)
class Batch:
    """Padded id tensors: ``src`` (B, m), ``src_len`` (B,), ``tgt_in`` = <s> y (B, T+1),
    ``tgt_out`` = y </s> (B, T+1); padding is ``PAD_ID``."""

    src: torch.Tensor
    src_len: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor


def make_batch(pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> Batch:
    srcs = [encode(x) for x, _ in pairs]
    tgts = [encode(y) for _, y in pairs]
    m, t = max(map(len, srcs)), max(map(len, tgts)) + 1
    src = torch.full((len(pairs), m), PAD_ID)
    tgt_in = torch.full((len(pairs), t), PAD_ID)
    tgt_out = torch.full((len(pairs), t), PAD_ID)
    for i, (s, y) in enumerate(zip(srcs, tgts)):
        src[i, : len(s)] = torch.tensor(s)
        tgt_in[i, : len(y) + 1] = torch.tensor([BOS_ID, *y])
        tgt_out[i, : len(y) + 1] = torch.tensor([*y, EOS_ID])
    return Batch(src, torch.tensor([len(s) for s in srcs]), tgt_in, tgt_out)
