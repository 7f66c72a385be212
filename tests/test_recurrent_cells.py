"""Explicit cells ≡ torch.nn.RNN / LSTM / GRU given the same weights (float64, ≤ 1e-10)."""
import pytest
import torch
from torch import nn

from lmcore.recurrent.cells import run_cell, weights_from_torch, run_lstm, run_gru
from lmcore.recurrent.weights import (
    CellSpec, gaussian_with_radius, largest_singular_value, random_cell, scaled_orthogonal,
    spectral_radius,
)

torch.set_num_threads(1)


@pytest.mark.parametrize("module_factory", [
    lambda: nn.RNN(5, 6, nonlinearity="tanh"),
    lambda: nn.RNN(5, 6, nonlinearity="relu"),
    lambda: nn.LSTM(5, 6),
    lambda: nn.GRU(5, 6),
], ids=["rnn-tanh", "rnn-relu", "lstm", "gru"])
def test_explicit_cell_matches_torch_module(module_factory):
    torch.manual_seed(0)
    module = module_factory().double()
    x = torch.randn(12, 3, 5, dtype=torch.float64)  # (T, batch, d)
    expected, _ = module(x)
    trace = run_cell(weights_from_torch(module), x)
    assert trace.T == 12
    assert torch.allclose(trace.stacked_h(), expected, atol=1e-10, rtol=0)


def test_lstm_trace_cell_state_matches_torch_final_c():
    torch.manual_seed(1)
    module = nn.LSTM(4, 3).double()
    x = torch.randn(9, 4, dtype=torch.float64)
    _, (h_n, c_n) = module(x)
    trace = run_lstm(weights_from_torch(module), x)
    assert torch.allclose(trace.c[-1], c_n[0], atol=1e-10, rtol=0)
    # the trace's gates reproduce c(t) = f ⊙ c(t−1) + i ⊙ c̃
    for t in range(1, 10):
        g = {k: v[t] for k, v in trace.gates.items()}
        assert torch.allclose(trace.c[t], g["f"] * trace.c[t - 1] + g["i"] * g["c_tilde"])


def test_gru_from_trained_float32_module_reads_float64():
    module = nn.GRU(3, 2)  # float32 module: weights are converted
    x = torch.randn(5, 3, dtype=torch.float64)
    expected, _ = module.double()(x)
    trace = run_gru(weights_from_torch(module), x)
    assert trace.h[1].dtype == torch.float64
    assert torch.allclose(trace.stacked_h(), expected, atol=1e-10, rtol=0)


def test_scaled_orthogonal_has_exact_singular_values():
    g = torch.Generator().manual_seed(3)
    w = scaled_orthogonal(16, 1.7, g)
    s = torch.linalg.svdvals(w)
    assert torch.allclose(s, torch.full((16,), 1.7, dtype=torch.float64), atol=1e-12)
    assert largest_singular_value(w) == pytest.approx(1.7, abs=1e-12)


def test_gaussian_has_requested_spectral_radius_and_larger_sigma1():
    g = torch.Generator().manual_seed(4)
    w = gaussian_with_radius(32, 0.9, g)
    eig = torch.linalg.eigvals(w).abs().max().item()
    assert eig == pytest.approx(0.9, abs=1e-10)
    assert spectral_radius(w) == pytest.approx(0.9, abs=1e-10)
    assert largest_singular_value(w) > 0.9  # non-normal: σ1 > ρ


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_random_cell_is_seeded(cell):
    spec = CellSpec(cell=cell, hidden=4, input_dim=3)
    x = torch.randn(6, 3, dtype=torch.float64)
    a, b = run_cell(random_cell(spec, 7), x), run_cell(random_cell(spec, 7), x)
    c = run_cell(random_cell(spec, 8), x)
    assert torch.equal(a.stacked_h(), b.stacked_h())
    assert not torch.equal(a.stacked_h(), c.stacked_h())
