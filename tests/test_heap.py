"""ui/memory.py's limit_heap_fragmentation: after it, a block from its threshold up is mapped on its
own (and so given back when freed) even after a larger block raised glibc's dynamic threshold;
without it, not; and every corpus worker sets it. (The app sets it at start-up too, app.py; the probe
needs a fresh heap, so that is not probed in this process: bench/classroom_load.py shows its effect.)"""
import ctypes
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


def probe(*args: str) -> str:
    env = {"PATH": "/usr/bin:/bin"}  # no MALLOC_* variables of the caller's
    return subprocess.run([sys.executable, str(PROBE), *args], capture_output=True, text=True, check=True,
                          timeout=120, env=env).stdout.strip()


def test_glibc_alone_keeps_a_medium_block_in_its_heap_after_a_big_one_was_freed():
    assert probe() == "mapped_alone: False"


def test_with_the_limit_a_medium_block_is_mapped_on_its_own():
    assert probe("--limited", str(ROOT)) == "mapped_alone: True"


def test_a_corpus_worker_sets_the_limit():
    from tests.heap_probe import mapped_alone
    from ui.corpus_worker import BuildPool

    pool = BuildPool(1)
    try:
        assert pool._executor.submit(mapped_alone).result(timeout=120)
    finally:
        pool._executor.shutdown(wait=True, cancel_futures=True)
