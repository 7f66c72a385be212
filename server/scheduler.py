"""One process-wide queue for heavy work (training runs): a fixed number run at once, the rest wait.

Plain threads, no Streamlit: a page submits a :class:`JobSpec` (a kind and plain, serialisable
parameters), the scheduler runs the runner registered for that kind (:class:`Runners`) on one of its
``workers`` threads when its turn comes, and the page polls the :class:`Job` it got back. A runner
finds what it needs from the parameters (a corpus's token lists in the data store, say), so a spec can
cross a process boundary: a queue of another back end (RQ, workers on other machines) takes the same
specs and runners. Rules:
- at most one running job per owner (a browser), and one active (queued or running) job per owner
  and kind: asking again for a kind already active returns that job, unless that job was started
  automatically (a page's default model) and the owner now asks explicitly: then the automatic
  one is stopped (it keeps what it trained so far) and the owner's own run takes its place; a page's
  next automatic run of a kind replaces the owner's automatic run of that kind that is still queued
  (the page moved on: another corpus, say), unless they are the same run;
- clicks before automatic work: a run the owner asked for starts before every automatic run (a
  page's default model) that waits; within each, first come, first served among owners with nothing
  running; ``position`` says how many runs are ahead and ``eta`` how long that is;
- every run has a time cap: :meth:`JobContext.should_stop` turns true once it is exceeded, as it
  does after :meth:`Job.stop`; a run that checks it ends early with a usable result;
- a queued job that is stopped never runs; finished jobs are kept ``keep_seconds`` for their owner
  to collect (after a page reload too), then forgotten;
- automatic jobs of an owner who has left (:meth:`stop_automatic_of`) are stopped: a page's default
  model is not worth a training slot once nobody waits for it; runs the owner asked for go on.
"""
from __future__ import annotations

import itertools
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
ACTIVE = (QUEUED, RUNNING)


class SchedulerBusy(RuntimeError):
    """The queue is full: try again later."""


class RunCannotGoOn(Exception):
    """A run that cannot go on for a reason its owner is told (its message); not a bug, so the server
    logs one line for it, not a traceback."""


@dataclass(frozen=True)
class JobSpec:
    """What to run: the runner's ``kind`` and its ``params`` (plain data: strings, numbers, lists and
    dicts of them, so the spec can be serialised for another back end's queue)."""

    kind: str
    params: dict[str, Any] = field(default_factory=dict)


Runner = Callable[["JobContext"], Any]


def replaces(current: Any, spec: JobSpec, automatic: bool) -> bool:
    """Whether a new submission of ``spec`` takes the place of the owner's active job ``current`` of
    the same kind (both schedulers' rule): a click replaces an automatic run; an automatic run
    replaces a different automatic run that is still queued. Otherwise ``current`` is kept."""
    if not current.automatic:
        return False
    if not automatic:
        return True
    return current.state == QUEUED and current.params != spec.params


class Runners:
    """Which function runs each kind of job (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runners: dict[str, Runner] = {}

    def register(self, kind: str, runner: Runner) -> None:
        """``runner(context)`` runs the jobs of ``kind`` (registering a kind again replaces its runner)."""
        with self._lock:
            self._runners[kind] = runner

    def get(self, kind: str) -> Runner:
        """The runner of ``kind``; ``KeyError`` when none is registered."""
        with self._lock:
            if kind not in self._runners:
                raise KeyError(f"no runner for jobs of kind {kind!r}")
            return self._runners[kind]


RUNNERS = Runners()  # the process's runners (each module that defines a kind registers its own)


def register_runner(kind: str, runner: Runner) -> None:
    """Register ``runner`` for the jobs of ``kind`` in the process's :data:`RUNNERS`."""
    RUNNERS.register(kind, runner)


