"""The chain-rule page's questions (topic ``perplexity``): at least three, and the new
``perplexity.top_token`` answer checked by KenLM (C++) scoring the sentence from the model's ARPA file."""
from __future__ import annotations

import math

import kenlm
import numpy as np
import pytest

from lmcore.ngram import MAX_ORDER, NgramModel, count_ngrams
from lmcore.teaching import PAGE_TOPICS, LessonInputs, topic_questions
from lmcore.teaching import perplexity_questions as pq
from tests.teaching_models import CORPORA, sample_corpus

SEEDS = [0, 1, 2, 3, 5, 8]
ORDER = 3


@pytest.fixture(scope="module", params=CORPORA)
def setting(request, tmp_path_factory):
    corpus = sample_corpus(request.param)
    counts = count_ngrams(corpus.mapped("train"), MAX_ORDER)
    path = tmp_path_factory.mktemp("arpa") / f"{request.param}.arpa"
    NgramModel(counts, ORDER, pq.METHOD).to_arpa(path)
    return corpus, counts, kenlm.Model(str(path))


@pytest.mark.parametrize("seed", SEEDS)
def test_top_token_is_the_largest_cost_under_kenlm(setting, seed):
    corpus, counts, ken = setting
    q = topic_questions("perplexity", LessonInputs(counts, corpus.mapped("test"), "x", ORDER), seed)[2]
    assert q.qid == "perplexity.top_token"
    sentence = dict(q.prompt.fields)["sentence"]
    cost = -np.array([s for s, _, _ in ken.full_scores(sentence, bos=True, eos=True)]) * math.log(10)  # nats
    picks = q.explain_data["picks"]
    tokens = [*sentence.split(), "</s>"]
    assert [c.render("en") for c in q.choices] == [f"{t + 1}: {tokens[t]}" for t in picks]
    assert q.answer == int(np.argmax(cost[picks]))
    assert picks[q.answer] == int(np.argmax(cost))  # the largest of the whole sentence is among the choices
    others = np.delete(cost[picks], q.answer)
    assert np.all(cost[picks][q.answer] - others >= 0.3 - 1e-3)


@pytest.mark.parametrize("seed", SEEDS)
def test_chain_rule_page_has_three_questions_same_seed_same_ones(setting, seed):
    corpus, counts, _ = setting
    inputs = LessonInputs(counts, corpus.mapped("test"), "x", ORDER)
    questions = [q for topic in PAGE_TOPICS["chain_rule"] for q in topic_questions(topic, inputs, seed)]
    assert len(questions) >= 3
    assert questions == [q for topic in PAGE_TOPICS["chain_rule"] for q in topic_questions(topic, inputs, seed)]
    for q in questions:
        for lang in ("en", "zh"):
            assert q.prompt.render(lang) and q.reveal.render(lang)


def test_top_token_answers_vary(setting):
    corpus, counts, _ = setting
    answers = {topic_questions("perplexity", LessonInputs(counts, corpus.mapped("test"), "x", ORDER), s)[2].answer
               for s in range(12)}
    assert len(answers) >= 3
