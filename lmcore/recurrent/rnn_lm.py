"""The white-box view of a recurrent LM of :mod:`lmcore.training`: its weights copied (float64) into
the explicit cells of :mod:`lmcore.recurrent.cells`, run step by step in the notes' notation.

x(t) = E[w(t)],  h(t) = cell(h(t−1), x(t)),  ŷ(t) = softmax(W_y h(t) + b_y),
J(t) = −log ŷ(t)[w(t+1)],  J = (1/T) Σ_t J(t),  PPL = exp(J).

A sentence is ``<s> w1 … wn </s>`` exactly as the model was trained: the inputs are ``<s> w1 … wn``,
the targets ``w1 … wn </s>`` (T = n + 1), so T·J = −ln P(<s> w1 … wn </s>) is the same number as
``NeuralLM.sentence_logprob`` (up to float32 rounding of the network the weights come from).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import Tensor

from lmcore.recurrent.bptt import BPTTContributions, bptt_contributions
from lmcore.recurrent.cells import DTYPE, CellWeights, RNNWeights, Trace, run_cell, weights_from_torch
from lmcore.symbols import BOS, EOS, UNK

if TYPE_CHECKING:
    from lmcore.training.neural_lm import NeuralLM


@dataclass
class WhiteBoxLM:
    """Embedding E ((V+1)×d, row ``bos_id`` is ``<s>``), a cell, read-out W_y (V×n) and b_y (V)."""

    itos: list[str]
    embedding: Tensor
    cell: CellWeights
    W_y: Tensor
    b_y: Tensor

    @property
    def bos_id(self) -> int:
        """``<s>`` is an input only: its embedding row follows the V predictable symbols."""
        return len(self.itos)

    @cached_property
    def stoi(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.itos)}

    def ids(self, tokens: list[str]) -> list[int]:
        """Ids of words (unknown ones → ``<unk>``)."""
        unk = self.stoi[UNK]
        return [self.stoi.get(w, unk) for w in tokens]


def white_box(lm: NeuralLM) -> WhiteBoxLM:
    """The word-level model's trained weights as explicit float64 tensors (its torch module untouched)."""
    if lm.table.level != "word":
        raise ValueError("the white-box view reads words: use a word-level model")
    model = lm.model
    return WhiteBoxLM(
        itos=list(lm.table.itos),
        embedding=model.embed.weight.detach().to(DTYPE).clone(),
        cell=weights_from_torch(model.rnn),
        W_y=model.output_weight().detach().to(DTYPE).clone(),
        b_y=model.out_bias.detach().to(DTYPE).clone(),
    )


@dataclass
class SentenceRun:
    """The forward pass over one sentence: input ids ``<s> w1..wn``, target ids ``w1..wn </s>``,
    the same as words (``inputs_text``, ``targets_text``), the cell trace, ŷ(t) as ``probs`` (T×V)
    and J(t) as ``losses``."""

    inputs: list[int]
    targets: list[int]
    inputs_text: list[str]
    targets_text: list[str]
    x: Tensor
    trace: Trace
    probs: Tensor
    losses: np.ndarray

    @property
    def T(self) -> int:
        return len(self.targets)

    @property
    def J(self) -> float:
        return float(self.losses.mean())

    @property
    def perplexity(self) -> float:
        return float(np.exp(self.J))


def run_sentence(lm: WhiteBoxLM, tokens: list[str], x: Tensor | None = None) -> SentenceRun:
    """Inputs ``<s> w1 .. wn``, targets ``w1 .. wn </s>``; ``x`` overrides the input embeddings."""
    words = lm.ids(list(tokens))
    inputs, targets = [lm.bos_id, *words], [*words, lm.stoi[EOS]]
    if x is None:
        x = lm.embedding[inputs]
    trace = run_cell(lm.cell, x)
    logits = trace.stacked_h() @ lm.W_y.T + lm.b_y
    log_probs = torch.log_softmax(logits, dim=-1)
    losses = -log_probs[torch.arange(len(targets)), targets]
    text = [lm.itos[i] for i in words]
    return SentenceRun(inputs, targets, [BOS, *text], [*text, EOS], x, trace, log_probs.exp(),
                       losses.detach().numpy())


def top_k_next(lm: WhiteBoxLM, run: SentenceRun, k: int) -> list[list[tuple[str, float]]]:
    """For each step t, the k most probable next words under ŷ(t) with their probabilities."""
    p, idx = torch.topk(run.probs.detach(), min(k, len(lm.itos)), dim=-1)
    return [[(lm.itos[i], float(q)) for i, q in zip(row_i, row_p)] for row_i, row_p in
            zip(idx.tolist(), p.tolist())]


def readout_gradients(lm: WhiteBoxLM, run: SentenceRun) -> Tensor:
    """∂J(t)/∂h(t) through the read-out: W_yᵀ (ŷ(t) − onehot(w(t+1))), one row per t."""
    err = run.probs.detach().clone()
    err[torch.arange(len(run.targets)), run.targets] -= 1.0
    return err @ lm.W_y


def sentence_bptt(lm: WhiteBoxLM, run: SentenceRun) -> BPTTContributions:
    """The t × k BPTT contributions for a vanilla-RNN language model on one sentence."""
    if not isinstance(lm.cell, RNNWeights):
        raise ValueError("BPTT contributions are written for the vanilla RNN")
    return bptt_contributions(lm.cell, run.trace, readout_gradients(lm, run))


def input_gradient_norms(lm: WhiteBoxLM, tokens: list[str], position: int) -> np.ndarray:
    """‖∂J(position)/∂x(k)‖ for k = 1..position (Distill-style connectivity), one backward pass.

    ``position`` counts steps from 1: the loss of predicting the word after input ``position``
    (input 1 is ``<s>``).
    """
    ids = [lm.bos_id, *lm.ids(list(tokens))]
    x = lm.embedding[ids].detach().clone().requires_grad_(True)
    run = run_sentence(lm, tokens, x=x)
    logits = run.trace.h[position] @ lm.W_y.T + lm.b_y
    loss = -torch.log_softmax(logits, dim=-1)[run.targets[position - 1]]
    loss.backward()
    return x.grad[:position].norm(dim=1).numpy()


def most_varying_units(h: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` hidden units whose h_i(t) varies most over the steps (h: T × n), in
    index order (all units when n ≤ k)."""
    if h.shape[1] <= k:
        return np.arange(h.shape[1])
    return np.sort(np.argsort(-h.var(axis=0), kind="stable")[:k])
