"""What the chain-rule page needs from any language model (n-gram today, neural later).

Chain rule (notes): P(x^(1), …, x^(T)) = ∏_t P(x^(t) | x^(t-1), …, x^(1)).
Perplexity (notes): PPL = exp(−(1/T) Σ_t log P(x^(t) | x^(<t))) = exp(J), natural logs; the
sentence-final ``</s>`` is a predicted token and counts in T.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class TokenLogProbs:
    """Per-token scores of one sentence: ln P(x_t | x_<t) for x_1 … x_T and the final ``</s>``.

    ``oov`` marks tokens unseen in training (scored as ``<unk>``). n-gram models also say which
    path produced each probability: ``found_order`` = order of the longest seen n-gram (h, x_t)
    that entered (0: none), ``context_order`` = order of the distribution actually used (its
    context was seen; 0: the uniform 1/|V|), ``available_order`` = min(N, t+1), the longest
    order the history allows.
    """

    tokens: list[str]
    logprobs: np.ndarray
    oov: np.ndarray
    found_order: np.ndarray | None = None
    context_order: np.ndarray | None = None
    available_order: np.ndarray | None = None

    @property
    def probs(self) -> np.ndarray:
        return np.exp(self.logprobs)


@runtime_checkable
class NextTokenModel(Protocol):
    """A model that gives next-token distributions over ``vocab`` (which contains ``</s>``)."""

    vocab: list[str]

    def distribution(self, context: Sequence[str]) -> np.ndarray:
        """P(· | context) over ``vocab``; a context starting with ``<s>`` is a sentence start."""
        ...

    def sentence_logprobs(self, tokens: Sequence[str]) -> TokenLogProbs:
        """Scores of ``<s> tokens </s>`` token by token (``</s>`` included, ``<s>`` not)."""
        ...


@dataclass(frozen=True)
class Perplexity:
    """PPL = exp(−log_prob / n_tokens), including OOVs, and excluding them (their tokens and terms).

    ``n_zero`` counts tokens of probability 0 (MLE): then the perplexity is infinite.
    """

    ppl: float
    ppl_excl_oov: float
    log_prob: float
    n_tokens: int
    n_oov: int
    n_zero: int


def perplexity_from_logprobs(logprobs: np.ndarray, oov: np.ndarray) -> Perplexity:
    """Perplexity of a flat array of ln-probabilities (one per predicted token)."""
    logprobs = np.asarray(logprobs, dtype=np.float64)
    oov = np.asarray(oov, dtype=bool)
    n, n_oov = len(logprobs), int(oov.sum())
    total = float(logprobs.sum()) if n else 0.0
    kept = logprobs[~oov]
    ppl = float(np.exp(-total / n)) if n else float("nan")
    ppl_in = float(np.exp(-kept.sum() / len(kept))) if len(kept) else float("nan")
    return Perplexity(ppl, ppl_in, total, n, n_oov, int(np.isneginf(logprobs).sum()))


def perplexity_of(scores: Iterable[TokenLogProbs]) -> Perplexity:
    """Perplexity over several scored sentences (any :class:`NextTokenModel`)."""
    scores = list(scores)
    if not scores:
        return perplexity_from_logprobs(np.zeros(0), np.zeros(0, dtype=bool))
    return perplexity_from_logprobs(np.concatenate([s.logprobs for s in scores]),
                                    np.concatenate([s.oov for s in scores]))
