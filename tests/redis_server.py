"""A throwaway redis-server for tests: started on a free port of 127.0.0.1 in a temporary folder, no
persistence, stopped at the end. Tests that need it skip with the reason when redis-server or the
``redis`` client is missing, except in CI (``CI`` set), where that is a failure.

    from tests.redis_server import redis_url  # noqa: F401  (a fixture: the server's URL)
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest


def require_redis() -> str:
    """The redis-server executable, or skip (fail in CI) with the reason."""
    missing = None
    try:
        import redis  # noqa: F401
    except ImportError:
        missing = "the redis client package is not installed (pip install -r requirements.txt)"
    server = shutil.which("redis-server")
    if server is None:
        missing = missing or "redis-server is not installed (apt-get install redis-server)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(folder: str) -> tuple[subprocess.Popen, str]:
    """A redis-server on a free port, answering PING (bounded wait): (process, URL)."""
    server, port = require_redis(), free_port()
    process = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", folder], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wait_for_ping(process, port)
    return process, f"redis://127.0.0.1:{port}/0"


def wait_for_ping(process: subprocess.Popen, port: int) -> None:
    """Wait (30 s at most) until the redis-server ``process`` on ``port`` answers PING (loaded its data)."""
    import redis

    client = redis.Redis(port=port, socket_connect_timeout=1)
    deadline = time.monotonic() + 30
    try:
        while True:
            try:
                client.ping()
                return
            except (redis.ConnectionError, redis.exceptions.BusyLoadingError):
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    raise RuntimeError(f"redis-server did not start on port {port}") from None
                time.sleep(0.05)
    finally:
        client.close()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The URL of a redis-server this test session started (shared: tests use their own key prefixes)."""
    require_redis()
    with tempfile.TemporaryDirectory(prefix="lmlab-redis-") as folder:
        process, url = start_redis(folder)
        try:
            yield url
        finally:
            process.terminate()
            process.wait(30)
