"""Greedy, beam and exhaustive search agree where theory says they must."""
import itertools
import math

import pytest

from lmcore.decoding import (RandomScorer, beam_search, exhaustive_search,
                             greedy_decode, sequence_logprob, textbook_scorer)
from lmcore.decoding.textbook import BEST_PATH, GREEDY_PATH, MAX_LEN, TABLE
from tests.decoding_oracles import beam_search_loop

SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_beam_width_one_is_greedy(seed):
    score = RandomScorer(6, seed=seed, temperature=0.7, end_id=0)
    greedy = greedy_decode(score, max_len=8, end_id=0)
    beam = beam_search(score, beam_width=1, max_len=8, end_id=0).best
    assert beam.tokens == greedy.tokens
    assert beam.logprob == pytest.approx(greedy.logprob)


def _brute_force(score, vocab, max_len, end_id, alpha):
    """Every sequence ending with the end token, scored by the chain rule one prefix at a time."""
    best = None
    for length in range(1, max_len + 1):
        for body in itertools.product([v for v in range(vocab) if v != end_id], repeat=length - 1):
            y = body + (end_id,)
            s = sequence_logprob(score, y) / length**alpha
            if best is None or s > best[1]:
                best = (y, s)
    return best


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_exhaustive_search_matches_brute_force(seed, alpha):
    score = RandomScorer(3, seed=seed, end_id=2)
    tokens, value = _brute_force(score, 3, 4, 2, alpha)
    found = exhaustive_search(score, max_len=4, end_id=2, alpha=alpha)[0]
    assert found.tokens == tokens
    assert found.normalised == pytest.approx(value)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alpha", [0.0, 0.7])
def test_wide_beam_is_exhaustive(seed, alpha):
    vocab, max_len = 3, 4
    score = RandomScorer(vocab, seed=seed, end_id=1)
    optimum = exhaustive_search(score, max_len, end_id=1, alpha=alpha)[0]
    beam = beam_search(score, beam_width=vocab**max_len, max_len=max_len, end_id=1, alpha=alpha)
    assert beam.best.tokens == optimum.tokens
    assert beam.best.normalised == pytest.approx(optimum.normalised)


@pytest.mark.parametrize("seed", SEEDS)
def test_wide_beam_without_end_token_is_exhaustive(seed):
    score = RandomScorer(3, seed=seed)
    optimum = exhaustive_search(score, max_len=3)[0]
    assert beam_search(score, beam_width=27, max_len=3).best.tokens == optimum.tokens
    assert len(optimum.tokens) == 3


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("width", [2, 3, 5])
def test_batched_beam_matches_per_hypothesis_loop(seed, width):
    score = RandomScorer(7, seed=seed, temperature=0.8, end_id=0)
    batched = beam_search(score, width, max_len=6, end_id=0, alpha=0.5).nbest
    looped = beam_search_loop(score, width, max_len=6, end_id=0, alpha=0.5)
    assert [h.tokens for h in batched] == [h.tokens for h in looped]
    assert [h.normalised for h in batched] == pytest.approx([h.normalised for h in looped])


def test_pruned_record_cap_does_not_change_the_result():
    score = RandomScorer(9, seed=3, end_id=0)
    full = beam_search(score, 3, max_len=5, end_id=0)
    capped = beam_search(score, 3, max_len=5, end_id=0, pruned_per_parent=1)
    assert [h.tokens for h in full.nbest] == [h.tokens for h in capped.nbest]
    assert len(capped) < len(full)
    kids = capped.children()
    for i in range(len(capped)):
        assert sum(capped.state[c] == "pruned" for c in kids[i]) <= 1


def test_textbook_example_greedy_is_suboptimal():
    score = textbook_scorer()
    chain = lambda y: math.prod(TABLE[y[:t]][y[t]] for t in range(len(y)))  # noqa: E731
    greedy = greedy_decode(score, MAX_LEN, end_id=score.end_id)
    beam = beam_search(score, 2, MAX_LEN, end_id=score.end_id).best
    optimum = exhaustive_search(score, MAX_LEN, end_id=score.end_id)[0]
    assert greedy.tokens == GREEDY_PATH and beam.tokens == BEST_PATH
    assert math.exp(greedy.logprob) == pytest.approx(0.048) == pytest.approx(chain(GREEDY_PATH))
    assert math.exp(beam.logprob) == pytest.approx(0.054) == pytest.approx(chain(BEST_PATH))
    assert optimum.tokens == BEST_PATH
    assert exhaustive_search(score, 8, end_id=score.end_id)[0].tokens == BEST_PATH


def test_length_normalisation_prefers_longer_outputs():
    score = RandomScorer(4, seed=11, temperature=0.5, end_id=0)
    raw = exhaustive_search(score, 5, end_id=0, alpha=0.0, n_best=500)
    norm = exhaustive_search(score, 5, end_id=0, alpha=1.0, n_best=500)
    assert len(norm[0].tokens) >= len(raw[0].tokens)
    for h in norm:
        assert h.normalised == pytest.approx(h.logprob / len(h.tokens))
    assert max(h.logprob / len(h.tokens) for h in raw) == pytest.approx(norm[0].normalised)
