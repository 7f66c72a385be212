"""Gradient norm vs distance, the notes' Jacobian product, the LSTM's ∂c(t)/∂c(t−1) ≈ f(t)."""
import math

import numpy as np
import pytest
import torch

from lmcore.recurrent.cells import Gate, LSTMWeights, RNNWeights, run_lstm, run_rnn, rnn_step
from lmcore.recurrent.gradient_flow import (
    curve_for, curves_over_seeds, gradient_curve, readout_vector, regime, theory_line,
)
from lmcore.recurrent.jacobian import (
    forget_gate_approximation, lstm_cell_jacobian, mean_activation_derivative, per_step_jacobian_norms,
    product_norm, product_norms,
)
from lmcore.recurrent.weights import CellSpec, random_cell, random_inputs, scaled_orthogonal
from tests.recurrent_oracles import jacobian_product, lstm_cell_jacobian_autograd, rnn_state_jacobian

torch.set_num_threads(1)
F64 = torch.float64


def _rnn(n=6, d=3, sigma1=1.2, activation="tanh", seed=0):
    return random_cell(CellSpec("rnn", n, d, "orthogonal", sigma1, activation), seed)


@pytest.mark.parametrize("sigma1", [0.5, 1.0, 1.5])
def test_linear_rnn_gradient_follows_sigma1_power_exactly(sigma1):
    n, T = 8, 40
    g = torch.Generator().manual_seed(0)
    w = RNNWeights(scaled_orthogonal(n, sigma1, g), torch.randn(n, 3, generator=g, dtype=F64),
                   torch.zeros(n, dtype=F64), activation="identity")
    x = random_inputs(T, 3, 1.0, 0)
    curve = gradient_curve(w, x, readout_vector(n, 0))
    expected = sigma1 ** np.arange(T) * curve.norm_h[0]
    assert curve.norm_h[0] == pytest.approx(1.0)  # ‖∂J/∂h(T)‖ = ‖v‖ = 1
    np.testing.assert_allclose(curve.norm_h, expected, rtol=1e-10)


def test_one_pass_curve_equals_separate_autograd_per_k():
    w = _rnn(sigma1=1.1)
    x = random_inputs(15, 3, 1.0, 1)
    v = readout_vector(6, 1)
    curve = gradient_curve(w, x, v)
    for k in (1, 5, 15):
        hk = run_rnn(w, x).h[k].detach().requires_grad_(True)
        h = hk
        for j in range(k + 1, 16):
            _, h = rnn_step(w, h, x[j - 1])
        (grad,) = torch.autograd.grad(h @ v, hk)
        assert curve.norm_h[15 - k] == pytest.approx(float(grad.norm()), rel=1e-12)


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
def test_notes_product_of_step_factors_equals_autograd(activation):
    w = _rnn(n=5, sigma1=1.3, activation=activation, seed=2)
    x = random_inputs(12, 3, 1.0, 2)
    k, t = 3, 11
    autograd_jac = rnn_state_jacobian(w, x, k, t)
    product = jacobian_product(w, run_rnn(w, x), k, t)  # ∏ step_factor(w, z(j)), j = k+1..t
    rel = (product - autograd_jac.T).norm() / autograd_jac.norm()
    assert rel <= 1e-8
    # the product's norm never exceeds the notes' bound (σ1·γ)^(t−k)
    gamma = {"tanh": 1.0, "sigmoid": 0.25, "relu": 1.0}[activation]
    assert torch.linalg.matrix_norm(product, 2) <= (1.3 * gamma) ** (t - k) * (1 + 1e-12)


def test_product_norms_match_autograd_jacobians_and_step_norms():
    w = _rnn(n=4, sigma1=0.9, seed=3)
    x = random_inputs(10, 3, 2.0, 3)
    trace = run_rnn(w, x)
    norms = product_norms(w, trace)
    for k in (10, 7, 1):
        expected = torch.linalg.matrix_norm(rnn_state_jacobian(w, x, k, 10), 2)
        assert norms[10 - k] == pytest.approx(float(expected), rel=1e-10)
    steps = per_step_jacobian_norms(w, trace)
    assert steps[4] == pytest.approx(float(torch.linalg.matrix_norm(rnn_state_jacobian(w, x, 4, 5), 2)))
    d = mean_activation_derivative(w, trace)
    assert d[0] == pytest.approx(float((1 - torch.tanh(trace.z[1]) ** 2).mean()))
    assert np.all((d > 0) & (d <= 1))


