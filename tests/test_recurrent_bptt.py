"""BPTT contributions G(t, k): row sums = ∂J(t)/∂W_h, total = ∂J/∂W_h (torch autograd)."""
import numpy as np
import pytest
import torch

from lmcore.recurrent.bptt import bptt_contributions
from lmcore.recurrent.cells import DTYPE, RNNWeights, run_rnn
from lmcore.recurrent.rnn_lm import (
    WhiteBoxLM, input_gradient_norms, most_varying_units, run_sentence, sentence_bptt, top_k_next,
)
from lmcore.recurrent.weights import CellSpec, random_cell

torch.set_num_threads(1)

SENTENCES = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "sat"], ["the", "dog", "ran"]]
ITOS = ["<unk>", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "</s>"]


def _lm(activation="tanh", scale=1.1):
    """A white-box LM with random weights of any activation (the trained ones are tanh only)."""
    g = torch.Generator().manual_seed(0)
    spec = CellSpec("rnn", 6, 4, "orthogonal", scale, activation)
    E = torch.randn(len(ITOS) + 1, 4, generator=g, dtype=DTYPE)  # + the <s> row
    W_y = torch.randn(len(ITOS), 6, generator=g, dtype=DTYPE) / 6**0.5
    return WhiteBoxLM(ITOS, E, random_cell(spec, 0), W_y, torch.randn(len(ITOS), generator=g, dtype=DTYPE))


def _ids(lm, tokens):
    """<s> tokens </s> as ids, written out independently of run_sentence."""
    return [len(lm.itos)] + [lm.itos.index(w) if w in lm.itos else 0 for w in tokens] + [lm.itos.index("</s>")]


def _autograd_losses(lm, tokens):
    """J(t) for t = 1..T with W_h as a leaf requiring grad (independent of the BPTT code)."""
    W_h = lm.cell.W_h.clone().requires_grad_(True)
    cell = RNNWeights(W_h, lm.cell.W_x, lm.cell.b, lm.cell.activation)
    ids = _ids(lm, tokens)
    trace = run_rnn(cell, lm.embedding[ids[:-1]])
    logits = trace.stacked_h() @ lm.W_y.T + lm.b_y
    losses = torch.nn.functional.cross_entropy(logits, torch.tensor(ids[1:]), reduction="none")
    return W_h, losses


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
def test_bptt_sums_equal_autograd(activation):
    lm = _lm(activation)
    tokens = SENTENCES[0]
    contrib = sentence_bptt(lm, run_sentence(lm, tokens))
    W_h, losses = _autograd_losses(lm, tokens)
    T = len(tokens) + 1
    assert contrib.norms.shape == (T, T)
    for t in range(T):
        (g,) = torch.autograd.grad(losses[t], W_h, retain_graph=True)
        assert torch.allclose(contrib.per_loss[t], g, atol=1e-12, rtol=1e-9)
    (g_total,) = torch.autograd.grad(losses.mean(), W_h)
    assert torch.allclose(contrib.total, g_total, atol=1e-12, rtol=1e-9)
    assert torch.allclose(contrib.truncated(T), g_total, atol=1e-12, rtol=1e-9)


def test_truncation_window_one_keeps_only_immediate_terms():
    lm = _lm()
    run = run_sentence(lm, SENTENCES[0])
    contrib = sentence_bptt(lm, run)
    T = contrib.T
    # window 1 keeps only k = t: Σ_t δ(t,t) h(t−1)ᵀ / T, written out here directly
    deriv = 1 - torch.stack(run.trace.h[1:]) ** 2
    probs = run.probs.detach().clone()
    probs[torch.arange(T), run.targets] -= 1
    delta = deriv * (probs @ lm.W_y)
    expected = (delta[:, :, None] * torch.stack(run.trace.h[:-1])[:, None, :]).sum(0) / T
    assert torch.allclose(contrib.truncated(1), expected, atol=1e-13)
    assert np.isnan(contrib.norms[0, 1])  # k > t: no term
    assert contrib.truncation_error(T) == pytest.approx(0.0, abs=1e-12)
    assert contrib.dropped_share(T) == 0.0 and 0 < contrib.dropped_share(1) < 1
    errors = [contrib.truncation_error(w) for w in range(1, T + 1)]
    assert errors[0] > 0 and errors[-1] < 1e-12


def test_sentence_run_losses_and_perplexity():
    lm = _lm()
    run = run_sentence(lm, SENTENCES[1])
    _, losses = _autograd_losses(lm, SENTENCES[1])
    np.testing.assert_allclose(run.losses, losses.detach().numpy(), rtol=1e-12)
    assert run.perplexity == pytest.approx(np.exp(losses.mean().item()))
    np.testing.assert_allclose(run.probs.detach().sum(-1).numpy(), 1.0, rtol=1e-12)
    top = top_k_next(lm, run, 3)
    assert len(top) == len(SENTENCES[1]) + 1 and len(top[0]) == 3
    assert top[0][0][1] >= top[0][1][1] >= top[0][2][1]


def test_unknown_words_map_to_unk():
    lm = _lm()
    run = run_sentence(lm, ["zebra", "sat"])
    assert run.inputs == [len(ITOS), 0, ITOS.index("sat")] and run.targets == [0, ITOS.index("sat"), ITOS.index("</s>")]
    assert run.inputs_text == ["<s>", "<unk>", "sat"] and run.targets_text == ["<unk>", "sat", "</s>"]


def test_input_gradient_norms_match_separate_autograd():
    lm = _lm()
    tokens = SENTENCES[0]
    position = 5
    norms = input_gradient_norms(lm, tokens, position)
    ids = _ids(lm, tokens)
    x = lm.embedding[ids[:-1]].clone().requires_grad_(True)
    trace = run_rnn(lm.cell, x)
    loss = torch.nn.functional.cross_entropy((trace.h[position] @ lm.W_y.T + lm.b_y)[None],
                                             torch.tensor([ids[position]]))
    (g,) = torch.autograd.grad(loss, x)
    np.testing.assert_allclose(norms, g[:position].norm(dim=1).numpy(), rtol=1e-10)
    assert torch.all(g[position:] == 0)  # later inputs cannot influence J(position)


def test_bptt_norm_matrix_entries_are_frobenius_norms_of_outer_products():
    lm = _lm()
    run = run_sentence(lm, SENTENCES[2])
    contrib = bptt_contributions(lm.cell, run.trace, torch.zeros(len(SENTENCES[2]) + 1, 6,
                                                                  dtype=torch.float64))
    assert np.nansum(contrib.norms) == 0.0 and torch.all(contrib.total == 0)


def test_most_varying_units_are_the_highest_variances_in_index_order():
    h = np.zeros((5, 6))
    h[:, 4] = [0, 3, 0, 3, 0]
    h[:, 1] = [0, 1, 0, 1, 0]
    h[:, 2] = [0, 2, 0, 2, 0]
    assert most_varying_units(h, 2).tolist() == [2, 4]
    assert most_varying_units(h, 10).tolist() == list(range(6))
