"""The serving room's store: what the server keeps for the pages (corpora, n-gram counts, trained
models, derived values), behind one interface with a byte budget.

:class:`Store` is the protocol every back end follows: string keys, tags (drop everything made from
an upload at once, list one browser's models), a size in bytes for each item, an optional time to
live, and :meth:`Store.get_or_build` with single flight (one build per key however many ask at once).

:class:`InProcessStore` is today's back end: one per process, it keeps the live objects (the pages
read counts and models many times per run: no copy, no decoding), evicting the least recently used
items once the budget is exceeded. A shared back end (Redis, between replicas) keeps bytes instead:
it encodes a value with the codec of its kind (``server.codecs``: a trained model as its state dict
through ``lmcore.training.persist``, everything else — corpora, counts, logs, all plain data and
NumPy arrays — pickled) on ``put`` and decodes it on ``get``; a key's tags become sets of keys, its
size the encoded length, its TTL Redis's own, and single flight a ``SET NX`` build lock with the
waiters subscribed to the key's result.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar, runtime_checkable

V = TypeVar("V")


class TooLarge(Exception):
    """An item bigger than the store allows for one item."""

    def __init__(self, needed: int, allowed: int) -> None:
        super().__init__(f"needs {needed / 2**20:.0f} MB, {allowed / 2**20:.0f} MB allowed")
        self.needed, self.allowed = needed, allowed


@runtime_checkable
class Store(Protocol):
    """A byte-bounded key-value store shared by every session of the server.

    ``get`` returns None for a missing (evicted, expired, never stored) key, so None is never a value.
    ``put`` raises :class:`TooLarge` for an item over ``item_limit``. ``ttl`` is in seconds (None:
    until evicted or discarded)."""

    budget: int
    item_limit: int

    @property
    def nbytes(self) -> int: ...

    def __len__(self) -> int: ...

    def __contains__(self, key: str) -> bool: ...

    def get(self, key: str) -> Any | None: ...

    def put(self, key: str, value: Any, size: int, tags: Iterable[str] = (), ttl: float | None = None) -> None: ...

    def get_or_build(self, key: str, build: Callable[[], V], size: Callable[[V], int],
                     tags: Iterable[str] = (), ttl: float | None = None) -> V: ...

    def discard(self, key: str) -> bool: ...

    def discard_tag(self, tag: str) -> int: ...

    def tagged(self, tag: str) -> list[str]: ...

    def clear(self) -> None: ...


class _Flight:
    """One build in progress: its waiters block on ``done`` and get its value or its exception, or,
    when the build was ``abandoned`` (its caller interrupted), build again themselves."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: Exception | None = None
        self.abandoned = False


class SingleFlight:
    """At most one build per key at a time in this process; the callers that ask meanwhile wait for it.

    Waiters share the build's value; if it raises (say :class:`TooLarge`), every one of them gets
    that exception, and nothing is built again until a later call. A build interrupted by what is
    not an error (a ``BaseException`` such as Streamlit's rerun of the leader's script, which is no
    other session's business) is abandoned: each waiter then calls its ``again``. ``on_wait`` is
    called with the key each time a caller joins a build in flight (monitoring, tests)."""

    def __init__(self, on_wait: Callable[[str], None] | None = None) -> None:
        self._on_wait = on_wait
        self._lock = threading.Lock()
        self._flights: dict[str, _Flight] = {}

    def run(self, key: str, build: Callable[[], V], again: Callable[[], V]) -> V:
        """``build()``, or the value (or exception) of the build of ``key`` in flight; ``again()`` if
        that build was abandoned."""
        with self._lock:
            flight = self._flights.get(key)
            leader = flight is None
            if leader:
                flight = self._flights[key] = _Flight()
        if not leader:
            if self._on_wait is not None:
                self._on_wait(key)
            flight.done.wait()
            if flight.abandoned:
                return again()
            if flight.error is not None:
                raise flight.error
            return flight.value
        try:
            flight.value = build()
            return flight.value
        except Exception as error:
            flight.error = error
            raise
        except BaseException:
            flight.abandoned = True
            raise
        finally:
            with self._lock:
                if self._flights.get(key) is flight:
                    del self._flights[key]
            flight.done.set()