def test_one_distance_product_and_first_steps_match_autograd():
    """The page's cheap forms: the product norm at one distance d, the per-step series cut short."""
    w = _rnn(n=4, sigma1=1.1, seed=5)
    x = random_inputs(12, 3, 1.5, 5)
    trace = run_rnn(w, x)
    for d in (0, 1, 4, 11):
        expected = torch.linalg.matrix_norm(rnn_state_jacobian(w, x, 12 - d, 12), 2) if d else torch.tensor(1.0)
        assert product_norm(w, trace, d) == pytest.approx(float(expected), rel=1e-10)
    assert np.array_equal(per_step_jacobian_norms(w, trace, 5), per_step_jacobian_norms(w, trace)[:5])
    assert np.array_equal(mean_activation_derivative(w, trace, 5), mean_activation_derivative(w, trace)[:5])
    assert len(per_step_jacobian_norms(w, trace, 50)) == 12


def test_tanh_decays_even_at_sigma1_one():
    band = curves_over_seeds(CellSpec("rnn", 16, 4, "orthogonal", 1.0, "tanh"), 60, 1.0, [0, 1, 2])
    assert regime(1.0 * 1.0) == "critical"
    assert band.median[-1] < 0.5 * band.median[0]  # tanh' < 1: decays despite σ1γ = 1
    assert np.all(band.low <= band.median) and np.all(band.median <= band.high)


@pytest.mark.parametrize("cell,activation", [("rnn", "relu"), ("rnn", "identity"), ("rnn", "tanh"),
                                             ("lstm", "tanh"), ("gru", "tanh")])
def test_extreme_settings_return_markers_not_exceptions(cell, activation):
    spec = CellSpec(cell, 32, 8, "orthogonal", 5.0, activation)
    curve = curve_for(spec, 1000, 3.0, 0)
    assert curve.norm_h.shape == (1000,)
    if activation in ("relu", "identity"):  # unbounded activations: 5^k overflows float64
        assert curve.exploded_at is not None and 0 < curve.exploded_at < 1000
        assert np.all(np.isfinite(curve.norm_h[: curve.exploded_at]))
        assert curve.norm_h[curve.exploded_at - 1] > 1e300  # a real overflow, not a sum-of-squares one
    else:  # saturating cells: huge but finite (tanh' ≈ 0 in saturation tames the growth)
        assert curve.exploded_at is None and np.all(np.isfinite(curve.norm_h))
    assert np.all(np.isfinite(theory_line(5.0, 1.0, np.arange(100))))
    assert math.isinf(theory_line(5.0, 1.0, np.arange(1000))[-1])


def test_linear_explosion_is_flagged_exactly_where_sigma1_power_overflows():
    n = 8
    g = torch.Generator().manual_seed(0)
    w = RNNWeights(scaled_orthogonal(n, 5.0, g), torch.zeros(n, 2, dtype=F64), torch.zeros(n, dtype=F64),
                   activation="identity")
    curve = gradient_curve(w, torch.zeros(600, 2, dtype=F64), readout_vector(n, 0))
    first_overflow = int(np.ceil(np.log(np.finfo(np.float64).max) / np.log(5.0)))  # 5^441 > 1.8e308
    assert curve.exploded_at == first_overflow
    np.testing.assert_allclose(curve.norm_h[:first_overflow], 5.0 ** np.arange(first_overflow), rtol=1e-9)


def test_lstm_curve_has_cell_norms():
    curve = curve_for(CellSpec("lstm", 8, 4, forget_bias=3.0), 50, 1.0, 0)
    assert curve.norm_c is not None and curve.norm_c.shape == (50,)
    assert np.all(curve.norm_c > 0)  # c(k) reaches J(T) through h(T) = o ⊙ tanh c(T)
    # with a large forget bias the cell path decays more slowly than the hidden path
    assert curve.norm_c[-1] / curve.norm_c[0] > curve.norm_h[-1] / curve.norm_h[0]


def _lstm_with_zero_recurrence(n=4, d=3, seed=0):
    w = random_cell(CellSpec("lstm", n, d), seed)
    zero = torch.zeros(n, n, dtype=F64)
    return LSTMWeights(*(Gate(zero, g.W_x, g.b) for g in (w.i, w.f, w.o, w.c)))


