"""Every question generator's answer equals an independent computation: direct counting on the raw
training sentences, the smoothing formulas written out here, per-token chain rule, hand-written
Jacobian products (numpy) and autograd on a re-implemented LSTM, exhaustive enumeration of outputs."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
import torch

from lmcore.ngram import MAX_ORDER, count_ngrams
from lmcore.recurrent.gradient_flow import readout_vector
from lmcore.recurrent.weights import CellSpec, random_cell, random_inputs
from lmcore.samples import default_settings, load_sample
from lmcore.teaching import LessonInputs, parse_number, topic_questions
from lmcore.teaching import decoding_questions as dq
from lmcore.teaching import gradient_questions as gq
from lmcore.teaching import ngram_questions as nq
from lmcore.teaching import perplexity_questions as pq
from lmcore.teaching.question import FACTOR, Tolerance

SEEDS = [0, 1, 2, 3, 5, 8]
PRINTED_REL = 5.01e-4  # a number printed with 4 significant digits is within half a unit of the 4th: ≤ 5e-4 relative


@pytest.fixture(scope="module", params=["english", "chinese"])
def corpus(request):
    c = load_sample(request.param, default_settings(request.param), 0)
    train = c.mapped("train")
    return {"train": train, "held_out": c.mapped("test"), "counts": count_ngrams(train, MAX_ORDER)}


def direct_counts(train):
    """Unigram and bigram counts of <s> s </s>, and |V| = training words + </s> + <unk>."""
    uni, bi = Counter(), Counter()
    for s in train:
        padded = ["<s>"] + list(s) + ["</s>"]
        uni.update(padded[1:])
        bi.update(zip(padded, padded[1:]))
    vocab = {w for s in train for w in s} | {"</s>", "<unk>"}
    return uni, bi, len(vocab)


def kn_bigram(bi, v, h, w, d):
    """Interpolated KN, bigram model, one discount d; its unigram level is built on continuation
    counts N1+(• w) and interpolated with the uniform 1/|V| (KenLM's convention)."""
    cont = Counter(b for (_, b) in bi)
    n_all = sum(cont.values())
    p_uni = max(cont[w] - d, 0) / n_all + d * len(cont) / n_all / v
    followers = {b: c for (a, b), c in bi.items() if a == h}
    c_h = sum(followers.values())
    return max(followers.get(w, 0) - d, 0) / c_h + d * len(followers) / c_h * p_uni, p_uni


@pytest.mark.parametrize("seed", SEEDS)
def test_add_delta_equals_the_formula_on_direct_counts(corpus, seed):
    uni, bi, v = direct_counts(corpus["train"])
    for delta in (1.0, 0.3):
        q = nq.add_delta_question(corpus["counts"], delta, np.random.default_rng(seed))
        h, w, c_hw, c_h, v_shown, delta_shown = q.table.rows[0]
        c_h_direct = sum(c for (a, _), c in bi.items() if a == h)
        assert (c_hw, c_h, v_shown, delta_shown) == (bi[(h, w)], c_h_direct, v, delta)
        assert q.answer == pytest.approx((bi[(h, w)] + delta) / (c_h_direct + delta * v), rel=1e-12)
        assert q.check(q.answer * 1.01) and not q.check(q.answer * 1.05)


@pytest.mark.parametrize("seed", SEEDS)
def test_unseen_bigram_largest_method_matches_formulas(corpus, seed):
    uni, bi, v = direct_counts(corpus["train"])
    for delta, d in ((1.0, 0.75), (0.05, 0.5)):
        q = nq.unseen_question(corpus["counts"], delta, d, np.random.default_rng(seed))
        h, w, c_h, c_hw, *_rest = q.table.rows[0]
        assert bi[(h, w)] == 0 and c_hw == 0 and uni[w] > 0
        p_add = delta / (c_h + delta * v)
        p_kn, _ = kn_bigram(bi, v, h, w, d)
        direct = [0.0, p_add, p_kn]
        assert q.answer == int(np.argmax(direct))
        n1_h, n1_w, n1_all = q.table.rows[0][7:]
        assert n1_h == sum(1 for (a, _) in bi if a == h)
        assert n1_w == sum(1 for (_, b) in bi if b == w) and n1_all == len(bi)


def test_unseen_questions_are_not_always_the_same_answer(corpus):
    answers = {nq.unseen_question(corpus["counts"], 1.0, 0.75, np.random.default_rng(s)).answer for s in range(30)}
    assert answers == {1, 2}


@pytest.mark.parametrize("seed", SEEDS)
def test_continuation_question_uses_distinct_left_neighbours(corpus, seed):
    uni, bi, v = direct_counts(corpus["train"])
    q = nq.continuation_question(corpus["counts"], 0.75, np.random.default_rng(seed))
    assert q is not None, "both sample corpora have words of count ≥ 5 with a rival of fewer distinct left neighbours"
    words = [row[0] for row in q.table.rows]
    assert [row[1] for row in q.table.rows] == [uni[w] for w in words]
    p = [kn_bigram(bi, v, words[0], w, 0.75)[1] for w in words]
    assert q.answer == int(np.argmax(p))
    left = [len({a for (a, b) in bi if b == w}) for w in words]
    assert q.answer == int(np.argmax(left))  # more distinct left neighbours wins, whatever C(w) says
    assert uni[words[1 - q.answer]] > uni[words[q.answer]]


@pytest.mark.parametrize("seed", SEEDS)
def test_perplexity_answers_follow_the_chain_rule_token_by_token(corpus, seed):
    rng = np.random.default_rng(seed)
    model = pq.NgramModel(corpus["counts"], 3, pq.METHOD)
    q = pq.from_probs_question(model, corpus["held_out"], rng)
    tokens = [row[1] for row in q.table.rows]
    history, logp = ["<s>"], 0.0
    for tok in tokens:  # one distribution() call per prefix: not the vectorised scorer the question used
        logp += math.log(model.prob(tok, history))
        history.append(tok)
    assert tokens[-1] == "</s>"
    assert q.answer == pytest.approx(math.exp(-logp / len(tokens)), rel=1e-9)
    printed = math.exp(-sum(math.log(row[2]) for row in q.table.rows) / len(tokens))
    assert q.check(float(f"{printed:.4g}"))  # what a student computes from the printed table is accepted
    g = pq.guess_question(model, corpus["held_out"], rng)
    assert g.tolerance == Tolerance(FACTOR, 2.0) and g.check(g.answer * 1.9) and not g.check(g.answer * 2.1)


def rnn_norm_by_hand(sigma1, activation, distance, hidden, input_scale, seed):
    """‖∂J/∂h(T−d)‖ for J = vᵀh(T): forward in numpy, then v ← W_hᵀ (σ'(z_j) ⊙ v) for j = T..T−d+1."""
    w = random_cell(CellSpec("rnn", hidden, 8, "orthogonal", sigma1, activation), seed)
    W, U, b = w.W_h.numpy(), w.W_x.numpy(), w.b.numpy()
    x = random_inputs(distance + 1, 8, input_scale, seed).numpy()
    act = {"tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z)), "relu": lambda z: np.maximum(z, 0)}[activation]
    deriv = {"tanh": lambda z: 1 - np.tanh(z) ** 2, "sigmoid": lambda z: act(z) * (1 - act(z)),
             "relu": lambda z: (z > 0).astype(float)}[activation]
    h, zs = np.zeros(hidden), []
    for t in range(distance + 1):
        z = W @ h + U @ x[t] + b
        zs.append(z)
        h = act(z)
    g = readout_vector(hidden, seed).numpy()
    for z in reversed(zs[1:]):
        g = W.T @ (deriv(z) * g)
    return float(np.linalg.norm(g))


@pytest.mark.parametrize("seed", SEEDS)
def test_threshold_question_matches_a_hand_written_jacobian_product(seed):
    q = gq.threshold_question(np.random.default_rng(seed), 32, 1.0)
    data = q.explain_data
    norm = rnn_norm_by_hand(data["sigma1"], data["activation"], data["distance"], 32, 1.0, data["seed"])
    assert norm == pytest.approx(gq.gradient_norm("rnn", data["sigma1"], data["activation"], data["distance"],
                                                  seed=data["seed"]), rel=1e-9)
    assert q.answer == (0 if norm > data["threshold"] else 1)
    assert data["threshold"] / 10 < norm < data["threshold"] * 10  # the line is within a decade: a real guess


def test_threshold_answers_are_balanced():
    answers = [gq.threshold_question(np.random.default_rng(s), 32, 1.0).answer for s in range(24)]
    assert 6 <= sum(answers) <= 18


def lstm_norm_by_autograd(forget_bias, distance, hidden, seed):
    """The same LSTM equations written here, run from h(T−d) (a leaf) with c(T−d) held fixed."""
    w = random_cell(CellSpec("lstm", hidden, 8, "orthogonal", 1.0, "tanh", forget_bias), seed)
    x = random_inputs(distance + 1, 8, 1.0, seed)
    gate = lambda g, h, xt: g.W_h @ h + g.W_x @ xt + g.b  # noqa: E731

    def step(h, c, xt):
        i, f, o = (torch.sigmoid(gate(g, h, xt)) for g in (w.i, w.f, w.o))
        c = f * c + i * torch.tanh(gate(w.c, h, xt))
        return o * torch.tanh(c), c

    h = c = torch.zeros(hidden, dtype=torch.float64)
    h, c = step(h, c, x[0])
    start = h.detach().requires_grad_(True)
    h, c = start, c.detach()
    for t in range(1, distance + 1):
        h, c = step(h, c, x[t])
    (h @ readout_vector(hidden, seed)).backward()
    return float(start.grad.norm())


@pytest.mark.parametrize("seed", SEEDS)
def test_lstm_question_matches_autograd_and_the_rnn_by_hand(seed):
    q = gq.lstm_question(np.random.default_rng(seed), 32, 1.0)
    assert q is not None, "σ1 = 1 tanh RNN and LSTM norms at d ≤ 50 are finite and differ"
    data = q.explain_data
    rnn = rnn_norm_by_hand(1.0, "tanh", data["distance"], 32, 1.0, data["seed"])
    lstm = lstm_norm_by_autograd(data["forget_bias"], data["distance"], 32, data["seed"])
    assert q.answer == int(np.argmax([rnn, lstm]))
    shown = dict(q.reveal.fields)
    for name, value in (("rnn", rnn), ("lstm", lstm)):  # printed with 4 significant digits
        assert parse_number(shown[name]) == pytest.approx(value, rel=PRINTED_REL), name


@pytest.mark.parametrize("seed", SEEDS)
def test_regime_and_clip_questions(seed):
    rng = np.random.default_rng(seed)
    q = gq.regime_question(rng)
    sigma1, act = dict(q.prompt.fields)["sigma1"], dict(q.prompt.fields)["act"]
    gamma = {"tanh": 1.0, "sigmoid": 0.25, "relu": 1.0}[act]
    assert q.answer == (0 if float(sigma1) * gamma < 1 else 1)
    c = gq.clip_question(rng)
    fields = dict(c.prompt.fields)
    a, b, tau = fields["a"], fields["b"], float(fields["tau"])
    norm = math.hypot(a, b)
    assert c.answer == pytest.approx(a * min(1.0, tau / norm))


def own_beam(table, k):
    """Beam search written out: keep the k best of each step; a finished output takes a place."""
    beam, finished = [((), 0.0)], []
    for _ in range(dq.MAX_LEN):
        slots = k - len(finished)
        if slots <= 0 or not beam:
            break
        cands = sorted(((p + (tok,), s + math.log(pr)) for p, s in beam for tok, pr in table[p].items() if pr > 0),
                       key=lambda c: -c[1])[:slots]
        finished += [c for c in cands if c[0][-1] == dq.END]
        beam = [c for c in cands if c[0][-1] != dq.END]
    return max(finished, key=lambda c: c[1])


def all_outputs(table):
    outs = {}
    for n in range(1, dq.MAX_LEN + 1):
        for seq in itertools.product(range(3), repeat=n):
            if seq[-1] == dq.END and dq.END not in seq[:-1]:
                outs[seq] = math.prod(table[seq[:i]].get(seq[i], 0.0) for i in range(n))
    return outs


@pytest.mark.parametrize("seed", SEEDS)
def test_beam_and_greedy_questions_match_own_search_and_enumeration(seed):
    rng = np.random.default_rng(seed)
    q = dq.beam_question(rng)
    table = dq.table_from_explain(q.explain_data)
    outs = all_outputs(table)
    assert sum(outs.values()) == pytest.approx(1.0)  # the 7 outputs are a distribution
    best, _ = own_beam(table, 2)
    assert q.choices[int(q.answer)].render("en") == dq.sequence_text(best)
    assert [list(r[1:]) for r in q.table.rows] == [[table[p][t] for t in range(3)] for p in [(), (dq.A,), (dq.B,)]]
    g = dq.greedy_question(rng)
    table = dq.table_from_explain(g.explain_data)
    prefix, p = (), 1.0
    while not prefix or prefix[-1] != dq.END:
        tok = max(table[prefix], key=table[prefix].get)
        p *= table[prefix][tok]
        prefix += (tok,)
    assert g.answer == pytest.approx(p) and len(prefix) >= 2


def test_same_seed_same_questions_other_seed_others(corpus):
    inputs = LessonInputs(corpus["counts"], corpus["held_out"], "x", 3)
    for topic in ("ngram", "perplexity", "gradients", "decoding"):
        a, b = topic_questions(topic, inputs, 4), topic_questions(topic, inputs, 4)
        assert [q.uid for q in a] == [q.uid for q in b] and [q.answer for q in a] == [q.answer for q in b]
        others = {q.uid for s in range(5, 9) for q in topic_questions(topic, inputs, s)}
        assert others - {q.uid for q in a}


@pytest.mark.parametrize("raw, value", [("0.25", 0.25), ("1/8", 0.125), ("2.5e-3", 0.0025), ("12,5", 12.5),
                                        ("10^-3", 0.001), ("25%", 0.25), (" −3 ", -3.0), ("abc", None), ("1/0", None)])
def test_parse_number(raw, value):
    assert parse_number(raw) == value
