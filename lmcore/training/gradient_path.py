"""How far back a gradient reaches along a passage: LSTM cell path versus the vanilla RNN.

For the last step T and every earlier step k = 1..T:
- the notes' approximation ∂c(t)/∂c(t−1) ≈ diag f(t), chained: ∏_{t=k+1..T} f(t) (per unit);
- the exact ∂c(T)/∂c(k) by torch autograd through the whole forward graph, with
  h(k) = o(k) ⊙ tanh c(k) (o(k) held fixed; the same convention as :mod:`lmcore.recurrent.jacobian`);
- for a trained vanilla RNN on the same passage, ‖∂h(T)/∂h(k)‖₂ = ‖∏_{j=k+1..T} W_hᵀ diag σ'(z(j))‖₂.
Matrices are summarised by their spectral norm ‖·‖₂ (for diag ∏f: the largest unit's product) and by
the mean of their diagonal (the unit-to-itself path the notes' formula describes).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lmcore.recurrent.cells import LSTMWeights, run_lstm, run_rnn, weights_from_torch
from lmcore.recurrent.jacobian import product_norms
from lmcore.training.lstm_trace import lstm_weights, passage_inputs
from lmcore.training.neural_lm import NeuralLM


@dataclass(frozen=True)
class GradientPath:
    """Arrays indexed by k = 1..T (entry k = T is the identity: all ones)."""

    forget_norm: np.ndarray
    forget_mean: np.ndarray
    exact_norm: np.ndarray
    exact_diag_mean: np.ndarray
    rnn_norm: np.ndarray | None = None


def forget_products(f: np.ndarray) -> np.ndarray:
    """(units, T) gates f(1..T) → (units, T) products P[:, k−1] = ∏_{t=k+1..T} f(t)."""
    suffix = np.cumprod(f[:, ::-1], axis=1)[:, ::-1]  # suffix[:, j] = ∏_{t ≥ j} (0-based)
    return np.concatenate([suffix[:, 1:], np.ones((f.shape[0], 1))], axis=1)


def cell_jacobians(w: LSTMWeights, x: torch.Tensor) -> torch.Tensor:
    """∂c(T)/∂c(k) for all k = 1..T at once, shape (T, n, n) (row = unit of c(T)), by one backward
    sweep of the chain rule over the forward trace; tests check it against autograd re-running steps
    k+1..T from a leaf c(k).

    c(k) reaches c(T) directly (c(k+1) = f(k+1) ⊙ c(k) + …) and through h(k) = o(k) ⊙ tanh c(k)
    (o(k) is upstream of c(k): held fixed). With A_c(t) = ∂c(T)/∂c(t) and A_h(t) = ∂c(T)/∂h(t),
    A_c(T) = I, A_h(T) = 0, and for t = T−1..1:
      A_h(t) = A_c(t+1) ∂c(t+1)/∂h(t) + A_h(t+1) diag(tanh c(t+1) ⊙ o(t+1)(1−o(t+1))) W_ho,
      ∂c(t+1)/∂h(t) = diag(c(t) ⊙ f′) W_hf + diag(c̃ ⊙ i′) W_hi + diag(i ⊙ (1−c̃²)) W_hc (gates at t+1),
      A_c(t) = A_c(t+1) diag f(t+1) + A_h(t) diag(o(t) ⊙ (1 − tanh² c(t))).
    Two n×n products a step (the autograd route ran the passage as a batch of n rows: 3-4× slower).
    """
    n, T = w.hidden_size, x.shape[0]
    with torch.no_grad():
        trace = run_lstm(w, x)
        i, f, o, g = (trace.gates[name] for name in ("i", "f", "o", "c_tilde"))
        c = trace.c
        tanh_c = [torch.tanh(state) for state in c]
        out = torch.empty(T, n, n, dtype=x.dtype)
        a_c = torch.eye(n, dtype=x.dtype)
        a_h = torch.zeros(n, n, dtype=x.dtype)
        out[T - 1] = a_c
        for t in range(T - 1, 0, -1):
            nxt = t + 1
            dc_dh = ((c[t] * f[nxt] * (1 - f[nxt]))[:, None] * w.f.W_h
                     + (g[nxt] * i[nxt] * (1 - i[nxt]))[:, None] * w.i.W_h
                     + (i[nxt] * (1 - g[nxt] ** 2))[:, None] * w.c.W_h)
            dh_dh = (tanh_c[nxt] * o[nxt] * (1 - o[nxt]))[:, None] * w.o.W_h
            a_h = a_c @ dc_dh + a_h @ dh_dh
            a_c = a_c * f[nxt][None, :] + a_h * (o[t] * (1 - tanh_c[t] ** 2))[None, :]
            out[t - 1] = a_c
    return out


def lstm_gradient_path(lm: NeuralLM, symbols: Sequence[str], forget_bias_shift: float = 0.0,
                       rnn: NeuralLM | None = None) -> GradientPath:
    """The three curves on ``<s>`` + symbols (T = len(symbols) + 1 steps)."""
    w = lstm_weights(lm, forget_bias_shift)
    x = passage_inputs(lm, symbols)
    with torch.no_grad():
        f = torch.stack(run_lstm(w, x).gates["f"][1:], dim=1).numpy()
    products = forget_products(f)
    jacs = cell_jacobians(w, x)
    norms = torch.linalg.matrix_norm(jacs, ord=2).numpy()
    diags = torch.diagonal(jacs, dim1=1, dim2=2).mean(dim=1).numpy()
    return GradientPath(products.max(axis=0), products.mean(axis=0), np.array(norms), np.array(diags),
                        rnn_jacobian_norms(rnn, symbols) if rnn is not None else None)


def rnn_jacobian_norms(rnn: NeuralLM, symbols: Sequence[str]) -> np.ndarray:
    """‖∂h(T)/∂h(k)‖₂ for k = 1..T of a trained vanilla RNN on ``<s>`` + symbols."""
    if rnn.config.cell != "rnn":
        raise ValueError("expected a vanilla RNN model")
    w = weights_from_torch(rnn.model.rnn)
    with torch.no_grad():
        trace = run_rnn(w, passage_inputs(rnn, symbols))
    return product_norms(w, trace)[::-1].copy()  # product_norms is indexed by distance T − k
