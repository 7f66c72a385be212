"""A tiny recurrent language model in the notes' notation, for stepping through a sentence.

x(t) = E[w(t)],  h(t) = cell(h(t−1), x(t)),  ŷ(t) = softmax(W_y h(t) + b_y),
J(t) = −log ŷ(t)[w(t+1)],  J = (1/T) Σ_t J(t),  PPL = exp(J).

Sentences are read as a stream separated by ``</s>``, so ``</s>`` is also the first input of a
sentence (it plays the role of <s>) and the last target.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import torch
from torch import Tensor

from lmcore.recurrent.bptt import BPTTContributions, bptt_contributions
from lmcore.recurrent.cells import DTYPE, CellWeights, RNNWeights, Trace, run_cell
from lmcore.recurrent.weights import CellSpec, random_cell

EOS = "</s>"
UNK = "<unk>"


def build_vocabulary(sentences: list[list[str]], max_size: int) -> list[str]:
    """``<unk>``, ``</s>`` then the most frequent words (ties by first appearance), ≤ max_size."""
    counts = Counter(w for s in sentences for w in s if w not in (UNK, EOS))
    return [UNK, EOS] + [w for w, _ in counts.most_common(max(max_size - 2, 0))]


@dataclass
class RNNLanguageModel:
    """Embedding E (V×d), a cell, read-out W_y (V×n) and b_y (V), all float64."""

    itos: list[str]
    embedding: Tensor
    cell: CellWeights
    W_y: Tensor
    b_y: Tensor

    @cached_property
    def stoi(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.itos)}

    def ids(self, tokens: list[str]) -> list[int]:
        unk = self.stoi[UNK]
        return [self.stoi.get(w, unk) for w in tokens]


def random_language_model(itos: list[str], spec: CellSpec, seed: int) -> RNNLanguageModel:
    """Random E ~ N(0, 1), cell from ``spec``, W_y ~ N(0, 1/n)."""
    g = torch.Generator().manual_seed(30_000 + seed)
    V = len(itos)
    E = torch.randn(V, spec.input_dim, generator=g, dtype=DTYPE)
    W_y = torch.randn(V, spec.hidden, generator=g, dtype=DTYPE) / spec.hidden**0.5
    return RNNLanguageModel(list(itos), E, random_cell(spec, seed), W_y, torch.zeros(V, dtype=DTYPE))


@dataclass
class SentenceRun:
    """The forward pass over one sentence: inputs w(1..T), targets w(2..T+1), the cell trace,
    ŷ(t) as ``probs`` (T×V) and J(t) as ``losses``."""

    inputs: list[int]
    targets: list[int]
    x: Tensor
    trace: Trace
    probs: Tensor
    losses: np.ndarray

    @property
    def J(self) -> float:
        return float(self.losses.mean())

    @property
    def perplexity(self) -> float:
        return float(np.exp(self.J))


def run_sentence(lm: RNNLanguageModel, tokens: list[str], x: Tensor | None = None) -> SentenceRun:
    """Inputs ``</s> w1 .. wT``, targets ``w1 .. wT </s>``; ``x`` overrides the embeddings."""
    ids = lm.ids([EOS] + list(tokens) + [EOS])
    inputs, targets = ids[:-1], ids[1:]
    if x is None:
        x = lm.embedding[inputs]
    trace = run_cell(lm.cell, x)
    logits = trace.stacked_h() @ lm.W_y.T + lm.b_y
    log_probs = torch.log_softmax(logits, dim=-1)
    losses = -log_probs[torch.arange(len(targets)), targets]
    return SentenceRun(inputs, targets, x, trace, log_probs.exp(), losses.detach().numpy())


def top_k_next(lm: RNNLanguageModel, run: SentenceRun, k: int) -> list[list[tuple[str, float]]]:
    """For each step t, the k most probable next words under ŷ(t) with their probabilities."""
    p, idx = torch.topk(run.probs.detach(), min(k, len(lm.itos)), dim=-1)
    return [[(lm.itos[i], float(q)) for i, q in zip(row_i, row_p)] for row_i, row_p in
            zip(idx.tolist(), p.tolist())]


def readout_gradients(lm: RNNLanguageModel, run: SentenceRun) -> Tensor:
    """∂J(t)/∂h(t) through the read-out: W_yᵀ (ŷ(t) − onehot(w(t+1))), one row per t."""
    err = run.probs.detach().clone()
    err[torch.arange(len(run.targets)), run.targets] -= 1.0
    return err @ lm.W_y


def sentence_bptt(lm: RNNLanguageModel, run: SentenceRun) -> BPTTContributions:
    """The t × k BPTT contributions for a vanilla-RNN language model on one sentence."""
    if not isinstance(lm.cell, RNNWeights):
        raise TypeError("BPTT contributions are written for the vanilla RNN")
    return bptt_contributions(lm.cell, run.trace, readout_gradients(lm, run))


def input_gradient_norms(lm: RNNLanguageModel, tokens: list[str], position: int) -> np.ndarray:
    """‖∂J(position)/∂x(k)‖ for k = 1..position (Distill-style connectivity), one backward pass.

    ``position`` counts steps from 1 (the loss of predicting the word after input ``position``).
    """
    ids = lm.ids([EOS] + list(tokens) + [EOS])
    x = lm.embedding[ids[:-1]].detach().clone().requires_grad_(True)
    run = run_sentence(lm, tokens, x=x)
    trace_logits = run.trace.h[position] @ lm.W_y.T + lm.b_y
    loss = -torch.log_softmax(trace_logits, dim=-1)[run.targets[position - 1]]
    loss.backward()
    norms = x.grad[:position].norm(dim=1).numpy()
    return norms
