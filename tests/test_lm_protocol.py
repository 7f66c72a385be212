"""One protocol, every model: each language model of lmcore (n-gram methods and orders, RNN/LSTM/GRU at
word and character level, trained, untrained and shipped) and the seq2seq decoder (conditional) is
checked against independent values built from its own next-symbol distributions: the chain rule,
Σ = 1, perplexity's definition, greedy sampling at τ → 0, and decoding that stops at its end symbol."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lmcore.decoding import beam_search, greedy_decode
from lmcore.lm_protocol import ConditionalLanguageModel, LanguageModel, PrefixScorer
from lmcore.ngram import METHODS, NORMALISED, NgramModel
from lmcore.samples import load_sample
from lmcore.seq2seq.pretrained import pretrained
from lmcore.symbols import BOS, EOS, UNK
from lmcore.training.config import TrainConfig
from lmcore.training.loop import train_sentences, untrained_lm
from lmcore.training.persist import load_pretrained

torch.set_num_threads(1)

FAST = TrainConfig(embed_dim=12, hidden_size=16, steps=30, batch_size=16, eval_every=15, report_every=15)
NEURAL = {"rnn": FAST.with_(cell="rnn"), "lstm": FAST, "gru": FAST.with_(cell="gru"),
          "lstm-char": FAST.with_(level="char")}
MODELS = ([f"ngram-{method}-{order}" for method in METHODS for order in (1, 3)]
          + [f"neural-{name}" for name in NEURAL] + ["untrained-rnn", "shipped-rnn", "shipped-lstm"])


@pytest.fixture(scope="module")
def corpus():
    return load_sample("synthetic", n_sentences=400)


@pytest.fixture(scope="module")
def models(corpus):
    return {}


def _model(name, corpus, cache):
    if name not in cache:
        train, valid, itos = corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos
        if name.startswith("ngram-"):
            method, order = name[len("ngram-"):].rsplit("-", 1)
            cache[name] = NgramModel.fit(train, int(order), method)
        elif name.startswith("neural-"):
            cache[name] = train_sentences(train, valid, itos, NEURAL[name[len("neural-"):]], corpus_key=corpus.key)
        elif name == "untrained-rnn":
            cache[name] = untrained_lm(train, itos, FAST.with_(cell="rnn"), corpus.key)
        else:  # the models shipped for the default synthetic corpus (3000 sentences)
            full = load_sample("synthetic")
            cache[name] = load_pretrained(full.key, TrainConfig(cell=name[len("shipped-"):]))
    return cache[name]


def _symbols(model, tokens):
    """The symbols the model predicts for ``<s> tokens </s>`` (its own units, then </s>)."""
    table = getattr(model, "table", None)
    if table is not None:
        return [*table.symbols(tokens), EOS]
    return [w if w in model.vocab else UNK for w in tokens] + [EOS]


def _chain(model, tokens) -> float:
    """ln P(<s> tokens </s>) from distribution() alone: Σ_t ln P(x_t | <s> x_<t)."""
    symbols, vocab = _symbols(model, tokens), list(model.vocab)
    return sum(math.log(model.distribution([BOS, *symbols[:t]])[vocab.index(s)]) for t, s in enumerate(symbols))


def _sentences(corpus, model):
    """Held-out sentences (training ones for MLE, which gives unseen events probability 0)."""
    pool = corpus.mapped("train") if getattr(model, "method", "") == "mle" else corpus.mapped("test")
    return [s for s in pool if 2 <= len(s) <= 8][:4]


@pytest.mark.parametrize("name", MODELS)
def test_every_language_model_keeps_the_protocol(name, corpus, models):
    model = _model(name, corpus, models)
    assert isinstance(model, LanguageModel)
    vocab = list(model.vocab)
    assert EOS in vocab and BOS not in vocab

    p = np.asarray(model.distribution([BOS]), dtype=float)
    assert p.shape == (len(vocab),) and np.all(p >= 0)
    if getattr(model, "method", "modified-kn") in NORMALISED:  # kn-notes is the notes' unnormalised KN
        assert p.sum() == pytest.approx(1.0, abs=1e-9)

    sentences = _sentences(corpus, model)
    chains = [_chain(model, s) for s in sentences]
    for s, chain in zip(sentences, chains):
        scores = model.sentence_logprobs(s)
        assert len(scores.logprobs) == len(s) + 1 and scores.tokens[-1] == EOS
        assert scores.total == pytest.approx(chain, rel=1e-6, abs=1e-5)
        assert model.sentence_logprob(s) == pytest.approx(chain, rel=1e-6, abs=1e-5)
    result = model.perplexity(sentences)
    n = sum(len(s) + 1 for s in sentences)
    assert result.n_tokens == n
    assert result.ppl == pytest.approx(math.exp(-sum(chains) / n), rel=1e-6)

    sample = model.sample(seed=3, max_len=12)
    assert sample == model.sample(seed=3, max_len=12) and len(sample) <= 12
    assert all(w in vocab and w != EOS for w in sample)
    greedy, context = [], [BOS]
    while len(greedy) < 6:
        nxt = vocab[int(np.argmax(model.distribution(context)))]
        if nxt == EOS:
            break
        greedy.append(nxt)
        context.append(nxt)
    assert model.sample(seed=0, max_len=6, temperature=1e-4) == greedy

    symbols = _symbols(model, sentences[0])
    prompt, first = symbols[:1], vocab.index(symbols[1])  # the sentence's first symbol, then its second
    scorer = model.scorer(prompt)
    assert isinstance(scorer, PrefixScorer) and list(scorer.vocab) == vocab
    assert scorer.end_id == vocab.index(EOS)
    rows = np.exp(np.asarray(scorer([(), (first,)]), dtype=float))
    np.testing.assert_allclose(rows[0], model.distribution([BOS, *prompt]), atol=1e-6)
    np.testing.assert_allclose(rows[1], model.distribution([BOS, *prompt, vocab[first]]), atol=1e-6)
    path, context = [], [BOS, *prompt]
    while len(path) < 6 and (not path or path[-1] != scorer.end_id):
        path.append(int(np.argmax(model.distribution(context))))
        context.append(vocab[path[-1]])
    assert list(greedy_decode(scorer, 6).tokens) == path  # stops after </s> without being told its id
    tree = beam_search(scorer, len(vocab), 3)  # every first symbol is kept, </s> among them
    finished = [h for h in tree.nbest if h.finished]
    assert finished and all(h.tokens[-1] == scorer.end_id for h in finished)
    assert all(scorer.end_id not in h.tokens[:-1] for h in tree.nbest)


@pytest.mark.parametrize("attention", ["none", "dot"])
def test_the_seq2seq_decoder_keeps_the_conditional_protocol(attention):
    model, _ = pretrained("reverse", attention)
    assert isinstance(model, ConditionalLanguageModel)
    vocab = list(model.vocab)
    source, target = list("40213"), list("31204")
    p = model.distribution(source, [])
    assert p.shape == (len(vocab),) and p.sum() == pytest.approx(1.0, abs=1e-6)
    chain = sum(math.log(model.distribution(source, target[:t])[vocab.index(y)])
                for t, y in enumerate([*target, EOS]))
    assert model.sentence_logprobs(source, target).total == pytest.approx(chain, abs=1e-5)
    assert model.sentence_logprob(source, target) == pytest.approx(chain, abs=1e-5)
    pairs = [(source, target), (list("987"), list("789"))]
    other = sum(math.log(model.distribution(pairs[1][0], pairs[1][1][:t])[vocab.index(y)])
                for t, y in enumerate([*pairs[1][1], EOS]))
    assert model.perplexity(pairs).ppl == pytest.approx(math.exp(-(chain + other) / 10), rel=1e-5)
    assert model.sample(source, seed=1) == model.sample(source, seed=1)
    scorer = model.scorer(source)
    assert scorer.end_id == vocab.index(EOS)
    best = beam_search(scorer, 3, 30).best  # stops at </s> without being told its id
    assert best.finished and [vocab[i] for i in best.tokens[:-1]] == model.sample(source, temperature=1e-4)
