"""Uploads are kept in memory only while a session uses them.

Every script run of a session showing an upload records (upload's text tag, session id). A janitor
thread looks every few seconds: an upload no connected session uses any more has its corpus, counts
and n-gram models dropped from the shared store at once (instead of waiting for eviction), and the
freed memory is handed back to the operating system. Models a browser trained stay in its own
store (a reload finds them) until the budget evicts them.
"""
from __future__ import annotations

import ctypes
import gc
import time
from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui.memory import SizedStore
from ui.models import data_store
from ui.sessions import SessionUse, start_sweeper


class UploadTracker:
    """Which sessions use which upload; ``sweep`` drops uploads nobody uses."""

    def __init__(self, store: SizedStore) -> None:
        self.store = store
        self.use = SessionUse(exclusive=True)  # a session shows one upload at a time

    def touch(self, session_id: str, *tags: str) -> None:
        """The session now shows the upload whose stored items carry ``tags`` (and no other)."""
        self.use.touch(session_id, *tags)

    def sweep(self, is_active: Callable[[str], bool]) -> list[str]:
        """Forget sessions that ended; drop the stored items of uploads left without a session."""
        return self.drop(self.use.unused(is_active, time.monotonic()))

    def drop(self, tags: list[str]) -> list[str]:
        for tag in tags:
            self.store.discard_tag(tag)
        return tags


def release_memory() -> None:
    """Collect garbage and return free heap pages to the OS (glibc), so RSS falls after a class."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


@st.cache_resource(show_spinner=False)
def upload_tracker() -> UploadTracker:
    tracker = UploadTracker(data_store())

    def drop_and_release(tags: list[str]) -> None:
        tracker.drop(tags)
        release_memory()

    start_sweeper("lmlab-upload-janitor", tracker.use, drop_and_release)
    return tracker


def track_upload(*tags: str) -> None:
    """Record that this session shows the upload whose stored items carry ``tags``."""
    ctx = get_script_run_ctx()
    if ctx is not None:
        upload_tracker().touch(ctx.session_id, *tags)
