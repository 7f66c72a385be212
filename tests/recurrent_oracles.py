"""Test oracles for lmcore.recurrent: torch autograd on the explicit cells of lmcore.recurrent.cells."""
from __future__ import annotations

import torch
from torch import Tensor

from lmcore.recurrent.cells import (
    DTYPE, CellWeights, LSTMWeights, RNNWeights, Trace, lstm_step, run_gru, run_lstm, run_rnn, rnn_step,
)
from lmcore.recurrent.jacobian import step_factor


def autograd_state_gradients(weights: CellWeights, x: Tensor, v: Tensor) -> tuple[Tensor, Tensor | None]:
    """∂J/∂h(k) (and ∂J/∂c(k) for the LSTM), k = 1..T as rows, J = vᵀ h(T): the cell is run with
    torch ops, every state keeps its gradient (``retain_grad``), one ``backward()``."""
    n = weights.hidden_size
    h0 = torch.zeros(n, dtype=DTYPE, requires_grad=True)
    if isinstance(weights, LSTMWeights):
        trace = run_lstm(weights, x, h0=h0, c0=torch.zeros(n, dtype=DTYPE, requires_grad=True))
    elif isinstance(weights, RNNWeights):
        trace = run_rnn(weights, x, h0=h0)
    else:
        trace = run_gru(weights, x, h0=h0)
    for s in trace.h[1:] + trace.c[1:]:
        s.retain_grad()
    (trace.h[-1] @ v).backward()
    grad_h = torch.stack([s.grad for s in trace.h[1:]])
    grad_c = torch.stack([s.grad for s in trace.c[1:]]) if trace.c else None
    return grad_h, grad_c


def rnn_state_jacobian(w: RNNWeights, x: Tensor, k: int, t: int) -> Tensor:
    """∂h(t)/∂h(k) (row = component of h(t)) by autograd, re-running steps k+1..t from h(k)."""
    h_k = run_rnn(w, x).h[k].detach()

    def h_t_of(h: Tensor) -> Tensor:
        for j in range(k + 1, t + 1):
            _, h = rnn_step(w, h, x[j - 1])
        return h

    return torch.autograd.functional.jacobian(h_t_of, h_k)


def jacobian_product(w: RNNWeights, trace: Trace, k: int, t: int) -> Tensor:
    """∏_{j=k+1..t} W_hᵀ diag(σ'(z(j))) multiplied out left to right (identity when k = t)."""
    product = torch.eye(w.hidden_size, dtype=w.W_h.dtype)
    for j in range(k + 1, t + 1):
        product = product @ step_factor(w, trace.z[j].detach())
    return product


def lstm_cell_jacobian_autograd(w: LSTMWeights, trace: Trace, x: Tensor, t: int) -> Tensor:
    """∂c(t)/∂c(t−1) by torch autograd, re-running step t with h(t−1) = o(t−1) ⊙ tanh c(t−1)."""
    o_prev = trace.gates["o"][t - 1].detach()
    h_init = trace.h[0].detach()

    def c_of(c_prev: Tensor) -> Tensor:
        h_prev = h_init if t == 1 else o_prev * torch.tanh(c_prev)
        return lstm_step(w, h_prev, c_prev, x[t - 1])["c"]

    return torch.autograd.functional.jacobian(c_of, trace.c[t - 1].detach())