@dataclass
class Job:
    """One submitted run. ``progress`` is in [0, 1]; ``status`` is the run's latest report payload."""

    id: int
    owner: str
    spec: JobSpec
    estimate: float
    state: str = QUEUED
    progress: float = 0.0
    status: Any = None
    result: Any = None
    error: str | None = None
    automatic: bool = False  # started by a page on its own, not by the owner's click
    stop_requested: bool = False
    timed_out: bool = False
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None

    @property
    def kind(self) -> str:
        return self.spec.kind

    @property
    def params(self) -> dict[str, Any]:
        return self.spec.params

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def elapsed(self) -> float:
        if self.started is None:
            return 0.0
        return (self.finished or time.monotonic()) - self.started

    def remaining(self) -> float:
        """Seconds this job still needs, judged from its estimate and progress so far."""
        if self.state == QUEUED:
            return self.estimate
        if self.state != RUNNING:
            return 0.0
        if self.progress > 0.05:
            return max(self.elapsed / self.progress - self.elapsed, 0.0)
        return max(self.estimate - self.elapsed, 0.0)


class JobContext:
    """What a running job sees: its owner and parameters; report progress, ask whether to stop."""

    def __init__(self, job: Job, deadline: float, on_change: Callable[[Job], None] = lambda job: None) -> None:
        self._job, self._deadline, self._on_change = job, deadline, on_change
        self.owner, self.params = job.owner, job.spec.params

    def report(self, fraction: float, status: Any = None) -> bool:
        """Record progress (and a payload the page shows); True when the run should stop now."""
        self._job.progress = min(max(float(fraction), 0.0), 1.0)
        if status is not None:
            self._job.status = status
        self._on_change(self._job)
        return self.should_stop()

    def should_stop(self) -> bool:
        if time.monotonic() >= self._deadline:
            self._job.timed_out = True
        return self._job.stop_requested or self._job.timed_out


