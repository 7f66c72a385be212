"""Models and data kept for the pages, within the server's memory budget (see server/memory.py).

- n-gram counts of a corpus, computed once (up to the highest order that fits the budget) and
  shared by every page and every session that has the same corpus; every n-gram model of any
  order and method is a view on them;
- trained neural models, one store per browser (``session_models``): a model someone trains is
  found by them only; shipped models are shared read-only.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from lmcore import ngram
from lmcore.corpus import Corpus
from lmcore.corpus.stats import overview
from lmcore.ngram import NgramCounts, NgramModel, count_ngrams
from lmcore.training.registry import ModelRegistry, OwnerModels
from server.jobs import owner_id
from server.memory import SizedStore, TooLarge, budget_bytes
from ui.state import tr

MODEL_SHARE = 0.2  # of the memory budget, for trained models; the rest for corpora and counts


@st.cache_resource(show_spinner=False)
def data_store() -> SizedStore:
    """Corpora and n-gram counts of every session, bounded by bytes (least recently used go first)."""
    return SizedStore(int(budget_bytes() * (1 - MODEL_SHARE)))


@st.cache_resource(show_spinner=False)
def model_registry() -> ModelRegistry:
    """Trained models of every browser (each sees only its own), bounded by bytes."""
    return ModelRegistry(int(budget_bytes() * MODEL_SHARE))


def corpus_tag(corpus: Corpus) -> str:
    """What every stored item made from this corpus (its text and settings) is tagged with, so they
    can be dropped together when no session shows the corpus any more (server/corpus_use.py)."""
    return "corpus:" + corpus.key


def session_models() -> OwnerModels:
    """This browser's view of the trained models (plus the shipped ones)."""
    return OwnerModels(model_registry(), owner_id())


def arrays_nbytes(obj: object, depth: int = 4) -> int:
    """Bytes of the NumPy arrays reachable from ``obj`` (attributes, lists, dicts), a few levels deep."""
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if depth == 0 or isinstance(obj, (str, bytes, int, float, type(None))):
        return 0
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    else:
        children = list(getattr(obj, "__dict__", {}).values())
    return sum(arrays_nbytes(child, depth - 1) for child in children)


def _size(obj: object) -> int:
    nbytes = getattr(obj, "nbytes", None)
    return int(nbytes) if isinstance(nbytes, (int, np.integer)) else arrays_nbytes(obj) + 2**20


def count_order(corpus: Corpus) -> int:
    """The highest n-gram order counted for this corpus: MAX_ORDER unless the counts of a very large
    text would not fit the memory budget's share for one item (then the largest order that fits)."""
    limit, n_tokens = data_store().item_limit, corpus.n_tokens + len(corpus.sentences)
    order = ngram.largest_order_within(n_tokens, limit)
    if order == 0:
        raise TooLarge(ngram.estimate_count_bytes(n_tokens, 1), limit)
    return order


def counts_key(corpus: Corpus, order: int) -> tuple:
    return ("counts", corpus.key, order)


def shared_counts(corpus: Corpus) -> NgramCounts:
    """n-gram counts of the corpus's (unk-mapped) training split, orders 1..count_order(corpus), from
    the shared store (a corpus built in a worker brings them along: ui/sidebar.py); raises
    :class:`TooLarge` for a text too large even at order 1."""
    order = count_order(corpus)
    return data_store().get_or_build(counts_key(corpus, order),
                                     lambda: count_ngrams(corpus.mapped("train"), order), _size, corpus_tag(corpus))


def statistics_key(corpus: Corpus) -> tuple:
    return ("statistics", corpus.key)


def corpus_statistics(corpus: Corpus) -> dict:
    """What the Corpus page shows of this corpus (lmcore.corpus.stats.overview), from the shared store."""
    return data_store().get_or_build(statistics_key(corpus), lambda: overview(corpus), _size, corpus_tag(corpus))


def keep_built(corpus: Corpus, counts: NgramCounts | None, statistics: dict) -> None:
    """Store what a worker computed with the corpus (server/corpus_worker.py), so this process need not."""
    if counts is not None:
        data_store().get_or_build(counts_key(corpus, counts.max_order), lambda: counts, _size, corpus_tag(corpus))
    data_store().get_or_build(statistics_key(corpus), lambda: statistics, _size, corpus_tag(corpus))


def ngram_counts(corpus: Corpus) -> NgramCounts:
    """:func:`shared_counts` for a page: a text too large for the memory budget stops it with a message."""
    try:
        return shared_counts(corpus)
    except TooLarge as error:
        st.error(tr("memory.too_large", needed=round(error.needed / 2**20), allowed=round(error.allowed / 2**20)))
        st.stop()


def ngram_model(corpus: Corpus, order: int, method: str = "modified-kn", delta: float = 1.0,
                discount: float = 0.75) -> NgramModel:
    """The n-gram model of this order and smoothing method on the corpus's training split."""
    counts = ngram_counts(corpus)
    if order > counts.max_order:
        st.info(tr("memory.lower_order", order=counts.max_order, wanted=order))
        order = counts.max_order
    return data_store().get_or_build(("ngram", corpus.key, order, method, delta, discount),
                                     lambda: NgramModel(counts, order, method, delta=delta, discount=discount),
                                     lambda model: arrays_nbytes(model.levels) + 2**16, corpus_tag(corpus))
