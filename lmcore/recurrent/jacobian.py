"""The notes' Jacobian product, its bound, and the LSTM's ∂c(t)/∂c(t−1) versus f(t).

Notes:  ∂h(t)/∂h(k) = ∏_{j=k+1..t} W_hᵀ diag(σ'(z(j))),   ‖·‖ ≤ (σ1·γ)^(t−k),  γ = max σ'.

Layout: W_hᵀ diag(σ'(z(j))) is the *transpose* of the usual Jacobian matrix ∂h(j)_a/∂h(j−1)_b
(= diag(σ') W_h). With the factors ordered j = k+1 (left) .. t (right), the notes' product P satisfies
∂J/∂h(k) = P · ∂J/∂h(t) for gradients as column vectors, and P = (∂h(t)/∂h(k))ᵀ. Norms are equal.

LSTM: c(t) = f(t) ⊙ c(t−1) + i(t) ⊙ c̃(t), and the gates see h(t−1) = o(t−1) ⊙ tanh c(t−1), so

    ∂c(t)/∂c(t−1) = diag(f(t))                                            ← the notes' "≈ f(t)"
                  + [diag(c(t−1)⊙f'(t)) W_hf + diag(c̃(t)⊙i'(t)) W_hi + diag(i(t)⊙c̃'(t)) W_hc]
                    · diag(o(t−1) ⊙ (1 − tanh² c(t−1)))                  ← the ignored terms
with f' = f(1−f), i' = i(1−i), c̃' = 1 − c̃².
"""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from lmcore.recurrent.cells import ACTIVATIONS, LSTMWeights, RNNWeights, Trace


def step_factor(w: RNNWeights, z_j: Tensor) -> Tensor:
    """W_hᵀ diag(σ'(z(j))) (columns of W_hᵀ scaled by σ'(z(j)))."""
    return w.W_h.T * ACTIVATIONS[w.activation].derivative(z_j)


def product_norms(w: RNNWeights, trace: Trace, t: int | None = None) -> np.ndarray:
    """‖∏_{j=k+1..t} W_hᵀ diag(σ'(z(j)))‖₂ for k = t, t−1, ..., 1 (index = distance t − k).

    Built right to left (P_k = M_{k+1} P_{k+1}); overflow gives inf/NaN entries, never an error.
    """
    t = trace.T if t is None else t
    product = torch.eye(w.hidden_size, dtype=w.W_h.dtype)
    norms = [1.0]
    with torch.no_grad():
        for j in range(t, 1, -1):
            product = step_factor(w, trace.z[j]) @ product
            norms.append(_spectral_norm(product))
    return np.array(norms)


def product_norm(w: RNNWeights, trace: Trace, d: int, t: int | None = None) -> float:
    """‖∏_{j=t−d+1..t} W_hᵀ diag(σ'(z(j)))‖₂ at one distance d (= :func:`product_norms` [d]):
    d matrix products and a single norm, where the whole curve needs a norm per distance."""
    t = trace.T if t is None else t
    product = torch.eye(w.hidden_size, dtype=w.W_h.dtype)
    with torch.no_grad():
        for j in range(t, t - d, -1):
            product = step_factor(w, trace.z[j]) @ product
    return _spectral_norm(product) if d else 1.0


def per_step_jacobian_norms(w: RNNWeights, trace: Trace, steps: int | None = None) -> np.ndarray:
    """‖W_hᵀ diag(σ'(z(j)))‖₂ for j = 1..T (one factor of the product); the first ``steps`` only
    if given."""
    last = trace.T if steps is None else min(steps, trace.T)
    if last < 1:
        return np.zeros(0)
    with torch.no_grad():
        z = torch.stack([trace.z[j] for j in range(1, last + 1)])
        return _spectral_norms(step_factor(w, z[:, None, :]))  # (T, n, n): one factor per step


def mean_activation_derivative(w: RNNWeights, trace: Trace, steps: int | None = None) -> np.ndarray:
    """Mean over units of σ'(z(j)) for j = 1..T (γ = max σ' is the notes' bound); the first
    ``steps`` only if given."""
    deriv = ACTIVATIONS[w.activation].derivative
    last = trace.T if steps is None else min(steps, trace.T)
    with torch.no_grad():
        return np.array([float(deriv(trace.z[j]).mean()) for j in range(1, last + 1)])


def _spectral_norm(m: Tensor) -> float:
    if not torch.isfinite(m).all():
        return float("inf") if not torch.isnan(m).any() else float("nan")
    return float(torch.linalg.matrix_norm(m, ord=2))


def _spectral_norms(stack: Tensor) -> np.ndarray:
    """:func:`_spectral_norm` of every matrix of a (T, n, n) stack, in one batched call."""
    flat = stack.reshape(len(stack), -1)
    finite = torch.isfinite(flat).all(dim=1)
    out = torch.where(torch.isnan(flat).any(dim=1), float("nan"), float("inf")).to(torch.float64)
    if finite.any():
        out[finite] = torch.linalg.matrix_norm(stack[finite], ord=2).to(torch.float64)
    return out.numpy()


def lstm_cell_jacobian(w: LSTMWeights, trace: Trace, t: int) -> Tensor:
    """Exact ∂c(t)/∂c(t−1) (n×n, row = component of c(t)) from the formula in the module doc."""
    f, i, c_tilde = (trace.gates[k][t].detach() for k in ("f", "i", "c_tilde"))
    c_prev = trace.c[t - 1].detach()
    exact = torch.diag(f)
    if t == 1:  # h(0) is the initial state: it does not depend on c(0)
        return exact
    via_h = (
        (c_prev * f * (1 - f))[:, None] * w.f.W_h
        + (c_tilde * i * (1 - i))[:, None] * w.i.W_h
        + (i * (1 - c_tilde**2))[:, None] * w.c.W_h
    )
    dh_dc = trace.gates["o"][t - 1].detach() * (1 - torch.tanh(c_prev) ** 2)
    return exact + via_h * dh_dc[None, :]


def forget_gate_approximation(w: LSTMWeights, trace: Trace) -> dict[str, np.ndarray]:
    """Per step t = 1..T: ‖exact ∂c(t)/∂c(t−1)‖₂, ‖diag f(t)‖₂ and the relative error of the
    notes' approximation ‖exact − diag f(t)‖₂ / ‖exact‖₂."""
    with torch.no_grad():
        exact = torch.stack([lstm_cell_jacobian(w, trace, t) for t in range(1, trace.T + 1)])
        f = torch.stack([trace.gates["f"][t].detach() for t in range(1, trace.T + 1)])
        exact_n = _spectral_norms(exact)
        approx_n = f.abs().amax(dim=1).to(torch.float64).numpy()  # ‖diag f‖₂ = max |f_i|
        rel = _spectral_norms(exact - torch.diag_embed(f)) / np.maximum(exact_n, 1e-300)
    return {"exact": exact_n, "forget": approx_n, "relative_error": rel}
