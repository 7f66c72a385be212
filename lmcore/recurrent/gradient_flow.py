"""Gradient norm versus distance: ‖∂J(T)/∂h(k)‖ for every k = 1..T from ONE backward pass.

The loss is a fixed linear read-out of the last state, J(T) = vᵀ h(T) with ‖v‖ = 1, so
‖∂J(T)/∂h(T)‖ = 1 and the curve shows exactly how the notes' product

    ∂J(T)/∂h(k) = ∂J(T)/∂h(T) · ∏_{j=k+1..T} ∂h(j)/∂h(j−1)

shrinks or grows with the distance T − k. One backward pass, written out as vector–Jacobian
products in :mod:`.vjp` (g(k−1) = W_hᵀ (σ'(z(k)) ⊙ g(k)) for the RNN), yields all T gradients (the
LSTM also gives ‖∂J(T)/∂c(k)‖); tests check them against torch autograd.
Overflow never raises: the first distance with an inf/NaN norm is reported as ``exploded_at``, the
first with an exact 0 (float64 underflow) as ``vanished_at``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from lmcore.recurrent.cells import ACTIVATIONS, DTYPE, CellWeights
from lmcore.recurrent.vjp import row_norms, state_gradients
from lmcore.recurrent.weights import CellSpec, random_cell, random_inputs


@dataclass
class GradientCurve:
    """Norms indexed by distance T − k (index 0 ↔ k = T, index T−1 ↔ k = 1)."""

    distance: np.ndarray
    norm_h: np.ndarray
    norm_c: np.ndarray | None = None
    exploded_at: int | None = None
    vanished_at: int | None = None
    forward_exploded_at: int | None = None


def readout_vector(n: int, seed: int) -> Tensor:
    """A random unit vector v (J(T) = vᵀ h(T))."""
    v = torch.randn(n, generator=torch.Generator().manual_seed(20_000 + seed), dtype=DTYPE)
    return v / v.norm()


def gradient_curve(weights: CellWeights, x: Tensor, v: Tensor) -> GradientCurve:
    """‖∂J(T)/∂h(k)‖ (and ‖∂J(T)/∂c(k)‖ for the LSTM) for k = T..1 from one backward pass."""
    grads = state_gradients(weights, x, v)
    norm_h = row_norms(grads.grad_h)[::-1].copy()
    norm_c = row_norms(grads.grad_c)[::-1].copy() if grads.grad_c is not None else None
    forward_bad = np.flatnonzero(~np.isfinite(grads.h).all(axis=1))
    return GradientCurve(
        distance=np.arange(len(norm_h)),
        norm_h=norm_h,
        norm_c=norm_c,
        exploded_at=first_index(~np.isfinite(norm_h)),
        vanished_at=first_index(norm_h == 0),
        forward_exploded_at=int(forward_bad[0]) + 1 if forward_bad.size else None,
    )


def first_index(mask: np.ndarray) -> int | None:
    """The first index where mask is True, or None."""
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def curve_for(spec: CellSpec, T: int, input_scale: float, seed: int) -> GradientCurve:
    """The gradient curve of a random cell (``spec``) on random inputs of scale ``input_scale``."""
    weights = random_cell(spec, seed)
    x = random_inputs(T, spec.input_dim, input_scale, seed)
    return gradient_curve(weights, x, readout_vector(spec.hidden, seed))


@dataclass
class SeedBand:
    """Median and min–max band over seeds of log10 ‖∂J(T)/∂h(k)‖ (NaN counted as +inf)."""

    distance: np.ndarray
    median: np.ndarray
    low: np.ndarray
    high: np.ndarray
    exploded_at: int | None
    vanished_at: int | None
    curves: list[GradientCurve]
    median_c: np.ndarray | None = None


def curves_over_seeds(spec: CellSpec, T: int, input_scale: float, seeds: list[int]) -> SeedBand:
    """Run :func:`curve_for` for each seed; summarise in log space (median, min, max)."""
    curves = [curve_for(spec, T, input_scale, s) for s in seeds]
    logs = np.stack([log10_norms(c.norm_h) for c in curves])
    median = np.median(logs, axis=0)
    median_c = None
    if curves[0].norm_c is not None:
        median_c = 10 ** np.median(np.stack([log10_norms(c.norm_c) for c in curves]), axis=0)
    lin = 10.0**median
    return SeedBand(
        distance=curves[0].distance, median=lin, low=10 ** logs.min(axis=0),
        high=10 ** logs.max(axis=0), exploded_at=first_index(~np.isfinite(lin)),
        vanished_at=first_index(lin == 0), curves=curves, median_c=median_c,
    )


def log10_norms(norms: np.ndarray) -> np.ndarray:
    """log10 of the norms with NaN (overflow) mapped to +inf and 0 to −inf, without warnings."""
    out = np.full(norms.shape, np.inf)
    ok = np.isfinite(norms)
    with np.errstate(divide="ignore"):
        out[ok] = np.log10(norms[ok])
    return out


def theory_line(sigma1: float, gamma: float, distance: np.ndarray) -> np.ndarray:
    """The notes' bound (σ1·γ)^(t−k); overflow gives inf, never an exception."""
    with np.errstate(over="ignore"):
        return np.power(float(sigma1 * gamma), distance.astype(np.float64))


def regime(sigma1_gamma: float, tol: float = 1e-9) -> str:
    """'vanishing' if σ1γ < 1, 'exploding' if > 1, 'critical' if = 1 (the notes' three cases)."""
    if abs(sigma1_gamma - 1.0) <= tol:
        return "critical"
    return "vanishing" if sigma1_gamma < 1 else "exploding"


def activation_gamma(activation: str) -> float:
    """γ = max σ' (tanh 1, sigmoid 1/4, relu 1, identity 1)."""
    return ACTIVATIONS[activation].gamma
