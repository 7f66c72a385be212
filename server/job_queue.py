"""The process's job scheduler (``server.scheduler.Scheduler``), one per server process, with its
settings from the environment."""
from __future__ import annotations

import streamlit as st

from server.env import time_cap, training_slots
from server.scheduler import Scheduler
from server.shared_store import redis_url


@st.cache_resource(show_spinner=False)
def scheduler() -> Scheduler:
    """The process-wide scheduler (one per server process); with ``LMLAB_REDIS_URL`` set, the RQ
    queue served by ``python -m server.worker`` processes on any machine (``server.rq_jobs``)."""
    url = redis_url()
    if url is not None:
        from server.rq_jobs import QueueScheduler

        return QueueScheduler.from_url(url, time_cap())  # the scheduler's interface, on Redis
    return Scheduler(training_slots(), time_cap())
