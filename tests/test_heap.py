"""server/allocator.py's limit_heap_fragmentation: after it, a block from its threshold up is mapped on its
own (and so given back when freed) even after a larger block raised glibc's dynamic threshold;
without it, not; and every corpus worker sets it. (The app sets it at start-up too, app.py; the probe
needs a fresh heap, so that is not probed in this process: bench/classroom_load.py shows its effect.)
And server/allocator.py's server_env: a process started with it gives back the pages of a burst of small
objects of which a few stay; Python's own allocator does not."""
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "tests" / "heap_probe.py"

try:
    GLIBC = hasattr(ctypes.CDLL("libc.so.6"), "mallinfo2")
except OSError:
    GLIBC = False

pytestmark = pytest.mark.skipif(not GLIBC, reason="glibc's allocator only")


def probe(*args: str, script: Path = PROBE, env: dict[str, str] | None = None) -> str:
    env = {"PATH": "/usr/bin:/bin", **(env or {})}  # no MALLOC_* variables of the caller's
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, check=True,
                          timeout=120, env=env).stdout.strip()


def given_back(env: dict[str, str], wait: float) -> float:
    out = probe("--wait", str(wait), script=ROOT / "tests" / "arena_probe.py", env=env)
    assert out.startswith("given_back: "), out
    return float(out.split()[1])


def test_glibc_alone_keeps_a_medium_block_in_its_heap_after_a_big_one_was_freed():
    assert probe() == "mapped_alone: False"


def test_with_the_limit_a_medium_block_is_mapped_on_its_own():
    assert probe("--limited", str(ROOT)) == "mapped_alone: True"


def test_a_corpus_worker_sets_the_limit():
    from tests.heap_probe import mapped_alone
    from server.corpus_worker import BuildPool

    pool = BuildPool(1)
    try:
        assert pool._executor.submit(mapped_alone).result(timeout=120)
    finally:
        pool._executor.shutdown(wait=True, cancel_futures=True)


def test_python_s_allocator_keeps_the_arenas_a_few_objects_hold():
    assert given_back({}, wait=3) < 0.5  # measured here: 0.09


def test_a_server_gives_back_the_pages_of_objects_that_are_gone():
    from server.allocator import jemalloc_path, server_env

    if jemalloc_path() is None:
        reason = "needs jemalloc (apt-get install libjemalloc2)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    assert given_back(server_env({}), wait=60) >= 0.8  # measured here: 0.87, within about a second


def test_the_server_allocator_leaves_a_caller_s_choice_alone(monkeypatch):
    from server import allocator as memory

    monkeypatch.setattr(memory, "jemalloc_path", lambda: "/lib/libjemalloc.so.2")
    assert memory.server_env({})["PYTHONMALLOC"] == "malloc"
    assert memory.server_env({})["LD_PRELOAD"] == "/lib/libjemalloc.so.2"
    for name in ("LD_PRELOAD", "PYTHONMALLOC", "MALLOC_CONF"):
        assert memory.server_env({name: "x"}) == {"MALLOC_ARENA_MAX": "2"}
    monkeypatch.setattr(memory, "jemalloc_path", lambda: None)
    assert memory.server_env({}) == {"MALLOC_ARENA_MAX": "2"}
