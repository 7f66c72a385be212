"""Look inside a trained LSTM: its gates and cell state on a passage, computed by the explicit cell.

The trained ``nn.LSTM`` weights are copied (float64) into :mod:`lmcore.recurrent.cells`, which runs
the notes' equations step by step:
  f(t) = σ(W_f [h(t−1), x(t)] + b_f),  i(t) = σ(…),  o(t) = σ(…),  c̃(t) = tanh(…),
  c(t) = f(t) ⊙ c(t−1) + i(t) ⊙ c̃(t),  h(t) = o(t) ⊙ tanh(c(t)).
Column t of every matrix below is step t, whose input x(t) is the embedding of ``symbols[t]``, with
``symbols[0] == "<s>"``; after the last step, softmax(W_y h(T) + b_y) is the next-symbol distribution.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lmcore.recurrent.cells import DTYPE, Gate, LSTMWeights, run_lstm, weights_from_torch
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.tokens import BOS

SIGNALS: tuple[str, ...] = ("f", "i", "o", "c_tilde", "c", "h")


@dataclass(frozen=True)
class PassageTrace:
    """``signals[name]``: (units, T) arrays for f, i, o, c_tilde, c, h; ``next_probs`` over the vocab."""

    symbols: list[str]
    signals: dict[str, np.ndarray]
    next_probs: np.ndarray

    @property
    def n_units(self) -> int:
        return self.signals["c"].shape[0]


def lstm_weights(lm: NeuralLM, forget_bias_shift: float = 0.0) -> LSTMWeights:
    """The trained LSTM as explicit float64 weights, optionally with b_f + ``forget_bias_shift``."""
    if lm.config.cell != "lstm":
        raise ValueError("gate inspection needs an LSTM model")
    w = weights_from_torch(lm.model.rnn)
    if forget_bias_shift:
        w = copy.copy(w)
        w.f = Gate(w.f.W_h, w.f.W_x, w.f.b + forget_bias_shift)
    return w


def passage_inputs(lm: NeuralLM, symbols: Sequence[str]) -> torch.Tensor:
    """x(1..T) = embeddings of ``<s>`` + symbols, shape (T, d), float64."""
    ids = torch.as_tensor([lm.table.bos_id, *lm.table.ids(symbols)], dtype=torch.long)
    return lm.model.embed.weight.detach().to(DTYPE)[ids]


def trace_passage(lm: NeuralLM, symbols: Sequence[str], forget_bias_shift: float = 0.0) -> PassageTrace:
    """Gates, cell and hidden states of the explicit LSTM on ``<s>`` + symbols."""
    w = lstm_weights(lm, forget_bias_shift)
    with torch.no_grad():
        trace = run_lstm(w, passage_inputs(lm, symbols))
        signals = {name: torch.stack(trace.gates[name][1:], dim=1).numpy() for name in ("f", "i", "o", "c_tilde")}
        signals["c"] = torch.stack(trace.c[1:], dim=1).numpy()
        signals["h"] = torch.stack(trace.h[1:], dim=1).numpy()
        w_y, b_y = lm.model.output_weight().detach().to(DTYPE), lm.model.out_bias.detach().to(DTYPE)
        logits = trace.h[-1] @ w_y.T + b_y
        probs = torch.softmax(logits, dim=-1).numpy()
    return PassageTrace([BOS, *symbols], signals, probs)


def unit_order(trace: PassageTrace, by: str) -> np.ndarray:
    """Unit indices: "index" (as is), "forget" (mean f(t), high first), "variance" (of c(t), high first)."""
    if by == "index":
        return np.arange(trace.n_units)
    if by == "forget":
        return np.argsort(-trace.signals["f"].mean(axis=1), kind="stable")
    if by == "variance":
        return np.argsort(-trace.signals["c"].var(axis=1), kind="stable")
    raise ValueError(f"unknown ordering {by!r}")
