"""A job kind for tests of the queue (tests/test_queue_worker.py), registered in the worker through
``LMLAB_WORKER_IMPORTS=tests.worker_jobs``: it reports half its progress with its process id, then
waits (bounded) for the test to open its gate, a Redis list named in its parameters."""
import os

import redis

from server.scheduler import register_runner


def gated(ctx) -> dict:
    client = redis.Redis.from_url(os.environ["LMLAB_REDIS_URL"])
    ctx.report(0.5, {"pid": os.getpid()})
    for _ in range(240):  # at most ~4 minutes
        if ctx.should_stop():
            return {"pid": os.getpid(), "stopped": True}
        if client.blpop([ctx.params["gate"]], timeout=1):
            return {"pid": os.getpid(), "stopped": False}
    raise TimeoutError("the test never opened the gate")


register_runner("test-gated", gated)
register_runner("test-gated-b", gated)  # a second kind
register_runner("test-gated-c", gated)  # a third kind
