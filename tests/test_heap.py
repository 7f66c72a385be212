"""server/memory.py's allocator settings are what it says and are applied where it says: what
``limit_heap_fragmentation`` asks of glibc (and when it does not), that a corpus worker runs it, and
that a process started with ``server_env`` runs on jemalloc with two glibc heaps. How much memory
glibc, CPython or jemalloc then give back is theirs to test (bench/classroom_load.py measures it).

The corpus-worker check observes the limit through its effect (tests/heap_probe.py): a 5 MB block
mapped on its own after a 16 MB one was freed, which glibc's dynamic threshold alone refuses; a fresh
interpreter without the limit is the control that makes the check able to fail."""
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server import memory

ROOT = Path(__file__).resolve().parent.parent
M_MMAP_THRESHOLD = -3  # glibc's malloc.h

try:
    GLIBC = hasattr(ctypes.CDLL("libc.so.6"), "mallinfo2")
except OSError:
    GLIBC = False


class FakeLibc:
    """Records ``mallopt`` calls; answers ``result`` (glibc: 1 on success)."""

    def __init__(self, result: int = 1) -> None:
        self.calls: list[tuple[int, int]] = []
        self.result = result

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return self.result


def test_the_limit_asks_glibc_to_map_blocks_from_4_mb_up(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(memory.ctypes, "CDLL", lambda name: libc)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    assert memory.limit_heap_fragmentation() is True
    assert libc.calls == [(M_MMAP_THRESHOLD, 4 * 2**20)]
    libc.result = 0  # glibc refused
    assert memory.limit_heap_fragmentation() is False


def test_an_operator_s_threshold_wins_and_no_glibc_is_no_limit(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(memory.ctypes, "CDLL", lambda name: libc)
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    assert memory.limit_heap_fragmentation() is True and libc.calls == []
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")

    def no_libc(name):
        raise OSError(name)

    monkeypatch.setattr(memory.ctypes, "CDLL", no_libc)
    assert memory.limit_heap_fragmentation() is False


@pytest.mark.skipif(not GLIBC, reason="glibc's allocator only")
def test_a_corpus_worker_sets_the_limit():
    from server.corpus_worker import BuildPool
    from tests.heap_probe import mapped_alone

    control = subprocess.run([sys.executable, str(ROOT / "tests" / "heap_probe.py")], capture_output=True, text=True,
                             check=True, timeout=120, env={"PATH": "/usr/bin:/bin"}).stdout.strip()
    assert control == "mapped_alone: False"  # without the limit: the probe can tell
    pool = BuildPool(1)
    try:
        assert pool._executor.submit(mapped_alone).result(timeout=120)
    finally:
        pool._executor.shutdown(wait=True, cancel_futures=True)


ALLOCATOR_REPORT = """
import os, _testcapi
maps = open('/proc/self/maps').read()
print(os.path.basename(os.environ.get('LD_PRELOAD', '-')) in maps, _testcapi.pymem_getallocatorsname(),
      os.environ.get('MALLOC_ARENA_MAX'))
"""


def test_a_process_started_with_the_server_env_runs_on_jemalloc_with_two_heaps():
    if memory.jemalloc_path() is None:
        reason = "needs jemalloc (apt-get install libjemalloc2)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    env = {"PATH": "/usr/bin:/bin", **memory.server_env({})}
    out = subprocess.run([sys.executable, "-c", ALLOCATOR_REPORT], capture_output=True, text=True, check=True,
                         timeout=120, env=env).stdout.split()
    assert out == ["True", "malloc", str(memory.ARENAS)]  # jemalloc mapped, Python's objects sent to it


def test_the_server_allocator_leaves_a_caller_s_choice_alone(monkeypatch):
    monkeypatch.setattr(memory, "jemalloc_path", lambda: "/lib/libjemalloc.so.2")
    assert memory.server_env({})["PYTHONMALLOC"] == "malloc"
    assert memory.server_env({})["LD_PRELOAD"] == "/lib/libjemalloc.so.2"
    for name in ("LD_PRELOAD", "PYTHONMALLOC", "MALLOC_CONF"):
        assert memory.server_env({name: "x"}) == {"MALLOC_ARENA_MAX": "2"}
    monkeypatch.setattr(memory, "jemalloc_path", lambda: None)
    assert memory.server_env({}) == {"MALLOC_ARENA_MAX": "2"}
