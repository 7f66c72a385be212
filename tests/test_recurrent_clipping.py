"""Norm clipping (property tests), Pascanu's cliff (against torch autograd), and the clipping lab's SGD
run on the recurrent LM of lmcore.training (against torch.optim.SGD + torch's clip_grad_norm_)."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lmcore.recurrent.cliff import CliffTask, cliff_loss, descend, loss_and_grad, loss_and_gradient, loss_surface
from lmcore.recurrent.clip_run import (DIVERGED_LOSS_FACTOR, ClipRunSettings, chunks_forever, clipping_experiment,
                                       has_diverged, sgd_model, sgd_run)
from lmcore.recurrent.clipping import clip_gradients_, clip_vector
from lmcore.training.loop import chunk_loss
from lmcore.training.model import RecurrentLM, detach_state
from lmcore.training.steps import step_counts
from lmcore.training.tokens import build_table

torch.set_num_threads(1)

finite = st.floats(-1e6, 1e6, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(1, 20), elements=finite), st.floats(1e-3, 1e3))
def test_clipping_never_increases_norm_and_keeps_direction(g, threshold):
    c = clip_vector(g, threshold)
    n, nc = np.linalg.norm(g), np.linalg.norm(c)
    assert nc <= n * (1 + 1e-12)
    assert nc <= max(threshold * (1 + 1e-12), n if n <= threshold else 0.0)
    if n > threshold:
        assert nc == pytest.approx(threshold, rel=1e-12)
        np.testing.assert_allclose(c / nc, g / n, rtol=1e-9, atol=1e-12)  # same direction
    else:
        assert np.array_equal(c, g)  # below the threshold: untouched


def test_clip_vector_leaves_non_finite_alone():
    g = np.array([np.inf, 1.0])
    assert np.array_equal(clip_vector(g, 1.0), g)


def test_clip_gradients_matches_torch_clip_grad_norm():
    torch.manual_seed(0)
    a, b = torch.randn(5, requires_grad=True), torch.randn(3, 2, requires_grad=True)
    (a.sum() * 30 + (b**2).sum() * 20).backward()
    ga, gb = a.grad.clone(), b.grad.clone()
    norm, clipped = clip_gradients_([a, b], 2.0)
    a2, b2 = ga.clone().requires_grad_(), gb.clone().requires_grad_()
    a2.grad, b2.grad = ga.clone(), gb.clone()
    torch_norm = torch.nn.utils.clip_grad_norm_([a2, b2], 2.0)
    assert clipped and norm == pytest.approx(float(torch_norm), rel=1e-6)
    assert torch.allclose(a.grad, a2.grad, rtol=1e-5) and torch.allclose(b.grad, b2.grad, rtol=1e-5)


def _autograd_cliff(w: float, b: float, task: CliffTask) -> tuple[float, np.ndarray]:
    """Oracle: the recursion in torch with autograd (float64), independent of lmcore.recurrent.cliff."""
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    bt = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    h = torch.tensor(task.h0, dtype=torch.float64)
    for _ in range(task.T):
        h = wt * torch.sigmoid(h) + bt
    loss = (h - task.target) ** 2
    loss.backward()
    return float(loss.detach()), np.array([float(wt.grad), float(bt.grad)])


@pytest.mark.parametrize("w, b", [(2.0, -1.0), (6.0, -3.0), (9.0, -5.5), (10.0, -3.0), (0.5, 1.5)])
def test_cliff_gradient_matches_autograd_scalar_and_grid(w, b):
    task = CliffTask()
    expected_loss, expected = _autograd_cliff(w, b, task)
    loss, g = loss_and_gradient(w, b, task)
    assert loss == pytest.approx(expected_loss, rel=1e-9, abs=1e-15)
    np.testing.assert_allclose(g, expected, rtol=1e-8, atol=1e-12)
    grid_loss, gw, gb = loss_and_grad(np.array([[w, 1.0]]), np.array([[b], [0.0]]), task)  # broadcast (2, 2)
    assert grid_loss.shape == (2, 2)
    np.testing.assert_allclose([grid_loss[0, 0], gw[0, 0], gb[0, 0]], [expected_loss, *expected], rtol=1e-8, atol=1e-12)
    assert cliff_loss(w, b, task) == pytest.approx(expected_loss, rel=1e-9, abs=1e-15)


def test_cliff_has_a_wall_and_clipping_caps_the_jump():
    surface = loss_surface((0.0, 12.0), (-8.0, 2.0), 200)
    assert surface.loss.shape == (200, 200)
    row, col = 57, 131
    _, g = _autograd_cliff(surface.w[col], surface.b[row], CliffTask())
    assert surface.grad_norm[row, col] == pytest.approx(np.linalg.norm(g), rel=1e-8)
    assert surface.grad_norm.max() > 10 * np.median(surface.grad_norm)  # a sharp wall
    lr, threshold = 0.05, 2.0
    plain = descend((10.0, -6.0), lr, 60)
    clipped = descend((10.0, -6.0), lr, 60, threshold=threshold)
    plain_jumps = np.linalg.norm(np.diff(plain.points, axis=0), axis=1)
    clip_jumps = np.linalg.norm(np.diff(clipped.points, axis=0), axis=1)
    assert plain_jumps.max() > 10 * lr * threshold  # the wall throws plain GD far away
    assert clip_jumps.max() <= lr * threshold * (1 + 1e-12)
    assert clipped.clipped.any()


SENTENCES = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran", "to", "the", "cat"],
             ["the", "dog", "sat"], ["a", "cat", "ran", "on", "a", "mat", "to", "the", "dog"]] * 10
ITOS = ["<unk>", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "to"]
SMALL = ClipRunSettings(steps=12, batch=4, bptt=4, lr=0.5, embed_dim=4, hidden=8)


def _reference_sgd(settings: ClipRunSettings, threshold: float | None) -> list[float]:
    """Oracle: the same network and batches, updated by torch.optim.SGD after torch's clip_grad_norm_."""
    table = build_table("word", ITOS, SENTENCES)
    model = sgd_model(table, settings)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=settings.lr)
    losses, state = [], None
    encoded = [table.encode(s) for s in SENTENCES]
    for _, (chunk, fresh) in zip(range(settings.steps), chunks_forever(encoded, table, settings)):
        loss, state = chunk_loss(model, chunk, None if fresh else state)
        optimizer.zero_grad()
        loss.backward()
        if threshold is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), threshold)
        optimizer.step()
        state = detach_state(state)
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("threshold", [None, 1.0])
def test_sgd_run_is_plain_sgd_with_the_notes_clipping(threshold):
    log = sgd_run(SENTENCES, ITOS, SMALL, threshold)
    np.testing.assert_allclose(log.loss, _reference_sgd(SMALL, threshold), rtol=1e-5)
    if threshold is None:
        assert not log.clipped.any()
    else:
        assert np.array_equal(log.clipped, log.grad_norm > threshold) and 0 < log.clipped_share < 1


