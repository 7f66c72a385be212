"""The server's memory budget: corpora, n-gram counts and trained models are kept by size.

One process serves a whole class, so what it keeps for everyone is bounded in bytes, not in
entries: ``LMLAB_MEMORY_MB`` (default: a quarter of the machine's memory, at most 6 GiB) is split
between trained models (a fifth) and corpora with their counts (the rest). Anything that would not
fit is refused with a message before it is built.
"""
from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")


def budget_bytes() -> int:
    """The whole budget in bytes: ``LMLAB_MEMORY_MB`` or min(RAM / 4, 6 GiB)."""
    configured = os.environ.get("LMLAB_MEMORY_MB", "").strip()
    if configured:
        try:
            return max(1, int(float(configured))) * 2**20
        except ValueError:
            pass
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = 8 * 2**30
    return min(ram // 4, 6 * 2**30)


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


def freeze_long_lived() -> int:
    """Collect garbage, then hide every object still alive from later collections (``gc.freeze``);
    the number hidden. Called at the end of the warm-up and whenever nobody is connected.

    A collection of the oldest generation visits every container the process holds: in a warm server
    (Streamlit, torch, Plotly, pandas, the English sample and its models) about 290,000 objects with
    1.4 M references, 0.2 s on a quiet core, and it holds the GIL throughout, so every student's run
    waits. In a class of 30 (``bench/classroom_load.py``) five of them took 0.52-1.05 s each on the busy
    machine; frozen, the class's full collections visit only what it made: 0.06-0.89 s, median 0.22 (more
    of them: the oldest generation is small, so it fills its quarter sooner). Frozen objects are still
    freed when their last reference goes; only a cycle among them waits: the next call unfreezes them
    first, so it is collected then."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class TooLarge(Exception):
    """An item bigger than the store's budget allows for one item."""

    def __init__(self, needed: int, allowed: int) -> None:
        super().__init__(f"needs {needed / 2**20:.0f} MB, {allowed / 2**20:.0f} MB allowed")
        self.needed, self.allowed = needed, allowed


class SizedStore(Generic[V]):
    """A thread-safe LRU store bounded by the sum of its items' sizes.

    ``get_or_build`` builds a missing item once even when several sessions ask at the same time
    (one per-key lock); the others wait and share it. An item may use at most ``item_share`` of
    the budget, so one text can never push out everything else.
    """

    def __init__(self, budget: int, item_share: float = 0.5) -> None:
        self.budget, self.item_limit = budget, int(budget * item_share)
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._tags: dict[Hashable, Hashable] = {}  # key -> tag (e.g. the upload an item was made from)
        self._building: dict[Hashable, threading.Lock] = {}
        self._bytes = 0

    @property
    def nbytes(self) -> int:
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value: V, size: int, tag: Hashable = None) -> None:
        """Store ``value`` as ``size`` bytes, evicting the least recently used items to make room."""
        if size > self.item_limit:
            raise TooLarge(size, self.item_limit)
        with self._lock:
            self._drop(key)
            while self._items and self._bytes + size > self.budget:
                self._drop(next(iter(self._items)))
            self._items[key] = (value, size)
            self._bytes += size
            if tag is not None:
                self._tags[key] = tag

    def discard_tag(self, tag: Hashable) -> int:
        """Drop every item stored with ``tag``; the number dropped."""
        with self._lock:
            keys = [k for k, t in self._tags.items() if t == tag]
            for key in keys:
                self._drop(key)
            return len(keys)

    def _drop(self, key: Hashable) -> None:  # with the lock held
        if key in self._items:
            self._bytes -= self._items.pop(key)[1]
        self._tags.pop(key, None)

    def get_or_build(self, key: Hashable, build: Callable[[], V], size_of: Callable[[V], int],
                     tag: Hashable = None) -> V:
        found = self.get(key)
        if found is not None:
            return found
        with self._lock:
            key_lock = self._building.setdefault(key, threading.Lock())
        try:
            with key_lock:
                found = self.get(key)  # built by another session while we waited
                if found is None:
                    found = build()
                    self.put(key, found, size_of(found), tag)
        finally:
            with self._lock:
                self._building.pop(key, None)
        return found


def deep_list_nbytes(sentences: list[list[str]]) -> int:
    """Bytes of a list of token lists (the lists and their pointers; token strings are shared)."""
    return sys.getsizeof(sentences) + sum(56 + 8 * len(s) for s in sentences)
