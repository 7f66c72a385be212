"""Next-token scorers: ``score(prefixes) -> log-prob matrix`` of shape (len(prefixes), |V|).

Row i is :math:`\\log P(\\cdot \\mid y_{<t}, x)` for the prefix ``prefixes[i]`` (a tuple of token
ids). Search algorithms only ever call this function, batched over the hypotheses of a step, so
any model fits: a hand-made table, an n-gram LM, a neural LM, a seq2seq decoder.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch

Prefix = tuple[int, ...]
Scorer = Callable[[Sequence[Prefix]], "torch.Tensor | np.ndarray"]


def as_logprob_tensor(rows: torch.Tensor | np.ndarray) -> torch.Tensor:
    """A scorer's output as a float64 torch tensor (no copy when it already is one)."""
    return torch.as_tensor(rows, dtype=torch.float64)


class TableScorer:
    """A scorer from a table of conditional distributions P(y_t | y_<t), keyed by the prefix.

    ``table[prefix] = {token_id: probability}`` (missing tokens get 0); prefixes not in the table
    use ``default``. Every row must sum to 1.
    """

    def __init__(self, vocab: Sequence[str], table: Mapping[Prefix, Mapping[int, float]],
                 default: Mapping[int, float], end_id: int | None = None) -> None:
        self.vocab = list(vocab)
        self.end_id = end_id
        self.default = self._row(default)
        self.table = {tuple(p): self._row(d) for p, d in table.items()}

    def _row(self, dist: Mapping[int, float]) -> np.ndarray:
        row = np.zeros(len(self.vocab))
        for tok, p in dist.items():
            row[tok] = p
        if not np.isclose(row.sum(), 1.0):
            raise ValueError(f"distribution sums to {row.sum()}, not 1")
        return row

    def probs(self, prefix: Prefix) -> np.ndarray:
        return self.table.get(tuple(prefix), self.default)

    def __call__(self, prefixes: Sequence[Prefix]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(np.stack([self.probs(p) for p in prefixes]))


class RandomScorer:
    """A random but fixed conditional LM over ``vocab_size`` tokens (for tests and sweeps).

    P(· | prefix) = softmax(z / temperature) with z ~ N(0, 1) drawn from a generator seeded by
    (seed, prefix), so the same prefix always gets the same distribution.
    """

    def __init__(self, vocab_size: int, seed: int = 0, temperature: float = 1.0,
                 end_id: int | None = None) -> None:
        self.vocab = [str(i) for i in range(vocab_size)]
        self.seed, self.temperature, self.end_id = seed, temperature, end_id
        self._cache: dict[Prefix, np.ndarray] = {}

    def logprobs(self, prefix: Prefix) -> np.ndarray:
        prefix = tuple(prefix)
        if prefix not in self._cache:
            rng = np.random.default_rng([self.seed, len(prefix), *prefix])
            z = rng.standard_normal(len(self.vocab)) / self.temperature
            self._cache[prefix] = z - np.logaddexp.reduce(z)
        return self._cache[prefix]

    def __call__(self, prefixes: Sequence[Prefix]) -> np.ndarray:
        return np.stack([self.logprobs(p) for p in prefixes])


def sequence_logprob(score: Scorer, tokens: Sequence[int]) -> float:
    """log P(y) = Σ_t log P(y_t | y_<t), one scorer call per prefix (the chain rule)."""
    total = 0.0
    for t, tok in enumerate(tokens):
        total += float(as_logprob_tensor(score([tuple(tokens[:t])]))[0, tok])
    return total