def test_clipping_experiment_same_first_batch_and_the_trainers_network():
    runs = clipping_experiment(SENTENCES, ITOS, SMALL)
    plain, clipped = runs["unclipped"], runs["clipped"]
    assert plain.grad_norm[0] == clipped.grad_norm[0]  # same seed, same first batch
    assert clipped.threshold == SMALL.threshold and plain.threshold is None
    model = sgd_model(build_table("word", ITOS, SENTENCES), SMALL)
    assert isinstance(model, RecurrentLM)  # the class the Adam trainer trains
    W_h = model.rnn.weight_hh_l0.detach().double()
    assert torch.linalg.svdvals(W_h).sub(SMALL.init_sigma1).abs().max() < 1e-5  # σ1·Q: all singular values


def test_exploding_run_stops_at_its_first_huge_loss_and_counts_its_steps():
    """lr = 1e30 throws the weights off in one update: the loss at step 1 is ~3e29 on one CPU's kernels
    and may be inf/NaN on another's; either way it is past the bound, so the run stops at step 1 everywhere."""
    before = step_counts().get("sgd-clip", 0)
    log = sgd_run(SENTENCES, ITOS, ClipRunSettings(steps=10, batch=4, bptt=8, lr=1e30, init_sigma1=3.0,
                                                   embed_dim=4, hidden=8), None)
    bound = DIVERGED_LOSS_FACTOR * np.log(len(ITOS) + 1)  # the softmax runs over ITOS and </s>
    assert log.loss.shape == (10,)
    assert log.diverged_at == 1
    assert np.isfinite(log.loss[0]) and log.loss[0] < np.log(len(ITOS) + 1) + 1  # step 0: the seeded network
    assert not log.loss[1] <= bound  # above the bound, or inf/NaN: logged as it came
    assert np.all(np.isnan(log.loss[2:])) and np.all(np.isnan(log.grad_norm[2:]))
    assert step_counts()["sgd-clip"] - before == 1  # one update was applied before the blow-up


@pytest.mark.parametrize("loss, norm, vocab, expected", [
    (3.0, 1.0, 41, False), (1000 * np.log(41) * 0.999, 1e6, 41, False), (1000 * np.log(41) * 1.001, 1.0, 41, True),
    (3e30, 1.0, 41, True), (np.inf, 1.0, 41, True), (np.nan, 1.0, 41, True), (3.0, np.inf, 41, True),
    (3.0, np.nan, 41, True), (700.0, 1.0, 2, True), (700.0, 1.0, 3000, False)])
def test_divergence_is_a_non_finite_value_or_a_loss_a_thousand_times_the_uniform_guess(loss, norm, vocab, expected):
    assert DIVERGED_LOSS_FACTOR == 1000.0
    assert has_diverged(loss, norm, vocab) is expected


def test_report_can_stop_the_experiment():
    calls = []
    runs = clipping_experiment(SENTENCES, ITOS, SMALL, report=lambda f: calls.append(f) or f >= 0.5)
    assert calls[0] == 0.0 and calls[-1] == 0.5
    assert np.isfinite(runs["unclipped"].loss).all() and np.isnan(runs["clipped"].loss).all()


HUGE = float(np.float32(3e38))
huge_float32 = st.floats(-HUGE, HUGE, allow_nan=False, width=32)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float32, st.integers(1, 6), elements=huge_float32),
       arrays(np.float32, st.integers(1, 6), elements=huge_float32), st.floats(1e-3, 1e3))
def test_clipping_huge_gradients_gives_the_exact_norm_and_direction(a, b, threshold):
    """Gradients whose squares overflow float32 (up to 3e38): the norm and the clipped gradients match an
    exact computation in Python floats (float64 holds these squares), independent of lmcore and torch."""
    p, q = torch.zeros(a.size, requires_grad=True), torch.zeros(b.size, requires_grad=True)
    p.grad, q.grad = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    values = [float(x) for x in (*a, *b)]
    exact = math.sqrt(math.fsum(x * x for x in values))
    norm, clipped = clip_gradients_([p, q], threshold)
    assert norm == pytest.approx(exact, rel=1e-12, abs=0.0)
    assert clipped == (exact > threshold)
    scale = threshold / exact if exact > threshold else 1.0
    got = [float(x) for x in (*p.grad, *q.grad)]
    assert got == pytest.approx([x * scale for x in values], rel=1e-6, abs=1e-30)
