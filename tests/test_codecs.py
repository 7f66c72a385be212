"""server/codecs.py: every kind of value the app stores survives bytes and back (what a serialising
store back end does), and the key picks the codec."""
import numpy as np
import pytest
import torch

from lmcore.corpus import build_corpus
from lmcore.corpus.stats import overview
from lmcore.ngram import NgramModel, count_ngrams
from lmcore.recurrent.rnn_lm import white_box
from lmcore.seq2seq.evaluation import evaluate_by_length, greedy_outputs
from lmcore.seq2seq.model import Seq2SeqConfig
from lmcore.seq2seq.training import Seq2SeqRecipe
from lmcore.seq2seq.training import train as train_seq2seq
from lmcore.synthetic import synthetic_text
from lmcore.training.config import TrainConfig
from lmcore.training.loop import train_sentences, untrained_lm
from lmcore.training.registry import ShippedModels
from server import codecs
from server.models import counts_key, statistics_key
from server.owner_models import OwnerModels
from server.store import InProcessStore, store_key
from server.training import seq2seq_key

SMALL = TrainConfig(embed_dim=8, hidden_size=12, steps=6, batch_size=8, eval_every=3, report_every=3)


@pytest.fixture(scope="module")
def corpus():
    return build_corpus(synthetic_text(200)[0], "synthetic")


def round_trip(key, value):
    data = codecs.encode(key, value)
    assert isinstance(data, bytes)
    return codecs.decode(key, data)


def test_corpora_counts_and_statistics_come_back_equal(corpus):
    again = round_trip(store_key("corpus", "synthetic"), corpus)
    assert again == corpus and again.mapped("test") == corpus.mapped("test")
    counts = count_ngrams(corpus.mapped("train"), 3)
    counts_again = round_trip(counts_key(corpus, 3), counts)
    kn, kn_again = NgramModel(counts, 3, "modified-kn"), NgramModel(counts_again, 3, "modified-kn")
    sentences = corpus.mapped("test")[:20]
    assert kn_again.perplexity(sentences).ppl == kn.perplexity(sentences).ppl
    statistics = overview(corpus)
    assert repr(round_trip(statistics_key(corpus), statistics)) == repr(statistics)


def test_a_trained_lm_travels_as_its_state_dict_and_predicts_the_same(corpus):
    lm = train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, SMALL, None, corpus.key)
    key = OwnerModels(InProcessStore(2**30), ShippedModels(lambda *a: None), "alice")._key(corpus.key, SMALL)
    assert codecs.codec_for(key) is codecs.NEURAL_LM
    again = round_trip(key, lm)
    np.testing.assert_array_equal(again.distribution(["<s>"]), lm.distribution(["<s>"]))
    assert again.history == lm.history and again.corpus_key == lm.corpus_key and again.config == lm.config
    untrained = untrained_lm(corpus.mapped("train"), corpus.vocab.itos, SMALL, corpus.key)
    key = store_key("untrained", corpus.key, SMALL.key())
    assert codecs.codec_for(key) is codecs.NEURAL_LM
    np.testing.assert_array_equal(round_trip(key, untrained).distribution([]), untrained.distribution([]))
    box = white_box(lm)
    box_again = round_trip(store_key("derived", "digest", "white_box"), box)
    assert torch.equal(box_again.embedding, box.embedding) and torch.equal(box_again.W_y, box.W_y)


def test_an_encoder_decoder_travels_with_its_recipe_and_curve():
    recipe = Seq2SeqRecipe("reverse", 2, 4, steps=3, batch_size=8)
    model = train_seq2seq(Seq2SeqConfig("dot"), recipe)
    curve = evaluate_by_length(model, "reverse", range(2, 5), 5)
    key = seq2seq_key("alice", "reverse", "dot")
    assert codecs.codec_for(key) is codecs.SEQ2SEQ
    model_again, recipe_again, curve_again = round_trip(key, (model, recipe, curve))
    sources = [list("123"), list("45")]
    assert recipe_again == recipe and curve_again == curve
    assert greedy_outputs(model_again, sources, 10) == greedy_outputs(model, sources, 10)
    for name, tensor in model.state_dict().items():
        assert torch.equal(model_again.state_dict()[name], tensor), name
