"""The process's job scheduler (``server.scheduler.Scheduler``), one per server process, with its
settings from the environment."""
from __future__ import annotations

import streamlit as st

from server.env import time_cap, training_slots
from server.scheduler import Scheduler


@st.cache_resource(show_spinner=False)
def scheduler() -> Scheduler:
    """The process-wide scheduler (one per server process)."""
    return Scheduler(training_slots(), time_cap())
