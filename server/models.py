"""What the pages read of a corpus, and the trained models, within the server's memory budget
(``server.stores``).

- n-gram counts of a corpus, computed once (up to the highest order that fits the budget) and
  shared by every page and every session that has the same corpus; every n-gram model of any
  order and method is a view on them; the Corpus page's statistics;
- trained neural models, per browser (``session_models``): a model someone trains is found by them
  only; shipped models are shared read-only.
"""
from __future__ import annotations

import streamlit as st

from lmcore import ngram
from lmcore.corpus import Corpus
from lmcore.corpus.stats import overview
from lmcore.ngram import NgramCounts, NgramModel, count_ngrams
from lmcore.training.registry import ShippedModels
from server.corpus_keys import corpus_tag
from server.owner import owner_id
from server.owner_models import OwnerModels
from server.sizes import nbytes
from server.store import TooLarge, store_key
from server.stores import data_store, model_store
from ui.state import tr


@st.cache_resource(show_spinner=False)
def shipped_models() -> ShippedModels:
    """The shipped recurrent models, loaded once per process, shared read-only."""
    return ShippedModels()


def session_models() -> OwnerModels:
    """This browser's view of the trained models (plus the shipped ones)."""
    return OwnerModels(model_store(), shipped_models(), owner_id())


def too_large_text(error: TooLarge) -> str:
    """The message shown when something does not fit the memory budget."""
    return tr("memory.too_large", needed=round(error.needed / 2**20), allowed=round(error.allowed / 2**20))


def count_order(corpus: Corpus) -> int:
    """The highest n-gram order counted for this corpus: MAX_ORDER unless the counts of a very large
    text would not fit the memory budget's share for one item (then the largest order that fits)."""
    limit, n_tokens = data_store().item_limit, corpus.n_tokens + len(corpus.sentences)
    order = ngram.largest_order_within(n_tokens, limit)
    if order == 0:
        raise TooLarge(ngram.estimate_count_bytes(n_tokens, 1), limit)
    return order


def counts_key(corpus: Corpus, order: int) -> str:
    return store_key("counts", corpus.key, order)


def shared_counts(corpus: Corpus) -> NgramCounts:
    """n-gram counts of the corpus's (unk-mapped) training split, orders 1..count_order(corpus), from
    the shared store (a corpus built in a worker brings them along: ``keep_built``); raises
    :class:`TooLarge` for a text too large even at order 1."""
    order = count_order(corpus)
    return data_store().get_or_build(counts_key(corpus, order),
                                     lambda: count_ngrams(corpus.mapped("train"), order), nbytes, [corpus_tag(corpus)])


def statistics_key(corpus: Corpus) -> str:
    return store_key("statistics", corpus.key)


def corpus_statistics(corpus: Corpus) -> dict:
    """What the Corpus page shows of this corpus (lmcore.corpus.stats.overview), from the shared store."""
    return data_store().get_or_build(statistics_key(corpus), lambda: overview(corpus), nbytes, [corpus_tag(corpus)])


def keep_built(corpus: Corpus, counts: NgramCounts | None, statistics: dict) -> None:
    """Store what a worker computed with the corpus (server/corpus_worker.py), so this process need not."""
    if counts is not None:
        data_store().get_or_build(counts_key(corpus, counts.max_order), lambda: counts, nbytes, [corpus_tag(corpus)])
    data_store().get_or_build(statistics_key(corpus), lambda: statistics, nbytes, [corpus_tag(corpus)])


def ngram_counts(corpus: Corpus) -> NgramCounts:
    """:func:`shared_counts` for a page: a text too large for the memory budget stops it with a message."""
    try:
        return shared_counts(corpus)
    except TooLarge as error:
        st.error(too_large_text(error))
        st.stop()


def ngram_model(corpus: Corpus, order: int, method: str = "modified-kn", delta: float = 1.0,
                discount: float = 0.75) -> NgramModel:
    """The n-gram model of this order and smoothing method on the corpus's training split."""
    counts = ngram_counts(corpus)
    if order > counts.max_order:
        st.info(tr("memory.lower_order", order=counts.max_order, wanted=order))
        order = counts.max_order
    return data_store().get_or_build(store_key("ngram", corpus.key, order, method, delta, discount),
                                     lambda: NgramModel(counts, order, method, delta=delta, discount=discount),
                                     nbytes, [corpus_tag(corpus)])
