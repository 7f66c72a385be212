"""The seq2seq questions' answers equal independent computations on the shipped models: the
bottleneck accuracies re-measured by an unbatched greedy loop written here (on the evaluation's own
held-out sample), greedy outputs from the same loop, and P(y | x) multiplied out step by step."""
from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
import torch

from lmcore.seq2seq.pretrained import EVAL_N, EVAL_SEED
from lmcore.seq2seq.tasks import TASKS, make_batch, sample_pairs
from lmcore.seq2seq.vocab import BOS_ID, EOS_ID, decode, encode
from lmcore.teaching import LessonInputs, topic_questions
from lmcore.teaching import seq2seq_questions as sq

SEEDS = [0, 1, 4]


def questions(task, seed):
    return {q.qid: q for q in topic_questions("seq2seq", LessonInputs(seq2seq_task=task), seed)}


@torch.no_grad()
def step_logprobs(model, source, prefix):
    """log P(· | prefix, x) after feeding <s> + prefix one token at a time (batch of one)."""
    batch = make_batch([(source, [])])
    enc = model.encode(batch.src, batch.src_len)
    state = model.initial_state(enc)
    out = []
    for tok in [BOS_ID, *prefix]:
        logits, state, _ = model.step(torch.tensor([tok]), state, enc)
        out.append(torch.log_softmax(logits[0].double(), dim=-1))
    return out


@torch.no_grad()
def greedy(model, source, max_steps):
    batch = make_batch([(source, [])])
    enc = model.encode(batch.src, batch.src_len)
    state, prev, ids = model.initial_state(enc), torch.tensor([BOS_ID]), []
    for _ in range(max_steps):
        logits, state, _ = model.step(prev, state, enc)
        prev = logits.argmax(-1)
        ids.append(int(prev))
        if ids[-1] == EOS_ID:
            break
    return decode(ids)


@torch.no_grad()
def greedy_batch(model, sources, max_steps):
    """Greedy outputs of equally long sources, decoded together (each row read up to its first </s>)."""
    src = torch.tensor([encode(x) for x in sources])
    enc = model.encode(src, torch.full((len(sources),), src.shape[1]))
    state, prev, rows = model.initial_state(enc), torch.full((len(sources),), BOS_ID), []
    for _ in range(max_steps):
        logits, state, _ = model.step(prev, state, enc)
        prev = logits.argmax(-1)
        rows.append(prev)
    return [decode(r) for r in torch.stack(rows, 1).tolist()]


@cache
def measured_accuracy(task, variant, m):
    """Exact match on the evaluation's held-out sample at length m (its rng runs through the shorter lengths first)."""
    model, recipe, _ = sq.shipped(task, variant)
    rng = np.random.default_rng(EVAL_SEED)
    for length in range(recipe.min_len, m + 1):
        pairs = sample_pairs(task, EVAL_N, [length], rng, heldout=True)
    outputs = greedy_batch(model, [x for x, _ in pairs], 2 * m + 4)
    return float(np.mean([out == y for out, (_, y) in zip(outputs, pairs)]))


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_bottleneck_side_matches_a_fresh_measurement(task, seed):
    q = questions(task, seed)["seq2seq.bottleneck"]
    m, line = q.explain_data["length"], q.explain_data["line"]
    acc = measured_accuracy(task, "none", m)
    shipped = dict(q.explain_data["curves"]["none"])[m]
    assert acc == pytest.approx(shipped, abs=0.02)  # the same sample, re-decoded here
    assert abs(acc - line) >= 0.08
    assert q.answer == (0 if acc > line else 1)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_attention_answer_matches_fresh_measurements(task, seed):
    q = questions(task, seed).get("seq2seq.attention")
    if q is None:
        curves = questions(task, seed)["seq2seq.bottleneck"].explain_data["curves"]
        gaps = [abs(a - b) for (_, a), (_, b) in zip(curves["none"], curves["dot"])]
        assert max(gaps) < sq.GAP  # no length where attention makes a difference: no question
        return
    m = q.explain_data["length"]
    acc = [measured_accuracy(task, v, m) for v in sq.VARIANTS]
    assert abs(acc[1] - acc[0]) >= sq.GAP - 0.04
    assert q.answer == int(np.argmax(acc))


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_greedy_answer_matches_an_unbatched_greedy_loop(task, seed):
    q = questions(task, seed)["seq2seq.greedy"]
    source, output = q.explain_data["source"], q.explain_data["output"]
    model = sq.shipped(task, "none")[0]
    mine = greedy(model, source, 2 * len(source) + 4)
    assert mine == output
    target = dict(q.prompt.fields)["y"].split()
    assert q.answer == (0 if mine == target else 1)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_factor_answer_is_the_product_of_step_by_step_probabilities(task, seed):
    q = questions(task, seed)["seq2seq.factor"]
    source, target = q.explain_data["source"], q.explain_data["target"]
    model = sq.shipped(task, "none")[0]
    ids = [*encode(target), EOS_ID]
    steps = step_logprobs(model, source, ids[:-1])
    logp = sum(float(lp[i]) for lp, i in zip(steps, ids))
    assert q.answer == pytest.approx(math.exp(logp), rel=1e-5)
    assert [row[2] for row in q.table.rows] == pytest.approx([math.exp(float(lp[i])) for lp, i in zip(steps, ids)], rel=1e-5)
    printed = math.prod(float(f"{row[2]:.4g}") for row in q.table.rows)
    assert q.check(printed) and not q.check(q.answer * 1.05)


@pytest.mark.parametrize("task", TASKS)
def test_three_questions_same_seed_same_questions_both_languages(task):
    for seed in SEEDS:
        qs = list(questions(task, seed).values())
        assert len(qs) >= 3
        assert qs == list(questions(task, seed).values())
        for q in qs:
            for lang in ("en", "zh"):
                assert q.prompt.render(lang) and q.reveal.render(lang) and all(c.render(lang) for c in q.choices)


def test_no_task_no_questions():
    assert topic_questions("seq2seq", LessonInputs(), 0) == []
