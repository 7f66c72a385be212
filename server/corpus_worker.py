"""Corpora are built in a worker process, not on the server's interpreter.

Tokenising is pure Python: a 5 MB upload is ~2 s of it, and a student's tokenizer, lowercase or
sentence-mode choice makes another corpus each time. In the server process that time holds the
GIL that every page of every student waits on (py-spy under 30 students: ~27 % of the GIL's time
went to building corpora); in a worker process it runs on another core. ``LMLAB_BUILD_WORKERS``
workers for large uploads (default 1: with the server's own core, two) and one for small texts
(:func:`pool`: a small text never waits behind a large upload), started fresh with ``spawn`` (a
fork of a threaded server is unsafe) and replaced, between builds, after :data:`TASKS_PER_WORKER`
of them, so the memory a big text needed goes back to the system (not with
``max_tasks_per_child``: CPython 3.11's executor can hang when it replaces a worker while builds
wait — seen here in the test suite). The server keeps only the finished corpus (unpickled here).

A build reports its progress (fraction, stage) on one queue that a thread of the server reads into
a table by build id; the waiting page draws it, and until a worker starts the build, how many
builds of its lane are ahead of it (three 5 MB uploads at once: the third waited 40–55 s). A build
runs once however many runs wait for it: the same key joins the build in flight (also after a
rerun interrupted the page that started it).
A worker that dies (out of memory, killed) is replaced; its builds fail with a clear message.
No streamlit here: the worker imports this module.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import threading
import time
import uuid
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ProcessPoolExecutor, TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from lmcore.corpus import Corpus, CorpusError, CorpusSettings, build_corpus
from lmcore.corpus.limits import APP_LIMITS
from lmcore.corpus.stats import overview
from lmcore.ngram import NgramCounts, count_ngrams, largest_order_within
from lmcore.samples import load_sample
from server.env import env_number
from server.allocator import limit_heap_fragmentation

TASKS_PER_WORKER = 8
SMALL_UPLOAD_BYTES = 512 * 1024  # an upload up to this size goes to the small texts' lane
WARM_UP = ("warm-up",)
POLL_SECONDS = 0.1
QUEUED = "queued"  # a build's stage until a worker starts it
Progress = Callable[..., None]  # (fraction, stage), and for QUEUED the builds ahead: (0.0, QUEUED, ahead)

_worker_queue = None  # in a worker: the queue its builds report progress on


def _init_worker(queue) -> None:
    global _worker_queue
    _worker_queue = queue
    limit_heap_fragmentation()
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A worker whose server died without stopping it (killed) leaves too, instead of waiting forever."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


@dataclass
class Built:
    """A corpus built in a worker, with what the pages read of it first, computed there too: its
    n-gram counts (orders 1..the highest whose counting fits the given byte limit; None if not even
    order 1 does) and the Corpus page's statistics (``lmcore.corpus.stats.overview``)."""

    corpus: Corpus
    counts: NgramCounts | None
    statistics: dict


def _work(build_id: str, kind: str, args: tuple, count_limit: int) -> Built:
    """In the worker: build an upload (bounded by the app's limits) or a built-in sample, with what
    every page reads of it computed here too (the ``<unk>``-mapped splits, token and type counts,
    n-gram counts, statistics): in the server that was ~2 s of a 5 MB upload on the shared GIL."""
    report = lambda fraction, stage: _worker_queue.put((build_id, fraction, stage))  # noqa: E731
    report(0.0, "decode")  # started: no longer queued behind another build
    if kind == "upload":
        data, name, settings = args
        corpus = build_corpus(data, name, settings, progress=report, limits=APP_LIMITS)
    else:
        source, settings, n_sentences = args
        corpus = load_sample(source, settings, n_sentences)
    for split in ("train", "valid", "test"):
        corpus.mapped(split)
    corpus.n_tokens, corpus.n_types  # noqa: B018 - cached properties, sent along
    order = largest_order_within(corpus.n_tokens + len(corpus.sentences), count_limit)
    counts = count_ngrams(corpus.mapped("train"), order) if order else None
    return Built(corpus, counts, overview(corpus))


def worker_count() -> int:
    """``LMLAB_BUILD_WORKERS`` (default 1, at least 1)."""
    return int(env_number("LMLAB_BUILD_WORKERS", 1, minimum=1))


