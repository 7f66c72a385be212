"""This browser's jobs: submit a :class:`JobSpec` to the process-wide scheduler, read their records
from the job store (``server.job_queue``).

Every Train button goes through :func:`submit`; a page reads its run with :func:`latest_job` (the
function that tells a job's status; ``ui.job_status`` draws it) or :func:`active_job`. Another back
end (a Redis-backed queue and store) replaces what is behind these functions; the pages stay as they are.
"""
from __future__ import annotations

import streamlit as st

from server.job_queue import owner_jobs, scheduler
from server.owner import owner_id
from server.scheduler import Job, JobSpec, SchedulerBusy
from ui.state import tr


def submit(spec: JobSpec, estimate: float, automatic: bool = False) -> Job | None:
    """Queue ``spec`` for this browser; None (with a message) when the queue is full. An
    ``automatic`` run (a page's default model) gives way to the browser's own click."""
    try:
        return scheduler().submit(owner_id(), spec, estimate, automatic=automatic)
    except SchedulerBusy:
        st.error(tr("jobs.busy"))
        return None


def my_jobs(kind: str | None = None) -> list[Job]:
    """This browser's kept jobs (newest first), optionally of one kind."""
    return owner_jobs(owner_id(), kind)


def latest_job(kind: str) -> Job | None:
    """This browser's newest job of ``kind`` (queued, running or ended), or None: its status."""
    jobs = my_jobs(kind)
    return jobs[0] if jobs else None


def active_job(kind: str | None = None) -> Job | None:
    """This browser's queued or running job (of ``kind`` when given), or None."""
    return next((job for job in my_jobs(kind) if job.active), None)
