"""What the tests of server/live_class.py share (tests/test_live_class*.py): a redis-server of the
tests' own, a clock that moves when told, the ``make`` fixture that builds ``LiveClasses`` on either
store, and small checks of results."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from server.class_store import InProcessClassStore
from server.live_class import Accepted, ClassLimits, LiveClasses, OpenQuestion, Problem, Refused, Started

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
LOGGER = "server.live_class"


def require_redis_server() -> None:
    """Skip where redis-server is missing; in CI (which installs it) that is a failure."""
    if not Path(REDIS_SERVER).exists():
        reason = "the Redis tests need redis-server (install with: apt-get install redis-server)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server of the test's own, in ``directory``; ``appendonly`` keeps data over a restart."""

    def __init__(self, directory: Path, appendonly: bool) -> None:
        self.directory, self.appendonly, self.port = directory, appendonly, free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "always",
             "--dir", str(self.directory), "--daemonize", "no", "--logfile", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))  # we poll
        deadline = time.monotonic() + 20  # polling an external server until it starts (bounded)
        try:
            while True:
                assert self.process.poll() is None, "redis-server exited at start"
                try:
                    if client.ping():
                        return
                except redis.exceptions.ConnectionError:  # refused, or still loading its data
                    pass
                assert time.monotonic() < deadline, "redis-server did not answer within 20 s"
                time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: Redis writes its append-only file and exits
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """One in-memory redis-server for the module (each test has its own key namespace)."""
    require_redis_server()
    server = RedisServer(tmp_path_factory.mktemp("redis"), appendonly=False)
    server.start()
    yield server.url
    server.stop()


class FakeClock:
    """Seconds that move only when told (expiry and rate limits without waiting)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


GENEROUS = ClassLimits(answers_burst=100.0)  # tests of other rules are not slowed by the rate limit


@pytest.fixture(params=["memory", "redis"])
def make(request):
    """``make(limits) -> (LiveClasses, clock)`` on the parametrised back end; several calls in one
    test share one store (like replicas of one server)."""
    clock = FakeClock()
    namespace = f"test-{uuid.uuid4().hex}:"
    stores: list = []

    def new_store():
        if request.param == "memory":
            if not stores:
                stores.append(InProcessClassStore(clock))
            return stores[0]
        from server.class_store import RedisClassStore

        stores.append(RedisClassStore(request.getfixturevalue("redis_url")))
        return stores[-1]

    def factory(limits: ClassLimits = GENEROUS) -> tuple[LiveClasses, FakeClock]:
        return LiveClasses(new_store(), limits, clock=clock, namespace=namespace), clock

    yield factory
    for store in stores:
        if hasattr(store, "close"):
            store.close()


def started(classes: LiveClasses, page: str = "ngram", slide: int = 0) -> Started:
    result = classes.start_class(page, slide)
    assert isinstance(result, Started), result
    return result


def ok(result: Accepted | Refused) -> Accepted:
    assert isinstance(result, Accepted), result
    return result


def refused(result: Accepted | Refused, problem: Problem) -> None:
    assert isinstance(result, Refused), result
    assert result.problem is problem, result
    assert result.detail


NUMBER_Q = OpenQuestion("q-pi", "number", answer=3.14159, tolerance=0.01)
CHOICE_Q = OpenQuestion("q-next", "choice", answer="Zanzibar", choices=("cat", "Zanzibar", "mat"))
