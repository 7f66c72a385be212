"""Symbols, persistence, the model registry and the LSTM figures."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lmcore.figures.lstm import activation_html, comparison_figure, unit_heatmap
from lmcore.samples import load_sample
from lmcore.training.config import TrainConfig
from lmcore.training.loop import replace_singletons, singleton_ids, train_sentences
from lmcore.training.persist import from_bytes, to_bytes
from lmcore.training.registry import ShippedModels
from lmcore.training.tokens import build_table
from server.owner_models import OwnerModels
from server.sizes import nbytes
from server.store import InProcessStore

SMALL = TrainConfig(embed_dim=8, hidden_size=8, steps=5, eval_every=5)


@pytest.fixture(scope="module")
def corpus():
    return load_sample("synthetic", n_sentences=300)


def test_char_table_spans_partition_the_targets():
    table = build_table("char", ["<unk>", "ab", "c"], [["ab", "c"], ["c", "<unk>"]])
    tokens = ["ab", "<unk>", "zc"]
    assert table.symbols(tokens) == ["a", "b", " ", "<unk>", " ", "<unk>", "c"]
    assert sum(table.token_spans(tokens)) == len(table.encode(tokens)) == 8
    assert table.encode(tokens)[-1] == table.eos_id and table.bos_id == table.size


def test_singleton_replacement_only_touches_singletons():
    table = build_table("word", ["<unk>", "a", "b", "c"], [["a", "a", "b"], ["c", "a"]])
    encoded = [table.encode(s) for s in (["a", "a", "b"], ["c", "a"])]
    singles = singleton_ids(encoded, table)
    assert singles == {table.stoi["b"], table.stoi["c"]}
    import torch
    replaced = replace_singletons(encoded, singles, 1.0, torch.Generator().manual_seed(0))
    assert replaced == [[table.stoi["a"], table.stoi["a"], 0, table.eos_id], [0, table.stoi["a"], table.eos_id]]
    assert replace_singletons(encoded, singles, 0.0, torch.Generator().manual_seed(0)) == encoded


def test_persist_round_trip_and_registry(corpus):
    lm = train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, SMALL, None, corpus.key)
    same = from_bytes(to_bytes(lm))
    np.testing.assert_array_equal(same.distribution(["the"]), lm.distribution(["the"]))
    half = from_bytes(to_bytes(lm, half=True))
    np.testing.assert_allclose(half.distribution(["the"]), lm.distribution(["the"]), atol=1e-3)
    assert same.history == lm.history and same.selected_step == lm.selected_step

    files = {(corpus.key, SMALL.key()): half}
    loads = []
    shipped = ShippedModels(loader=lambda key, config: loads.append(key) or files.get((key, config.key())))
    store = InProcessStore(nbytes(lm), item_share=1.0)  # room for one model
    alice, bob = OwnerModels(store, shipped, "alice"), OwnerModels(store, shipped, "bob")
    assert alice.get(corpus.key, SMALL) is half and alice.is_shipped(half)
    assert alice.pick(corpus.key, "lstm", defaults=[SMALL]) is half
    assert alice.pick(corpus.key, "rnn", defaults=[SMALL]) is None
    alice.put(lm)  # trained here: preferred over the shipped file, by its owner only
    assert alice.get(corpus.key, SMALL) is lm and not alice.is_shipped(lm)
    assert bob.get(corpus.key, SMALL) is half and bob.for_corpus(corpus.key) == []
    other = same.__class__(same.model, same.table, SMALL.with_(seed=9), corpus_key=corpus.key)
    alice.put(other)
    assert alice.get(corpus.key, SMALL) is half  # room for one model: the oldest was dropped
    assert alice.for_corpus(corpus.key) == [other] and store.nbytes == nbytes(other)
    assert loads == [corpus.key]  # the shipped file was read once


def test_activation_html_escapes_every_token():
    html = activation_html(["<s>", "<script>alert(1)</script>", "a&b"], np.array([0.1, -0.5, 0.9]))
    assert "<script>" not in html and "&lt;script&gt;" in html and "a&amp;b" in html
    assert "178,24,43" in html  # the negative value is red


def test_heatmap_uses_positions_and_escaped_tick_text():
    fig = unit_heatmap(np.zeros((2, 3)), ["<s>", "a", "a"], [5, 1], "f")
    assert list(fig.data[0].x) == [0, 1, 2]
    assert list(fig.layout.xaxis.ticktext) == ["&lt;s&gt;", "a", "a"]  # repeated labels stay separate columns
    assert list(fig.layout.yaxis.ticktext) == ["5", "1"]


def test_comparison_figure_writes_infinity_and_draws_the_floor():
    fig = comparison_figure(["mle", "kn", "lstm"], [math.inf, 10.0, 8.0], ["ngram", "ngram", "neural"], floor=7.5)
    assert list(fig.data[0].text) == ["∞", "10.00", "8.00"]
    assert fig.layout.shapes[0].y0 == 7.5


def test_comparison_ngram_rows_equal_models_fitted_at_their_own_order():
    """The comparison counts once at the highest order; each row must equal a model fitted alone."""
    from lmcore.ngram import NgramModel
    from lmcore.samples import load_sample
    from lmcore.training.comparison import NGRAM_ROWS, comparison_rows

    corpus = load_sample("synthetic", n_sentences=400)
    rows = comparison_rows(corpus, {}, "valid")
    for row, (_, order, method) in zip(rows, NGRAM_ROWS):
        alone = NgramModel.fit(corpus.mapped("train"), order, method).perplexity(corpus.mapped("valid")).ppl
        assert row.ppl == pytest.approx(alone, rel=1e-12)


def test_comparison_by_split_gives_each_split_the_rows_of_models_fitted_alone():
    """Both splits made in one call (the counts shared): each split's rows are those models fitted
    alone and scored on that split, neural rows included, in the same order."""
    from lmcore.ngram import NgramModel
    from lmcore.samples import load_sample
    from lmcore.training.comparison import NGRAM_ROWS, comparison_by_split

    corpus = load_sample("synthetic", n_sentences=300)
    lm = train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, SMALL, None, corpus.key)
    both = comparison_by_split(corpus, {"RNN": lm}, ("test", "valid"))
    assert list(both) == ["test", "valid"]
    for split, rows in both.items():
        held_out = corpus.mapped(split)
        expected = [NgramModel.fit(corpus.mapped("train"), order, method).perplexity(held_out).ppl
                    for _, order, method in NGRAM_ROWS] + [lm.perplexity(held_out).ppl]
        assert [row.split for row in rows] == [split] * len(expected)
        assert [row.ppl for row in rows] == pytest.approx(expected, rel=1e-12)
