"""Norm clipping (property tests), Pascanu's cliff, and the small clipping training run."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lmcore.recurrent.cliff import CliffTask, cliff_loss, descend, loss_and_gradient, loss_surface
from lmcore.recurrent.clip_run import clipping_experiment, to_language_model, token_stream, train_run
from lmcore.recurrent.clipping import clip_gradients_, clip_vector
from lmcore.recurrent.rnn_lm import build_vocabulary, run_sentence

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


def test_cliff_gradient_matches_finite_differences():
    task = CliffTask(T=30)
    for w, b in [(2.0, -1.0), (6.0, -3.0), (9.0, -5.5)]:
        _, g = loss_and_gradient(w, b, task)
        eps = 1e-6
        f = lambda dw, db: float(cliff_loss(torch.tensor(w + dw, dtype=torch.float64),
                                            torch.tensor(b + db, dtype=torch.float64), task))
        fd = np.array([(f(eps, 0) - f(-eps, 0)) / (2 * eps), (f(0, eps) - f(0, -eps)) / (2 * eps)])
        np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-6)


def test_cliff_has_a_wall_and_clipping_caps_the_jump():
    surface = loss_surface((0.0, 12.0), (-8.0, 2.0), 200)
    assert surface.loss.shape == (200, 200)
    assert surface.grad_norm.max() > 10 * np.median(surface.grad_norm)  # a sharp wall
    lr, threshold = 0.05, 2.0
    plain = descend((10.0, -6.0), lr, 60)
    clipped = descend((10.0, -6.0), lr, 60, threshold=threshold)
    plain_jumps = np.linalg.norm(np.diff(plain.points, axis=0), axis=1)
    clip_jumps = np.linalg.norm(np.diff(clipped.points, axis=0), axis=1)
    assert plain_jumps.max() > 10 * lr * threshold  # the wall throws plain GD far away
    assert clip_jumps.max() <= lr * threshold * (1 + 1e-12)
    assert clipped.clipped.any()


STREAM_SENTENCES = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran", "to", "the", "cat"]] * 20


def test_training_run_logs_and_clipping_share():
    itos = build_vocabulary(STREAM_SENTENCES, 20)
    stream = token_stream(STREAM_SENTENCES, itos)
    runs = clipping_experiment(stream, len(itos), threshold=0.5, steps=30, hidden=8, emb=4,
                               batch=4, seq_len=8, lr=0.5, seed=0)
    plain, clipped = runs["unclipped"], runs["clipped"]
    assert plain.grad_norm[0] == pytest.approx(clipped.grad_norm[0])  # same seed, same first batch
    assert np.all(clipped.clipped == (clipped.grad_norm > 0.5))
    assert 0.0 <= clipped.clipped_share <= 1.0 and clipped.clipped_share > 0
    assert plain.clipped_share == 0.0
    assert np.nanmean(plain.loss[-10:]) < plain.loss[0]  # it learns


def test_exploding_run_stops_with_nan_markers_and_converts_to_explicit_cells():
    itos = build_vocabulary(STREAM_SENTENCES, 20)
    stream = token_stream(STREAM_SENTENCES, itos)
    model, log = train_run(stream, len(itos), steps=10, hidden=8, emb=4, batch=4, seq_len=30,
                           lr=1e30, init_sigma1=3.0, seed=0)
    assert log.loss.shape == (10,)
    assert log.diverged_at == 1  # the first huge step overflows float32: NaN, no exception
    assert np.isfinite(log.loss[0]) and np.all(np.isnan(log.loss[1:]))
    assert log.clipped_share == 0.0
    model, _ = train_run(stream, len(itos), steps=5, hidden=8, emb=4, batch=4, seq_len=8, seed=1)
    lm = to_language_model(model, itos)
    ids = torch.tensor([lm.ids(["</s>", "the", "cat", "sat"])])
    expected = torch.log_softmax(model.double()(ids)[0], -1)
    run = run_sentence(lm, ["the", "cat", "sat"])
    got = torch.log(run.probs)
    assert torch.allclose(got, expected, atol=1e-10)


def test_corpus_models_train_and_beat_the_random_model():
    from lmcore.recurrent.corpus_models import (
        ClipRunSettings, corpus_clip_experiment, enough_text, random_corpus_lm, trained_corpus_lm,
    )

    assert enough_text(STREAM_SENTENCES) and not enough_text([["a", "b"]])
    trained, log = trained_corpus_lm(STREAM_SENTENCES, "rnn", steps=60)
    untrained = random_corpus_lm(STREAM_SENTENCES)
    sentence = STREAM_SENTENCES[0]
    assert run_sentence(trained, sentence).J < run_sentence(untrained, sentence).J
    runs = corpus_clip_experiment(STREAM_SENTENCES, ClipRunSettings(steps=20, seq_len=10))
    assert set(runs) == {"unclipped", "clipped"} and runs["clipped"].threshold == 1.0


def test_global_norm_does_not_overflow_before_the_gradient_does():
    p = torch.zeros(3, requires_grad=True)
    p.grad = torch.tensor([3e30, 4e30, 0.0])  # float32: squares overflow, the vector does not
    assert torch.isinf(torch.linalg.vector_norm(p.grad))  # the naive way says inf
    norm, clipped = clip_gradients_([p], 1.0)
    assert norm == pytest.approx(5e30, rel=1e-6) and clipped
    assert torch.allclose(p.grad, torch.tensor([0.6, 0.8, 0.0]))
