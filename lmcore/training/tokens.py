"""Symbols a recurrent LM reads and predicts, and their integer ids.

Word level: the symbols are the corpus vocabulary (``itos[0] == "<unk>"``) plus ``</s>``.
Char level: the characters of the training tokens, a space between tokens, ``<unk>`` as ONE symbol
(for an unk-mapped token or an unseen character) and ``</s>``.

``<s>`` is an input only: its id is ``len(itos)`` (one extra embedding row), and the softmax runs
over ``itos`` alone, so ``<s>`` is never predicted — the n-gram engine's convention.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lmcore.symbols import BOS, EOS, SPACE, UNK


@dataclass(frozen=True)
class SymbolTable:
    """The output vocabulary ``itos`` of a model; ``bos_id = len(itos)`` is the input-only ``<s>``."""

    level: str
    itos: tuple[str, ...]
    stoi: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.itos[0] != UNK or EOS not in self.itos or BOS in self.itos:
            raise ValueError("itos must start with <unk>, contain </s> and not contain <s>")
        object.__setattr__(self, "stoi", {s: i for i, s in enumerate(self.itos)})

    @property
    def size(self) -> int:
        """Number of predictable symbols (softmax width)."""
        return len(self.itos)

    @property
    def bos_id(self) -> int:
        return len(self.itos)

    @property
    def eos_id(self) -> int:
        return self.stoi[EOS]

    def symbols(self, tokens: Sequence[str]) -> list[str]:
        """The sentence ``tokens`` (no <s>/</s>) as this table's symbols, without ``</s>``."""
        if self.level == "word":
            return [tok if tok in self.stoi else UNK for tok in tokens]
        out: list[str] = []
        for n, tok in enumerate(tokens):
            if n:
                out.append(SPACE)
            if tok == UNK:
                out.append(UNK)
            else:
                out.extend(ch if ch in self.stoi else UNK for ch in tok)
        return out

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Target ids of a sentence: its symbols then ``</s>`` (the inputs are ``<s>`` + all but last)."""
        return [self.stoi[s] for s in self.symbols(tokens)] + [self.eos_id]

    def ids(self, symbols: Sequence[str]) -> list[int]:
        """Ids of symbols already in this table's units (unknown ones → ``<unk>``)."""
        return [self.stoi.get(s, 0) for s in symbols]

    def token_spans(self, tokens: Sequence[str]) -> list[int]:
        """How many target symbols belong to each token, and 1 for the final ``</s>``.

        Char level: a token owns its characters and the space after it (the last token has none),
        so the spans partition the sentence's target symbols and sum to ``len(encode(tokens))``.
        """
        if self.level == "word":
            return [1] * (len(tokens) + 1)
        spans = [len(self.symbols([tok])) + (1 if n < len(tokens) - 1 else 0) for n, tok in enumerate(tokens)]
        return spans + [1]


def build_table(level: str, vocab_itos: Sequence[str], train: Iterable[Sequence[str]]) -> SymbolTable:
    """The table for ``level`` from the corpus vocabulary and its unk-mapped training sentences."""
    if level == "word":
        words = [w for w in vocab_itos if w not in (BOS, EOS, UNK)]
        return SymbolTable("word", (UNK, *words, EOS))
    if level != "char":
        raise ValueError(f"unknown level {level!r}")
    chars: set[str] = set()
    for sentence in train:
        for tok in sentence:
            if tok != UNK:
                chars.update(tok)
    chars.discard(SPACE)
    return SymbolTable("char", (UNK, SPACE, *sorted(chars), EOS))
