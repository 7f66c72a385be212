"""The per-setting numbers the gradients page shows beside its curves (seed 0 of a random cell):
W_h's spectrum, mean σ'(z(j)), one Jacobian factor's norm per step, the notes' product norm,
and for the LSTM the quality of ∂c(t)/∂c(t−1) ≈ f(t)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from lmcore.recurrent.cells import run_lstm, run_rnn
from lmcore.recurrent.jacobian import (
    forget_gate_approximation, mean_activation_derivative, per_step_jacobian_norms, product_norm,
)
from lmcore.recurrent.rnn_lm import WhiteBoxLM, input_gradient_norms
from lmcore.recurrent.weights import (
    CellSpec, eigenvalues, largest_singular_value, random_cell, random_inputs, spectral_radius,
)


@dataclass
class RNNPanels:
    """σ1 and ρ of W_h, its eigenvalues, and per step j (the first ``steps``): mean σ'(z(j)) and
    ‖W_hᵀ diag σ'(z(j))‖₂."""

    sigma1: float
    rho: float
    eigs: np.ndarray
    mean_deriv: np.ndarray
    step_norms: np.ndarray


def _rnn_and_trace(spec: CellSpec, T: int, input_scale: float, seed: int):
    w = random_cell(replace(spec, cell="rnn"), seed)
    with torch.no_grad():
        return w, run_rnn(w, random_inputs(T, spec.input_dim, input_scale, seed))


def rnn_spectrum(spec: CellSpec, seed: int = 0) -> tuple[float, float]:
    """(σ1, ρ) of the RNN's W_h (seed ``seed``): the largest singular value and the spectral radius
    max |λ|, as :func:`rnn_panels` gives them, without its per-step series (no inputs needed)."""
    W_h = random_cell(replace(spec, cell="rnn"), seed).W_h
    return largest_singular_value(W_h), spectral_radius(W_h)


def rnn_panels(spec: CellSpec, T: int, input_scale: float, seed: int = 0, steps: int | None = None) -> RNNPanels:
    """The RNN's diagnostics on the same random inputs as its gradient curve; the per-step series
    for the first ``steps`` steps only if given (a norm per step costs an SVD)."""
    w, trace = _rnn_and_trace(spec, T, input_scale, seed)
    return RNNPanels(
        sigma1=largest_singular_value(w.W_h), rho=spectral_radius(w.W_h), eigs=eigenvalues(w.W_h),
        mean_deriv=mean_activation_derivative(w, trace, steps), step_norms=per_step_jacobian_norms(w, trace, steps),
    )


def rnn_product_norm(spec: CellSpec, T: int, input_scale: float, d: int, seed: int = 0) -> float:
    """‖∏_{j=T−d+1..T} W_hᵀ diag σ'(z(j))‖₂ for the same RNN and inputs as :func:`rnn_panels`."""
    w, trace = _rnn_and_trace(spec, T, input_scale, seed)
    return product_norm(w, trace, d)


def lstm_panel(spec: CellSpec, T: int, input_scale: float, seed: int = 0) -> dict[str, np.ndarray]:
    """Exact ‖∂c(t)/∂c(t−1)‖ vs ‖diag f(t)‖ and the relative error, for the LSTM of ``spec``."""
    w = random_cell(replace(spec, cell="lstm"), seed)
    with torch.no_grad():
        trace = run_lstm(w, random_inputs(T, spec.input_dim, input_scale, seed))
    return forget_gate_approximation(w, trace)


def connectivity(models: dict[str, WhiteBoxLM], tokens: list[str], position: int) -> dict[str, np.ndarray]:
    """‖∂J(position)/∂x(k)‖ for k = 1..position under each model (same sentence)."""
    return {name: input_gradient_norms(lm, tokens, position) for name, lm in models.items()}
