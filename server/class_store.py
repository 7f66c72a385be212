"""Where a live class's shared state lives: a few hashes with a time to live, and the handful of
atomic operations the class logic in server/live_class.py needs.

Two back ends behind one small protocol, :class:`ClassStore`:

* :class:`InProcessClassStore` (the default): dictionaries behind one lock, in this server process.
  Nothing to install; every student must reach the same server process.
* :class:`RedisClassStore`: a Redis server through the ``redis`` client package, so students on
  different replicas share one class. Each compound operation is one round trip and atomic
  (``MULTI``/``EXEC`` or a short Lua script); keys are written with a TTL, so an abandoned class
  disappears on its own.

A store that cannot be reached (Redis stopped, restarting, loading its data) raises
:class:`StoreUnavailable` and nothing else; the class layer turns that into a *paused* class. The
Redis client reconnects by itself on the next call once the server is back.

This is not the byte-budget cache for models and corpora (server/store.py): class state is small,
shared between processes and must be atomic; that cache is large, per process and evictable.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any, Protocol

_log = logging.getLogger(__name__)

SWEEP_EVERY_SECONDS = 60.0  # the in-process store drops expired keys at most this often


class StoreUnavailable(Exception):
    """The shared store cannot be reached just now (the class is paused until it can)."""


class Added(StrEnum):
    """What :meth:`ClassStore.add_capped` did."""

    ADDED = "added"
    EXISTS = "exists"  # the field was there already; left unchanged
    FULL = "full"  # the hash has ``cap`` fields already; nothing added


class ClassStore(Protocol):
    """Hashes of text fields, each hash with a time to live. ``ttl`` is in seconds; a write with a
    ``ttl`` (re)starts the key's clock. Every method may raise :class:`StoreUnavailable`."""

    def read(self, key: str, fields: Sequence[str]) -> list[str | None]:
        """The values of ``fields`` (None where absent), in one round trip."""
        ...

    def read_all(self, key: str) -> dict[str, str]:
        """Every field of the hash (``{}`` when the key is absent or expired)."""
        ...

    def size(self, key: str) -> int:
        """How many fields the hash has."""
        ...

    def write(self, key: str, fields: Mapping[str, str], ttl: float, bump: str | None = None) -> int | None:
        """Set ``fields`` and, in the same atomic step, add 1 to the integer field ``bump``; returns
        the bumped value (None without ``bump``)."""
        ...

    def write_if(self, key: str, field: str, value: str, ttl: float, *, guard_key: str, guard_field: str,
                 expected: str) -> bool:
        """Set one field only while ``guard_key``'s ``guard_field`` equals ``expected`` (checked and
        written atomically); False when the guard did not hold."""
        ...

    def add_capped(self, key: str, field: str, value: str, cap: int, ttl: float) -> Added:
        """Add a field unless it exists or the hash already has ``cap`` fields (atomic)."""
        ...

    def raise_to(self, key: str, field: str, value: int) -> bool:
        """Set the integer field to ``value`` if that is larger than its current value (absent
        counts as -1); False, unchanged, otherwise. Atomic: of two equal values, one wins."""
        ...

    def take_token(self, key: str, field: str, capacity: float, per_second: float, now: float, ttl: float) -> bool:
        """A token bucket kept in the field: refill ``per_second`` up to ``capacity`` since the last
        call, then take one token; False (nothing taken) when fewer than one is left. Atomic."""
        ...

    def remove(self, key: str, fields: Iterable[str]) -> None:
        """Delete fields of a hash."""
        ...

    def delete(self, keys: Iterable[str]) -> None:
        """Delete whole keys."""
        ...

    def expire(self, keys: Iterable[str], ttl: float) -> None:
        """Restart the time to live of existing keys (absent ones stay absent)."""
        ...


