"""The process's job scheduler (``server.scheduler.Scheduler``), one per server process, with its
settings from the environment, and where it publishes its jobs' records: the job store, keyed by
owner and job, tagged by owner and kind, so pages read a job's status from the store (a Redis store
and a Redis-backed queue plug in here; the pages stay as they are). In this process the record is the
live :class:`Job` itself, so publishing it again costs a dictionary update; a serialising back end
stores a copy of it at every change (``on_change``).
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from server.env import time_cap, training_slots
from server.scheduler import Job, Scheduler
from server.shared_store import redis_url
from server.sizes import OBJECT_OVERHEAD
from server.store import Store, store_key
from server.stores import job_store

KEEP_SECONDS = 1800.0  # an ended job's record is kept this long for its owner (after a reload too)


def jobs_tag(owner: str, kind: str | None = None) -> str:
    """The tag of an owner's job records (of one kind, when given)."""
    return store_key("jobs-of", owner, kind or "")


def publish_to(store: Store, keep_seconds: float = KEEP_SECONDS) -> Callable[[Job], None]:
    """A scheduler's ``on_change``: put the job's record in ``store`` (an ended one for ``keep_seconds``)."""
    def publish(job: Job) -> None:
        store.put(store_key("job", job.owner, job.id), job, OBJECT_OVERHEAD,
                  tags=[jobs_tag(job.owner), jobs_tag(job.owner, job.kind)], ttl=None if job.active else keep_seconds)
    return publish


def read_jobs(store: Store, owner: str, kind: str | None = None) -> list[Job]:
    """The owner's job records in ``store`` (of ``kind``, when given), newest first."""
    found = [job for key in store.tagged(jobs_tag(owner, kind)) if (job := store.get(key)) is not None]
    return sorted(found, key=lambda job: -job.id)


@st.cache_resource(show_spinner=False)
def scheduler() -> Scheduler:
    """The process-wide scheduler (one per server process); with ``LMLAB_REDIS_URL`` set, the RQ
    queue served by ``python -m server.worker`` processes on any machine (``server.rq_jobs``)."""
    url = redis_url()
    if url is not None:
        from server.rq_jobs import QueueScheduler

        return QueueScheduler.from_url(url, time_cap())  # the scheduler's interface, on Redis
    return Scheduler(training_slots(), time_cap(), keep_seconds=KEEP_SECONDS, on_change=publish_to(job_store()))


def owner_jobs(owner: str, kind: str | None = None) -> list[Job]:
    """The owner's job records, newest first (of ``kind``, when given): the RQ queue's own records
    in Redis when ``LMLAB_REDIS_URL`` is set, else those the in-process scheduler published."""
    if redis_url() is not None:
        return [job for job in scheduler().jobs_of(owner) if kind is None or job.kind == kind]
    return read_jobs(job_store(), owner, kind)
