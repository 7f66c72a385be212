"""Corpus statistics and their figures."""
from collections import Counter

import numpy as np

from lmcore.corpus import build_corpus
from lmcore.corpus import stats
from lmcore.figures.corpus import heaps_figure, length_histogram, zipf_figure

TEXT = "the cat sat . the dog sat . a cat ran . the end .\nthe bird sang . a dog ran .\n" * 3


def test_zipf_fit_recovers_an_exact_power_law():
    counts = Counter({f"w{r}": int(round(1e6 / r)) for r in range(1, 400)})
    _, freqs, law = stats.zipf(counts)
    assert abs(law.slope + 1) < 0.01 and freqs[0] == 1e6


def test_heaps_counts_types_seen_so_far():
    corpus = build_corpus(TEXT, "toy")
    n_tokens, n_types, _ = stats.heaps(corpus, points=1000)
    stream = [tok for s in corpus.sentences for tok in s]
    for n, v in zip(n_tokens, n_types):
        assert v == len(set(stream[:n]))


def test_figures_have_their_traces_and_log_axes():
    corpus = build_corpus(TEXT, "toy")
    zipf = zipf_figure(*stats.zipf(stats.token_counts(corpus)), lang="zh")
    assert [tr.mode for tr in zipf.data] == ["markers", "lines"] and zipf.layout.xaxis.type == "log"
    assert "齐普夫" in zipf.layout.title.text
    heaps = heaps_figure(*stats.heaps(corpus))
    assert len(heaps.data) == 2 and heaps.layout.yaxis.title.text
    hist = length_histogram(stats.sentence_lengths(corpus))
    assert hist.data[0].type == "histogram" and np.array_equal(hist.data[0].x, stats.sentence_lengths(corpus))


def test_summary_counts_and_oov_rates():
    corpus = build_corpus(TEXT, "toy")
    summary = stats.summary(corpus)
    assert summary["tokens"] == sum(len(s) for s in corpus.sentences)
    assert 0 <= summary["oov_test"] <= 1 and summary["sentences"] == len(corpus.sentences)
