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
import threading
import time
from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui.memory import SizedStore
from ui.models import data_store

SWEEP_SECONDS = 3.0


class UploadTracker:
    """Which sessions use which upload; ``sweep`` drops uploads nobody uses."""

    def __init__(self, store: SizedStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._users: dict[str, set[str]] = {}

    def touch(self, session_id: str, *tags: str) -> None:
        """The session now shows the upload whose stored items carry ``tags`` (and no other)."""
        with self._lock:
            for users in self._users.values():  # a session shows one upload at a time
                users.discard(session_id)
            for tag in tags:
                self._users.setdefault(tag, set()).add(session_id)

    def sweep(self, is_active: Callable[[str], bool]) -> list[str]:
        """Forget sessions that ended; drop the stored items of uploads left without a session."""
        dropped = []
        with self._lock:
            for tag in list(self._users):
                self._users[tag] = {s for s in self._users[tag] if is_active(s)}
                if not self._users[tag]:
                    del self._users[tag]
                    dropped.append(tag)
        for tag in dropped:
            self.store.discard_tag(tag)
        return dropped


def release_memory() -> None:
    """Collect garbage and return free heap pages to the OS (glibc), so RSS falls after a class."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _janitor(tracker: UploadTracker) -> None:
    from streamlit.runtime import Runtime

    while True:
        time.sleep(SWEEP_SECONDS)
        if Runtime.exists() and tracker.sweep(Runtime.instance().is_active_session):
            release_memory()


@st.cache_resource(show_spinner=False)
def upload_tracker() -> UploadTracker:
    tracker = UploadTracker(data_store())
    threading.Thread(target=_janitor, args=(tracker,), name="lmlab-upload-janitor", daemon=True).start()
    return tracker


def track_upload(*tags: str) -> None:
    """Record that this session shows the upload whose stored items carry ``tags``."""
    ctx = get_script_run_ctx()
    if ctx is not None:
        upload_tracker().touch(ctx.session_id, *tags)
