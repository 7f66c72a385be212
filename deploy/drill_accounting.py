"""What deploy/multihost_drill.py counts after its class: whose jobs, uploads and models survived,
which students moved, and what became of the job of the worker it killed. Reads the shared store
and the RQ queue (Redis) from this machine's namespace, through the drill's bridge."""
from __future__ import annotations

import hashlib
import os
import signal
import time
from collections import Counter

WORKER_BUSY_SECONDS = 120  # at most, to find a worker running a job to kill


def owner_of(cookie: str | None) -> str | None:
    """The app's owner key for a browser's XSRF cookie (server/owner.py)."""
    if not cookie:
        return None
    from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string

    return "browser-" + hashlib.sha256(decode_xsrf_token_string(cookie)[0]).hexdigest()[:20]


def busy_worker(client, prefer: set[str], seconds: float = WORKER_BUSY_SECONDS) -> tuple[str, int, str] | None:
    """A worker running a job, (name, pid, job id), preferring one that runs a click of an owner in
    ``prefer``; None if no worker ran anything within ``seconds``."""
    from rq import Worker

    from server.rq_jobs import PREFIX

    deadline, fallback = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        for worker in Worker.all(connection=client):
            job_id = worker.get_current_job_id()
            if not job_id:
                continue
            record = client.hgetall(PREFIX + job_id)
            found = (worker.name, worker.pid, job_id)
            if record.get(b"automatic") == b"0" and (not prefer or record.get(b"owner", b"").decode() in prefer):
                return found
            fallback = fallback or found
        time.sleep(0.5)
    return fallback  # no click ran meanwhile: a page's automatic run will do


def kill_worker(pid: int) -> int:
    """SIGKILL a worker and its work horse (a child in a session of its own); how many processes."""
    import psutil

    try:
        victims = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    for process in victims:
        try:
            os.kill(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(victims)


def worker_kill_outcome(queue, job_id: str, killed: str) -> str:
    """What became of the job whose worker was killed: finished_elsewhere, reported_failed (its
    owner sees why), still_active, or lost (the queue knows nothing of it)."""
    from server.rq_jobs import PREFIX
    from server.scheduler import ACTIVE, DONE, FAILED

    record = queue.redis.hgetall(PREFIX + job_id)
    rq_job = queue.rq_job(job_id)
    if not record or rq_job is None:
        return "lost"
    owner = record[b"owner"].decode()
    job = next((j for j in queue.jobs_of(owner) if j.id == job_id), None)
    state = job.state if job is not None else None
    if state == DONE:
        return "finished_elsewhere" if rq_job.worker_name != killed else "finished_on_the_killed_worker"
    if state == FAILED and job.error:
        return "reported_failed"
    if state in ACTIVE:
        return "still_active"
    return f"ended_{state}"


def wait_for_jobs(queue, owners: list[str], seconds: float) -> None:
    """Until none of the owners' jobs is queued or running, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(j.active for o in owners for j in queue.jobs_of(o)):
        time.sleep(2)


def job_states(queue, store, owners: list[str]) -> tuple[Counter, Counter, int]:
    """The owners' clicked runs and the pages' automatic runs by outcome (finished, reported_failed,
    cancelled, unfinished; ``lost``: an owner with no run at all), and the finished runs whose model
    is not in the owner's part of the store."""
    from server.scheduler import CANCELLED, DONE, FAILED

    clicks, autos, models_lost = Counter(), Counter(), 0
    for owner in owners:
        jobs = queue.jobs_of(owner)
        if not any(not j.automatic for j in jobs):
            clicks["lost"] += 1
        for job in jobs:
            state = job.state
            (autos if job.automatic else clicks)[
                {DONE: "finished", FAILED: "reported_failed", CANCELLED: "cancelled"}.get(state, "unfinished")] += 1
            made = ("seq2seq:",) if job.kind == "seq2seq" else ("lm:",)  # what the runner keeps
            if state == DONE and job.result and not any(k.startswith(made) for k in store.tagged("owner:" + owner)):
                models_lost += 1
    return clicks, autos, models_lost
