"""The hand-written backward pass (lmcore.recurrent.vjp) equals torch autograd on the explicit cells,
vector by vector, for every cell and activation; the curve's markers agree in blown-up regimes too."""
import numpy as np
import pytest
import torch

from lmcore.recurrent.cells import gru_step, rnn_step, run_cell
from lmcore.recurrent.gradient_flow import gradient_curve, readout_vector
from lmcore.recurrent.vjp import row_norms, state_gradients
from lmcore.recurrent.weights import CellSpec, random_cell, random_inputs
from tests.recurrent_oracles import autograd_state_gradients

SETTINGS = [("rnn", "tanh"), ("rnn", "sigmoid"), ("rnn", "relu"), ("rnn", "identity"),
            ("lstm", "tanh"), ("gru", "tanh")]


def _case(cell, activation, n=9, d=4, T=40, scale=1.2, kind="orthogonal", input_scale=1.0, seed=0):
    spec = CellSpec(cell, n, d, kind, scale, activation, forget_bias=1.0)
    w = random_cell(spec, seed)
    return w, random_inputs(T, d, input_scale, seed), readout_vector(n, seed)


def _rel(a: np.ndarray, b: torch.Tensor) -> float:
    b = b.detach().numpy()
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("cell,activation", SETTINGS)
@pytest.mark.parametrize("scale,kind,seed", [(0.8, "orthogonal", 0), (1.5, "gaussian", 1), (1.0, "orthogonal", 2)])
def test_every_state_gradient_equals_autograd(cell, activation, scale, kind, seed):
    w, x, v = _case(cell, activation, scale=scale, kind=kind, seed=seed)
    ours = state_gradients(w, x, v)
    grad_h, grad_c = autograd_state_gradients(w, x, v)
    assert ours.grad_h.shape == tuple(grad_h.shape)
    assert _rel(ours.grad_h, grad_h) <= 1e-11
    assert (ours.grad_c is None) == (grad_c is None)
    if grad_c is not None:
        assert _rel(ours.grad_c, grad_c) <= 1e-11
    states = torch.stack(run_cell(w, x).h[1:]).numpy()
    np.testing.assert_allclose(ours.h, states, rtol=1e-12, atol=1e-14)


def test_bench_size_rnn_curve_equals_autograd():
    w, x, v = _case("rnn", "tanh", n=128, d=16, T=200, scale=1.0)
    curve = gradient_curve(w, x, v)
    grad_h, _ = autograd_state_gradients(w, x, v)
    expected = grad_h.norm(dim=1).numpy()[::-1]
    np.testing.assert_allclose(curve.norm_h, expected, rtol=1e-10)
    assert curve.norm_h[0] == pytest.approx(1.0)


@pytest.mark.parametrize("cell,activation", [("rnn", "sigmoid"), ("rnn", "identity"), ("lstm", "tanh")])
def test_blown_up_regimes_give_the_same_curve_and_markers_as_autograd(cell, activation):
    w, x, v = _case(cell, activation, n=16, T=700, scale=5.0, input_scale=3.0)
    curve = gradient_curve(w, x, v)
    grad_h, _ = autograd_state_gradients(w, x, v)
    with np.errstate(all="ignore"):
        expected = np.array([_plain_norm(g) for g in grad_h.numpy()])[::-1]
    bad = np.flatnonzero(~np.isfinite(expected))
    assert curve.exploded_at == (int(bad[0]) if bad.size else None)
    finite = np.isfinite(expected)
    np.testing.assert_allclose(curve.norm_h[finite], expected[finite], rtol=1e-9)
    forward = np.flatnonzero(~torch.stack(run_cell(w, x).h[1:]).isfinite().all(dim=1).numpy())
    assert curve.forward_exploded_at == (int(forward[0]) + 1 if forward.size else None)
    if activation == "identity":
        assert curve.exploded_at is not None and curve.forward_exploded_at is not None


@pytest.mark.parametrize("cell,activation", [("rnn", "tanh"), ("rnn", "relu"), ("gru", "tanh")])
def test_chaotic_regimes_every_backward_step_is_autograds_vjp(cell, activation):
    """At σ1 = 5 these cells are chaotic: a last-bit difference in h(t) grows, so two correct
    implementations part ways after a few dozen steps. Check each backward step on its own instead:
    ∂J/∂h(k) must be autograd's vector–Jacobian product of step k+1, taken at our h(k), with our ∂J/∂h(k+1)."""
    w, x, v = _case(cell, activation, n=16, T=700, scale=5.0, input_scale=3.0)
    ours = state_gradients(w, x, v)
    T = len(ours.h)
    checked = 0
    for k in range(T - 1, 0, -1):
        if not (np.isfinite(ours.grad_h[k - 1]).all() and np.isfinite(ours.h[k]).all()):
            continue  # past an overflow (in h(k+1) or in the gradient) rounding decides inf vs NaN
        h_k = torch.tensor(ours.h[k - 1], requires_grad=True)
        h_next = rnn_step(w, h_k, x[k])[1] if cell == "rnn" else gru_step(w, h_k, x[k])["h"]
        (vjp,) = torch.autograd.grad(h_next, h_k, grad_outputs=torch.tensor(ours.grad_h[k]))
        scale = max(float(vjp.abs().max()), 1e-300)
        assert float((torch.tensor(ours.grad_h[k - 1]) - vjp).abs().max()) <= 1e-12 * scale, k
        checked += 1
    assert checked >= 300


def _plain_norm(g: np.ndarray) -> float:
    m = np.abs(g).max()
    return m if m == 0 or not np.isfinite(m) else m * np.linalg.norm(g / m)


def test_row_norms_survive_huge_entries_and_mark_inf_nan_zero():
    rows = np.array([[3e200, 4e200], [np.inf, 1.0], [np.nan, np.inf], [0.0, 0.0], [3.0, -4.0], [3e-200, 4e-200]])
    out = row_norms(rows)
    assert out[0] == pytest.approx(5e200) and out[4] == pytest.approx(5.0) and out[5] == pytest.approx(5e-200)
    assert np.isposinf(out[1]) and np.isnan(out[2]) and out[3] == 0.0
