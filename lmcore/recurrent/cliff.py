"""The cliff of Pascanu, Mikolov & Bengio (2013): a one-unit RNN whose loss has a sharp wall.

    h(t) = w · sigmoid(h(t−1)) + b,   h(0) = h0,   L(w, b) = (h(T) − target)²

Near a bifurcation of the map h ↦ w·sigmoid(h) + b, h(T) jumps between two attractors when (w, b)
crosses a curve: L is almost flat on both sides and ∂L/∂(w, b) is enormous on the wall. A gradient
step taken there throws the parameters far away; the notes' clipping rule
ĝ ← threshold·ĝ/‖ĝ‖ if ‖ĝ‖ > threshold keeps the direction and caps the step at lr·threshold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lmcore.recurrent.clipping import clip_vector


@dataclass(frozen=True)
class CliffTask:
    T: int = 30
    h0: float = 0.5
    target: float = 0.7


def _recursion(w, b, h, task: CliffTask, tanh):
    """L, ∂L/∂w, ∂L/∂b by forward-mode differentiation of the recursion (exact), written once for
    NumPy arrays and Python floats (``h`` = h(0) in the shape of the result, ``tanh`` np.tanh or
    math.tanh; σ(h) = (1 + tanh(h/2)) / 2):

        ∂h(t)/∂w = σ(h(t−1)) + w σ'(h(t−1)) ∂h(t−1)/∂w,   ∂h(t)/∂b = 1 + w σ'(h(t−1)) ∂h(t−1)/∂b,
        ∂L/∂θ = 2 (h(T) − target) ∂h(T)/∂θ,   σ' = σ(1 − σ).
    """
    dh_dw, dh_db = 0.0, 0.0
    for _ in range(task.T):
        s = 0.5 * (1.0 + tanh(0.5 * h))
        gain = w * s * (1.0 - s)
        dh_dw, dh_db = s + gain * dh_dw, 1.0 + gain * dh_db
        h = w * s + b
    r = h - task.target
    return r * r, 2.0 * r * dh_dw, 2.0 * r * dh_db


def loss_and_grad(w: np.ndarray, b: np.ndarray, task: CliffTask = CliffTask()
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """L, ∂L/∂w, ∂L/∂b elementwise over any (broadcast) shapes of w and b, float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        w, b = np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return _recursion(w, b, np.full(np.broadcast_shapes(w.shape, b.shape), task.h0), task, np.tanh)


def cliff_loss(w: np.ndarray, b: np.ndarray, task: CliffTask = CliffTask()) -> np.ndarray:
    """L(w, b) = (h(T) − target)², elementwise over any shape of w and b (broadcast)."""
    return loss_and_grad(w, b, task)[0]


def loss_and_gradient(w: float, b: float, task: CliffTask = CliffTask()) -> tuple[float, np.ndarray]:
    """L and ∂L/∂(w, b) at one point (Python floats: the descent's inner loop)."""
    loss, gw, gb = _recursion(float(w), float(b), task.h0, task, math.tanh)
    return loss, np.array([gw, gb])


@dataclass
class LossSurface:
    w: np.ndarray
    b: np.ndarray
    loss: np.ndarray  # shape (len(b), len(w)): rows b, columns w (Plotly's z layout)
    grad_norm: np.ndarray


def loss_surface(w_range: tuple[float, float], b_range: tuple[float, float], resolution: int = 80,
                 task: CliffTask = CliffTask()) -> LossSurface:
    """L and ‖∇L‖ on a grid (all points at once: they are independent)."""
    w = np.linspace(*w_range, resolution)
    b = np.linspace(*b_range, resolution)
    loss, gw, gb = loss_and_grad(w[None, :], b[:, None], task)
    return LossSurface(w, b, loss, np.hypot(gw, gb))


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
