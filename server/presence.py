"""Which browsers are here: a sweeper stops the automatic runs of a browser that has left.

A page's default model is not worth a training slot once nobody waits for it; runs the owner asked
for go on (``Scheduler.stop_automatic_of``).
"""
from __future__ import annotations

import streamlit as st

from server.job_queue import scheduler
from server.sessions import SessionUse, start_sweeper

LEFT_AFTER_SECONDS = 6.0  # no connected session this long: the browser has left (a reload takes less)


@st.cache_resource(show_spinner=False)
def presence() -> SessionUse:
    """Which sessions each browser runs scripts in; a sweeper stops the automatic runs of a browser
    with no connected session for ``LEFT_AFTER_SECONDS``."""
    people, sched = SessionUse(grace=LEFT_AFTER_SECONDS), scheduler()
    start_sweeper("lmlab-job-sweeper", people, lambda owners: sched.stop_automatic_of(set(owners).__contains__))
    return people
