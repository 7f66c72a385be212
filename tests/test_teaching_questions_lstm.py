"""The LSTM questions' answers equal independent computations on the shipped LSTM LMs of both
built-in corpora: the gates re-computed in float64 from torch.nn.LSTM's weights (torch's gate order
i, f, g, o; checked against nn.LSTM's own h), products of forget gates multiplied out here, and
torch.nn's forward pass for the log-probabilities before and after an edit."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lmcore.teaching import LessonInputs, topic_questions
from lmcore.teaching import lstm_questions as lq
from tests.teaching_models import CORPORA, nn_weights, sample_corpus, shipped_lm

SEEDS = [0, 1, 2, 3, 5, 8]


@pytest.fixture(scope="module", params=CORPORA)
def setting(request):
    return sample_corpus(request.param), shipped_lm(request.param, "lstm")


def questions(setting, seed):
    corpus, lm = setting
    inputs = LessonInputs(source_corpus=corpus, held_out=corpus.mapped("test"), lstm=lm)
    return {q.qid: q for q in topic_questions("lstm", inputs, seed)}


def forget_gates(lm, symbols) -> np.ndarray:
    """f(t) for t = 1..T (units × T) on <s> + symbols, from nn.LSTM's weights; h checked against nn.LSTM."""
    w = nn_weights(lm)
    x = w["E"][[lm.table.bos_id, *lm.table.ids(symbols)]]
    n = w["W_hh"].shape[1]
    h, c, fs, hs = torch.zeros(n, dtype=torch.float64), torch.zeros(n, dtype=torch.float64), [], []
    for xt in x:
        i, f, g, o = (w["W_ih"] @ xt + w["W_hh"] @ h + w["b"]).split(n)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        fs.append(torch.sigmoid(f))
        hs.append(h)
    with torch.no_grad():
        out, _ = lm.model.rnn(lm.model.embed.weight[[lm.table.bos_id, *lm.table.ids(symbols)]][None])
    assert torch.stack(hs).numpy() == pytest.approx(out[0].double().numpy(), abs=1e-4)
    return torch.stack(fs, dim=1).numpy()


@pytest.mark.parametrize("seed", SEEDS)
def test_forget_gate_side_matches_gates_from_torch_weights(setting, seed):
    corpus, lm = setting
    q = questions(setting, seed)["lstm.forget"]
    data = q.explain_data
    f = forget_gates(lm, data["symbols"])
    unit, step = data["fields"]["u"], data["highlight"]
    assert f[unit] == pytest.approx(data["y"], abs=1e-9)
    assert abs(f[unit, step] - 0.5) >= 0.2
    assert q.answer == (0 if f[unit, step] > 0.5 else 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_memory_answer_is_the_mean_product_of_forget_gates(setting, seed):
    corpus, lm = setting
    q = questions(setting, seed)["lstm.memory"]
    data = q.explain_data
    f = forget_gates(lm, data["symbols"])
    k, T = data["k"], f.shape[1]
    product = np.mean([math.prod(f[u, k:T]) for u in range(f.shape[0])])  # f(k+1) … f(T): columns k … T−1
    assert product == pytest.approx(data["y"][k - 1], rel=1e-9)
    line = data["hline"]
    assert abs(math.log10(product / line)) >= 0.25 and line < 1
    assert q.answer == (0 if product > line else 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_edit_answer_is_the_largest_change_under_torch_nn(setting, seed):
    corpus, lm = setting
    q = questions(setting, seed)["lstm.edit"]
    data = q.explain_data
    symbols, position = data["symbols"], data["position"]
    edited = [*symbols[:position], data["replacement"], *symbols[position + 1:]]
    change = np.abs(lm.token_logprobs(edited) - lm.token_logprobs(symbols))  # torch.nn.LSTM, float32
    assert np.all(change[:position] < 1e-5)  # causality: nothing before the edit moves
    picked = change[data["targets"]]
    assert picked == pytest.approx(data["y"], rel=1e-3, abs=1e-5)
    assert int(np.argmax(picked)) == q.answer
    assert all(picked[q.answer] >= 1.4 * v for i, v in enumerate(picked) if i != q.answer)
    assert all(j > position for j in data["targets"])


@pytest.mark.parametrize("seed", SEEDS)
def test_three_questions_same_seed_same_questions_both_languages(setting, seed):
    qs = list(questions(setting, seed).values())
    assert len(qs) >= 3
    assert qs == list(questions(setting, seed).values())
    for q in qs:
        for lang in ("en", "zh"):
            assert q.prompt.render(lang) and q.reveal.render(lang) and all(c.render(lang) for c in q.choices)


def test_no_lstm_no_questions():
    corpus = sample_corpus("english")
    assert topic_questions("lstm", LessonInputs(source_corpus=corpus), 0) == []
    assert lq.lstm_questions(shipped_lm("english", "rnn"), corpus, []) == []