class BuildPool:
    """Worker processes building corpora, their progress, and the builds in flight by key."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._context = multiprocessing.get_context("spawn")
        self._queue = self._context.Queue()
        self._lock = threading.RLock()  # a build done before add_done_callback runs its callback here
        self._progress: dict[str, tuple[float, str]] = {}
        self._order: dict[str, int] = {}  # build id -> its place in the order of submission
        self._flying: dict[Hashable, tuple[str, Future]] = {}
        self._count = itertools.count()
        self._executor = self._new_executor()
        threading.Thread(target=self._read_progress, name="lmlab-build-progress", daemon=True).start()

    def _new_executor(self) -> ProcessPoolExecutor:
        self._submitted = self._built = 0  # builds since these workers started; and not the warm-up
        return ProcessPoolExecutor(self.workers, mp_context=self._context, initializer=_init_worker,
                                   initargs=(self._queue,))

    def _replace_executor(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._executor = self._new_executor()

    def _read_progress(self) -> None:
        while True:
            build_id, fraction, stage = self._queue.get()
            with self._lock:
                if build_id in self._progress:
                    self._progress[build_id] = (fraction, stage)

    def start_workers(self) -> None:
        """Start the worker processes now (the warm-up calls it), not on the first build."""
        self.submit(WARM_UP, "sample", ("synthetic", CorpusSettings(sentence_mode="lines"), 10), 0)

    def submit(self, key: Hashable, kind: str, args: tuple, count_limit: int) -> tuple[str, Future]:
        """(build id, future) of the build of ``key``: the one in flight, else a new one."""
        with self._lock:
            if key in self._flying and not self._flying[key][1].done():
                return self._flying[key]
            build_id = uuid.uuid4().hex
            self._progress[build_id] = (0.0, QUEUED)
            self._order[build_id] = next(self._count)
            if self._submitted >= TASKS_PER_WORKER * self.workers and not self._flying:
                self._replace_executor()  # fresh workers give a big text's memory back
            try:
                future = self._executor.submit(_work, build_id, kind, args, count_limit)
            except BrokenProcessPool:  # a worker died since the last build: start new ones
                self._replace_executor()
                future = self._executor.submit(_work, build_id, kind, args, count_limit)
            self._submitted += 1
            self._built += key != WARM_UP
            self._flying[key] = (build_id, future)
            future.add_done_callback(lambda f, k=key, b=build_id: self._forget(k, b))
            return build_id, future

    def recycle_if_idle(self) -> bool:
        """Fresh workers now, if they built anything but the warm-up and none is building: the memory
        a big text (or jieba's dictionary) needed goes back to the system when the class that
        uploaded it has gone (server/corpus_use.py's ``release_memory``), not only after
        :data:`TASKS_PER_WORKER` more builds."""
        with self._lock:
            if not self._built or any(not future.done() for _, future in self._flying.values()):
                return False
            self._replace_executor()
        self.start_workers()
        return True

    def _forget(self, key: Hashable, build_id: str) -> None:
        with self._lock:
            self._progress.pop(build_id, None)
            self._order.pop(build_id, None)
            if key in self._flying and self._flying[key][0] == build_id:
                del self._flying[key]

    def progress_of(self, build_id: str) -> tuple[float, str] | None:
        with self._lock:
            return self._progress.get(build_id)

    def ahead_of(self, build_id: str) -> int:
        """How many builds of this lane, submitted before ``build_id``, are still to finish."""
        with self._lock:
            mine = self._order.get(build_id, -1)
            return sum(0 <= seq < mine for seq in self._order.values())

    def build(self, key: Hashable, kind: str, args: tuple, count_limit: int, progress: Progress | None = None) -> Built:
        """The corpus of ``key`` built in a worker, with its n-gram counts within ``count_limit``
        bytes; ``progress`` is called while the page waits."""
        build_id, future = self.submit(key, kind, args, count_limit)
        shown = None
        while True:
            try:
                return future.result(timeout=POLL_SECONDS)
            except FutureTimeout:
                now = self.progress_of(build_id)
                if now is not None and now[1] == QUEUED:
                    now = (*now, self.ahead_of(build_id))
                if progress is not None and now is not None and now != shown:  # a redraw only when it moved
                    progress(*now)
                    shown = now
            except BrokenProcessPool as error:
                raise CorpusError("error.worker_failed") from error


SMALL, LARGE = "small", "large"
_pools: dict[str, BuildPool] = {}
_pool_lock = threading.Lock()


def pool(lane: str = LARGE) -> BuildPool:
    """The process's :class:`BuildPool` of ``lane`` (made on first use). Small texts (the built-in
    samples under other settings, uploads up to :data:`SMALL_UPLOAD_BYTES`) and large uploads have a
    lane each: a small text is built in a moment, a large one can take half a minute (5 MB of
    Chinese: jieba), and in one lane every student who changed a tokenizer waited behind it (30
    students: up to 12 page runs waiting ~30 s for the one worker). ``LMLAB_BUILD_WORKERS`` sets the
    large lane's workers; the small lane has one."""
    with _pool_lock:
        if lane not in _pools:
            _pools[lane] = BuildPool(worker_count() if lane == LARGE else 1)
        return _pools[lane]


def start_all_workers() -> None:
    """Start every lane's worker processes now (the warm-up calls it), not on the first build."""
    for lane in (SMALL, LARGE):
        pool(lane).start_workers()


def recycle_idle_workers() -> bool:
    """:meth:`BuildPool.recycle_if_idle` of every lane made so far; True if any was recycled."""
    with _pool_lock:
        lanes = list(_pools.values())
    return any([lane.recycle_if_idle() for lane in lanes])  # a list: every lane, not up to the first


def build_upload(key: Hashable, data: bytes, name: str, settings: CorpusSettings, count_limit: int,
                 progress: Progress | None = None) -> Built:
    """An uploaded text, tokenised in a worker of its size's lane within the app's limits (:data:`APP_LIMITS`)."""
    lane = SMALL if len(data) <= SMALL_UPLOAD_BYTES else LARGE
    return pool(lane).build(key, "upload", (data, name, settings), count_limit, progress)


def build_sample(key: Hashable, source: str, settings: CorpusSettings, n_sentences: int, count_limit: int) -> Built:
    """A built-in sample under other settings than its defaults, tokenised in the small texts' lane."""
    return pool(SMALL).build(key, "sample", (source, settings, n_sentences), count_limit)
