"""Training: deterministic for a seed, learns the synthetic source, stops cleanly on request."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lmcore.lm_protocol import LanguageModel, perplexity_of
from lmcore.ngram import NgramModel
from lmcore.samples import load_sample
from lmcore.training.config import TrainConfig
from lmcore.training.evaluate import score_sentences
from lmcore.training.loop import train_sentences

FAST = TrainConfig(embed_dim=16, hidden_size=32, steps=40, batch_size=16, eval_every=20, report_every=5)


@pytest.fixture(scope="module")
def synthetic():
    return load_sample("synthetic", n_sentences=800)


def _train(corpus, config=FAST, on_progress=None):
    return train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, config,
                           on_progress, corpus.key)


def test_same_seed_same_weights_other_seed_differs(synthetic):
    a, b, c = _train(synthetic), _train(synthetic), _train(synthetic, FAST.with_(seed=1))
    for (name, wa), wb in zip(a.model.state_dict().items(), b.model.state_dict().values()):
        assert torch.equal(wa, wb), name
    assert [p.train_loss for p in a.history] == [p.train_loss for p in b.history]
    assert not torch.equal(a.model.output_weight(), c.model.output_weight())


def test_training_does_not_touch_the_global_rng(synthetic):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    _train(synthetic, FAST.with_(steps=3))
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_synthetic_ppl_far_below_unigram_and_above_true_floor(synthetic, cell):
    config = TrainConfig(cell=cell, embed_dim=32, hidden_size=64, steps=250, eval_every=50)
    lm = _train(synthetic, config)
    unigram = NgramModel.fit(synthetic.mapped("train"), 1, "add-delta").perplexity(synthetic.mapped("valid")).ppl
    floor = math.exp(synthetic.true_entropy)
    assert floor < lm.valid_ppl < 0.5 * unigram
    first = next(p.valid_token_ppl for p in lm.history if p.valid_token_ppl is not None)
    assert lm.valid_ppl < first  # it learned during the run


def test_stop_request_ends_cleanly_with_a_usable_model(synthetic):
    seen = []

    def callback(progress):
        seen.append(progress.step)
        return "stop" if progress.step >= 10 else None

    lm = _train(synthetic, FAST.with_(steps=1000), callback)
    assert lm.stopped and 10 <= lm.steps_done < 20
    assert lm.history[-1].done and lm.history[-1].valid_token_ppl is not None
    p = lm.distribution(["the"])
    assert p.shape == (len(lm.vocab),) and abs(p.sum() - 1) < 1e-9 and np.all(p > 0)
    assert lm.valid_ppl < len(lm.vocab)  # already better than a uniform guess


@pytest.mark.parametrize("level", ["word", "char"])
def test_reported_valid_ppl_matches_protocol_scoring(synthetic, level):
    """Batched, padded evaluation == token-by-token chain-rule scores through the protocol
    (char level: per-token log-probabilities are sums over characters, still per corpus token)."""
    lm = _train(synthetic, FAST.with_(level=level))
    assert isinstance(lm, LanguageModel)
    valid = synthetic.mapped("valid")
    via_protocol = perplexity_of(lm.sentence_logprobs(s) for s in valid).ppl
    assert via_protocol == pytest.approx(score_sentences(lm.model, lm.table, valid).token_ppl, rel=1e-5)
    assert lm.valid_ppl == pytest.approx(via_protocol, rel=1e-5)  # keep_best restored those weights


def test_distribution_is_the_chain_rule_factor_and_low_temperature_sampling_is_greedy(synthetic):
    lm = _train(synthetic)
    sentence = synthetic.mapped("valid")[0]
    scores = lm.sentence_logprobs(sentence)
    for t, token in enumerate([*sentence, "</s>"]):
        p = lm.distribution(["<s>", *sentence[:t]])
        assert scores.logprobs[t] == pytest.approx(np.log(p[lm.vocab.index(token)]), abs=1e-5)
    greedy, context = [], []
    while len(greedy) < 12:
        nxt = lm.vocab[int(np.argmax(lm.distribution(context)))]
        if nxt == "</s>":
            break
        greedy.append(nxt)
        context.append(nxt)
    assert lm.sample(seed=3, max_len=12, temperature=1e-4) == greedy
    assert lm.sample(temperature=1.0, seed=5) == lm.sample(temperature=1.0, seed=5)


def test_every_optimizer_step_is_counted(synthetic):
    from lmcore.training.steps import step_counts

    before = step_counts().get("adam", 0)
    lm = _train(synthetic, FAST.with_(steps=7))
    assert step_counts()["adam"] - before == lm.steps_done == 7
