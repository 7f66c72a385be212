"""The Redis back end of :class:`server.store.Store`: what every replica (and worker) must share.

Values cross as bytes (``server.codecs``: a trained model as its state dict, the rest pickled). Under
one ``namespace`` prefix Redis holds, for each key: the encoded value (``v:KEY``, with Redis's own
expiry as a backstop for a TTL), its accounted size (hash ``size``), its version (hash ``ver``), its
last use (sorted set ``lru``), its expiry on the store's clock (sorted set ``exp``) and its tags (set
``tags:KEY``; each tag a sorted set ``tag:TAG`` of its keys by the time they were put). Every change
runs as one Lua script, so several processes on several machines keep one consistent budget.

- **Size**: the caller's ``size``, as on every back end (the same budget figures in one process or
  many; for the values the app keeps — arrays, tensors, state dicts — within a few per cent of the
  encoded length), and an item whose encoded length alone is over the limit is refused too.
- **Per-owner cap**: with ``owner_cap``, the items carrying one tag that starts with
  ``owner_prefix`` (``owner:KEY``, a browser) take at most ``owner_cap`` bytes together; a new item
  pushes out that owner's oldest, never another owner's. An item over the cap is :class:`TooLarge`.
- **Single flight across processes**: threads of one process share one build (as in
  :class:`~server.store.InProcessStore`); between processes the builder holds a ``SET NX PX`` lock,
  the others poll (bounded backoff) until the value appears, the lock goes (then one of them builds)
  or ``wait_seconds`` pass (then they build anyway).
- **Decoded copies**: each process keeps the objects it put or decoded last (bounded by
  ``local_budget``), checked against the key's version in Redis: a read is one round trip, and
  decodes only when another process has put a new value.
- **Redis unreachable**: nobody sees an error. A read answers from this process's copy (else
  "missing": the page builds or trains anew), a write keeps the value in this process only, a build
  runs here; each failure is logged. What was written meanwhile is not shared, and says so in the log.
- ``default_ttl``: the time to live of a ``put`` that gives none (what an owner made is not kept
  for ever).
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from server.codecs import decode, encode
from server.store import SingleFlight, TooLarge

V = TypeVar("V")
log = logging.getLogger(__name__)


def _redis_errors() -> tuple[type[BaseException], ...]:
    import redis

    return (redis.RedisError, OSError)

_COMMON = """
local ns = ARGV[1]
local function drop(key)
  local size = redis.call('HGET', ns..'size', key)
  if size then
    redis.call('DECRBY', ns..'bytes', size)
    redis.call('HDEL', ns..'size', key)
  end
  redis.call('HDEL', ns..'ver', key)
  redis.call('DEL', ns..'v:'..key)
  redis.call('ZREM', ns..'lru', key)
  redis.call('ZREM', ns..'exp', key)
  for _, tag in ipairs(redis.call('SMEMBERS', ns..'tags:'..key)) do
    redis.call('ZREM', ns..'tag:'..tag, key)
    if size then redis.call('DECRBY', ns..'tagbytes:'..tag, size) end
  end
  redis.call('DEL', ns..'tags:'..key)
  return size ~= false
end
local function sweep(now)
  for _, key in ipairs(redis.call('ZRANGEBYSCORE', ns..'exp', '-inf', now)) do drop(key) end
