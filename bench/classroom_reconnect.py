"""A websocket student that reconnects when its server goes away, as Streamlit's frontend does.

When the websocket drops (its replica died), the frontend keeps its widget values and connects
again to the same address: the balancer sends it to a live replica (its affinity cookie named a
dead one), where it gets a fresh session, and the page runs again. :class:`ReconnectingStudent`
does the same (the same HTTP session: its cookies, hence its owner key, go along), within
``RECONNECT_SECONDS``; the action the drop interrupted is lost, and the student carries on from the
page it was on. ``first_replica`` / ``moved_to`` say where it started and where it landed;
``gave_up`` that it could not reconnect (then the session ends as before, an error counted).
"""
from __future__ import annotations

import asyncio
import time

import websockets

from classroom_common import SettleTimeout
from classroom_ws import WsStudent

RECONNECT_SECONDS = 90.0  # how long a student keeps trying (the frontend tries for good)
RETRY_PAUSE = 1.0  # seconds between attempts (the frontend backs off from 0.5 s)


class ReconnectingStudent(WsStudent):
    """:class:`classroom_ws.WsStudent` that reconnects after a dropped websocket (see the module)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lang, self.user_closed, self.gave_up = "en", False, False
        self.first_replica: str | None = None
        self.moved_to: str | None = None
        self.reconnect_seconds: list[float] = []

    async def connect(self, url_path: str, lang: str) -> float:
        self.lang = lang
        seconds = await super().connect(url_path, lang)
        if self.first_replica is None:
            self.first_replica = self.rec.replicas.get(self.index)
        return seconds

    async def _read(self) -> None:
        """Read as before; when the websocket is gone, a pending upload request fails at once (it
        would wait out its timeout) so the student can reconnect."""
        try:
            await super()._read()
        finally:
            for future in self.file_urls.values():
                if not future.done():
                    future.set_exception(ConnectionError("websocket closed"))

    async def close(self) -> None:
        self.user_closed = True
        await super().close()

    def _current_path(self) -> str:
        return next((path for path, h in self.pages.items() if h == self.page_hash), "")

    async def reconnect(self) -> bool:
        """Connect again through the same address and reopen the current page (bounded); False if
        that did not work within ``RECONNECT_SECONDS``."""
        start = time.monotonic()
        path = self._current_path()
        while time.monotonic() - start < RECONNECT_SECONDS and not self.user_closed:
            self._stop_auto_reruns()
            if self.reader is not None:
                self.reader.cancel()
                await asyncio.gather(self.reader, return_exceptions=True)
            if self.ws is not None:
                await asyncio.gather(self.ws.close(), return_exceptions=True)
            self.closing, self.reader, self.ws = False, None, None
            try:
                await super().connect(path, self.lang)
            except SettleTimeout as error:  # connected, but the page was slow: connected all the same
                if self.closing:
                    continue
                self.rec.error(self.index, "timeout", f"reopening the page after a reconnect: {error}")
            except (ConnectionError, OSError, websockets.WebSocketException):
                await asyncio.sleep(RETRY_PAUSE)
                continue
            self.moved_to = self.rec.replicas.get(self.index)
            self.reconnect_seconds.append(time.monotonic() - start)
            return True
        self.gave_up, self.closing = True, True
        return False

    async def _carry_on(self, action, *args, **kwargs):
        """Run one action; after a dropped websocket, reconnect and go on (the action is lost: None)."""
        try:
            return await action(*args, **kwargs)
        except (ConnectionError, OSError) as error:
            if isinstance(error, TimeoutError) and not self.closing:
                raise  # slow, not gone
            if self.user_closed or self.gave_up or not await self.reconnect():
                raise
            return None

    async def navigate(self, url_path: str) -> float | None:
        return await self._carry_on(super().navigate, url_path)

    async def move_control(self, rng) -> float | None:
        return await self._carry_on(super().move_control, rng)

    async def smallest(self, key: str) -> float | None:
        return await self._carry_on(super().smallest, key)

    async def click(self, key: str, timeout: float | None = None) -> float | None:
        return await self._carry_on(super().click, key, timeout)

    async def upload(self, name: str, data: bytes, resend: bool = False) -> float | None:
        return await self._carry_on(super().upload, name, data, resend)

    async def open_part(self, labels: set[str]) -> bool | None:
        return await self._carry_on(super().open_part, labels)

    async def quiet(self) -> None:
        return await self._carry_on(super().quiet)
