"""The token vocabulary shared by every toy seq2seq task (sources and targets)."""
from __future__ import annotations

from collections.abc import Sequence

from lmcore.symbols import BOS, EOS, PAD
DIGITS: tuple[str, ...] = tuple("0123456789")
NUMERALS: tuple[str, ...] = tuple("零一二三四五六七八九十百千万")
TOKENS: tuple[str, ...] = (PAD, BOS, EOS) + DIGITS + NUMERALS
STOI: dict[str, int] = {tok: i for i, tok in enumerate(TOKENS)}
PAD_ID, BOS_ID, EOS_ID = STOI[PAD], STOI[BOS], STOI[EOS]
VOCAB_SIZE = len(TOKENS)


def encode(tokens: Sequence[str]) -> list[int]:
    """Token ids (raises KeyError on a token outside the vocabulary)."""
    return [STOI[tok] for tok in tokens]


def decode(ids: Sequence[int], stop_at_end: bool = True) -> list[str]:
    """Tokens of ``ids``, up to (excluding) the first ``</s>`` when ``stop_at_end``."""
    out = []
    for i in ids:
        if stop_at_end and i == EOS_ID:
            break
        out.append(TOKENS[i])
    return out
