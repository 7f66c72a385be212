"""Recurrent weight matrices with a controlled scale, and random cells built from them.

- ``scaled_orthogonal(n, σ1)`` = σ1·Q with Q orthogonal: every singular value equals σ1 exactly,
  so ‖W_hᵀ v‖ = σ1‖v‖ for all v (the notes' σ1 is then exact, not just an upper bound).
- ``gaussian_with_radius(n, ρ)`` = G·ρ/max|λ(G)|, G Gaussian: spectral radius exactly ρ, but its σ1
  is larger (about 2ρ for large n): the notes' bound uses σ1, the long-run rate follows ρ.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from lmcore.recurrent.cells import DTYPE, Gate, GRUWeights, LSTMWeights, RNNWeights

W_H_KINDS = ("orthogonal", "gaussian")


def orthogonal(n: int, generator: torch.Generator) -> Tensor:
    """A Haar-random orthogonal n×n matrix (QR of a Gaussian, signs fixed by diag(R))."""
    q, r = torch.linalg.qr(torch.randn(n, n, generator=generator, dtype=DTYPE))
    return q * torch.sign(torch.diagonal(r))


def scaled_orthogonal(n: int, sigma1: float, generator: torch.Generator) -> Tensor:
    """W_h = σ1·Q: all singular values equal σ1."""
    return sigma1 * orthogonal(n, generator)


def gaussian_with_radius(n: int, rho: float, generator: torch.Generator) -> Tensor:
    """W_h = G·ρ/max|λ(G)| with G ~ N(0, 1/n): spectral radius exactly ρ."""
    g = torch.randn(n, n, generator=generator, dtype=DTYPE) / n**0.5
    return g * (rho / spectral_radius(g))


def recurrent_matrix(n: int, kind: str, scale: float, generator: torch.Generator) -> Tensor:
    """``kind`` 'orthogonal' → σ1·Q with σ1 = scale; 'gaussian' → spectral radius ρ = scale."""
    if kind == "orthogonal":
        return scaled_orthogonal(n, scale, generator)
    if kind == "gaussian":
        return gaussian_with_radius(n, scale, generator)
    raise ValueError(f"unknown W_h kind {kind!r}; expected one of {W_H_KINDS}")


def largest_singular_value(w: Tensor) -> float:
    """σ1 = ‖W‖₂."""
    return float(torch.linalg.matrix_norm(w, ord=2))


def spectral_radius(w: Tensor) -> float:
    """ρ = max |λ(W)|."""
    return float(torch.linalg.eigvals(w).abs().max())


def eigenvalues(w: Tensor) -> np.ndarray:
    """The complex eigenvalues of W (numpy array)."""
    return torch.linalg.eigvals(w).numpy()


@dataclass(frozen=True)
class CellSpec:
    """How to build a random cell: W_h kind and scale, activation (RNN), forget bias (LSTM)."""

    cell: str = "rnn"
    hidden: int = 32
    input_dim: int = 8
    kind: str = "orthogonal"
    scale: float = 1.0
    activation: str = "tanh"
    forget_bias: float = 1.0
    input_weight_scale: float = 1.0


def random_cell(spec: CellSpec, seed: int) -> RNNWeights | LSTMWeights | GRUWeights:
    """A random cell: every recurrent block is ``recurrent_matrix(kind, scale)``, input weights
    N(0, input_weight_scale²/d), biases 0 (the LSTM forget gate's bias is ``forget_bias``)."""
    g = torch.Generator().manual_seed(seed)
    n, d = spec.hidden, spec.input_dim

    def gate(bias: float = 0.0) -> Gate:
        w_h = recurrent_matrix(n, spec.kind, spec.scale, g)
        w_x = torch.randn(n, d, generator=g, dtype=DTYPE) * spec.input_weight_scale / d**0.5
        return Gate(w_h, w_x, torch.full((n,), float(bias), dtype=DTYPE))

    if spec.cell == "rnn":
        base = gate()
        return RNNWeights(base.W_h, base.W_x, base.b, activation=spec.activation)
    if spec.cell == "lstm":
        return LSTMWeights(i=gate(), f=gate(spec.forget_bias), o=gate(), c=gate())
    if spec.cell == "gru":
        return GRUWeights(r=gate(), u=gate(), n=gate(), b_hn=torch.zeros(n, dtype=DTYPE))
    raise ValueError(f"unknown cell {spec.cell!r}; expected rnn, lstm or gru")


def random_inputs(T: int, d: int, scale: float, seed: int) -> Tensor:
    """x(1..T) ~ N(0, scale²), shape (T, d), float64."""
    g = torch.Generator().manual_seed(10_000 + seed)
    return torch.randn(T, d, generator=g, dtype=DTYPE) * scale