end
"""

# ARGV: ns, key, value, size, now, expiry|'', px|'', budget, owner_cap|'', owner_prefix, tags...
_PUT = _COMMON + """
local key, value, size, now = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local budget, cap, prefix = tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
sweep(now)
drop(key)
for i = 11, #ARGV do
  local tag = ARGV[i]
  if cap and string.sub(tag, 1, #prefix) == prefix then
    while tonumber(redis.call('GET', ns..'tagbytes:'..tag) or '0') + size > cap do
      local oldest = redis.call('ZRANGE', ns..'tag:'..tag, 0, 0)
      if #oldest == 0 then break end
      drop(oldest[1])
    end
  end
end
while tonumber(redis.call('GET', ns..'bytes') or '0') + size > budget do
  local oldest = redis.call('ZRANGE', ns..'lru', 0, 0)
  if #oldest == 0 then break end
  drop(oldest[1])
end
if ARGV[7] ~= '' then
  redis.call('SET', ns..'v:'..key, value, 'PX', ARGV[7])
else
  redis.call('SET', ns..'v:'..key, value)
end
local tick = redis.call('INCR', ns..'tick')
redis.call('HSET', ns..'size', key, size)
redis.call('HSET', ns..'ver', key, tick)
redis.call('INCRBY', ns..'bytes', size)
redis.call('ZADD', ns..'lru', tick, key)
if ARGV[6] ~= '' then redis.call('ZADD', ns..'exp', ARGV[6], key) end
for i = 11, #ARGV do
  local tag = ARGV[i]
  redis.call('SADD', ns..'tags:'..key, tag)
  redis.call('ZADD', ns..'tag:'..tag, tick, key)
  redis.call('INCRBY', ns..'tagbytes:'..tag, size)
end
return tick
"""

# ARGV: ns, key, now, cached version|''|'-'. Returns {} (missing), {version} (the cached copy is
# current, or '-': only whether the key is there) or {version, value}; marks the key used.
_GET = _COMMON + """
local key, now = ARGV[2], ARGV[3]
local expiry = redis.call('ZSCORE', ns..'exp', key)
if expiry and tonumber(expiry) <= tonumber(now) then drop(key) return {} end
local version = redis.call('HGET', ns..'ver', key)
if not version then return {} end
if redis.call('EXISTS', ns..'v:'..key) == 0 then drop(key) return {} end
redis.call('ZADD', ns..'lru', redis.call('INCR', ns..'tick'), key)
if version == ARGV[4] or ARGV[4] == '-' then return {version} end
return {version, redis.call('GET', ns..'v:'..key)}
"""

# ARGV: ns, key. Returns 1 if the key was there.
_DROP = _COMMON + """
if drop(ARGV[2]) then return 1 end
return 0
"""

# ARGV: ns, tag, now. The tag's live keys, newest first; with a 4th argument '1', drops them instead.
_TAGGED = _COMMON + """
sweep(ARGV[3])
local keys = redis.call('ZREVRANGE', ns..'tag:'..ARGV[2], 0, -1)
local live = {}
for _, key in ipairs(keys) do
  if redis.call('EXISTS', ns..'v:'..key) == 1 then
    if ARGV[4] == '1' then drop(key) end
    table.insert(live, key)
  else
    drop(key)
  end
end
return live
"""

# ARGV: ns, lock key, token. Deletes the lock only if this builder still holds it.
_UNLOCK = """
if redis.call('GET', ARGV[2]) == ARGV[3] then return redis.call('DEL', ARGV[2]) end
return 0
"""


class RedisStore:
    """The Redis back end of :class:`server.store.Store` (see the module's docstring).

    ``client`` is a ``redis.Redis`` (bytes, not decoded responses); ``clock`` a wall clock shared by
    the machines (``time.time``; tests pass their own) for TTLs; ``on_wait`` is called with the key
    each time a caller waits for a build in flight (in this process or another)."""

    def __init__(self, client, namespace: str, budget: int, item_share: float = 0.5,
                 owner_cap: int | None = None, owner_prefix: str = "owner:",
                 clock: Callable[[], float] = time.time, on_wait: Callable[[str], None] | None = None,
                 local_budget: int | None = None, wait_seconds: float = 120.0, lock_seconds: float = 600.0,
                 default_ttl: float | None = None) -> None:
        self.budget, self.item_limit = budget, int(budget * item_share)
        self.owner_cap, self.owner_prefix = owner_cap, owner_prefix
        self._redis, self._ns, self._clock, self._on_wait = client, namespace, clock, on_wait
        self._flight = SingleFlight(on_wait)
        self._wait_seconds, self._lock_ms = wait_seconds, int(lock_seconds * 1000)
        self._default_ttl, self._errors = default_ttl, _redis_errors()
        self._put_script = client.register_script(_PUT)
        self._get_script = client.register_script(_GET)
        self._drop_script = client.register_script(_DROP)
        self._tagged_script = client.register_script(_TAGGED)
        self._unlock_script = client.register_script(_UNLOCK)
        self._lock = threading.Lock()
        self._local: OrderedDict[str, tuple[bytes, Any, int]] = OrderedDict()  # key -> version, value, size
        self._local_bytes, self._local_budget = 0, budget if local_budget is None else local_budget

    @classmethod
    def from_url(cls, url: str, namespace: str, budget: int, **kwargs) -> RedisStore:
        """A store on the Redis server at ``url`` (``redis://host:port/db``)."""
        import redis

        return cls(redis.Redis.from_url(url, socket_connect_timeout=5, health_check_interval=30), namespace, budget, **kwargs)

    @property
    def nbytes(self) -> int:
        return int(self._redis.get(self._ns + "bytes") or 0)

    def __len__(self) -> int:
        return int(self._redis.hlen(self._ns + "size"))

    def __contains__(self, key: str) -> bool:
        try:
            return self._fetch(key, want_value=False) is not None
        except self._errors as error:
            self._unreachable("contains", key, error)
            with self._lock:
                return key in self._local

    def get(self, key: str) -> Any | None:
        try:
            return self._fetch(key)
        except self._errors as error:
            self._unreachable("get", key, error)
            with self._lock:
                cached = self._local.get(key)
            return None if cached is None else cached[1]

    def put(self, key: str, value: Any, size: int, tags: Iterable[str] = (), ttl: float | None = None) -> None:
        """Store ``value`` (encoded by its key's codec), evicting the least recently used items, and
        this owner's oldest items past ``owner_cap``, to make room."""
        data = encode(key, value)
        tags = tuple(tags)
        limit = self.item_limit
        if self.owner_cap is not None and any(t.startswith(self.owner_prefix) for t in tags):
            limit = min(limit, self.owner_cap)
        if max(size, len(data)) > limit:
            raise TooLarge(max(size, len(data)), limit)
        now, ttl = self._clock(), self._default_ttl if ttl is None else ttl
        expiry = px = ""
        if ttl is not None:
            expiry, px = repr(now + ttl), str(int(ttl * 1000) + 1000)  # Redis's own expiry: a backstop
        try:
            version = str(self._put_script(args=[self._ns, key, data, size, repr(now), expiry, px, self.budget,
                                                 "" if self.owner_cap is None else self.owner_cap,
                                                 self.owner_prefix, *tags])).encode()
        except self._errors as error:
            self._unreachable("put (kept in this process only)", key, error)
            version = b"local"
        self._remember(key, version, value, size)

    def get_or_build(self, key: str, build: Callable[[], V], size: Callable[[V], int],
                     tags: Iterable[str] = (), ttl: float | None = None) -> V:
        """The stored value, else ``build()`` stored as ``size(value)`` bytes, built once however
        many threads and processes ask at the same time (see the module's docstring)."""
        found = self.get(key)
        if found is not None:
            return found
        return self._flight.run(key, lambda: self._build_across_processes(key, build, size, tuple(tags), ttl),
                                lambda: self.get_or_build(key, build, size, tags, ttl))

    def discard(self, key: str) -> bool:
        """Drop ``key``; whether it was there."""
        self._forget(key)
        try:
            return bool(self._drop_script(args=[self._ns, key]))
        except self._errors as error:
            self._unreachable("discard", key, error)
            return False

    def discard_tag(self, tag: str) -> int:
        """Drop every item stored with ``tag``; the number dropped."""
        keys = self._tagged(tag, "1")
        for key in keys:
            self._forget(key)
        return len(keys)

    def tagged(self, tag: str) -> list[str]:
        """The keys stored with ``tag`` (and not expired), the most recently put first."""
        return self._tagged(tag, "0")

    def _tagged(self, tag: str, drop: str) -> list[str]:
        try:
            return [k.decode() for k in self._tagged_script(args=[self._ns, tag, repr(self._clock()), drop])]
        except self._errors as error:
            self._unreachable("tagged", tag, error)
            return []

    def _unreachable(self, what: str, key: str, error: BaseException) -> None:
        log.warning("shared store unreachable: %s %r: %r", what, key, error)

    def clear(self) -> None:
        """Drop every key of this namespace (other namespaces on the same server stay)."""
        with self._lock:
            self._local.clear()
            self._local_bytes = 0
        batch = []
        for name in self._redis.scan_iter(match=self._ns.replace("*", r"\*") + "*", count=500):
            batch.append(name)
            if len(batch) >= 500:
                self._redis.delete(*batch)
                batch = []
        if batch:
            self._redis.delete(*batch)

    # ------------------------------------------------------------------ inside
    def _fetch(self, key: str, want_value: bool = True) -> Any | None:
        with self._lock:
            cached = self._local.get(key)
        known = cached[0] if cached is not None else b""
        found = self._get_script(args=[self._ns, key, repr(self._clock()), known if want_value else "-"])
        if not found:
            self._forget(key)
            return None
        if not want_value:
            return True
        version = found[0]
        if len(found) == 1 and cached is not None:
            with self._lock:
                if key in self._local:
                    self._local.move_to_end(key)
            return cached[1]
        value = decode(key, found[1])
        self._remember(key, version, value, len(found[1]))
        return value

    def _remember(self, key: str, version: bytes, value: Any, size: int) -> None:
        with self._lock:
            old = self._local.pop(key, None)
            if old is not None:
                self._local_bytes -= old[2]
            if size > self._local_budget:
                return
            self._local[key] = (version, value, size)
            self._local_bytes += size
            while self._local_bytes > self._local_budget:
                self._local_bytes -= self._local.popitem(last=False)[1][2]

    def _forget(self, key: str) -> None:
        with self._lock:
            old = self._local.pop(key, None)
            if old is not None:
                self._local_bytes -= old[2]

    def _build_across_processes(self, key: str, build: Callable[[], V], size: Callable[[V], int],
                                tags: tuple[str, ...], ttl: float | None) -> V:
        lock, token = self._ns + "lock:" + key, secrets.token_hex(8)
        deadline, pause, told = time.monotonic() + self._wait_seconds, 0.01, False
        while time.monotonic() < deadline:
            try:
                locked = self._redis.set(lock, token, nx=True, px=self._lock_ms)
            except self._errors as error:
                self._unreachable("build lock", key, error)
                break
            if locked:
                try:
                    found = self.get(key)  # built by another process between our look and the lock
                    if found is not None:
                        return found
                    value = build()
                    self.put(key, value, size(value), tags, ttl)
                    return value
                finally:
                    try:
                        self._unlock_script(args=[self._ns, lock, token])
                    except self._errors as error:  # the lock expires by itself
                        self._unreachable("unlock", key, error)
            if not told and self._on_wait is not None:
                self._on_wait(key)
                told = True
            time.sleep(pause)  # another process builds: wait for its value or its lock to go
            pause = min(pause * 2, 0.2)
            found = self.get(key)
            if found is not None:
                return found
        value = build()  # the other builder too slow (or gone without releasing), or no Redis: build here
        self.put(key, value, size(value), tags, ttl)
        return value