class Scheduler:
    """``workers`` runs at once; each capped at ``time_cap`` seconds; at most ``max_queue`` waiting.
    ``on_change(job)`` is called whenever a job is queued, starts, reports, is stopped or ends (it
    publishes the job's status where pages read it: ``server.job_queue``)."""

    def __init__(self, workers: int, time_cap: float = 300.0, max_queue: int = 400,
                 keep_seconds: float = 1800.0, per_owner: int = 4, runners: Runners = RUNNERS,
                 on_change: Callable[[Job], None] = lambda job: None) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self.workers, self.time_cap, self.max_queue, self.keep_seconds = workers, time_cap, max_queue, keep_seconds
        self.per_owner, self.runners, self.on_change = per_owner, runners, on_change
        self._lock = threading.Condition()
        self._queue: deque[Job] = deque()
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ submitting and stopping
    def submit(self, owner: str, spec: JobSpec, estimate: float = 30.0, automatic: bool = False) -> Job:
        """Queue ``spec`` for ``owner``. If the owner already has an active job of this kind, that
        job is returned unchanged, unless this one takes its place (:func:`replaces`): then it is
        stopped and this one queued. ``SchedulerBusy`` when the queue (or the owner's share of it)
        is full; ``KeyError`` when no runner is registered for the kind."""
        kind = spec.kind
        self.runners.get(kind)
        with self._lock:
            self._forget_old()
            mine = [j for j in self._jobs.values() if j.owner == owner and j.active and not j.stop_requested]
            current = next((j for j in mine if j.kind == kind), None)
            if current is not None and not replaces(current, spec, automatic):
                return current
            if len(self._queue) >= self.max_queue or len(mine) >= self.per_owner:
                raise SchedulerBusy(f"{len(self._queue)} runs are waiting")
            if current is not None:
                self._stop_locked(current)
            job = Job(next(self._ids), owner, spec, float(estimate), automatic=automatic)
            self._jobs[job.id] = job
            self._queue.append(job)
            self.on_change(job)
            self._start_workers()
            self._lock.notify_all()
            return job

    def stop(self, job: Job) -> None:
        """Cancel a queued job; ask a running one to stop (it ends at its next check)."""
        with self._lock:
            self._stop_locked(job)

    def _stop_locked(self, job: Job) -> None:
        job.stop_requested = True
        if job.state == QUEUED:
            self._queue.remove(job)
            job.state, job.finished = CANCELLED, time.monotonic()
        self.on_change(job)
        self._lock.notify_all()

    # ------------------------------------------------------------------ reading
    def active_job(self, owner: str, kind: str | None = None) -> Job | None:
        """The owner's active (queued or running) job, of ``kind`` when given."""
        with self._lock:
            return next((j for j in self._jobs.values()
                         if j.owner == owner and j.active and (kind is None or j.kind == kind)), None)

    def jobs_of(self, owner: str) -> list[Job]:
        """The owner's jobs still kept, newest first."""
        with self._lock:
            return sorted((j for j in self._jobs.values() if j.owner == owner), key=lambda j: -j.id)

    def position(self, job: Job) -> int:
        """How many runs are ahead of a queued job (queued before it, or running while no worker is free)."""
        with self._lock:
            if job.state != QUEUED:
                return 0
            ahead = self._ahead_of(job)
            running = sum(j.state == RUNNING for j in self._jobs.values())
            return len(ahead) + (running if running >= self.workers else 0)

    def eta(self, job: Job) -> float:
        """Seconds until a queued job starts: the work ahead of it shared among the workers."""
        with self._lock:
            if job.state != QUEUED:
                return 0.0
            ahead = self._ahead_of(job)
            running = sorted(j.remaining() for j in self._jobs.values() if j.state == RUNNING)
            finish = running + [0.0] * (self.workers - len(running))
            for queued in ahead:  # simulate first-come first-served on the free workers
                finish.sort()
                finish[0] += min(queued.estimate, self.time_cap)
            return min(finish) if finish else 0.0

    def wait(self, job: Job, timeout: float | None = None) -> bool:
        """Block until the job is no longer active (tests, benches); True if it finished in time."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while job.active:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def stop_automatic_of(self, left: Callable[[str], bool]) -> list[Job]:
        """Stop every active automatic job whose owner has ``left``; the jobs stopped."""
        with self._lock:
            jobs = [j for j in self._jobs.values() if j.active and j.automatic and not j.stop_requested and left(j.owner)]
            for job in jobs:
                self._stop_locked(job)
        return jobs

    def stop_all(self) -> None:
        """Cancel every queued job and ask every running one to stop (shutdown, tests)."""
        with self._lock:
            jobs = [j for j in self._jobs.values() if j.active]
        for job in jobs:
            self.stop(job)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no job is queued or running (tests, benches); True if that happened in time."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while any(j.active for j in self._jobs.values()):
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._lock.wait(left)
            return True

    # ------------------------------------------------------------------ running
    def _start_workers(self) -> None:
        self._threads = [t for t in self._threads if t.is_alive()]
        while len(self._threads) < self.workers:
            thread = threading.Thread(target=self._work, name=f"lmlab-job-{len(self._threads)}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        while True:
            with self._lock:
                while (job := self._next_runnable()) is None:
                    self._lock.wait()
                self._queue.remove(job)
                job.state, job.started = RUNNING, time.monotonic()
                self.on_change(job)
            context = JobContext(job, job.started + self.time_cap, self.on_change)
            try:
                result, state, error = self.runners.get(job.kind)(context), DONE, None
            except RunCannotGoOn as exc:  # e.g. its corpus was dropped while it waited: its owner is told
                result, state, error = None, FAILED, str(exc)
                print(f"job {job.id} ({job.kind}) of {job.owner[:8]} ended: {exc}", flush=True)
            except Exception as exc:  # the job failed: its owner sees the message, others are unaffected
                result, state = None, FAILED
                error = f"{type(exc).__name__}: {exc}"
                traceback.print_exc()
            with self._lock:
                job.result, job.state, job.error, job.finished = result, state, error, time.monotonic()
                if state == DONE:
                    job.progress = 1.0
                self.on_change(job)
                self._lock.notify_all()

    def _in_turn(self) -> list[Job]:
        """The queue in the order runs start: clicks first, then automatic runs (lock held)."""
        return [j for j in self._queue if not j.automatic] + [j for j in self._queue if j.automatic]

    def _ahead_of(self, job: Job) -> list[Job]:
        return list(itertools.takewhile(lambda j: j is not job, self._in_turn()))

    def _next_runnable(self) -> Job | None:
        """The first job in turn whose owner has nothing running (call with the lock held)."""
        busy = {j.owner for j in self._jobs.values() if j.state == RUNNING}
        return next((j for j in self._in_turn() if j.owner not in busy), None)

    def _forget_old(self) -> None:
        now = time.monotonic()
        for job_id in [i for i, j in self._jobs.items()
                       if not j.active and j.finished is not None and now - j.finished > self.keep_seconds]:
            del self._jobs[job_id]
