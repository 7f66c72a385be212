"""Training on a distributed queue: RQ (a Redis-backed job queue) behind the scheduler's interface.

With ``LMLAB_REDIS_URL`` set, ``server.job_queue.scheduler`` is a :class:`QueueScheduler`: a Train
button's :class:`~server.scheduler.JobSpec` becomes an RQ job on the ``lmlab`` queue, run by
``python -m server.worker`` processes on any machine that reaches the Redis (``server.worker``). The
pages see what they saw with the in-process scheduler (:class:`RemoteJob` has the attributes of
:class:`~server.scheduler.Job`, read live from Redis): place in queue and an estimate, progress, Stop,
a time cap, the result for its owner. The rules kept across processes:

- one active job per owner and kind (asking again returns it; an owner's click replaces a page's
  automatic run, a page's next automatic run replaces a queued one: ``server.scheduler.replaces``);
- clicks before automatic work: a click is put at the front of the queue (RQ ``at_front``), a page's
  automatic run at its back, so a Train click waits only for other clicks (the one waiting click
  that came last goes first: unlike the in-process scheduler, RQ cannot insert a job in the middle).
  One queue, not one per priority: a worker that serves one queue takes a job with Redis's atomic
  BLMOVE into RQ's intermediate queue, so a worker killed right after taking a job does not lose it;
  a worker of several queues pops with BLPOP, and a job taken the moment before its worker died is
  in no queue and no registry, for good (rq/rq#1716; the multi-host drill lost one so);
- one *running* job per owner: a job submitted while the owner has another one active depends on it
  (RQ ``depends_on``), so it starts when that one has ended, however it ended. A click depends only
  on the owner's running job and queued clicks; the owner's automatic runs still waiting are queued
  again behind the click (cancelled and submitted anew, depending on it), so they neither hold the
  click back nor run beside it;
- automatic runs of an owner who left this replica (:meth:`QueueScheduler.stop_automatic_of`, called
  by ``server.presence``) are stopped, queued or running: a page's default model is not worth a
  worker once nobody waits for it (with cookie affinity an owner's sessions are all on one replica;
  one who moved to another replica gets the page's automatic run again there);
- a time cap: the runner's context says "stop" past ``time_cap`` (a usable result), and RQ kills the
  job ``HARD_CAP_MARGIN`` seconds later if it did not;
- Stop: a queued job is cancelled; a running one sees the stop flag (a Redis key) at its next report;
- a worker killed mid-job: RQ's abandoned-job handling (the job's heartbeat lapses; any worker's
  maintenance, or this process when it reads the job, cleans the started registry) retries it once on
  another worker (``Retry(max=1)``), then marks it failed with a message its owner sees. Never lost.
"""
from __future__ import annotations

import pickle
import time
import uuid
from typing import Any

from server.scheduler import ACTIVE, CANCELLED, DONE, FAILED, QUEUED, RUNNING, JobSpec, SchedulerBusy, replaces

QUEUE_NAME = "lmlab"  # clicks at its front, the pages' automatic runs at its back
PREFIX = "lmlab:job:"
HARD_CAP_MARGIN = 60  # seconds past the time cap before RQ kills a run that did not stop itself
KEEP_SECONDS = 1800  # finished jobs are kept this long for their owner (as the in-process scheduler does)
CLEANUP_EVERY = 5.0  # seconds between this process's cleanups of abandoned jobs
ABANDONED = "the worker running this job stopped (its machine or process died); it was tried again and failed"


def _states() -> dict[str, str]:
    from rq.job import JobStatus

    return {JobStatus.QUEUED: QUEUED, JobStatus.DEFERRED: QUEUED, JobStatus.SCHEDULED: QUEUED,
            JobStatus.STARTED: RUNNING, JobStatus.FINISHED: DONE, JobStatus.FAILED: FAILED,
            JobStatus.STOPPED: CANCELLED, JobStatus.CANCELED: CANCELLED}


