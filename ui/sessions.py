"""What live Streamlit sessions use (an upload, a browser's training runs), and a sweeper thread
that acts on what none of them uses any more. Thread-safe: script threads touch, the sweeper reads."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

SWEEP_SECONDS = 3.0


class SessionUse:
    """Keys (an upload's tags, a browser's owner id) and the sessions that use them. A key none of
    whose sessions has been connected for ``grace`` seconds is *unused*: reported once, then
    forgotten (touching it again starts over). ``exclusive``: a session uses one key at a time."""

    def __init__(self, grace: float = 0.0, exclusive: bool = False) -> None:
        self.grace, self.exclusive = grace, exclusive
        self._lock = threading.Lock()
        self._users: dict[str, set[str]] = {}
        self._alone_since: dict[str, float] = {}

    def touch(self, session_id: str, *keys: str) -> None:
        """The session uses ``keys`` now (with ``exclusive``: and no other key)."""
        with self._lock:
            if self.exclusive:
                for users in self._users.values():
                    users.discard(session_id)
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
