"""The back-end switch for what must survive a replica: a browser's trained models and kept upload.

``LMLAB_REDIS_URL`` set (e.g. ``redis://store-host:6379/0``, the same variable the live class reads):
they are kept in Redis (``server.redis_store.RedisStore``), shared by every replica and worker on
every machine, within ``LMLAB_REDIS_MB`` (default 2048) and at most ``LMLAB_OWNER_MB`` (default 256)
per browser, for ``LMLAB_KEEP_HOURS`` (default 12). Unset: ``None``, and each process keeps its own
in-process store (one server: today's default).
"""
from __future__ import annotations

import functools
import os

from server.env import env_number
from server.store import Store
from server.uploads import keep_hours

NAMESPACE = "lmlab:owners:"


def redis_url() -> str | None:
    """The shared store's URL, or None for one server with in-process stores."""
    return os.environ.get("LMLAB_REDIS_URL", "").strip() or None


def owners_store(local_budget: int) -> Store | None:
    """The shared store of owners' models and uploads (this process keeps up to ``local_budget``
    bytes of decoded copies), or None without ``LMLAB_REDIS_URL``."""
    url = redis_url()
    if url is None:
        return None
    from server.redis_store import RedisStore

    return RedisStore.from_url(url, NAMESPACE, int(env_number("LMLAB_REDIS_MB", 2048, minimum=16)) * 2**20,
                               item_share=1.0, owner_cap=int(env_number("LMLAB_OWNER_MB", 256, minimum=1)) * 2**20,
                               local_budget=local_budget, default_ttl=keep_hours() * 3600)


@functools.cache
def inputs_store() -> Store | None:
    """Where a queued run's input (a corpus's token lists) waits for a worker on another machine: Redis
    with ``LMLAB_REDIS_URL`` (namespace ``lmlab:inputs:``), else None (the process's data store)."""
    url = redis_url()
    if url is None:
        return None
    from server.redis_store import RedisStore

    return RedisStore.from_url(url, "lmlab:inputs:", int(env_number("LMLAB_REDIS_MB", 2048, minimum=16)) * 2**20,
                               local_budget=256 * 2**20, default_ttl=keep_hours() * 3600)
