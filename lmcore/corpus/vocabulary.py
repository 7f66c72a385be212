"""The vocabulary: token ↔ id, with ``<unk>`` for every word it does not keep."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from lmcore.symbols import BOS, EOS, UNK

__all__ = ["BOS", "EOS", "UNK", "Vocabulary"]


@dataclass(frozen=True)
class Vocabulary:
    """Kept tokens by decreasing training count (ties alphabetical); ``itos[0]`` is ``<unk>``."""

    itos: list[str]
    counts: dict[str, int]
    stoi: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stoi", {w: i for i, w in enumerate(self.itos)})

    @classmethod
    def build(cls, sentences: Iterable[list[str]], min_count: int = 1, max_size: int | None = None) -> Vocabulary:
        """Keep tokens seen at least ``min_count`` times, at most ``max_size`` of them (plus ``<unk>``)."""
        counts = Counter(tok for sentence in sentences for tok in sentence)
        ranked = sorted((w for w, c in counts.items() if c >= min_count and w != UNK), key=lambda w: (-counts[w], w))
        if max_size is not None:
            ranked = ranked[:max_size]
        return cls([UNK, *ranked], dict(counts))

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def map(self, tokens: list[str]) -> list[str]:
        """The tokens, with every out-of-vocabulary token replaced by ``<unk>``."""
        stoi = self.stoi
        return [tok if tok in stoi else UNK for tok in tokens]

    def encode(self, tokens: list[str]) -> list[int]:
        """Token ids (``0`` for ``<unk>``)."""
        stoi = self.stoi
        return [stoi.get(tok, 0) for tok in tokens]
