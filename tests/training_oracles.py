"""Test oracles for lmcore.training (slow, obvious re-computations; never used by the app)."""
from __future__ import annotations

import torch

from lmcore.recurrent.cells import LSTMWeights, lstm_step, run_lstm


def exact_cell_jacobian(w: LSTMWeights, x: torch.Tensor, k: int) -> torch.Tensor:
    """∂c(T)/∂c(k) (n×n, row = unit of c(T)) by autograd, for 1 ≤ k ≤ T = len(x)."""
    with torch.no_grad():
        trace = run_lstm(w, x)
    c_k, o_k = trace.c[k].detach(), trace.gates["o"][k].detach()

    def c_last(c: torch.Tensor) -> torch.Tensor:
        h = o_k * torch.tanh(c)
        for t in range(k + 1, x.shape[0] + 1):
            step = lstm_step(w, h, c, x[t - 1])
            h, c = step["h"], step["c"]
        return c

    return torch.autograd.functional.jacobian(c_last, c_k, vectorize=True)
