"""A browser's upload, kept by its owner key so a new session finds it again.

The sidebar keeps the uploaded bytes in session state; a session ends with its replica (or a reload
on another replica), so each upload is also kept in the owners' store (``server.stores.model_store``:
shared by every replica when Redis is configured) under the owner's key, with its file name, the
corpus settings chosen for it, a time to live (``LMLAB_KEEP_HOURS``, default 12) and the owner's tag
(``owner:KEY``: the Redis back end caps each owner's bytes). Only the owner's own key reaches it:
another browser uploading the same bytes shares the built corpus (by content) but never this record,
so the file name a student sees is the one they chose.

Kept only where it can matter (:func:`keeping_uploads`): with a shared store (``LMLAB_REDIS_URL``),
or where ``LMLAB_KEEP_UPLOADS=1`` asks for it on one server (a reload then finds the upload too). One
server without it keeps today's behaviour: an upload lives as long as its session, and its bytes
never take the place of trained models in the model store's budget.
"""
from __future__ import annotations

import os
from typing import Any

from server.owner_models import owner_tag
from server.store import Store, store_key

SETTINGS = ("tokenizer", "lowercase", "sentence_mode", "min_count", "max_vocab")


def keeping_uploads() -> bool:
    """Whether uploads are kept by owner: a shared store is configured, or ``LMLAB_KEEP_UPLOADS=1``."""
    return bool(os.environ.get("LMLAB_REDIS_URL", "").strip()) or os.environ.get("LMLAB_KEEP_UPLOADS") == "1"


def keep_hours() -> float:
    """How long an upload (and what the owner trained) is kept after it was last saved."""
    try:
        return max(float(os.environ.get("LMLAB_KEEP_HOURS", "12")), 0.01)
    except ValueError:
        return 12.0


def _upload_key(owner: str) -> str:
    return store_key("upload", owner)


def _settings_key(owner: str) -> str:
    return store_key("upload-settings", owner)


def keep_upload(store: Store, owner: str, upload: dict[str, Any], settings: dict[str, Any]) -> None:
    """Keep ``upload`` (name, data, digest, language) and its corpus settings for ``owner``; raises
    ``server.store.TooLarge`` when it does not fit the owner's share."""
    ttl, tags = keep_hours() * 3600, [owner_tag(owner)]
    store.put(_upload_key(owner), dict(upload), len(upload["data"]) + 256, tags=tags, ttl=ttl)
    keep_settings(store, owner, upload["digest"], settings)


def keep_settings(store: Store, owner: str, digest: str, settings: dict[str, Any]) -> None:
    """Keep the corpus settings ``owner`` uses for the upload with this digest."""
    value = {"digest": digest, **{name: settings[name] for name in SETTINGS if name in settings}}
    store.put(_settings_key(owner), value, 512, tags=[owner_tag(owner)], ttl=keep_hours() * 3600)


def kept_upload(store: Store, owner: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``owner``'s kept upload and the settings kept with it (none if they belong to another upload)."""
    upload = store.get(_upload_key(owner))
    if upload is None:
        return None
    settings = store.get(_settings_key(owner)) or {}
    if settings.get("digest") != upload.get("digest"):
        settings = {}
    return upload, {name: settings[name] for name in SETTINGS if name in settings}


def forget_upload(store: Store, owner: str) -> None:
    """The owner removed the upload: drop it (and its settings) from the store."""
    store.discard(_upload_key(owner))
    store.discard(_settings_key(owner))
