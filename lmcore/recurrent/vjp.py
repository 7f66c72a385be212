"""∂J(T)/∂h(k) (and ∂J(T)/∂c(k)) for every k by a hand-written backward pass, in numpy float64.

J(T) = vᵀ h(T). Starting from g(T) = ∂J/∂h(T) = v, each step multiplies by the transposed Jacobian
of one cell step (a vector–Jacobian product), which is the notes' chain rule written backwards:

RNN:   g(k−1) = W_hᵀ (σ'(z(k)) ⊙ g(k)),  with σ' read off the output h = σ(z) as autograd does
       (tanh: 1 − h², sigmoid: h(1 − h), relu: [not h ≤ 0] (so 1 on a NaN state, like torch),
       identity: 1).
LSTM:  ∂J/∂c(t) = ∂J/∂c(t+1) ⊙ f(t+1) + g(t) ⊙ o(t) ⊙ (1 − tanh² c(t)),
       g(t−1) = W_hᵀ [δi, δf, δo, δc̃] with the gate pre-activation gradients
       δi = ∂J/∂c(t) ⊙ c̃ ⊙ i(1−i),  δf = ∂J/∂c(t) ⊙ c(t−1) ⊙ f(1−f),
       δo = g(t) ⊙ tanh c(t) ⊙ o(1−o),  δc̃ = ∂J/∂c(t) ⊙ i ⊙ (1 − c̃²).
GRU:   h(t) = (1−u) ⊙ n + u ⊙ h(t−1),  n = tanh(W_xn x + b_xn + r ⊙ q),  q = W_hn h(t−1) + b_hn:
       g(t−1) = u ⊙ g(t) + W_hᵀ [δr, δu, δq] with δq = g(t) ⊙ (1−u)(1−n²) ⊙ r,
       δr = g(t) ⊙ (1−u)(1−n²) ⊙ q ⊙ r(1−r),  δu = g(t) ⊙ (h(t−1) − n) ⊙ u(1−u).

Everything that does not depend on g (the input projections W_x x(t) + b for all t, every σ'
factor) is computed for all steps at once; the loops only do the sequential matrix–vector products.
Overflow gives inf/NaN entries, never an error or a warning. Checked against torch autograd in tests.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from lmcore.recurrent.cells import CellWeights, Gate, GRUWeights, LSTMWeights, RNNWeights


@dataclass
class StateGradients:
    """``h[t−1]`` = h(t) and ``grad_h[k−1]`` = ∂J(T)/∂h(k) for t, k = 1..T (LSTM: ``grad_c`` too)."""

    h: np.ndarray
    grad_h: np.ndarray
    grad_c: np.ndarray | None = None


def state_gradients(weights: CellWeights, x: torch.Tensor | np.ndarray,
                    v: torch.Tensor | np.ndarray) -> StateGradients:
    """Forward over x(1..T) (shape (T, d), h(0) = c(0) = 0), then one backward pass from J = vᵀ h(T)."""
    xs, vs = _array(x), _array(v)
    with np.errstate(all="ignore"):
        if isinstance(weights, RNNWeights):
            return _rnn(weights, xs, vs)
        if isinstance(weights, LSTMWeights):
            return _lstm(weights, xs, vs)
        if isinstance(weights, GRUWeights):
            return _gru(weights, xs, vs)
    raise TypeError(f"unsupported cell weights {type(weights).__name__}")


def _array(t: torch.Tensor | np.ndarray) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        t = t.detach().to(dtype=torch.float64, device="cpu").numpy()
    return np.ascontiguousarray(t, dtype=np.float64)


def _stack(gates: tuple[Gate, ...], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[W_h of each gate] stacked row-wise, and W_x x(t) + b of every gate for all t (T, m·n)."""
    w_h = np.concatenate([_array(g.W_h) for g in gates])
    w_x = np.concatenate([_array(g.W_x) for g in gates])
    b = np.concatenate([_array(g.b) for g in gates])
    return w_h, x @ w_x.T + b


def _sigmoid_(a: np.ndarray) -> None:
    """a ← 1 / (1 + exp(−a)) in place."""
    np.negative(a, out=a)
    np.exp(a, out=a)
    a += 1.0
    np.reciprocal(a, out=a)


# σ in place, and σ' from the output h = σ(z) (the rule torch's autograd uses)
_ACT: dict[str, tuple[Callable[[np.ndarray], object], Callable[[np.ndarray], np.ndarray]]] = {
    "tanh": (lambda a: np.tanh(a, out=a), lambda h: 1.0 - h * h),
    "sigmoid": (_sigmoid_, lambda h: (1.0 - h) * h),
    "relu": (lambda a: np.maximum(a, 0.0, out=a), lambda h: (~(h <= 0)).astype(np.float64)),
    "identity": (lambda a: None, np.ones_like),
}


def _rnn(w: RNNWeights, x: np.ndarray, v: np.ndarray) -> StateGradients:
    forward, derivative = _ACT[w.activation]
    w_h = _array(w.W_h)
    T, n, d = x.shape[0], w_h.shape[0], x.shape[1]
    # row t of ``s`` is [h(t), x(t+1), 1], so z(t+1) = [W_h W_x b] · s[t] is one matrix–vector product
    w_all = np.concatenate([w_h, _array(w.W_x), _array(w.b)[:, None]], axis=1)
    s = np.empty((T + 1, n + d + 1))
    s[0, :n] = 0.0
    s[:T, n:n + d] = x
    s[:, n + d] = 1.0
    h = s[:, :n]
    for src, dst in zip(s[:T], h[1:]):
        np.dot(w_all, src, out=dst)
        forward(dst)
    d_act = derivative(h[1:])  # d_act[k−1] = σ'(z(k))
    grad = np.empty((T, n))
    grad[T - 1] = v
    buf = np.empty(n)
    for g, dk, out in zip(grad[:0:-1], d_act[:0:-1], grad[-2::-1]):
        np.multiply(g, dk, out=buf)
        np.dot(buf, w_h, out=out)
    return StateGradients(np.ascontiguousarray(h[1:]), grad)


