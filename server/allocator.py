"""The server's memory allocator: glibc's settings and jemalloc for a server process.

Set once per process at start-up (app.py's ``configure_process``, each corpus worker) or in the
environment of a server about to start (deploy/serve, deploy/Dockerfile, the classroom bench).
"""
from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
MMAP_THRESHOLD_BYTES = 4 * 2**20
ARENAS = 2
JEMALLOC_LIBRARY = "libjemalloc.so.2"  # Debian's libjemalloc2
JEMALLOC_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib")
# A background thread gives pages freed for 1 s back to the system (jemalloc's default: 10 s, lazily).
JEMALLOC_CONF = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0"
ALLOCATOR_VARIABLES = ("LD_PRELOAD", "PYTHONMALLOC", "MALLOC_CONF")


def jemalloc_path() -> str | None:
    """Where jemalloc's shared library is installed (None: it is not)."""
    return next((path for d in JEMALLOC_DIRS if os.path.exists(path := os.path.join(d, JEMALLOC_LIBRARY))), None)


def server_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allocator's environment for a server process, set before it starts (deploy/serve, the
    classroom bench's server; deploy/Dockerfile writes the same): glibc's two heaps
    (:func:`limit_heap_fragmentation`) and, where jemalloc is installed and ``environ`` (the caller's
    environment) sets none of ``ALLOCATOR_VARIABLES``, every allocation through jemalloc.

    Python's own small-object allocator takes memory in 1 MiB arenas and gives one back only when
    every object in it is gone. In a class, pages build and drop millions of small objects between
    the few that stay (cached results, Streamlit's bookkeeping), so each arena keeps a few live objects
    and all its pages: after 30 students for 2 minutes (``bench/classroom_load.py --start``) the server's
    arenas had grown from 219 to 302 (83 MiB) for 5 MB more live objects, and RSS 10 s after the class
    was 1.23-1.36 times what it was before. ``PYTHONMALLOC=malloc`` sends those objects to the C
    allocator instead; glibc's keeps them in one heap it cannot shrink either (1.25), while jemalloc
    gives back every unused 4 KiB page a second after it was freed: 1.15 and 1.15, with p95 settle time
    1.89 and 1.31 s against 1.27 s with Python's allocator (mimalloc 2.0: 1.48-1.50)."""
    environ = os.environ if environ is None else environ
    env = {"MALLOC_ARENA_MAX": str(ARENAS)}
    library = jemalloc_path()
    if library and not any(name in environ for name in ALLOCATOR_VARIABLES):
        env.update(LD_PRELOAD=library, PYTHONMALLOC="malloc", MALLOC_CONF=JEMALLOC_CONF)
    return env


def limit_heap_fragmentation() -> bool:
    """Once per process, at start-up: glibc's allocator keeps less memory it cannot give back.

    By default each thread that allocates gets its own heap ("arena", up to 8 per core), and the
    size from which a block is mapped on its own (and unmapped when freed) grows with every large
    block freed, up to 32 MB, so big temporary arrays end up inside those heaps. With many sessions'
    threads the heaps fill with holes the system never gets back. Here: blocks from
    ``MMAP_THRESHOLD_BYTES`` up are mapped on their own (4 MB: from 256 KB up, counting PTB's 5-grams
    and fitting the model took 1.34–1.36 s instead of 0.92–1.0 s, every big temporary array paying
    fresh pages; from 4 MB up, 0.96 s). The number of heaps must be set before the process's second
    thread first allocates (glibc fixes it then: before app.py runs), so it comes from the
    environment: :func:`server_env`, which deploy/serve, deploy/Dockerfile and the classroom bench's
    server set. Measured (``bench/classroom_load.py --start --sessions 10``, RSS 10 s after the class
    over before it): 1.51 with neither; 1.12 with both.
    A ``MALLOC_MMAP_THRESHOLD_`` the operator set wins. False where there is no glibc (or it refused)."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return True
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1