class InProcessClassStore:
    """:class:`ClassStore` in this process's memory: thread-safe (one lock), expired keys dropped
    when read and swept at most once a minute on writes. ``clock`` is injectable for tests."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._hashes: dict[str, dict[str, str]] = {}
        self._expires: dict[str, float] = {}
        self._swept = clock()

    # Helpers: call with the lock held.
    def _live(self, key: str) -> dict[str, str] | None:
        if key in self._expires and self._expires[key] <= self._clock():
            self._hashes.pop(key, None)
            self._expires.pop(key, None)
        return self._hashes.get(key)

    def _hash_for_write(self, key: str, ttl: float | None) -> dict[str, str]:
        now = self._clock()
        if now - self._swept >= SWEEP_EVERY_SECONDS:
            self._swept = now
            for old in [k for k, until in self._expires.items() if until <= now]:
                self._hashes.pop(old, None)
                self._expires.pop(old, None)
        found = self._live(key)
        if found is None:
            found = self._hashes[key] = {}
        if ttl is not None:
            self._expires[key] = now + ttl
        return found

    def read(self, key: str, fields: Sequence[str]) -> list[str | None]:
        with self._lock:
            found = self._live(key) or {}
            return [found.get(f) for f in fields]

    def read_all(self, key: str) -> dict[str, str]:
        with self._lock:
            return dict(self._live(key) or {})

    def size(self, key: str) -> int:
        with self._lock:
            return len(self._live(key) or {})

    def write(self, key: str, fields: Mapping[str, str], ttl: float, bump: str | None = None) -> int | None:
        with self._lock:
            found = self._hash_for_write(key, ttl)
            found.update(fields)
            if bump is None:
                return None
            bumped = int(found.get(bump, "0")) + 1
            found[bump] = str(bumped)
            return bumped

    def write_if(self, key: str, field: str, value: str, ttl: float, *, guard_key: str, guard_field: str,
                 expected: str) -> bool:
        with self._lock:
            if (self._live(guard_key) or {}).get(guard_field) != expected:
                return False
            self._hash_for_write(key, ttl)[field] = value
            return True

    def add_capped(self, key: str, field: str, value: str, cap: int, ttl: float) -> Added:
        with self._lock:
            found = self._live(key) or {}
            if field in found:
                return Added.EXISTS
            if len(found) >= cap:
                return Added.FULL
            self._hash_for_write(key, ttl)[field] = value
            return Added.ADDED

    def raise_to(self, key: str, field: str, value: int) -> bool:
        with self._lock:
            found = self._live(key)
            if found is None:
                return False  # like Redis's script below: nothing to raise in an absent hash
            if value <= int(found.get(field, "-1")):
                return False
            found[field] = str(value)
            return True

    def take_token(self, key: str, field: str, capacity: float, per_second: float, now: float, ttl: float) -> bool:
        with self._lock:
            found = self._hash_for_write(key, ttl)
            tokens, last = _parse_bucket(found.get(field), capacity, now)
            tokens = min(capacity, tokens + max(0.0, now - last) * per_second)
            taken = tokens >= 1.0
            left = tokens - 1.0 if taken else tokens
            found[field] = f"{left!r} {max(now, last)!r}"
            return taken

    def remove(self, key: str, fields: Iterable[str]) -> None:
        with self._lock:
            found = self._live(key)
            for field in fields:
                if found is not None:
                    found.pop(field, None)

    def delete(self, keys: Iterable[str]) -> None:
        with self._lock:
            for key in keys:
                self._hashes.pop(key, None)
                self._expires.pop(key, None)

    def expire(self, keys: Iterable[str], ttl: float) -> None:
        with self._lock:
            for key in keys:
                if self._live(key) is not None:
                    self._expires[key] = self._clock() + ttl


def _parse_bucket(text: str | None, capacity: float, now: float) -> tuple[float, float]:
    """A stored bucket ``"<tokens> <time>"``; a full bucket when absent or unreadable."""
    try:
        tokens, last = (float(part) for part in (text or "").split())
    except ValueError:
        return capacity, now
    return tokens, last


# Lua for the compound operations: each runs atomically inside Redis. A false HGET is Lua's nil.
_WRITE_IF = """
if redis.call('HGET', KEYS[2], ARGV[4]) ~= ARGV[5] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
_ADD_CAPPED = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 2 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 0
"""
_RAISE_TO = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if tonumber(ARGV[2]) <= current then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
_TAKE_TOKEN = """
local capacity, per_second, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local tokens, last = capacity, now
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then
  local space = string.find(stored, ' ', 1, true)
  tokens = tonumber(string.sub(stored, 1, space - 1)) or capacity
  last = tonumber(string.sub(stored, space + 1)) or now
