"""A training worker: serves the RQ queue of ``server.rq_jobs`` on any machine that reaches the Redis.

    LMLAB_REDIS_URL=redis://store-host:6379/0 python -m server.worker [--name NAME]

It runs the runners registered for each job kind (``server.training``; ``LMLAB_WORKER_IMPORTS``, a
comma-separated list of modules, adds others), reading a run's corpus from the shared store and
putting the trained model into the owner's part of the shared model store, where every replica
finds it. Progress, status and the stop flag cross through Redis (:class:`QueueContext`).

A worker that dies mid-job is noticed by RQ's abandoned-job handling: its execution's heartbeat
lapses after ``job_monitoring_interval + HEARTBEAT_MARGIN`` seconds (RQ's own margin is 60 s), then any
worker's maintenance (every ``MAINTENANCE_SECONDS``) or a replica reading the job retries it or marks
it failed for its owner (``server.rq_jobs``).
"""
from __future__ import annotations

import argparse
import importlib
import os
import pickle
import sys
import time
from typing import Any

from server.rq_jobs import PREFIX, QUEUE_NAME

MONITOR_SECONDS = 5  # how often a worker renews a running job's heartbeat
HEARTBEAT_MARGIN = 10  # seconds past the next expected heartbeat before a job counts as abandoned
MAINTENANCE_SECONDS = 10  # how often a worker looks for abandoned jobs


class QueueContext:
    """What a runner sees (as ``server.scheduler.JobContext``): owner, parameters, ``report`` and
    ``should_stop``, with the progress and the stop flag in Redis."""

    def __init__(self, client, job_id: str, owner: str, params: dict[str, Any], time_cap: float) -> None:
        self._redis, self._key, self.owner, self.params = client, PREFIX + job_id, owner, params
        self._deadline, self._checked, self._stop = time.monotonic() + time_cap, 0.0, False

    def report(self, fraction: float, status: Any = None) -> bool:
        """Record progress (and the payload the page shows); True when the run should stop now."""
        mapping: dict[str, Any] = {"progress": min(max(float(fraction), 0.0), 1.0)}
        if status is not None:
            mapping["status"] = pickle.dumps(status)
        self._redis.hset(self._key, mapping=mapping)
        return self.should_stop()

    def should_stop(self) -> bool:
        if time.monotonic() >= self._deadline:
            self._redis.hset(self._key, "timed_out", 1)
            return True
        if not self._stop and time.monotonic() - self._checked > 0.5:
            self._checked, self._stop = time.monotonic(), bool(self._redis.exists(self._key + ":stop"))
        return self._stop


def register_runners() -> None:
    """Import the modules that register the job runners (the app's, then ``LMLAB_WORKER_IMPORTS``)."""
    importlib.import_module("server.training")
    for name in filter(None, (m.strip() for m in os.environ.get("LMLAB_WORKER_IMPORTS", "").split(","))):
        importlib.import_module(name)


def run_job(job_id: str, owner: str, kind: str, params: dict[str, Any], time_cap: float) -> Any:
    """The RQ job: run ``kind``'s registered runner for ``owner``; its return value is the job's result."""
    from rq import get_current_job

    from server.scheduler import RUNNERS

    client = get_current_job().connection
    if client.exists(PREFIX + job_id + ":stop"):
        return None  # stopped before it started (a retry after its worker died, say)
    result = RUNNERS.get(kind)(QueueContext(client, job_id, owner, params, time_cap))
    client.hset(PREFIX + job_id, "progress", 1.0)
    return result


def make_worker(client, name: str | None = None, monitor: int = MONITOR_SECONDS, margin: int = HEARTBEAT_MARGIN,
                maintenance: int = MAINTENANCE_SECONDS):
    """An RQ worker of the ``lmlab`` queue (one queue: RQ then takes a job atomically into its
    intermediate queue, so a worker killed at that moment loses nothing): it renews a running job's
    heartbeat every ``monitor`` seconds, the job counts as abandoned ``margin`` seconds after a
    heartbeat is due, and it looks for abandoned jobs every ``maintenance`` seconds."""
    from rq import Queue, Worker

    class LabWorker(Worker):
        def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
            return min(super().get_heartbeat_ttl(job, working_time), self.job_monitoring_interval + margin)

    # worker_ttl: an idle worker waits for a job at most worker_ttl - 15 s at a time, then does its
    # maintenance (finding abandoned jobs) if ``maintenance`` seconds have passed; RQ's default waits 405 s.
    return LabWorker([Queue(QUEUE_NAME, connection=client)], connection=client, name=name,
                     job_monitoring_interval=monitor, maintenance_interval=maintenance, worker_ttl=maintenance + 16)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", help="the worker's name in RQ (default: host and pid)")
    parser.add_argument("--url", default=os.environ.get("LMLAB_REDIS_URL", ""), help="default: LMLAB_REDIS_URL")
    parser.add_argument("--monitor-seconds", type=int, default=MONITOR_SECONDS, help="heartbeat period of a running job")
    parser.add_argument("--heartbeat-margin", type=int, default=HEARTBEAT_MARGIN,
                        help="seconds past a due heartbeat before a job counts as abandoned")
    parser.add_argument("--maintenance-seconds", type=int, default=MAINTENANCE_SECONDS,
                        help="how often this worker looks for abandoned jobs")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("no Redis: set LMLAB_REDIS_URL or pass --url")
    import redis

    os.environ["LMLAB_REDIS_URL"] = args.url  # the runners' stores are the shared ones
    register_runners()
    client = redis.Redis.from_url(args.url, socket_connect_timeout=5, health_check_interval=30)
    make_worker(client, args.name, args.monitor_seconds, args.heartbeat_margin, args.maintenance_seconds).work(
        with_scheduler=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
