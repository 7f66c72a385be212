"""The shipped models: attention beats the bottleneck at the longest source length."""
import numpy as np
import pytest

from lmcore.seq2seq.evaluation import evaluate_by_length
from lmcore.seq2seq.tasks import sample_pairs
from lmcore.seq2seq.pretrained import DEFAULT_TASK, RECIPES, asset_path, pretrained


def test_every_recipe_is_shipped_and_small():
    for task, attention in RECIPES:
        path = asset_path(task, attention)
        assert path.exists(), path
        assert path.stat().st_size < 200_000


def test_attention_beats_no_attention_at_the_longest_length():
    none, recipe = pretrained(DEFAULT_TASK, "none")
    dot, _ = pretrained(DEFAULT_TASK, "dot")
    longest = [recipe.max_len]
    without = evaluate_by_length(none, DEFAULT_TASK, longest, n=200, seed=5)[0]
    with_attention = evaluate_by_length(dot, DEFAULT_TASK, longest, n=200, seed=5)[0]
    assert with_attention.accuracy > without.accuracy
    assert with_attention.token_loglik > without.token_loglik


def test_bottleneck_hurts_long_sources_more_than_short_ones():
    none, recipe = pretrained(DEFAULT_TASK, "none")
    short, long = evaluate_by_length(none, DEFAULT_TASK, [recipe.min_len + 1, recipe.max_len], n=100)
    assert short.accuracy > long.accuracy
    rng = np.random.default_rng(1234)  # evaluate_by_length's default seed: the same held-out pairs, in order
    for result in (short, long):
        pairs = sample_pairs(DEFAULT_TASK, 100, [result.length], rng, heldout=True)
        expected = np.mean([np.mean(none.sentence_logprobs(x, y).logprobs) for x, y in pairs])
        assert result.token_loglik == pytest.approx(expected, abs=1e-5)
    assert long.token_loglik < short.token_loglik


@pytest.mark.parametrize("attention", ["additive"])
def test_additive_model_is_shipped_and_works(attention):
    model, recipe = pretrained(DEFAULT_TASK, attention)
    assert evaluate_by_length(model, DEFAULT_TASK, [recipe.max_len], n=50)[0].accuracy > 0.5
