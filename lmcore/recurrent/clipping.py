"""Gradient norm clipping, exactly as the notes write it:

    ĝ ← (threshold / ‖ĝ‖) · ĝ   if ‖ĝ‖ > threshold,   ĝ unchanged otherwise.

It rescales (keeps the direction, caps the length): it cures explosion, but it can never enlarge a
vanished gradient. ‖ĝ‖ is the global L2 norm over all parameters' gradients.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import torch
from torch import Tensor


def clip_vector(g: np.ndarray, threshold: float) -> np.ndarray:
    """The notes' rule on one vector (numpy); a non-finite norm leaves g as it is."""
    norm = float(np.linalg.norm(g))
    if math.isfinite(norm) and norm > threshold:
        return g * (threshold / norm)
    return g


def global_grad_norm(params: Iterable[Tensor]) -> float:
    """‖ĝ‖ = sqrt(Σ over parameters of ‖grad‖²), computed as m·‖ĝ/m‖ with m = max |ĝ_i| so that
    the squares cannot overflow while ĝ itself is finite; inf/NaN in ĝ propagate."""
    grads = [p.grad.detach().double() for p in params if p.grad is not None]
    if not grads:
        return 0.0
    m = max(float(g.abs().max()) if g.numel() else 0.0 for g in grads)
    if m == 0.0 or not math.isfinite(m):
        return float("nan") if any(torch.isnan(g).any() for g in grads) else m
    return m * math.sqrt(sum(float(((g / m) ** 2).sum()) for g in grads))


def clip_gradients_(params: Iterable[Tensor], threshold: float) -> tuple[float, bool]:
    """Clip in place the parameters' gradients to global norm ≤ threshold (the notes' rule).

    Returns (norm before clipping, whether it was clipped). A non-finite norm is not rescaled
    (there is no direction to keep); the caller decides what to do with it. The product is taken in
    float64 and rounded once: threshold/‖ĝ‖ can be below float32's normal range (‖ĝ‖ ~ 1e37), where
    the factor itself would keep only a few bits.
    """
    params = [p for p in params if p.grad is not None]
    norm = global_grad_norm(params)
    clipped = math.isfinite(norm) and norm > threshold
    if clipped:
        for p in params:
            p.grad.copy_(p.grad.double() * (threshold / norm))
    return norm, clipped