end
local elapsed = now - last
if elapsed < 0 then elapsed = 0 end
tokens = math.min(capacity, tokens + elapsed * per_second)
local taken = 0
if tokens >= 1 then tokens = tokens - 1; taken = 1 end
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.17g %.17g', tokens, math.max(now, last)))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return taken
"""
_ADDED = {0: Added.ADDED, 1: Added.EXISTS, 2: Added.FULL}


def _ms(ttl: float) -> int:
    return max(1, int(ttl * 1000))


class RedisClassStore:
    """:class:`ClassStore` on a Redis server (``url`` like ``redis://host:6379/0``). Thread-safe
    (the client's connection pool). Connection failures and a server still loading its data raise
    :class:`StoreUnavailable` quickly (short time-outs, one retry), so a page is never held up long."""

    def __init__(self, url: str, *, connect_timeout: float = 1.0, timeout: float = 2.0) -> None:
        import redis  # here: the in-process default needs no client package
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self._unavailable: tuple[type[BaseException], ...] = (
            redis.ConnectionError, redis.TimeoutError, redis.exceptions.ReadOnlyError)
        self._client = redis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=connect_timeout, socket_timeout=timeout,
            retry=Retry(NoBackoff(), 1), health_check_interval=30)
        self._scripts = {name: self._client.register_script(source) for name, source in
                         [("write_if", _WRITE_IF), ("add_capped", _ADD_CAPPED), ("raise_to", _RAISE_TO),
                          ("take_token", _TAKE_TOKEN)]}
        self._down_lock = threading.Lock()
        self._down = False  # logged on each change only, not on every failed call

    def _call(self, what: Callable[[], Any]) -> Any:
        try:
            result = what()
        except self._unavailable as error:
            self._set_down(True, error)
            raise StoreUnavailable(f"the class store cannot be reached ({type(error).__name__})") from error
        self._set_down(False, None)
        return result

    def _set_down(self, down: bool, error: BaseException | None) -> None:
        with self._down_lock:
            changed, self._down = self._down != down, down
        if changed and down:
            _log.warning("Redis class store unreachable, live classes paused: %s", error)
        elif changed:
            _log.warning("Redis class store reachable again, live classes resume")

    def read(self, key: str, fields: Sequence[str]) -> list[str | None]:
        return self._call(lambda: self._client.hmget(key, list(fields)))

    def read_all(self, key: str) -> dict[str, str]:
        return self._call(lambda: self._client.hgetall(key))

    def size(self, key: str) -> int:
        return self._call(lambda: self._client.hlen(key))

    def write(self, key: str, fields: Mapping[str, str], ttl: float, bump: str | None = None) -> int | None:
        def run() -> int | None:
            pipe = self._client.pipeline(transaction=True)
            if fields:
                pipe.hset(key, mapping=dict(fields))
            if bump is not None:
                pipe.hincrby(key, bump, 1)
            pipe.pexpire(key, _ms(ttl))
            results = pipe.execute()
            return int(results[-2]) if bump is not None else None

        return self._call(run)

    def write_if(self, key: str, field: str, value: str, ttl: float, *, guard_key: str, guard_field: str,
                 expected: str) -> bool:
        return bool(self._call(lambda: self._scripts["write_if"](
            keys=[key, guard_key], args=[field, value, _ms(ttl), guard_field, expected])))

    def add_capped(self, key: str, field: str, value: str, cap: int, ttl: float) -> Added:
        return _ADDED[int(self._call(lambda: self._scripts["add_capped"](
            keys=[key], args=[field, value, cap, _ms(ttl)])))]

    def raise_to(self, key: str, field: str, value: int) -> bool:
        return bool(self._call(lambda: self._scripts["raise_to"](keys=[key], args=[field, value])))

    def take_token(self, key: str, field: str, capacity: float, per_second: float, now: float, ttl: float) -> bool:
        return bool(self._call(lambda: self._scripts["take_token"](
            keys=[key], args=[field, repr(float(capacity)), repr(float(per_second)), repr(float(now)), _ms(ttl)])))

    def remove(self, key: str, fields: Iterable[str]) -> None:
        names = list(fields)
        if names:
            self._call(lambda: self._client.hdel(key, *names))

    def delete(self, keys: Iterable[str]) -> None:
        names = list(keys)
        if names:
            self._call(lambda: self._client.delete(*names))

    def expire(self, keys: Iterable[str], ttl: float) -> None:
        names = list(keys)

        def run() -> None:
            pipe = self._client.pipeline(transaction=False)
            for name in names:
                pipe.pexpire(name, _ms(ttl))
            pipe.execute()

        if names:
            self._call(run)

    def close(self) -> None:
        """Let go of the connections (a test's server is about to go)."""
        self._client.close()


def store_from_env() -> ClassStore:
    """Redis at ``LMLAB_REDIS_URL`` (e.g. ``redis://localhost:6379/0``) when set, shared by every
    replica; else the in-process store (one server, nothing to install). In production run Redis
    with ``--appendonly yes`` (``appendfsync everysec``) so that a restart of Redis keeps the classes
    in progress: with an in-memory Redis a restart ends every class ("no such class"), though nothing
    raises. A class of 300 students is some tens of kilobytes."""
    url = os.environ.get("LMLAB_REDIS_URL", "").strip()
    if url:
        return RedisClassStore(url)
    return InProcessClassStore()
