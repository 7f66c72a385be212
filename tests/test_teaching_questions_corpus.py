"""The corpus questions' answers equal exact counting on the corpus's token lists (all splits in
file order for Heaps and Zipf, the training split for the vocabulary), for several seeds and both
built-in corpora; the choices are a constant factor apart and the answer is the true value."""
from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from lmcore.samples import default_settings, load_sample
from lmcore.teaching import LessonInputs, topic_questions
from lmcore.teaching import corpus_questions as cq
from lmcore.teaching.estimates import FACTOR, scaled_options

SEEDS = [0, 1, 2, 3, 5, 8]


@pytest.fixture(scope="module", params=["english", "chinese"])
def corpus(request):
    return load_sample(request.param, default_settings(request.param), 0)


def tokens_in_order(corpus) -> list[str]:
    return [tok for sentence in corpus.sentences for tok in sentence]


def chosen(q) -> float:
    """The number the right choice shows ("1331" or "4.26%")."""
    shown = q.choices[int(q.answer)].render("en")
    return float(shown.rstrip("%")) / 100 if shown.endswith("%") else float(shown)


def assert_spread(q, low: float, high: float) -> None:
    """Options ascending, neighbours a factor ≈ 1.6 apart, all within (low, high]."""
    values = [float(c.render("en").rstrip("%")) for c in q.choices]
    ratios = np.array(values[1:]) / np.array(values[:-1])
    assert np.all(ratios > 1.4) and np.all(ratios < 1.8)
    scale = 100 if q.choices[0].render("en").endswith("%") else 1
    assert values[0] / scale > low and values[-1] / scale <= high * (1 + 0.01)


@pytest.mark.parametrize("seed", SEEDS)
def test_heaps_answer_is_the_number_of_distinct_tokens_counted_directly(corpus, seed):
    q = cq.heaps_question(corpus, np.random.default_rng(seed))
    (n1, v1), (n2, unknown) = q.table.rows
    flat = tokens_in_order(corpus)
    assert unknown == "?" and v1 == len(set(flat[:n1]))
    v2 = len(set(flat[:n2]))
    assert chosen(q) == pytest.approx(v2, rel=1e-12)
    assert_spread(q, v1, n2)
    assert v2 < v1 * n2 / n1  # Heaps: sub-linear growth in these corpora


@pytest.mark.parametrize("seed", SEEDS)
def test_zipf_answer_is_the_count_of_the_rank_r_token(corpus, seed):
    q = cq.zipf_question(corpus, np.random.default_rng(seed))
    (_, w1, c1), (rank, _, _) = q.table.rows
    counts = sorted(Counter(tokens_in_order(corpus)).values(), reverse=True)
    assert c1 == counts[0] and Counter(tokens_in_order(corpus))[w1] == counts[0]
    assert chosen(q) == pytest.approx(counts[rank - 1], rel=1e-12)
    assert_spread(q, 0, c1)


@pytest.mark.parametrize("seed", SEEDS)
def test_oov_answer_is_the_share_of_test_tokens_outside_the_training_vocabulary(corpus, seed):
    q = cq.oov_question(corpus, np.random.default_rng(seed))
    settings = corpus.settings
    assert settings.max_vocab is None
    train_counts = Counter(tok for s in corpus.split("train") for tok in s)
    vocab = {w for w, c in train_counts.items() if c >= settings.min_count}
    test = [tok for s in corpus.split("test") for tok in s]
    rate = sum(tok not in vocab for tok in test) / len(test)
    # the printed option is 3 significant digits of a percentage: within 0.05 % of the share, relatively
    assert chosen(q) == pytest.approx(rate, rel=5e-3)
    assert q.answer == int(np.argmin([abs(np.log(float(c.render("en").rstrip("%")) / 100 / rate)) for c in q.choices]))
    assert_spread(q, 0, 1)


def test_scaled_options_put_the_true_value_among_well_separated_ones():
    for seed in range(30):
        options, at = scaled_options(137, np.random.default_rng(seed), low=50, high=600)
        assert options[at] == 137 and all(50 < x <= 600 for x in options)
        assert np.allclose(np.diff(np.log(options)), np.log(FACTOR), rtol=0.05)
    assert {scaled_options(137, np.random.default_rng(s))[1] for s in range(40)} == {0, 1, 2, 3}


@pytest.mark.parametrize("seed", SEEDS)
def test_three_questions_same_seed_same_questions_both_languages(corpus, seed):
    inputs = LessonInputs(source_corpus=corpus)
    questions = topic_questions("corpus", inputs, seed)
    assert len(questions) >= 3
    assert questions == topic_questions("corpus", inputs, seed)
    for q in questions:
        answer = q.answer_text("en")
        for lang in ("en", "zh"):
            prompt = q.prompt.render(lang)
            assert prompt and q.reveal.render(lang)
            assert not re.search(rf"(?<![\d.]){re.escape(answer)}(?![\d.])", prompt)  # never in the question


def test_no_corpus_no_questions():
    assert topic_questions("corpus", LessonInputs(), 0) == []
