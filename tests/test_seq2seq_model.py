"""The encoder-decoder against torch oracles and the chain rule."""
import math

import numpy as np
import pytest
import torch

from lmcore.decoding import beam_search, greedy_decode, sequence_logprob
from lmcore.seq2seq.attention import AdditiveScore, DotScore, attend
from lmcore.seq2seq.evaluation import greedy_outputs, token_logprobs
from lmcore.seq2seq.model import Seq2Seq, Seq2SeqConfig, content_digest
from lmcore.seq2seq.scoring import decoder_scorer, factorisation_latex, factorise
from lmcore.seq2seq.tasks import make_batch, sample_pairs
from lmcore.seq2seq.training import Seq2SeqRecipe, sequence_nll, train
from lmcore.seq2seq.vocab import EOS_ID, PAD_ID, decode, encode


def _model(attention, seed=0):
    torch.manual_seed(seed)
    return Seq2Seq(Seq2SeqConfig(attention, embed=8, hidden=12)).eval()


def _pairs(n=6, seed=0):
    return sample_pairs("reverse", n, range(2, 8), np.random.default_rng(seed), heldout=False)


@pytest.mark.parametrize("attention", ["dot", "additive"])
def test_attention_weights_are_distributions_over_real_positions(attention):
    model = _model(attention)
    b = make_batch(_pairs())
    _, weights = model(b.src, b.src_len, b.tgt_in)
    assert weights.shape == (*b.tgt_in.shape, b.src.shape[1])
    assert torch.allclose(weights.sum(-1), torch.ones(b.tgt_in.shape))
    assert (weights >= 0).all()
    pad = torch.arange(b.src.shape[1])[None, None] >= b.src_len[:, None, None]
    assert (weights[pad.expand_as(weights)] == 0).all()


def test_attention_scores_against_hand_formulas():
    torch.manual_seed(1)
    s, h = torch.randn(3, 5), torch.randn(3, 4, 5)
    assert torch.allclose(DotScore()(s, h), (h @ s[..., None])[..., 0], atol=1e-6)
    add = AdditiveScore(5)
    manual = torch.stack([torch.stack([add.v.weight[0] @ torch.tanh(add.w_query.weight @ s[b]
                          + add.w_key.weight @ h[b, j] + add.w_key.bias) for j in range(4)]) for b in range(3)])
    assert torch.allclose(add(s, h), manual, atol=1e-6)
    mask = torch.tensor([[True] * 4, [True, True, False, False], [True] + [False] * 3])
    context, alpha = attend(DotScore()(s, h), h, mask)
    assert torch.allclose(context[2], h[2, 0], atol=1e-6)
    assert torch.allclose(context[1], alpha[1, 0] * h[1, 0] + alpha[1, 1] * h[1, 1], atol=1e-6)


def test_encoder_final_state_ignores_padding():
    model = _model("none")
    pairs = _pairs()
    enc = model.encode(make_batch(pairs).src, make_batch(pairs).src_len)
    for i, (x, _) in enumerate(pairs):
        alone = torch.tensor([encode(x)])
        _, (h, _) = model.encoder(model.src_embed(alone))
        assert torch.allclose(enc.final[0][i], h[0, 0], atol=1e-6)


@pytest.mark.parametrize("attention", ["none", "dot", "additive"])
def test_loss_is_cross_entropy_and_chain_rule_holds(attention):
    model = _model(attention)
    pairs = _pairs()
    b = make_batch(pairs)
    logprobs, _ = model(b.src, b.src_len, b.tgt_in)
    oracle = torch.nn.functional.nll_loss(logprobs.transpose(1, 2), b.tgt_out, ignore_index=PAD_ID)
    assert torch.allclose(sequence_nll(model, b), oracle, atol=1e-6)
    for (x, y), lps in zip(pairs, token_logprobs(model, pairs)):
        scorer = decoder_scorer(model, x)  # step-by-step decoder with cached states
        chained = sequence_logprob(scorer, encode(y) + [EOS_ID])
        assert sum(lps) == pytest.approx(chained, abs=1e-4)
        assert factorise(model, x, y).logprob == pytest.approx(chained, abs=1e-4)
        assert math.prod(factorise(model, x, y).probs) == pytest.approx(math.exp(chained), rel=1e-3)


@pytest.mark.parametrize("attention", ["none", "dot"])
def test_beam_search_runs_on_the_decoder(attention):
    model = _model(attention)
    x = list("40213")
    scorer = decoder_scorer(model, x)
    greedy = greedy_decode(scorer, 14, EOS_ID)
    assert decode(greedy.tokens) == greedy_outputs(model, [x], 14)[0]
    assert beam_search(scorer, 1, 14, EOS_ID).best.tokens == greedy.tokens
    wide = beam_search(scorer, 4, 14, EOS_ID)
    for h in wide.nbest:
        assert h.finished and h.tokens[-1] == EOS_ID
        assert h.logprob == pytest.approx(sequence_logprob(decoder_scorer(model, x), h.tokens), abs=1e-6)


def test_training_is_deterministic_and_lowers_the_loss():
    cfg = Seq2SeqRecipe("copy", 2, 4, steps=30, batch_size=16, lr=1e-2, report_every=10)
    reports = []
    a = train(Seq2SeqConfig("dot", embed=8, hidden=12), cfg, progress=reports.append)
    b = train(Seq2SeqConfig("dot", embed=8, hidden=12), cfg)
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))
    assert [r.step for r in reports] == [10, 20, 30] and reports[-1].done
    assert reports[-1].train_loss < reports[0].train_loss


def test_factorisation_latex_shows_the_live_product():
    model = _model("dot")
    f = factorise(model, list("123"), list("321"))
    tex = factorisation_latex(f)
    assert f"{f.probs[0]:.3f}" in tex and f"{math.exp(f.logprob):.4g}" in tex
    assert tex.count(r"\cdot ") == len(f.probs) - 1


def test_the_content_digest_follows_the_weights_and_settings_not_the_object():
    model = _model("dot")
    twin = Seq2Seq(model.config).eval()
    twin.load_state_dict(model.state_dict())  # another object, the same content
    assert content_digest(twin) == content_digest(model)
    nudged = Seq2Seq(model.config).eval()
    nudged.load_state_dict(model.state_dict())
    with torch.no_grad():
        nudged.out.bias[0] += 1e-3  # one weight of thousands
    assert content_digest(nudged) != content_digest(model)
    other = Seq2Seq(Seq2SeqConfig("additive", embed=8, hidden=12)).eval()
    assert content_digest(other) != content_digest(model)