class RemoteJob:
    """A job on the queue, with the attributes the pages read from :class:`server.scheduler.Job`,
    each read from Redis when asked (a fragment polls the same object)."""

    def __init__(self, scheduler: QueueScheduler, job_id: str, owner: str, spec: JobSpec, estimate: float,
                 automatic: bool) -> None:
        self._sched, self.id, self.owner, self.spec = scheduler, job_id, owner, spec
        self.estimate, self.automatic = estimate, automatic

    kind = property(lambda self: self.spec.kind)
    params = property(lambda self: self.spec.params)

    def _rq(self):
        return self._sched.rq_job(self.id)

    @property
    def state(self) -> str:
        self._sched.cleanup()
        job = self._rq()
        if job is None:
            return FAILED
        state = _states().get(job.get_status(refresh=False), QUEUED)
        if state == DONE and job.latest_result() is None:
            return RUNNING  # RQ marks a job finished a moment before its result is saved
        if state == FAILED and self._sched.redis.exists(PREFIX + self.id + ":stop"):
            return CANCELLED  # stopped while it ran: RQ marks a stopped job failed
        return state

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def progress(self) -> float:
        return float(self._sched.redis.hget(PREFIX + self.id, "progress") or 0.0)

    @property
    def status(self) -> Any:
        raw = self._sched.redis.hget(PREFIX + self.id, "status")
        return None if raw is None else pickle.loads(raw)

    @property
    def timed_out(self) -> bool:
        return self._sched.redis.hget(PREFIX + self.id, "timed_out") == b"1"

    @property
    def stop_requested(self) -> bool:
        return bool(self._sched.redis.exists(PREFIX + self.id + ":stop"))

    @property
    def result(self) -> Any:
        job = self._rq()
        return None if job is None else job.return_value(refresh=True)

    @property
    def error(self) -> str | None:
        job = self._rq()
        if job is None:
            return "the queue no longer knows this job"
        if job.get_status(refresh=False) != "failed":
            return None
        latest = job.latest_result()
        text = (latest.exc_string if latest is not None else "") or ""
        if "AbandonedJobError" in text or "stuck in intermediate queue" in text:  # its worker died
            return ABANDONED
        return text.strip().splitlines()[-1] if text.strip() else "failed"

    @property
    def elapsed(self) -> float:
        job = self._rq()
        if job is None or job.started_at is None:
            return 0.0
        end = job.ended_at.timestamp() if job.ended_at is not None else time.time()
        return max(end - job.started_at.timestamp(), 0.0)

    def remaining(self) -> float:
        state = self.state
        if state == QUEUED:
            return self.estimate
        if state != RUNNING:
            return 0.0
        progress, elapsed = self.progress, self.elapsed
        if progress > 0.05:
            return max(elapsed / progress - elapsed, 0.0)
        return max(self.estimate - elapsed, 0.0)


