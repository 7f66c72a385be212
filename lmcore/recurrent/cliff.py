"""The cliff of Pascanu, Mikolov & Bengio (2013): a one-unit RNN whose loss has a sharp wall.

    h(t) = w · sigmoid(h(t−1)) + b,   h(0) = h0,   L(w, b) = (h(T) − target)²

Near a bifurcation of the map h ↦ w·sigmoid(h) + b, h(T) jumps between two attractors when (w, b)
crosses a curve: L is almost flat on both sides and ∂L/∂(w, b) is enormous on the wall. A gradient
step taken there throws the parameters far away; the notes' clipping rule
ĝ ← threshold·ĝ/‖ĝ‖ if ‖ĝ‖ > threshold keeps the direction and caps the step at lr·threshold.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from lmcore.recurrent.cells import DTYPE
from lmcore.recurrent.clipping import clip_vector


@dataclass(frozen=True)
class CliffTask:
    T: int = 30
    h0: float = 0.5
    target: float = 0.7


def cliff_loss(w: Tensor, b: Tensor, task: CliffTask = CliffTask()) -> Tensor:
    """L(w, b) = (h(T) − target)², elementwise over any shape of w and b (broadcast)."""
    h = torch.full(torch.broadcast_shapes(w.shape, b.shape), task.h0, dtype=DTYPE)
    for _ in range(task.T):
        h = w * torch.sigmoid(h) + b
    return (h - task.target) ** 2


def loss_and_gradient(w: float, b: float, task: CliffTask = CliffTask()) -> tuple[float, np.ndarray]:
    """L and ∂L/∂(w, b) at one point, by autograd."""
    wt = torch.tensor(w, dtype=DTYPE, requires_grad=True)
    bt = torch.tensor(b, dtype=DTYPE, requires_grad=True)
    loss = cliff_loss(wt, bt, task)
    loss.backward()
    return float(loss.detach()), np.array([float(wt.grad), float(bt.grad)])


@dataclass
class LossSurface:
    w: np.ndarray
    b: np.ndarray
    loss: np.ndarray  # shape (len(b), len(w)): rows b, columns w (Plotly's z layout)
    grad_norm: np.ndarray


def loss_surface(w_range: tuple[float, float], b_range: tuple[float, float], resolution: int = 80,
                 task: CliffTask = CliffTask()) -> LossSurface:
    """L and ‖∇L‖ on a grid (one batched forward/backward: points are independent)."""
    w = torch.linspace(*w_range, resolution, dtype=DTYPE)
    b = torch.linspace(*b_range, resolution, dtype=DTYPE)
    bb, ww = torch.meshgrid(b, w, indexing="ij")
    ww.requires_grad_(True)
    bb.requires_grad_(True)
    loss = cliff_loss(ww, bb, task)
    loss.sum().backward()
    grad = torch.sqrt(ww.grad**2 + bb.grad**2)
    return LossSurface(w.numpy(), b.numpy(), loss.detach().numpy(), grad.numpy())


@dataclass
class Trajectory:
    points: np.ndarray  # (steps+1, 2): (w, b) after each step
    loss: np.ndarray
    grad_norm: np.ndarray  # ‖∇L‖ before clipping, per step
    clipped: np.ndarray


def descend(start: tuple[float, float], lr: float, steps: int, threshold: float | None = None,
            task: CliffTask = CliffTask(), bound: float = 1e6) -> Trajectory:
    """Gradient descent (w, b) ← (w, b) − lr·ĝ, ĝ clipped when ``threshold`` is set.

    A non-finite gradient or a point beyond ``bound`` stops the walk (no exception).
    """
    p = np.array(start, dtype=np.float64)
    points, losses, norms, clipped = [p.copy()], [], [], []
    for _ in range(steps):
        loss, g = loss_and_gradient(p[0], p[1], task)
        norm = float(np.linalg.norm(g))
        losses.append(loss)
        norms.append(norm)
        if not np.isfinite(norm):
            clipped.append(False)
            break
        step = g if threshold is None else clip_vector(g, threshold)
        clipped.append(threshold is not None and norm > threshold)
        p = p - lr * step
        points.append(p.copy())
        if not np.all(np.abs(p) < bound):
            break
    return Trajectory(np.array(points), np.array(losses), np.array(norms), np.array(clipped))
