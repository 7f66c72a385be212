"""Heavy work through one process-wide scheduler: submit a run, show its place in the queue and its
progress, let its owner stop it, and hand its result back to the owner's session.

The owner is the browser, not the Streamlit session: a page reload starts a new session, but the
browser keeps its cookie, so the reloaded page finds the run (and the models it trained) again.
"""
from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from server.env import env_number
from server.scheduler import DONE, FAILED, QUEUED, Job, JobContext, Scheduler, SchedulerBusy
from server.sessions import SessionUse, start_sweeper
from ui.state import tr

XSRF_COOKIE = "_streamlit_xsrf"
LEFT_AFTER_SECONDS = 6.0  # no connected session this long: the browser has left (a reload takes less)


def training_slots() -> int:
    """Runs at once: ``LMLAB_TRAINING_SLOTS``, else half the CPU cores (at least 1)."""
    return int(env_number("LMLAB_TRAINING_SLOTS", max(1, (os.cpu_count() or 2) // 2), minimum=1))


def time_cap() -> float:
    """Seconds one run may take: ``LMLAB_JOB_SECONDS`` (default 240, at least 5)."""
    return env_number("LMLAB_JOB_SECONDS", 240.0, minimum=5.0)


@st.cache_resource(show_spinner=False)
def scheduler() -> Scheduler:
    """The process-wide scheduler (one per server process)."""
    return Scheduler(training_slots(), time_cap())


@st.cache_resource(show_spinner=False)
def presence() -> SessionUse:
    """Which sessions each browser runs scripts in; a sweeper stops the automatic runs of a browser
    with no connected session for ``LEFT_AFTER_SECONDS`` (see ``Scheduler.stop_automatic_of``)."""
    people, sched = SessionUse(grace=LEFT_AFTER_SECONDS), scheduler()
    start_sweeper("lmlab-job-sweeper", people, lambda owners: sched.stop_automatic_of(set(owners).__contains__))
    return people


def owner_id() -> str:
    """Who owns uploads, runs and models: a hash of the browser's XSRF token, else the session id."""
    if "owner_id" not in st.session_state:
        st.session_state["owner_id"] = _new_owner_id()
    owner = st.session_state["owner_id"]
    ctx = get_script_run_ctx()
    if ctx is not None:
        presence().touch(ctx.session_id, owner)
    return owner


def _new_owner_id() -> str:
    token = None
    try:
        from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string

        cookie = st.context.cookies.get(XSRF_COOKIE)
        token = decode_xsrf_token_string(cookie)[0] if cookie else None
    except Exception:  # no cookie support here (AppTest, another server): fall back to the session
        token = None
    if token:
        return "browser-" + hashlib.sha256(token).hexdigest()[:20]
    return "session-" + uuid.uuid4().hex  # one per Streamlit session (AppTest gives all the same id)


def submit(kind: str, fn: Callable[[JobContext], Any], estimate: float, automatic: bool = False,
           **params: Any) -> Job | None:
    """Queue ``fn`` for this browser; None (with a message) when the queue is full. An
    ``automatic`` run (a page's default model) gives way to the browser's own click."""
    try:
        return scheduler().submit(owner_id(), kind, fn, estimate, automatic=automatic, **params)
    except SchedulerBusy:
        st.error(tr("jobs.busy"))
        return None


def my_jobs(kind: str | None = None) -> list[Job]:
    """This browser's kept jobs (newest first), optionally of one kind."""
    return [j for j in scheduler().jobs_of(owner_id()) if kind is None or j.kind == kind]


def active_job(kind: str | None = None) -> Job | None:
    job = scheduler().active_job(owner_id())
    return job if job is not None and (kind is None or job.kind == kind) else None


def job_status(kind: str, describe: Callable[[Job], str] | None = None) -> Job | None:
    """Show this browser's latest run of ``kind`` and return it: while it is active, its place in
    the queue or its progress with a Stop button, refreshed by a fragment (the rest of the page does
    not rerun) every few seconds while queued and every two while running; when it starts or ends,
    the whole page reruns once and shows the result."""
    jobs = my_jobs(kind)
    job = jobs[0] if jobs else None
    if job is None:
        return None
    if job.state == QUEUED:
        _queued_status(job)
    elif job.active:
        _running_status(job, describe)
    elif job.state == FAILED:
        st.error(tr("jobs.failed", error=job.error or ""))
    elif job.state == DONE and job.timed_out:
        st.info(tr("jobs.time_cap", seconds=round(scheduler().time_cap)))
    return job


# Every poll is a request and a script run per student: a class of 30 waiting for runs sent more
# polls than anything else (1 s each, one per job kind), and a poll arriving just as the previous
# run ends makes Streamlit 1.67 start a new script runner and drop that run's last messages (now
# kept: server/streamlit_runs.py).
QUEUED_POLL_SECONDS, RUNNING_POLL_SECONDS = 4.0, 2.0


@st.fragment(run_every=QUEUED_POLL_SECONDS)
def _queued_status(job: Job) -> None:
    if job.state != QUEUED:  # started or stopped since the last refresh: the page shows it anew
        st.rerun(scope="app")
    sched = scheduler()
    st.info(tr("jobs.queued", ahead=sched.position(job), eta=max(1, round(sched.eta(job)))))
    _stop_button(job)


@st.fragment(run_every=RUNNING_POLL_SECONDS)
def _running_status(job: Job, describe: Callable[[Job], str] | None) -> None:
    if not job.active:  # it ended since the last refresh: let the page show the result
        st.rerun(scope="app")
    text = describe(job) if describe is not None and job.status is not None else tr("jobs.running")
    st.progress(job.progress, text=text)
    _stop_button(job)


def _stop_button(job: Job) -> None:
    st.button(tr("jobs.stop"), key=f"job_stop_{job.kind}", on_click=scheduler().stop, args=(job,))