def _lstm(w: LSTMWeights, x: np.ndarray, v: np.ndarray) -> StateGradients:
    w_h, proj = _stack((w.i, w.f, w.o, w.c), x)
    T, n = proj.shape[0], w_h.shape[1]
    acts = np.empty((T, 4 * n))  # i, f, o, c̃ per step
    gate = acts.reshape(T, 4, n)
    h, c, tanh_c = np.zeros((T + 1, n)), np.zeros((T + 1, n)), np.empty((T, n))
    tmp = np.empty(n)
    for t in range(T):
        a = acts[t]
        np.dot(w_h, h[t], out=a)
        a += proj[t]
        _sigmoid_(a[: 3 * n])
        np.tanh(a[3 * n:], out=a[3 * n:])
        i, f, o, c_tilde = gate[t]
        np.multiply(f, c[t], out=c[t + 1])
        np.multiply(i, c_tilde, out=tmp)
        c[t + 1] += tmp
        np.tanh(c[t + 1], out=tanh_c[t])
        np.multiply(o, tanh_c[t], out=h[t + 1])
    i, f, o, c_tilde = (gate[:, j] for j in range(4))
    via_h = o * (1.0 - tanh_c * tanh_c)  # ∂h(t)/∂c(t) (diagonal)
    m = np.empty((T, 4, n))  # δ(pre-activation) per unit of ∂J/∂c(t) (i, f, c̃) or of g(t) (o)
    m[:, 0] = c_tilde * ((1.0 - i) * i)
    m[:, 1] = c[:-1] * ((1.0 - f) * f)
    m[:, 2] = tanh_c * ((1.0 - o) * o)
    m[:, 3] = i * (1.0 - c_tilde * c_tilde)
    grad_h, grad_c = np.empty((T, n)), np.empty((T, n))
    grad_h[T - 1] = v
    carry = np.zeros(n)  # ∂J/∂c(t+1) ⊙ f(t+1)
    delta = np.empty((4, n))
    flat = delta.reshape(-1)
    for k in range(T - 1, -1, -1):
        g, dc = grad_h[k], grad_c[k]
        np.multiply(g, via_h[k], out=dc)
        dc += carry
        np.multiply(m[k], dc, out=delta)
        np.multiply(m[k, 2], g, out=delta[2])
        if k:
            np.dot(flat, w_h, out=grad_h[k - 1])
        np.multiply(dc, f[k], out=carry)
    return StateGradients(h[1:], grad_h, grad_c)


def _gru(w: GRUWeights, x: np.ndarray, v: np.ndarray) -> StateGradients:
    w_h, proj = _stack((w.r, w.u, w.n), x)
    T, n = proj.shape[0], w_h.shape[1]
    b_hn = _array(w.b_hn)
    acts = np.empty((T, 3 * n))  # r, u, q = W_hn h(t−1) + b_hn per step
    gate = acts.reshape(T, 3, n)
    h, cand = np.zeros((T + 1, n)), np.empty((T, n))
    tmp = np.empty(n)
    for t in range(T):
        a = acts[t]
        np.dot(w_h, h[t], out=a)
        a[: 2 * n] += proj[t, : 2 * n]
        _sigmoid_(a[: 2 * n])
        r, u, q = gate[t]
        q += b_hn
        nt = cand[t]
        np.multiply(r, q, out=nt)
        nt += proj[t, 2 * n:]
        np.tanh(nt, out=nt)
        np.subtract(1.0, u, out=tmp)
        tmp *= nt
        np.multiply(u, h[t], out=h[t + 1])
        h[t + 1] += tmp
    r, u, q = (gate[:, j] for j in range(3))
    via_n = (1.0 - u) * (1.0 - cand * cand)  # ∂h(t)/∂(pre-activation of n)
    m = np.empty((T, 3, n))  # δr, δu, δq per unit of g(t)
    m[:, 0] = via_n * q * ((1.0 - r) * r)
    m[:, 1] = (h[:-1] - cand) * ((1.0 - u) * u)
    m[:, 2] = via_n * r
    grad = np.empty((T, n))
    grad[T - 1] = v
    delta = np.empty((3, n))
    flat = delta.reshape(-1)
    for k in range(T - 1, 0, -1):
        g = grad[k]
        np.multiply(m[k], g, out=delta)
        np.dot(flat, w_h, out=grad[k - 1])
        np.multiply(g, u[k], out=tmp)
        grad[k - 1] += tmp
    return StateGradients(h[1:], grad)


def row_norms(rows: np.ndarray) -> np.ndarray:
    """‖row‖₂ of every row. Rows whose sum of squares is out of float64's safe range (it overflows
    once entries pass ~1e154, long before the gradient itself does at ~1e308, and underflows below
    ~1e-154) are computed as m·‖row/m‖ with m = max|row_i|. A row with an inf gives inf, with a NaN
    gives NaN; an all-zero row gives 0."""
    with np.errstate(all="ignore"):
        squares = np.einsum("ij,ij->i", rows, rows)
        out = np.sqrt(squares)
        risky = ~((squares > 1e-290) & (squares < 1e290))
        if risky.any():
            part = rows[risky]
            m = np.abs(part).max(axis=1) if part.shape[1] else np.zeros(part.shape[0])
            ok = np.isfinite(m) & (m > 0)
            scaled = part[ok] / m[ok, None]
            m[ok] *= np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
            out[risky] = m
    return out
