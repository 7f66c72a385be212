"""Models shared by several pages, cached once per process (keyed by the corpus's content hash).

The n-gram counts of a corpus are computed once (up to the highest order any page offers) and
every page's n-gram model of any order and method is a view on them.
"""
from __future__ import annotations

import streamlit as st

from lmcore.corpus import Corpus
from lmcore.ngram import MAX_ORDER, NgramCounts, NgramModel, count_ngrams


@st.cache_resource(show_spinner=False, max_entries=8)
def _counts(key: str, _train: list[list[str]]) -> NgramCounts:
    return count_ngrams(_train, MAX_ORDER)


@st.cache_resource(show_spinner=False, max_entries=64)
def _model(key: str, order: int, method: str, delta: float, discount: float, _counts: NgramCounts) -> NgramModel:
    return NgramModel(_counts, order, method, delta=delta, discount=discount)


def ngram_counts(corpus: Corpus) -> NgramCounts:
    """n-gram counts of the corpus's (unk-mapped) training split, orders 1..MAX_ORDER."""
    return _counts(corpus.key, corpus.mapped("train"))


def ngram_model(corpus: Corpus, order: int, method: str = "modified-kn", delta: float = 1.0,
                discount: float = 0.75) -> NgramModel:
    """The n-gram model of this order and smoothing method on the corpus's training split."""
    return _model(corpus.key, order, method, delta, discount, ngram_counts(corpus))
