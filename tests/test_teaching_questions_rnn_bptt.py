"""The RNN & BPTT questions' answers equal independent computations on the shipped RNN LMs of both
built-in corpora: torch.nn's own forward pass for ŷ(t), and torch autograd for the BPTT terms —
G(t, k) as the gradient of J(t) with respect to a copy of W_h used at step k only, the full and
truncated ∂J/∂W_h by back-propagating through a shared W_h (truncation by detaching h(t−w))."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from lmcore.teaching import LessonInputs, topic_questions
from lmcore.teaching import rnn_questions as rq
from tests.teaching_models import CORPORA, nn_weights, sample_corpus, shipped_lm

SEEDS = [0, 1, 2, 3, 5, 8]


@pytest.fixture(scope="module", params=CORPORA)
def setting(request):
    corpus = sample_corpus(request.param)
    return corpus, shipped_lm(request.param, "rnn")


def questions(setting, seed):
    corpus, lm = setting
    return {q.qid: q for q in topic_questions("rnn_bptt", LessonInputs(held_out=corpus.mapped("test"), rnn=lm), seed)}


class Autograd:
    """The RNN LM of torch.nn's weights, written out in float64 with a W_h leaf per step."""

    def __init__(self, lm, tokens):
        self.w, self.T = nn_weights(lm), len(tokens) + 1
        ids = [lm.table.bos_id, *lm.table.ids(tokens)]
        self.x = self.w["E"][ids]
        self.targets = [*lm.table.ids(tokens), lm.table.stoi["</s>"]]

    def losses(self, W_steps, cut: int | None = None):
        """J(1..T); ``W_steps[k−1]`` is the W_h of step k; h is detached after step ``cut``."""
        h, out = torch.zeros(self.w["W_hh"].shape[0], dtype=torch.float64), []
        for k in range(1, self.T + 1):
            if cut is not None and k - 1 == cut:
                h = h.detach()
            h = torch.tanh(self.w["W_ih"] @ self.x[k - 1] + W_steps[k - 1] @ h + self.w["b"])
            out.append(-torch.log_softmax(self.w["W_y"] @ h + self.w["b_y"], dim=0)[self.targets[k - 1]])
        return out

    def contribution_norms(self) -> np.ndarray:
        """‖G(t, k)‖_F with G(t, k) = ∂J(t)/∂W_h(step k), NaN above the diagonal."""
        norms = np.full((self.T, self.T), np.nan)
        for t in range(1, self.T + 1):
            W_steps = [self.w["W_hh"].clone().requires_grad_(True) for _ in range(self.T)]
            grads = torch.autograd.grad(self.losses(W_steps)[t - 1], W_steps[:t])
            norms[t - 1, :t] = [float(g.norm()) for g in grads]
        return norms

    def gradient(self, window: int | None = None) -> torch.Tensor:
        """∂J/∂W_h for J = mean_t J(t); with ``window``, each J(t) back-propagates through its last w steps only."""
        total = torch.zeros_like(self.w["W_hh"])
        for t in range(1, self.T + 1):
            W = self.w["W_hh"].clone().requires_grad_(True)
            cut = t - window if window is not None and t - window >= 1 else None
            total += torch.autograd.grad(self.losses([W] * self.T, cut)[t - 1] / self.T, W)[0]
        return total


@pytest.mark.parametrize("seed", SEEDS)
def test_top_word_is_the_argmax_of_torch_nn_forward_pass(setting, seed):
    corpus, lm = setting
    q = questions(setting, seed)["rnn_bptt.top_word"]
    data = q.explain_data
    p = lm.distribution(data["sentence"][: data["t"] - 1])  # torch.nn.RNN, float32, after <s> w1 … w(t−1)
    assert p.sum() == pytest.approx(1.0, rel=1e-6)
    words = [c.render("en") for c in q.choices]
    best = lm.vocab[int(np.argmax(p))]
    assert words[int(q.answer)] == best
    ranked = np.sort(p)[::-1]
    assert ranked[0] >= 1.2 * ranked[1]  # separated: float32 vs float64 cannot flip it
    assert [p[lm.vocab.index(w)] for w in words] == pytest.approx(data["y"], rel=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
def test_decay_answer_matches_autograd_contributions(setting, seed):
    corpus, lm = setting
    q = questions(setting, seed)["rnn_bptt.decay"]
    norms = Autograd(lm, q.explain_data["sentence"]).contribution_norms()
    means = np.array([np.nanmean(np.diagonal(norms, offset=-d)) for d in range(norms.shape[0])])
    d = q.explain_data["highlight"]
    assert means == pytest.approx(q.explain_data["y"], rel=1e-5)
    ratio = means[d] / means[0]
    assert not 0.5 <= ratio <= 2.0
    assert q.answer == (0 if ratio < 1 else 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_truncation_answer_matches_autograd_with_detached_history(setting, seed):
    corpus, lm = setting
    q = questions(setting, seed)["rnn_bptt.truncation"]
    (w,), = q.table.rows
    model = Autograd(lm, q.explain_data["sentence"])
    full, cut = model.gradient(), model.gradient(window=w)
    error = float((cut - full).norm() / full.norm())
    assert error == pytest.approx(q.explain_data["y"][w - 1], rel=1e-5)
    assert not 0.1 / 1.5 <= error <= 0.1 * 1.5
    assert q.answer == (0 if error > 0.1 else 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_three_questions_same_seed_same_questions_both_languages(setting, seed):
    qs = list(questions(setting, seed).values())
    assert len(qs) >= 3
    assert qs == list(questions(setting, seed).values())
    for q in qs:
        for lang in ("en", "zh"):
            assert q.prompt.render(lang) and q.reveal.render(lang) and all(c.render(lang) for c in q.choices)


def test_no_model_no_questions():
    corpus = sample_corpus("english")
    assert topic_questions("rnn_bptt", LessonInputs(held_out=corpus.mapped("test")), 0) == []
    assert rq.rnn_questions(shipped_lm("english", "lstm"), corpus.mapped("test")) == []  # not an RNN
