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
    """∂c(T)/∂c(k) for all k = 1..T at once, shape (T, n, n), from one forward pass and n backward
    passes (one per unit of c(T)); tests check it against re-running steps k+1..T from a leaf c(k).

    Every c(k) is a node of the forward graph; reverse-mode autograd from c(T)_u sums all paths from
    c(k) to c(T)_u, including c(k) → h(k) = o(k) ⊙ tanh c(k) with o(k) upstream of c(k) (held fixed).
    The passage runs as a batch of n identical rows and row u back-propagates only c(T)_u, so the
    gradient of Σ_u c(T)[u, u] with respect to c(k) holds row u of ∂c(T)/∂c(k) in its row u.
    """
    n, T = w.hidden_size, x.shape[0]
    h0 = torch.zeros(n, n, dtype=x.dtype, requires_grad=True)  # makes every state a node of the graph
    trace = run_lstm(w, x[:, None, :].expand(T, n, x.shape[1]), h0, torch.zeros(n, n, dtype=x.dtype))
    grads = torch.autograd.grad(torch.diagonal(trace.c[-1]).sum(), trace.c[1:])
    return torch.stack(grads)


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
