"""Thin adapters turning language models into scorers ``score(prefixes) -> (n × |V|) log-probs``.

* :class:`DistributionScorer` wraps any model with
  ``distribution(context)`` over ``model.vocab`` (a ``lmcore.lm_protocol.LanguageModel``: the n-gram
  LMs of :mod:`lmcore.ngram`, the trained ``lmcore.training.NeuralLM``); it accepts a distribution
  returned as a mapping token -> probability or as a vector aligned with the vocabulary.
* :class:`RecurrentScorer` wraps a recurrent step ``step(inputs, state) -> (logits, state)``
  (an RNN/LSTM LM, or a seq2seq decoder with its encoder outputs closed over), caching the state of
  every prefix so each beam step costs one batched step of the network.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch

from lmcore.decoding.scorers import Prefix
from lmcore.symbols import BOS, EOS


def vocabulary_list(vocab: Any) -> list[str]:
    """The id -> token list of a vocabulary: a list, an object with ``itos`` or ``words``, or a dict."""
    for attr in ("itos", "words"):
        if hasattr(vocab, attr):
            return list(getattr(vocab, attr))
    if isinstance(vocab, Mapping):
        return [tok for tok, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    return list(vocab)


class DistributionScorer:
    """log P(w | <s> prompt y_<t) from ``model.distribution(context)`` (context = token list).

    ``start`` (default ``<s>``) opens every context, marking the start of a sentence; ``end_id`` is
    the id of ``end`` (default ``</s>``) in the vocabulary, None when it has no such symbol.
    """

    def __init__(self, model: Any, prompt: Sequence[str] = (), start: str | None = BOS,
                 end: str = EOS) -> None:
        self.model = model
        self.prompt = ([start] if start else []) + list(prompt)
        self.vocab = vocabulary_list(model.vocab)
        first = model.distribution(list(self.prompt))
        if isinstance(first, Mapping):
            extra = [tok for tok in first if tok not in set(self.vocab)]
            self.vocab += extra
        self.index = {tok: i for i, tok in enumerate(self.vocab)}
        self.end_id = self.index.get(end)
        self._cache: dict[Prefix, np.ndarray] = {}

    def probs(self, prefix: Prefix) -> np.ndarray:
        if prefix not in self._cache:
            context = self.prompt + [self.vocab[i] for i in prefix]
            dist = self.model.distribution(context)
            row = np.zeros(len(self.vocab))
            if isinstance(dist, Mapping):
                for tok, p in dist.items():
                    row[self.index[tok]] = p
            else:
                values = np.asarray(dist, dtype=float).ravel()
                row[: len(values)] = values
            self._cache[prefix] = row
        return self._cache[prefix]

    def __call__(self, prefixes: Sequence[Prefix]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(np.stack([self.probs(tuple(p)) for p in prefixes]))


State = Any  # a tensor or a tuple of tensors, batch along ``batch_dim``
Step = Callable[[torch.Tensor, State], tuple[torch.Tensor, State]]


def _select(state: State, index: torch.Tensor, dim: int) -> State:
    if isinstance(state, torch.Tensor):
        return state.index_select(dim, index)
    return tuple(_select(s, index, dim) for s in state)


def _cat(states: Sequence[State], dim: int) -> State:
    if isinstance(states[0], torch.Tensor):
        return torch.cat(list(states), dim)
    return tuple(_cat([s[j] for s in states], dim) for j in range(len(states[0])))


class RecurrentScorer:
    """Scores prefixes with a recurrent network, one batched step per new prefix.

    ``state`` is the network state before reading ``first_token`` (batch size 1, e.g. the state
    after a prompt, or the encoder's summary for a seq2seq decoder); prefix y_<t is scored with
    log softmax of the logits after reading ``first_token, y_1, …, y_{t-1}``.
    """

    def __init__(self, step: Step, state: State, first_token: int, vocab: Sequence[str],
                 end_id: int | None = None, batch_dim: int = 0) -> None:
        self.step, self.batch_dim = step, batch_dim
        self.vocab, self.end_id = list(vocab), end_id
        self._root = (state, first_token)
        self._cache: dict[Prefix, tuple[State, torch.Tensor]] = {}

    @torch.no_grad()
    def _advance(self, prefixes: list[Prefix]) -> None:
        """Compute (state, log-probs) of ``prefixes``, whose parents are all cached (or root)."""
        states, inputs = [], []
        for p in prefixes:
            if p:
                states.append(self._cache[p[:-1]][0])
                inputs.append(p[-1])
            else:
                states.append(self._root[0])
                inputs.append(self._root[1])
        logits, new_state = self.step(torch.tensor(inputs), _cat(states, self.batch_dim))
        logprobs = torch.log_softmax(logits.double(), dim=-1)
        for i, p in enumerate(prefixes):
            one = _select(new_state, torch.tensor([i]), self.batch_dim)
            self._cache[p] = (one, logprobs[i])

    def __call__(self, prefixes: Sequence[Prefix]) -> torch.Tensor:
        missing = sorted({tuple(p) for p in prefixes if tuple(p) not in self._cache}, key=len)
        needed: set[Prefix] = set()
        for p in missing:  # ancestors not scored yet (never the case inside beam search)
            needed.update(p[:i] for i in range(len(p) + 1) if p[:i] not in self._cache)
        by_length: dict[int, list[Prefix]] = {}
        for p in needed:
            by_length.setdefault(len(p), []).append(p)
        for length in sorted(by_length):
            self._advance(by_length[length])
        return torch.stack([self._cache[tuple(p)][1] for p in prefixes])
