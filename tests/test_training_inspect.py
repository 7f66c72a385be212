"""Inspection of trained models: explicit LSTM ≡ nn.LSTM, exact cell Jacobians, counterfactuals."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from scipy.special import rel_entr

from lmcore.recurrent.cells import run_lstm, run_rnn, weights_from_torch
from lmcore.recurrent.jacobian import lstm_cell_jacobian
from lmcore.samples import load_sample
from lmcore.training.config import TrainConfig
from lmcore.training.counterfactual import counterfactual, edit
from lmcore.training.gradient_path import cell_jacobians, forget_products, lstm_gradient_path, rnn_jacobian_norms
from lmcore.training.loop import train_sentences
from lmcore.training.lstm_trace import lstm_weights, passage_inputs, trace_passage, unit_order
from tests.training_oracles import exact_cell_jacobian

CONFIG = TrainConfig(embed_dim=16, hidden_size=24, steps=60, batch_size=16, eval_every=30)


@pytest.fixture(scope="module")
def corpus():
    return load_sample("synthetic", n_sentences=600)


@pytest.fixture(scope="module")
def lstm(corpus):
    return train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, CONFIG)


@pytest.fixture(scope="module")
def rnn(corpus):
    return train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos,
                           CONFIG.with_(cell="rnn"))


@pytest.fixture(scope="module")
def passage(corpus):
    return corpus.valid[0] + corpus.valid[1]


def test_explicit_lstm_with_trained_weights_reproduces_nn_lstm(lstm, passage):
    module = copy.deepcopy(lstm.model.rnn).double()
    x = passage_inputs(lstm, passage)
    with torch.no_grad():
        expected, (h_n, c_n) = module(x[None])
    trace = run_lstm(weights_from_torch(lstm.model.rnn), x)  # weights copied from the trained float32 module
    assert torch.stack(trace.h[1:]).sub(expected[0]).abs().max() <= 1e-10
    assert (trace.c[-1] - c_n[0, 0]).abs().max() <= 1e-10


def test_trace_next_distribution_matches_the_model(lstm, passage):
    trace = trace_passage(lstm, passage)
    assert trace.signals["f"].shape == (24, len(passage) + 1)
    np.testing.assert_allclose(trace.next_probs, lstm.distribution(passage), atol=1e-6)
    f = trace.signals["f"]
    assert np.all((f > 0) & (f < 1))
    order = unit_order(trace, "forget")
    assert sorted(order) == list(range(24)) and np.all(np.diff(f.mean(axis=1)[order]) <= 0)
    assert np.all(np.diff(trace.signals["c"].var(axis=1)[unit_order(trace, "variance")]) <= 0)


def test_all_cell_jacobians_match_rerun_autograd_and_the_analytic_one_step_formula(lstm, passage):
    w = lstm_weights(lstm)
    x = passage_inputs(lstm, passage)
    T = x.shape[0]
    jacs = cell_jacobians(w, x)
    for k in (1, T // 2, T - 1, T):
        torch.testing.assert_close(jacs[k - 1], exact_cell_jacobian(w, x, k), atol=1e-12, rtol=1e-9)
    with torch.no_grad():
        trace = run_lstm(w, x)
    torch.testing.assert_close(jacs[T - 2], lstm_cell_jacobian(w, trace, T), atol=1e-12, rtol=1e-9)
    torch.testing.assert_close(jacs[T - 1], torch.eye(w.hidden_size, dtype=x.dtype))


def test_forget_products_and_the_forget_bias_slider(lstm, passage):
    f = np.random.default_rng(0).uniform(0.1, 0.9, size=(3, 5))
    products = forget_products(f)
    for k in range(1, 6):
        np.testing.assert_allclose(products[:, k - 1], np.prod(f[:, k:], axis=1))
    plain = lstm_gradient_path(lstm, passage)
    opened = lstm_gradient_path(lstm, passage, forget_bias_shift=30.0)  # f(t) → 1: nothing forgotten
    np.testing.assert_allclose(opened.forget_mean, 1.0, atol=1e-9)
    assert opened.forget_mean[0] > plain.forget_mean[0]
    assert plain.forget_norm[-1] == 1.0 and plain.exact_norm[-1] == pytest.approx(1.0)


def test_rnn_jacobian_norms_match_autograd(rnn, passage):
    w = weights_from_torch(rnn.model.rnn)
    x = passage_inputs(rnn, passage)
    norms = rnn_jacobian_norms(rnn, passage)
    T = x.shape[0]
    for k in (1, T // 2, T):
        def h_last(h_k, k=k):
            h = h_k
            for t in range(k + 1, T + 1):
                h = torch.tanh(h @ w.W_h.T + x[t - 1] @ w.W_x.T + w.b)
            return h
        with torch.no_grad():
            h_k = run_rnn(w, x).h[k]
        jac = torch.autograd.functional.jacobian(h_last, h_k)
        assert norms[k - 1] == pytest.approx(float(torch.linalg.matrix_norm(jac, ord=2)), rel=1e-9)


def test_counterfactual_is_causal_and_moves_the_next_distribution(lstm, passage):
    position = 3
    other = next(w for w in lstm.vocab if w not in ("<unk>", "</s>", passage[position]))
    cf = counterfactual(lstm, passage, position, other)
    for name in ("f", "i", "o", "c", "h"):
        assert np.all(cf.delta[name][:, :cf.position] == 0)  # steps before the edit are untouched
    assert np.abs(cf.delta["c"][:, cf.position]).max() > 0
    np.testing.assert_allclose(cf.after.next_probs, lstm.distribution(edit(passage, position, other)), atol=1e-6)
    last = len(passage) - 1  # an edit of the last symbol moves the next-symbol distribution most
    near = counterfactual(lstm, passage, last, other)
    p_after, p_before = lstm.distribution(edit(passage, last, other)), lstm.distribution(passage)
    expected = float(rel_entr(p_after, p_before).sum())  # scipy's KL(after ‖ before), from the torch network
    assert expected > 1e-3 and near.kl == pytest.approx(expected, rel=1e-4)
    travel = cf.change_per_step("c")
    assert np.all(travel[:cf.position] == 0) and travel[cf.position] > 0