def test_lstm_exact_cell_jacobian_equals_autograd():
    w = random_cell(CellSpec("lstm", 5, 3, scale=1.5), 1)
    x = random_inputs(8, 3, 1.0, 1)
    trace = run_lstm(w, x)
    for t in (1, 2, 6):
        exact = lstm_cell_jacobian(w, trace, t)
        auto = lstm_cell_jacobian_autograd(w, trace, x, t)
        assert (exact - auto).norm() / auto.norm() <= 1e-10


def test_forget_gate_approximation_exact_without_recurrence_measured_otherwise():
    w0 = _lstm_with_zero_recurrence()
    x = random_inputs(8, 3, 1.0, 0)
    trace0 = run_lstm(w0, x)
    for t in (2, 5):
        assert torch.allclose(lstm_cell_jacobian_autograd(w0, trace0, x, t),
                              torch.diag(trace0.gates["f"][t]), atol=1e-14)
    assert np.all(forget_gate_approximation(w0, trace0)["relative_error"] < 1e-14)
    w = random_cell(CellSpec("lstm", 4, 3, scale=2.0), 0)
    trace = run_lstm(w, x)
    approx = forget_gate_approximation(w, trace)
    err = approx["relative_error"]
    assert err[0] == 0.0  # t = 1: h(0) does not depend on c(0)
    assert err[1:].max() > 1e-3  # the ignored terms are visible with a strong W_h
    for t in (1, 4, 8):  # the batched norms against autograd's Jacobian, one matrix at a time
        exact = lstm_cell_jacobian_autograd(w, trace, x, t)
        f = torch.diag(trace.gates["f"][t].detach())
        assert approx["exact"][t - 1] == pytest.approx(float(torch.linalg.matrix_norm(exact, 2)), rel=1e-10)
        assert approx["forget"][t - 1] == pytest.approx(float(torch.linalg.matrix_norm(f, 2)), rel=1e-12)
        assert err[t - 1] == pytest.approx(float(torch.linalg.matrix_norm(exact - f, 2) / torch.linalg.matrix_norm(exact, 2)),
                                           rel=1e-8, abs=1e-14)


def test_float32_would_underflow_where_float64_keeps_the_curve():
    """Why the engine is float64: 0.4^(T−k) underflows float32 (~1e-45) within ~115 steps."""
    n, T = 4, 150
    g = torch.Generator().manual_seed(0)
    w = RNNWeights(scaled_orthogonal(n, 0.4, g), torch.zeros(n, 2, dtype=F64), torch.zeros(n, dtype=F64),
                   activation="identity")
    x = torch.zeros(T, 2, dtype=F64)
    curve = gradient_curve(w, x, readout_vector(n, 0))
    assert curve.vanished_at is None and curve.norm_h[-1] > 0
    w32 = RNNWeights(w.W_h.float(), w.W_x.float(), w.b.float(), "identity")
    h0 = torch.zeros(n, requires_grad=True)
    trace = run_rnn(w32, x.float(), h0=h0)
    for h in trace.h[1:]:
        h.retain_grad()
    (trace.h[-1] @ readout_vector(n, 0).float()).backward()
    assert float(trace.h[1].grad.norm()) == 0.0  # float32: the early part of the curve is lost


@pytest.mark.parametrize("kind", ["orthogonal", "gaussian"])
def test_rnn_spectrum_is_the_curve_rnns_sigma1_and_radius_whatever_the_cell(kind):
    """The curves part's σ1 and ρ (diagnostics.rnn_spectrum) are those of the W_h its RNN curve runs with,
    by torch.linalg's SVD and eigenvalues, also when the spec names another cell."""
    from lmcore.recurrent.diagnostics import rnn_panels, rnn_spectrum

    spec = CellSpec("lstm", 12, 4, kind, 1.3, "tanh")
    W_h = random_cell(CellSpec("rnn", 12, 4, kind, 1.3, "tanh"), 0).W_h
    sigma1, rho = rnn_spectrum(spec)
    assert sigma1 == pytest.approx(torch.linalg.svdvals(W_h).max().item(), rel=1e-12)
    assert rho == pytest.approx(torch.linalg.eigvals(W_h).abs().max().item(), rel=1e-12)
    panels = rnn_panels(spec, 5, 1.0)
    assert (panels.sigma1, panels.rho) == (sigma1, rho)
