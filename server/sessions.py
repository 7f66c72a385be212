"""What live Streamlit sessions use (an upload, a browser's training runs), a sweeper thread that
acts on what none of them uses any more, and the closer that ends sessions whose browser has gone.
Thread-safe: script threads touch, the sweepers read.

Why the closer: Streamlit keeps a disconnected session (its Session State, its uploaded files) for a
reconnect, in a store whose entries expire after ``server.disconnectedSessionTTL`` (120 s) but are
only removed on the store's next write, and removed *without* the session's shutdown, so its uploaded
files stay in the upload manager for good. After a class, every student's upload and corpus would
stay in the server. The closer shuts such sessions down itself once they have been disconnected for
``reconnect_seconds()``, and removes upload files no session owns any more.
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable

from server.env import env_number

SWEEP_SECONDS = 3.0
CLOSER_SECONDS = 1.0  # how often the closer looks at the disconnected sessions
AFTER_CLOSE_AGAIN_SECONDS = (1.0, 2.0, 3.0, 5.0, 8.0, 13.0)  # a closed session's script thread, or a run its browser
# left (server/presence.py stops those after LEFT_AFTER_SECONDS), lets go of its objects a little later


class SessionUse:
    """Keys (an upload's tags, a browser's owner id) and the sessions that use them. A key none of
    whose sessions has been connected for ``grace`` seconds is *unused*: reported once, then
    forgotten (touching it again starts over)."""

    def __init__(self, grace: float = 0.0) -> None:
        self.grace = grace
        self._lock = threading.Lock()
        self._users: dict[str, set[str]] = {}
        self._alone_since: dict[str, float] = {}

    def touch(self, session_id: str, *keys: str) -> None:
        """The session uses ``keys`` now."""
        with self._lock:
            for key in keys:
                self._users.setdefault(key, set()).add(session_id)
                self._alone_since.pop(key, None)

    def unused(self, is_active: Callable[[str], bool], now: float) -> list[str]:
        """Keys without an active session for ``grace`` seconds at ``now`` (then forgotten)."""
        out = []
        with self._lock:
            for key in list(self._users):
                live = self._users[key] = {s for s in self._users[key] if is_active(s)}
                if live:
                    self._alone_since.pop(key, None)
                elif now - self._alone_since.setdefault(key, now) >= self.grace:
                    del self._users[key], self._alone_since[key]
                    out.append(key)
        return out


def start_sweeper(name: str, use: SessionUse, act: Callable[[list[str]], None]) -> None:
    """A daemon thread: every few seconds, ``act(keys)`` on the keys of ``use`` that became unused."""
    def sweep() -> None:
        from streamlit.runtime import Runtime

        while True:
            time.sleep(SWEEP_SECONDS)
            if Runtime.exists() and (keys := use.unused(Runtime.instance().is_active_session, time.monotonic())):
                act(keys)

    threading.Thread(target=sweep, name=name, daemon=True).start()


def connected_sessions() -> int | None:
    """Sessions connected to this server now; None outside a real server (AppTest's runtime is a mock)."""
    from streamlit.runtime import Runtime

    try:
        if Runtime.exists() and isinstance(Runtime.instance(), Runtime):
            return Runtime.instance()._session_mgr.num_active_sessions()
    except Exception:  # stopping, or Streamlit changed: as if there were no server
        pass
    return None


def reconnect_seconds() -> float:
    """How long a disconnected session waits for its browser to reconnect (a network blip, a laptop
    waking up) before it is closed: ``LMLAB_RECONNECT_SECONDS``, default 5."""
    return env_number("LMLAB_RECONNECT_SECONDS", 5.0, minimum=0.0)


class DisconnectedSince:
    """When each disconnected session was first seen so; which have waited ``grace`` seconds."""

    def __init__(self, grace: float) -> None:
        self.grace = grace
        self._since: dict[str, float] = {}

    def due(self, disconnected: Iterable[str], now: float) -> list[str]:
        """The sessions among ``disconnected`` (all there are now) seen so for ``grace`` seconds."""
        current = set(disconnected)
        self._since = {sid: t for sid, t in self._since.items() if sid in current}
        return [sid for sid in current if now - self._since.setdefault(sid, now) >= self.grace]


def close_gone_sessions(runtime, waiting: DisconnectedSince, now: float) -> int:
    """On the event loop thread: close the sessions disconnected for the grace time, and drop the
    upload files of sessions Streamlit no longer knows (e.g. pushed out of its full store). Returns
    how many sessions and orphaned file sets went."""
    manager = runtime._session_mgr  # Streamlit internals (1.67): WebsocketSessionManager
    storage = getattr(manager, "_session_storage", None)
    if storage is None:
        return 0
    due = waiting.due((info.session.id for info in storage.list()), now)
    for session_id in due:
        runtime.close_session(session_id)
    files = runtime.uploaded_file_mgr
    known = {info.session.id for info in manager.list_sessions()}
    orphans = [sid for sid in list(getattr(files, "file_storage", {})) if sid not in known]
    for session_id in orphans:
        files.remove_session_files(session_id)
    return len(due) + len(orphans)


def start_session_closer(after_close: Callable[[], None]) -> None:
    """A daemon thread: every ``CLOSER_SECONDS``, :func:`close_gone_sessions` on the event loop,
    then ``after_close()`` on this thread when something went (e.g. give the memory back), and again
    ``AFTER_CLOSE_AGAIN_SECONDS`` later."""
    waiting = DisconnectedSince(reconnect_seconds())

    async def close_on_loop(runtime) -> int:
        return close_gone_sessions(runtime, waiting, time.monotonic())

    def closed_any() -> bool:
        from streamlit.runtime import Runtime

        try:
            if not Runtime.exists():
                return False
            runtime = Runtime.instance()
            loop = runtime._async_objs.eventloop
            if loop.is_closed():
                return False
            return asyncio.run_coroutine_threadsafe(close_on_loop(runtime), loop).result(timeout=30) > 0
        except Exception:  # not started yet, stopped, not a real server (AppTest), or Streamlit changed
            return False

    def run() -> None:
        again: list[float] = []  # when to call after_close() again
        while True:
            time.sleep(CLOSER_SECONDS)
            now = time.monotonic()
            if closed_any():
                after_close()
                again = [now + delay for delay in AFTER_CLOSE_AGAIN_SECONDS]
            elif again and now >= again[0]:
                after_close()
                again.pop(0)

    threading.Thread(target=run, name="lmlab-session-closer", daemon=True).start()
