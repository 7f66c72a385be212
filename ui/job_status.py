"""A job's status on a page: its place in the queue or its progress with a Stop button, refreshed by a
fragment (the rest of the page does not rerun); when the job starts or ends, the whole page reruns
once and shows the result. The status itself comes from ``server.jobs.latest_job``."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from server.job_queue import scheduler
from server.jobs import latest_job
from server.scheduler import DONE, FAILED, QUEUED, Job
from ui.state import tr

# Every poll is a request and a script run per student: a class of 30 waiting for runs sent more
# polls than anything else (1 s each, one per job kind), and a poll arriving just as the previous
# run ends makes Streamlit 1.67 start a new script runner and drop that run's last messages (now
# kept: server/streamlit_runs.py).
QUEUED_POLL_SECONDS, RUNNING_POLL_SECONDS = 4.0, 2.0


def training_progress_text(job: Job) -> str:
    """A recurrent LM run's progress line (its status is the latest ``lmcore.training.progress.Progress``)."""
    p = job.status
    valid = "–" if p.valid_token_ppl is None else f"{p.valid_token_ppl:.1f}"
    return tr("lstm.train.progress", step=p.step, total=p.total_steps, train=p.train_ppl, valid=valid,
              seconds=p.elapsed)


def job_status(kind: str, describe: Callable[[Job], str] | None = None) -> Job | None:
    """Show this browser's latest run of ``kind`` and return it: while it is active, its place in
    the queue or its progress (``describe(job)`` once it reports) with a Stop button, refreshed every
    few seconds while queued and every two while running; a failure or a time cap, once ended."""
    job = latest_job(kind)
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
