"""BPTT written out: the contribution of each step k to ∂J(t)/∂W_h, and truncated BPTT.

Notes:  ∂J(t)/∂W_h = Σ_{k=1..t} ∂J(t)/∂h(t) · (∏_{j=k+1..t} ∂h(j)/∂h(j−1)) · ∂h(k)/∂W_h

For h(k) = σ(z(k)), z(k) = W_h h(k−1) + W_x x(k) + b, the "immediate" ∂h(k)/∂W_h term gives the
contribution matrix

    G(t, k) = δ(t, k) h(k−1)ᵀ,   δ(t, k) = σ'(z(k)) ⊙ ∂J(t)/∂h(k),
    ∂J(t)/∂h(k−1) = W_hᵀ δ(t, k)                      (one factor W_hᵀ diag σ'(z(k)) per step)

so Σ_k G(t, k) = ∂J(t)/∂W_h (row sums) and Σ_t Σ_k G(t, k) / T = ∂J/∂W_h for J = mean_t J(t).
‖G(t, k)‖_F = ‖δ(t, k)‖ · ‖h(k−1)‖ fills the t × k heatmap. Truncated BPTT with window w keeps only
the terms with t − k < w.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from lmcore.recurrent.cells import ACTIVATIONS, RNNWeights, Trace


@dataclass
class BPTTContributions:
    """``norms[t−1, k−1]`` = ‖G(t, k)‖_F (NaN for k > t); ``per_loss[t−1]`` = ∂J(t)/∂W_h;
    ``per_distance[d]`` = Σ_t G(t, t−d); ``total`` = ∂J/∂W_h with J = (1/T) Σ_t J(t)."""

    norms: np.ndarray
    per_loss: Tensor
    per_distance: Tensor
    total: Tensor

    @property
    def T(self) -> int:
        return self.norms.shape[0]

    def truncated(self, window: int) -> Tensor:
        """∂J/∂W_h keeping only terms with t − k < window (truncated BPTT)."""
        return self.per_distance[: max(window, 0)].sum(dim=0) / self.T

    def truncation_error(self, window: int) -> float:
        """‖truncated − full‖_F / ‖full‖_F."""
        full = float(self.total.norm())
        return float((self.truncated(window) - self.total).norm()) / full if full > 0 else 0.0

    def dropped_share(self, window: int) -> float:
        """Share of Σ‖G(t, k)‖ carried by the terms truncation drops (t − k ≥ window)."""
        t, k = np.indices(self.norms.shape)
        finite = np.nan_to_num(self.norms, nan=0.0, posinf=0.0)
        total = finite.sum()
        return float(finite[(t - k) >= window].sum() / total) if total > 0 else 0.0


def bptt_contributions(w: RNNWeights, trace: Trace, dJ_dh_direct: Tensor) -> BPTTContributions:
    """All G(t, k) for a single sequence.

    ``dJ_dh_direct[t−1]`` = ∂J(t)/∂h(t) through the read-out only (e.g. W_yᵀ(ŷ(t) − y(t))).
    The recursion runs all losses t at once, from k = T down to 1 (O(T²n²)).
    """
    T, n = dJ_dh_direct.shape
    deriv = ACTIVATIONS[w.activation].derivative
    with torch.no_grad():
        z = torch.stack([zk.detach() for zk in trace.z[1:]])  # (T, n), row k−1 ↔ z(k)
        h = torch.stack([hk.detach() for hk in trace.h])  # (T+1, n), row k ↔ h(k)
        grad = dJ_dh_direct.detach().clone()  # row t−1: ∂J(t)/∂h(k) for the current k
        norms = np.full((T, T), np.nan)
        per_loss = torch.zeros(T, n, n, dtype=h.dtype)
        per_distance = torch.zeros(T, n, n, dtype=h.dtype)
        for k in range(T, 0, -1):
            rows = slice(k - 1, T)  # losses t ≥ k reach step k
            delta = deriv(z[k - 1]) * grad[rows]  # (T−k+1, n): δ(t, k)
            contrib = delta[:, :, None] * h[k - 1][None, None, :]  # G(t, k) = δ h(k−1)ᵀ
            norms[rows, k - 1] = (delta.norm(dim=1) * h[k - 1].norm()).numpy()
            per_loss[rows] += contrib
            per_distance[: T - k + 1] += contrib  # t − k = 0..T−k for t = k..T
            grad[rows] = delta @ w.W_h  # ∂J(t)/∂h(k−1) = W_hᵀ δ (row-vector form)
        total = per_loss.sum(dim=0) / T
    return BPTTContributions(norms, per_loss, per_distance, total)
