"""Corpora other than the built-in samples at their default settings are kept in memory only while
a session that showed them is connected.

An upload, or a sample with other settings (another tokenizer, say), is stored with everything made
from it under its tags (``server.corpus_keys.corpus_tag``). Every script run records which tags its
session shows (none for a built-in default: those stay, warm, for the next visitor). A session
keeps the corpora it showed while it is connected (a student who goes back to a setting finds it
built; the memory budget still evicts the least recently used). A janitor thread looks every few
seconds: a corpus whose sessions have all ended has its corpus, counts, n-gram models and clipping
runs dropped from the shared store at once (instead of waiting for eviction). Once no session is
connected, the freed memory is handed back to the operating system. Models a browser trained stay
in its own store (a reload finds them) until the budget evicts them.
"""
from __future__ import annotations

import gc
import time
from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from lmcore.ngram.memory import release_freed_memory
from ui.charts import forget_figures
from server.corpus_worker import recycle_idle_workers
from server.gc_freeze import freeze_long_lived
from server.sessions import SessionUse, connected_sessions, start_sweeper
from server.store import Store
from server.stores import data_store


class CorpusTracker:
    """Which sessions showed which corpus; ``sweep`` drops the corpora whose sessions all ended."""

    def __init__(self, store_of: Callable[[], Store]) -> None:
        self.store_of = store_of  # looked up at each drop: the store may have been made anew
        self.use = SessionUse()

    def touch(self, session_id: str, *tags: str) -> None:
        """The session shows the corpus whose stored items carry ``tags`` (no tags: a built-in
        default, which is never dropped)."""
        self.use.touch(session_id, *tags)

    def sweep(self, is_active: Callable[[str], bool]) -> list[str]:
        """Forget sessions that ended; drop the stored items of corpora left without a session."""
        return self.drop(self.use.unused(is_active, time.monotonic()))

    def drop(self, tags: list[str]) -> list[str]:
        store = self.store_of()
        for tag in tags:
            store.discard_tag(tag)
        return tags


def release_memory() -> None:
    """When no session is connected (a class has left): replace corpus workers that built an upload by
    fresh ones, drop the shared figures (ui/charts.py), collect garbage and hide what is left from later
    collections (``server.gc_freeze.freeze_long_lived``; outside a real server, AppTest, only collect), and
    return free heap pages to the OS (glibc), so RSS falls. Not while anyone is connected: a full
    collection holds the GIL for most of a second here, and every student's page would wait for it."""
    connected = connected_sessions()
    if connected:
        return
    recycle_idle_workers()
    forget_figures()
    if connected is None:
        gc.collect()
    else:
        freeze_long_lived()
    release_freed_memory()


@st.cache_resource(show_spinner=False)
def corpus_tracker() -> CorpusTracker:
    tracker = CorpusTracker(data_store)

    def drop_and_release(tags: list[str]) -> None:
        tracker.drop(tags)
        release_memory()

    start_sweeper("lmlab-corpus-janitor", tracker.use, drop_and_release)
    return tracker


def track_corpus(*tags: str) -> None:
    """Record that this session shows the corpus whose stored items carry ``tags`` (none: a
    built-in default)."""
    ctx = get_script_run_ctx()
    if ctx is not None:
        corpus_tracker().touch(ctx.session_id, *tags)
