"""The server's stores (``server.store.InProcessStore``), one of each per process, within the memory budget.

``LMLAB_MEMORY_MB`` (default: a quarter of the machine's memory, at most 6 GiB) is split between
trained models (a fifth: every browser's LSTMs, RNNs and encoder-decoders, tagged by owner) and
corpora with what is made from them (the rest: corpora, n-gram counts and models, statistics,
clipping runs, values derived from a model). Anything that would not fit is refused with
:class:`server.store.TooLarge` before it is kept. With ``LMLAB_REDIS_URL`` set, the model store
(trained models and kept uploads, what must survive a replica) is Redis, shared by every replica
(``server.shared_store``); this process then keeps only decoded copies within its share.
A third, small store holds the job records the pages read (``job_store``).
"""
from __future__ import annotations

import streamlit as st

from server.env import budget_bytes
from server.shared_store import owners_store
from server.store import InProcessStore, Store

MODEL_SHARE = 0.2  # of the memory budget, for trained models; the rest for corpora and counts
JOB_STATUS_BYTES = 16 * 2**20  # job records (their results are counted where they are kept)


@st.cache_resource(show_spinner=False)
def data_store() -> Store:
    """Corpora and what is made from them, for every session (an item: at most half the share)."""
    return InProcessStore(int(budget_bytes() * (1 - MODEL_SHARE)))


@st.cache_resource(show_spinner=False)
def model_store() -> Store:
    """Models trained in the app, every browser's (each reads only its own: keys and tags name the
    owner). One model may take the whole share (a big LSTM is still kept, alone)."""
    share = int(budget_bytes() * MODEL_SHARE)
    shared = owners_store(local_budget=share)
    return InProcessStore(share, item_share=1.0) if shared is None else shared


@st.cache_resource(show_spinner=False)
def job_store() -> Store:
    """Every browser's job records, which the scheduler publishes and the pages read (``server.jobs``)."""
    return InProcessStore(JOB_STATUS_BYTES)