class QueueScheduler:
    """The scheduler's interface (``submit``, ``stop``, ``active_job``, ``jobs_of``, ``position``,
    ``eta``, ``stop_automatic_of``, ``stop_all``, ``time_cap``) on an RQ queue in Redis."""

    def __init__(self, client, time_cap: float, max_queue: int = 400, per_owner: int = 4, retries: int = 1) -> None:
        from rq import Queue

        self.redis, self.time_cap, self.max_queue, self.per_owner = client, time_cap, max_queue, per_owner
        self.retries = retries  # a run whose worker died is tried again this many times, then reported failed
        self.queue = Queue(QUEUE_NAME, connection=client)
        self._cleaned = 0.0

    @classmethod
    def from_url(cls, url: str, time_cap: float) -> QueueScheduler:
        import redis

        return cls(redis.Redis.from_url(url, socket_connect_timeout=5, health_check_interval=30), time_cap)

    # ------------------------------------------------------------------ submitting and stopping
    def submit(self, owner: str, spec: JobSpec, estimate: float = 30.0, automatic: bool = False) -> RemoteJob:
        """Queue ``spec`` for ``owner`` (the in-process scheduler's rules: see the module's docstring)."""
        mine = [j for j in self.jobs_of(owner) if j.active and not j.stop_requested]
        current = next((j for j in mine if j.kind == spec.kind), None)
        if current is not None and not replaces(current, spec, automatic):
            return current
        waiting = self.queue.count
        if len(mine) >= self.per_owner or waiting >= self.max_queue:
            raise SchedulerBusy(f"{waiting} runs are waiting")
        if current is not None:
            self._stop_only(current)
        job = self._record(owner, spec, estimate, automatic)
        self._rechain(owner, new=job)
        return job

    def stop(self, job: RemoteJob) -> None:
        """Cancel a queued job; ask a running one to stop (it ends at its next report)."""
        if self._stop_only(job):
            self._rechain(job.owner)

    def _stop_only(self, job: RemoteJob) -> bool:
        """Set the job's stop flag; cancel it if it waits. True when it was cancelled."""
        self.redis.set(PREFIX + job.id + ":stop", 1, ex=KEEP_SECONDS)
        rq_job = self.rq_job(job.id)
        if rq_job is not None and _states().get(rq_job.get_status(refresh=False)) == QUEUED:
            rq_job.cancel()
            return True
        return False

    def _record(self, owner: str, spec: JobSpec, estimate: float, automatic: bool) -> RemoteJob:
        """A new job's record (what the pages read), first in the owner's list; not enqueued yet."""
        job_id = uuid.uuid4().hex
        record = {"owner": owner, "kind": spec.kind, "params": pickle.dumps(spec.params), "estimate": estimate,
                  "automatic": int(automatic), "progress": 0.0, "submitted": time.time()}
        keep = KEEP_SECONDS + int(self.time_cap) * 4
        with self.redis.pipeline() as pipe:
            pipe.hset(PREFIX + job_id, mapping=record)
            pipe.expire(PREFIX + job_id, keep)
            pipe.lpush(PREFIX + "of:" + owner, job_id)
            pipe.ltrim(PREFIX + "of:" + owner, 0, 19)
            pipe.expire(PREFIX + "of:" + owner, keep)
            pipe.execute()
        return RemoteJob(self, job_id, owner, spec, estimate, automatic)

    def _enqueue(self, job: RemoteJob, after: str | None) -> None:
        """Put a recorded job on its queue, to start once the job ``after`` has ended (however it ended)."""
        from rq import Retry
        from rq.job import Dependency

        depends = Dependency(jobs=[after], allow_failure=True, enqueue_at_front=not job.automatic) if after else None
        self.queue.enqueue_call(
            "server.worker.run_job", args=(job.id, job.owner, job.kind, job.params, self.time_cap), job_id=job.id,
            timeout=int(self.time_cap) + HARD_CAP_MARGIN, result_ttl=KEEP_SECONDS, failure_ttl=KEEP_SECONDS,
            retry=Retry(max=self.retries) if self.retries else None, depends_on=depends, at_front=not job.automatic)

    def _rechain(self, owner: str, new: RemoteJob | None = None) -> None:
        """One running job per owner, clicks first: the owner's waiting jobs (and ``new``) form one
        chain (RQ ``depends_on``, one job each) behind the running one: clicks, then automatic runs,
        each in the order they came. A waiting job whose place changed is cancelled and queued anew
        (RQ cannot change a job's dependency; its record says where it moved, so the pages see the
        new one); one already in its place is left alone."""
        jobs = [j for j in reversed(self.jobs_of(owner)) if j is not new and j.active and not j.stop_requested]
        states = {j.id: j.state for j in jobs}
        running = [j for j in jobs if states[j.id] == RUNNING]
        waiting = [j for j in jobs if states[j.id] == QUEUED] + ([new] if new is not None else [])
        after = running[-1].id if running else None
        for job in [j for j in waiting if not j.automatic] + [j for j in waiting if j.automatic]:
            if job is not new:
                rq_job = self.rq_job(job.id)
                if rq_job is not None and list(rq_job.dependency_ids) == ([after] if after else []):
                    after = job.id
                    continue
                self._stop_only(job)
                moved = self._record(owner, job.spec, job.estimate, job.automatic)
                self.redis.hset(PREFIX + job.id, "moved_to", moved.id)
                job = moved
            self._enqueue(job, after)
            after = job.id

    def stop_automatic_of(self, left) -> list[RemoteJob]:
        """Stop every active automatic run whose owner has ``left`` (a predicate on owners); the jobs
        stopped: waiting, waiting for the owner's other run (deferred), or running."""
        from rq.registry import DeferredJobRegistry, StartedJobRegistry

        ids = set(self.queue.get_job_ids())
        ids |= set(DeferredJobRegistry(queue=self.queue).get_job_ids())
        ids |= set(StartedJobRegistry(queue=self.queue).get_job_ids())
        ids = sorted(ids)
        with self.redis.pipeline() as pipe:
            for job_id in ids:
                pipe.hmget(PREFIX + job_id, "owner", "automatic")
            records = pipe.execute()
        stopped = []
        for job_id, (owner, automatic) in zip(ids, records):
            if owner is None or automatic != b"1" or not left(owner.decode()):
                continue
            job = next((j for j in self.jobs_of(owner.decode()) if j.id == job_id), None)
            if job is not None and job.active and not job.stop_requested:
                self._stop_only(job)
                stopped.append(job)
        for owner in {j.owner for j in stopped}:
            self._rechain(owner)
        return stopped

    def stop_all(self) -> None:
        """Nothing: the jobs belong to the queue's workers, not to this process."""

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Nothing of this process runs (its jobs run in the workers)."""
        return True

    # ------------------------------------------------------------------ reading
    def rq_job(self, job_id: str):
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        try:
            return Job.fetch(job_id, connection=self.redis)
        except NoSuchJobError:
            return None

    def jobs_of(self, owner: str) -> list[RemoteJob]:
        """The owner's kept jobs, newest first."""
        found = []
        for raw in self.redis.lrange(PREFIX + "of:" + owner, 0, -1):
            job_id = raw.decode()
            record = self.redis.hgetall(PREFIX + job_id)
            if not record or b"moved_to" in record:  # gone, or queued anew under another id
                continue
            spec = JobSpec(record[b"kind"].decode(), pickle.loads(record[b"params"]))
            found.append(RemoteJob(self, job_id, owner, spec, float(record[b"estimate"]), record[b"automatic"] == b"1"))
        return found

    def active_job(self, owner: str, kind: str | None = None) -> RemoteJob | None:
        return next((j for j in self.jobs_of(owner) if j.active and (kind is None or j.kind == kind)), None)

    def position(self, job: RemoteJob) -> int:
        """Runs ahead of a queued job: those before it on the queue, or 1 while it waits for the
        owner's own run."""
        if job.state != QUEUED:
            return 0
        place = self.queue.get_job_position(job.id)
        return place if place is not None else 1

    def eta(self, job: RemoteJob) -> float:
        """Seconds until a queued job starts: the estimates ahead of it shared among the workers."""
        from rq import Worker

        ahead = self.position(job)
        workers = max(Worker.count(queue=self.queue), 1)
        return ahead * min(job.estimate, self.time_cap) / workers

    def cleanup(self) -> None:
        """Find jobs whose worker died (at most every ``CLEANUP_EVERY`` s): retried or failed (RQ)."""
        if time.monotonic() - self._cleaned < CLEANUP_EVERY:
            return
        self._cleaned = time.monotonic()
        from rq.registry import StartedJobRegistry

        StartedJobRegistry(queue=self.queue).cleanup()
