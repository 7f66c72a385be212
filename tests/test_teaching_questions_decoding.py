"""The decoding page's questions: at least three, and ``decoding.gain`` (does beam search with k = 3
beat greedy?) checked with the plain per-hypothesis beam search oracle, greedy by hand and the
enumeration of all outputs."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lmcore.teaching import PAGE_TOPICS, LessonInputs, topic_questions
from lmcore.teaching import decoding_questions as dq
from tests.decoding_oracles import beam_search_loop

SEEDS = list(range(12))


def by_hand_greedy(table):
    prefix, p = (), 1.0
    while not prefix or prefix[-1] != dq.END:
        tok = max(table[prefix], key=table[prefix].get)
        p *= table[prefix][tok]
        prefix += (tok,)
    return prefix, p


@pytest.mark.parametrize("seed", SEEDS)
def test_gain_answer_matches_the_beam_oracle_and_greedy_by_hand(seed):
    q = dq.decoding_questions(seed)[2]
    assert q.qid == "decoding.gain"
    table = dq.table_from_explain(q.explain_data)
    beam = beam_search_loop(dq.scorer(table), 3, dq.MAX_LEN, dq.END)[0]
    _, p_greedy = by_hand_greedy(table)
    p_beam = math.prod(table[beam.tokens[:i]][beam.tokens[i]] for i in range(len(beam.tokens)))
    assert p_beam == pytest.approx(math.exp(beam.logprob), rel=1e-9)
    ratio = p_beam / p_greedy
    assert ratio >= 1.05 or ratio <= 1 / 1.05 or ratio == pytest.approx(1.0, rel=1e-12)
    assert q.answer == (0 if ratio >= 1.05 else 1)


def test_gain_answers_are_both_yes_and_no():
    assert {dq.decoding_questions(s)[2].answer for s in SEEDS} == {0, 1}


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_decoding_page_has_three_questions_same_seed_same_ones(seed):
    questions = [q for topic in PAGE_TOPICS["decoding"] for q in topic_questions(topic, LessonInputs(), seed)]
    assert len(questions) >= 3
    assert [q.uid for q in questions] == [q.uid for t in PAGE_TOPICS["decoding"] for q in topic_questions(t, LessonInputs(), seed)]
    for q in questions:
        for lang in ("en", "zh"):
            assert q.prompt.render(lang) and q.reveal.render(lang)
    assert np.all([q.table is not None for q in questions])
