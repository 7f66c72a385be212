"""One protocol for every language model in lmcore: n-gram and neural alike (and its conditional
version for the seq2seq decoder).

Chain rule (notes): P(x^(1), …, x^(T)) = ∏_t P(x^(t) | x^(t-1), …, x^(1)).
Perplexity (notes): PPL = exp(−(1/T) Σ_t log P(x^(t) | x^(<t))) = exp(J), natural logs; the
sentence-final ``</s>`` is a predicted token and counts in T, ``<s>`` is only a context.

A :class:`LanguageModel` has a vocabulary ``vocab`` (the predictable symbols: ``</s>`` in, ``<s>``
out), next-symbol distributions, per-token and sentence log-probabilities, perplexity, sampling and a
``scorer()`` that the decoders (greedy, beam, exhaustive) call, carrying its own end symbol.
:class:`LanguageModelMixin` derives the last four from ``distribution`` and ``sentence_logprobs``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable
from collections.abc import Iterable, Sequence

import numpy as np

from lmcore.symbols import BOS, EOS

Prefix = tuple[int, ...]


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

    @property
    def total(self) -> float:
        """ln P(<s> x_1 … x_T </s>) = Σ_t ln P(x_t | x_<t) (the chain rule)."""
        return float(np.sum(self.logprobs))


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
    total = float(logprobs.sum()) if len(logprobs) else 0.0
    return perplexity_from_sums(total, float(logprobs[~oov].sum()), len(logprobs), int(oov.sum()),
                                int(np.isneginf(logprobs).sum()))


def perplexity_from_sums(total: float, total_kept: float, n: int, n_oov: int, n_zero: int = 0) -> Perplexity:
    """Perplexity from Σ ln P over all n predicted tokens (``total``) and over the n − n_oov that are
    not OOVs (``total_kept``): PPL = exp(−total / n); without OOVs exp(−total_kept / (n − n_oov))."""
    kept = n - n_oov
    ppl = float(np.exp(-total / n)) if n else float("nan")
    ppl_in = float(np.exp(-total_kept / kept)) if kept else float("nan")
    return Perplexity(ppl, ppl_in, total, n, n_oov, n_zero)


def perplexity_of(scores: Iterable[TokenLogProbs]) -> Perplexity:
    """Perplexity over several scored sentences (of any :class:`LanguageModel`)."""
    scores = list(scores)
    if not scores:
        return perplexity_from_logprobs(np.zeros(0), np.zeros(0, dtype=bool))
    return perplexity_from_logprobs(np.concatenate([s.logprobs for s in scores]),
                                    np.concatenate([s.oov for s in scores]))


@runtime_checkable
class PrefixScorer(Protocol):
    """What the decoders call: ``score(prefixes)`` → (len(prefixes) × |vocab|) log-probabilities,
    row i = ln P(· | y_<t = prefixes[i]); ``end_id`` is the id of the end symbol (None: none)."""

    vocab: list[str]
    end_id: int | None

    def __call__(self, prefixes: Sequence[Prefix]): ...


@runtime_checkable
class LanguageModel(Protocol):
    """A language model over ``vocab`` (contains ``</s>``, never ``<s>``)."""

    @property
    def vocab(self) -> list[str]: ...

    def distribution(self, context: Sequence[str]) -> np.ndarray:
        """P(· | context) over ``vocab`` (sums to 1); a context starting with ``<s>`` is a sentence start
        (the recurrent models read every context from the sentence start)."""
        ...

    def sentence_logprobs(self, tokens: Sequence[str]) -> TokenLogProbs:
        """ln P of each token of ``<s> tokens </s>`` and of ``</s>`` (``<s>`` not scored)."""
        ...

    def sentence_logprob(self, tokens: Sequence[str]) -> float:
        """ln P(<s> tokens </s>) = ``sentence_logprobs(tokens).total``."""
        ...

    def perplexity(self, sentences: Iterable[Sequence[str]]) -> Perplexity:
        """exp(−Σ ln P / N) over the sentences, N counting every token and one ``</s>`` each."""
        ...

    def sample(self, seed: int = 0, max_len: int = 30, temperature: float = 1.0) -> list[str]:
        """A sentence drawn symbol by symbol from P_τ(w | history) ∝ P(w | history)^(1/τ), until
        ``</s>`` (not returned) or ``max_len`` symbols; the same seed gives the same sentence."""
        ...

    def scorer(self, prompt: Sequence[str] = ()) -> PrefixScorer:
        """A decoder scorer of continuations of ``<s> prompt``; its ``end_id`` is ``</s>``'s id."""
        ...


@runtime_checkable
class ConditionalLanguageModel(Protocol):
    """P(y | x) = ∏_t P(y_t | y_<t, x): the same questions, each given a source sequence x."""

    @property
    def vocab(self) -> list[str]: ...

    def distribution(self, source: Sequence[str], context: Sequence[str]) -> np.ndarray: ...

    def sentence_logprobs(self, source: Sequence[str], target: Sequence[str]) -> TokenLogProbs: ...

    def sentence_logprob(self, source: Sequence[str], target: Sequence[str]) -> float: ...

    def perplexity(self, pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> Perplexity: ...

    def sample(self, source: Sequence[str], seed: int = 0, max_len: int = 30,
               temperature: float = 1.0) -> list[str]: ...

    def scorer(self, source: Sequence[str]) -> PrefixScorer: ...


def tempered(p: np.ndarray, temperature: float) -> np.ndarray:
    """P_τ ∝ P^(1/τ), normalised (τ = 1 leaves P as it is; τ → 0 approaches the argmax)."""
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    if temperature == 1.0:
        return p / p.sum()
    with np.errstate(divide="ignore"):
        logits = np.log(p) / temperature
    logits -= logits.max()
    q = np.exp(logits)
    return q / q.sum()


class LanguageModelMixin:
    """The protocol's derived methods, from ``vocab``, ``distribution`` and ``sentence_logprobs``
    (a model may override any of them with a faster version computing the same numbers)."""

    def sentence_logprob(self, tokens: Sequence[str]) -> float:
        return self.sentence_logprobs(tokens).total  # type: ignore[attr-defined]

    def perplexity(self, sentences: Iterable[Sequence[str]]) -> Perplexity:
        return perplexity_of(self.sentence_logprobs(s) for s in sentences)  # type: ignore[attr-defined]

    def sample(self, seed: int = 0, max_len: int = 30, temperature: float = 1.0) -> list[str]:
        rng = np.random.default_rng(seed)
        vocab = self.vocab  # type: ignore[attr-defined]
        history, words = [BOS], []
        for _ in range(max_len):
            p = tempered(np.asarray(self.distribution(history), dtype=np.float64), temperature)  # type: ignore[attr-defined]
            w = vocab[int(rng.choice(len(p), p=p))]
            if w == EOS:
                break
            words.append(w)
            history.append(w)
        return words

    def scorer(self, prompt: Sequence[str] = ()) -> PrefixScorer:
        # imported here, not at the top: lmcore.decoding imports torch, and the n-gram models (whose
        # command line never loads torch, see lmcore.ngram.__main__) use this protocol
        from lmcore.decoding.adapters import DistributionScorer

        return DistributionScorer(self, prompt)
