"""Gradient curve ‖∂J(T)/∂h(k)‖ for k = 1..T (vanilla tanh RNN, T = 200, hidden 128, float64, J = vᵀ h(T)):
``gradient_curve`` against the peers a competent user would write for the same job, same inputs.

Peers (each does the whole job: forward pass, all T gradients, their norms):
- ``autograd_list``: torch forward, then ONE ``torch.autograd.grad`` call over the list [h(1), ..., h(T)];
- ``vjp_torch`` / ``vjp_numpy``: a hand-written backward loop g(k−1) = W_hᵀ ((1 − h(k)²) ⊙ g(k)), no autograd;
- ``per_k_backward`` (old baseline, fewer rounds): re-run steps k+1..T from a fresh leaf h(k), one backward
  per k — quadratic in T; it shows what one backward pass buys, not what a careful user would write.

All run in this process, one thread (torch and BLAS), in alternating rounds (the order rotates every round)
so they share the machine's load. The machine is shared: read the min (best case) next to the median;
the ``cpu_`` lines are this thread's CPU time, which time spent waiting for a core does not inflate.
``ratio_*`` = peer time / our time (> 1: ours is faster). ``max_rel_diff_*`` compares each peer's curve
with ours. Run: ``python bench/recurrent_gradient_curves.py``.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads its BLAS
os.environ.setdefault("OMP_NUM_THREADS", "1")

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmcore.recurrent.gradient_flow import gradient_curve, readout_vector  # noqa: E402
from lmcore.recurrent.weights import CellSpec, random_cell, random_inputs  # noqa: E402

T, N, D = 200, 128, 16
ROUNDS, CALLS = 41, 3  # CALLS back-to-back calls per timed sample (per-call mean)
W = random_cell(CellSpec("rnn", N, D, "orthogonal", 1.0, "tanh"), 0)
X, V = random_inputs(T, D, 1.0, 0), readout_vector(N, 0)


def ours() -> np.ndarray:
    return gradient_curve(W, X, V).norm_h


def autograd_list() -> np.ndarray:
    proj = X @ W.W_x.T + W.b
    h = torch.zeros(N, dtype=torch.float64, requires_grad=True)
    hs = []
    for t in range(T):
        h = torch.tanh(W.W_h @ h + proj[t])
        hs.append(h)
    grads = torch.autograd.grad(hs[-1] @ V, hs)
    return torch.linalg.vector_norm(torch.stack(grads), dim=1).flip(0).numpy()


def vjp_torch() -> np.ndarray:
    with torch.no_grad():
        proj = X @ W.W_x.T + W.b
        h, hs = torch.zeros(N, dtype=torch.float64), []
        for t in range(T):
            h = torch.tanh(W.W_h @ h + proj[t])
            hs.append(h)
        g, grads = V, [V]
        for k in range(T - 1, 0, -1):  # g ← ∂J/∂h(k) from ∂J/∂h(k+1)
            g = W.W_h.T @ ((1 - hs[k] ** 2) * g)
            grads.append(g)
        return torch.linalg.vector_norm(torch.stack(grads), dim=1).numpy()


W_H, W_X, B, XN, VN = (t.numpy() for t in (W.W_h, W.W_x, W.b, X, V))


def vjp_numpy() -> np.ndarray:
    proj = XN @ W_X.T + B
    h, hs = np.zeros(N), []
    for t in range(T):
        h = np.tanh(W_H @ h + proj[t])
        hs.append(h)
    g, grads = VN, [VN]
    for k in range(T - 1, 0, -1):
        g = W_H.T @ ((1 - hs[k] ** 2) * g)
        grads.append(g)
    return np.linalg.norm(np.array(grads), axis=1)


def per_k_backward() -> np.ndarray:
    proj = X @ W.W_x.T + W.b
    with torch.no_grad():
        h, hs = torch.zeros(N, dtype=torch.float64), []
        for t in range(T):
            h = torch.tanh(W.W_h @ h + proj[t])
            hs.append(h)
    norms = []
    for k in range(1, T + 1):  # fresh leaf h(k), re-run steps k+1..T, one backward each
        hk = hs[k - 1].clone().requires_grad_(True)
        h = hk
        for t in range(k, T):
            h = torch.tanh(W.W_h @ h + proj[t])
        (g,) = torch.autograd.grad(h @ V, hk)
        norms.append(float(g.norm()))
    return np.array(norms[::-1])


def alternate(fns: dict[str, Callable[[], object]], rounds: int,
              calls: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per-call wall and CPU seconds of each function, ``rounds`` samples each, the order rotating
    every round."""
    names = list(fns)
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            start, cpu_start = time.perf_counter(), time.thread_time()
            for _ in range(calls):
                fns[name]()
            wall[name].append((time.perf_counter() - start) / calls)
            cpu[name].append((time.thread_time() - cpu_start) / calls)
    return wall, cpu


def max_rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def main() -> None:
    torch.set_num_threads(1)
    peers = {"autograd_list": autograd_list, "vjp_torch": vjp_torch, "vjp_numpy": vjp_numpy}
    reference = ours()
    print(f"T: {T}")
    print(f"hidden: {N}")
    for name, fn in {**peers, "per_k_backward": per_k_backward}.items():
        print(f"max_rel_diff_{name}: {max_rel_diff(fn(), reference):.2e}")
    wall, cpu = alternate({"ours": ours, **peers}, ROUNDS, CALLS)
    slow, _ = alternate({"ours": ours, "per_k_backward": per_k_backward}, 3, 1)
    print(f"rounds: {ROUNDS} x {CALLS} calls (per_k_backward: 3 x 1)")
    for clock, times in (("", wall), ("cpu_", cpu)):
        med = {name: statistics.median(ts) for name, ts in times.items()}
        low = {name: min(ts) for name, ts in times.items()}
        for name in times:
            print(f"{name}_{clock}ms_median: {1e3 * med[name]:.2f}")
            print(f"{name}_{clock}ms_min: {1e3 * low[name]:.2f}")
        for name in peers:
            print(f"ratio_{clock}{name}_median: {med[name] / med['ours']:.2f}")
            print(f"ratio_{clock}{name}_min: {low[name] / low['ours']:.2f}")
        best = min(peers, key=lambda name: med[name])
        print(f"{clock}best_peer: {best}")
        print(f"ratio_{clock}best_peer_median: {med[best] / med['ours']:.2f}")
        print(f"ratio_{clock}best_peer_min: {min(low[p] for p in peers) / low['ours']:.2f}")
    print(f"per_k_backward_ms_median: {1e3 * statistics.median(slow['per_k_backward']):.1f}")
    print(f"ratio_per_k_backward_median: "
          f"{statistics.median(slow['per_k_backward']) / statistics.median(slow['ours']):.0f}")


if __name__ == "__main__":
    main()