class InProcessStore:
    """The in-process back end of :class:`Store`: live objects, LRU eviction by size, thread-safe.

    An item may use at most ``item_share`` of the budget, so one text can never push out everything
    else. ``clock`` gives the time for TTLs (``time.monotonic``; tests pass their own); ``on_wait``
    is called with the key each time a caller joins a build already in flight (monitoring, tests)."""

    def __init__(self, budget: int, item_share: float = 0.5, clock: Callable[[], float] = time.monotonic,
                 on_wait: Callable[[str], None] | None = None) -> None:
        self.budget, self.item_limit, self._clock = budget, int(budget * item_share), clock
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[Any, int, float | None]] = OrderedDict()  # value, size, expiry
        self._tags: dict[str, tuple[str, ...]] = {}  # key -> its tags
        self._by_tag: dict[str, dict[str, None]] = {}  # tag -> its keys, in the order they were put
        self._flight = SingleFlight(on_wait)
        self._bytes = 0

    @property
    def nbytes(self) -> int:
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return self._live(key) is not None

    def get(self, key: str) -> Any | None:
        with self._lock:
            found = self._live(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: str, value: Any, size: int, tags: Iterable[str] = (), ttl: float | None = None) -> None:
        """Store ``value`` as ``size`` bytes, evicting the least recently used items to make room."""
        if size > self.item_limit:
            raise TooLarge(size, self.item_limit)
        tags = tuple(tags)
        expiry = None if ttl is None else self._clock() + ttl
        with self._lock:
            self._drop(key)
            while self._items and self._bytes + size > self.budget:
                self._drop(next(iter(self._items)))
            self._items[key] = (value, size, expiry)
            self._bytes += size
            if tags:
                self._tags[key] = tags
                for tag in tags:
                    self._by_tag.setdefault(tag, {})[key] = None

    def get_or_build(self, key: str, build: Callable[[], V], size: Callable[[V], int],
                     tags: Iterable[str] = (), ttl: float | None = None) -> V:
        """The stored value, else ``build()`` stored as ``size(value)`` bytes. Single flight: callers
        that ask while a build of ``key`` runs wait for it and share its value; if it raises (say
        :class:`TooLarge`), every one of them gets that exception, and nothing is built again
        until a later call. A build interrupted by what is not an error (a ``BaseException`` such
        as Streamlit's rerun of the leader's script, which is no other session's business) is
        abandoned: one of its waiters builds again."""
        found = self._found(key)
        return found[0] if found is not None else self._flight.run(
            key, lambda: self._build(key, build, size, tags, ttl), lambda: self.get_or_build(key, build, size, tags, ttl))

    def _found(self, key: str) -> tuple | None:
        """(value,) if ``key`` is stored and live (now the most recently used), else None."""
        with self._lock:
            found = self._live(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return (found[0],)

    def _build(self, key: str, build: Callable[[], V], size: Callable[[V], int], tags: Iterable[str],
               ttl: float | None) -> V:
        found = self._found(key)  # put by a build that ended between our look and our flight
        if found is not None:
            return found[0]
        value = build()
        self.put(key, value, size(value), tags, ttl)
        return value

    def discard(self, key: str) -> bool:
        """Drop ``key``; whether it was there."""
        with self._lock:
            present = key in self._items
            self._drop(key)
            return present

    def discard_tag(self, tag: str) -> int:
        """Drop every item stored with ``tag``; the number dropped."""
        with self._lock:
            keys = list(self._by_tag.get(tag, ()))
            for key in keys:
                self._drop(key)
            return len(keys)

    def tagged(self, tag: str) -> list[str]:
        """The keys stored with ``tag`` (and not expired), the most recently put first."""
        with self._lock:
            return [k for k in reversed(list(self._by_tag.get(tag, ()))) if self._live(k) is not None]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._tags.clear()
            self._by_tag.clear()
            self._bytes = 0

    def _live(self, key: str) -> tuple[Any, int, float | None] | None:  # with the lock held
        found = self._items.get(key)
        if found is not None and found[2] is not None and self._clock() >= found[2]:
            self._drop(key)
            return None
        return found

    def _drop(self, key: str) -> None:  # with the lock held
        if key in self._items:
            self._bytes -= self._items.pop(key)[1]
        for tag in self._tags.pop(key, ()):
            keys = self._by_tag.get(tag)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del self._by_tag[tag]


def store_key(kind: str, *parts: object) -> str:
    """A store key: the kind of item, then the parts that name it (their ``repr``, so a tuple of
    settings gives the same key in every process)."""
    return kind + ":" + "|".join(map(repr, parts))
