"""Adapters: n-gram models and recurrent networks seen as scorers."""
import numpy as np
import pytest
import torch

from lmcore.decoding import DistributionScorer, RecurrentScorer, beam_search, greedy_decode
from lmcore.training.config import TrainConfig
from lmcore.training.loop import train_sentences
from tests.decoding_oracles import beam_search_loop


class _DictBigram:
    vocab = ["<unk>", "a", "b", "</s>"]

    def distribution(self, context):
        last = context[-1] if context else "<s>"
        return {"<s>": {"a": 0.7, "b": 0.2, "</s>": 0.1}, "a": {"b": 0.6, "</s>": 0.4},
                "b": {"a": 0.5, "</s>": 0.5}}.get(last, {"</s>": 1.0})


class _ArrayUnigram:
    class vocab:  # noqa: N801 - mimics lmcore.corpus.Vocabulary
        itos = ["<unk>", "x", "</s>"]

    def distribution(self, context):
        return np.array([0.1, 0.6, 0.3])


def test_ngram_scorer_reads_mappings_and_vectors():
    bigram = DistributionScorer(_DictBigram())
    assert bigram.end_id == 3
    rows = np.exp(bigram([(), (1,), (1, 2)]))
    assert rows.sum(axis=1) == pytest.approx(1.0)
    assert rows[1, 2] == pytest.approx(0.6)
    assert greedy_decode(bigram, 5, bigram.end_id).tokens == (1, 2, 1, 2, 1)
    unigram = DistributionScorer(_ArrayUnigram(), prompt=["x"])
    assert np.exp(unigram([(1, 1)]))[0] == pytest.approx([0.1, 0.6, 0.3])


def test_ngram_scorer_on_the_real_ngram_module():
    from lmcore.ngram import NgramModel

    train = [["a", "b", "c"], ["a", "b", "d"], ["b", "a"]] * 3
    model = NgramModel.fit(train, 2)
    scorer = DistributionScorer(model, prompt=["a"])
    rows = np.exp(scorer([(), (scorer.index["b"],)]))
    assert rows.sum(axis=1) == pytest.approx(1.0)
    assert rows[0] == pytest.approx(np.asarray(model.distribution(["<s>", "a"]), dtype=float))
    best = beam_search(scorer, 3, max_len=4, end_id=scorer.end_id).best
    assert [scorer.vocab[i] for i in best.tokens][-1] == "</s>"


def test_recurrent_scorer_matches_a_full_forward_pass():
    torch.manual_seed(0)
    vocab, bos = 7, 6
    emb, gru, out = torch.nn.Embedding(vocab, 5), torch.nn.GRU(5, 8), torch.nn.Linear(8, vocab)

    def step(tokens, h):
        y, h = gru(emb(tokens)[None], h)
        return out(y[0]), h

    scorer = RecurrentScorer(step, torch.zeros(1, 1, 8), bos, [str(i) for i in range(vocab)],
                             end_id=0, batch_dim=1)
    prefixes = [(), (3,), (3, 4), (2, 5, 1), (3, 4, 4)]
    got = scorer(prefixes)
    with torch.no_grad():
        for p, row in zip(prefixes, got):
            seq = torch.tensor([bos, *p])
            y, _ = gru(emb(seq)[:, None])
            want = torch.log_softmax(out(y[-1, 0]).double(), -1)
            assert torch.allclose(row, want, atol=1e-6)
    tree = beam_search(scorer, 3, max_len=5, end_id=0)
    looped = beam_search_loop(scorer, 3, max_len=5, end_id=0)  # the per-hypothesis oracle
    assert [h.tokens for h in tree.nbest] == [h.tokens for h in looped]
    assert [h.logprob for h in tree.nbest] == pytest.approx([h.logprob for h in looped])


def test_distribution_scorer_on_a_trained_neural_lm_matches_its_own_chain_rule():
    train = [["a", "b", "c"], ["a", "c"], ["b", "a", "c"]] * 4
    lm = train_sentences(train, train[:3], ["<unk>", "a", "b", "c"],
                         TrainConfig(cell="gru", embed_dim=4, hidden_size=6, steps=3,
                                     eval_every=3, report_every=3, batch_size=4, bptt=4))
    scorer = DistributionScorer(lm)
    assert scorer.vocab[scorer.end_id] == "</s>"
    nbest = beam_search(scorer, 4, max_len=6).nbest  # the scorer's own end id
    assert [h.tokens for h in nbest] == [h.tokens for h in beam_search_loop(scorer, 4, 6, scorer.end_id)]
    for h in nbest:
        words = [scorer.vocab[i] for i in h.tokens]
        if h.finished:  # log P(<s> w_1..w_n </s>)
            chain = float(np.sum(lm.sentence_logprobs(words[:-1]).logprobs))
        else:  # log P(w_1..w_n | <s>): drop the final </s> term
            chain = float(np.sum(lm.sentence_logprobs(words).logprobs[:-1]))
        assert h.logprob == pytest.approx(chain, abs=1e-5)
