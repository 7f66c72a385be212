"""Gradient curve T=200, hidden 128: one backward pass (retain_grad) vs a separate backward per k."""
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmcore.recurrent.cells import rnn_step, run_rnn  # noqa: E402
from lmcore.recurrent.gradient_flow import gradient_curve, readout_vector  # noqa: E402
from lmcore.recurrent.weights import CellSpec, random_cell, random_inputs  # noqa: E402

torch.set_num_threads(1)
T, n = 200, 128
w = random_cell(CellSpec("rnn", n, 16, "orthogonal", 1.0, "tanh"), 0)
x, v = random_inputs(T, 16, 1.0, 0), readout_vector(n, 0)


def naive():
    norms = []
    base = run_rnn(w, x)
    for k in range(1, T + 1):  # re-run steps k+1..T from a fresh leaf h(k), one backward each
        hk = base.h[k].detach().requires_grad_(True)
        h = hk
        for j in range(k + 1, T + 1):
            _, h = rnn_step(w, h, x[j - 1])
        (g,) = torch.autograd.grad(h @ v, hk)
        norms.append(float(g.norm()))
    return norms[::-1]


def best(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter(); out = fn(); times.append(time.perf_counter() - t0)
    return min(times), out

one_t, curve = best(lambda: gradient_curve(w, x, v), 10)
naive_t, ref = best(naive, 2)
err = max(abs(a - b) / max(abs(b), 1e-300) for a, b in zip(curve.norm_h, ref))
print(f"one_pass_ms: {one_t * 1e3:.1f}")
print(f"naive_per_k_ms: {naive_t * 1e3:.1f}")
print(f"speedup: {naive_t / one_t:.1f}")
print(f"max_rel_diff: {err:.2e}")
