"""The people of the live-class bench (bench/live_class.py).

* :class:`LiveWs`: a student over Streamlit's websocket protocol (bench/classroom_ws.py). It notes,
  as each element arrives, what its page shows: the slide it was moved to (a full run finished with
  ``slide=`` in its address), the paused message, its answer taken ("Your answer: ..."), an error.
* :class:`Projector`: the instructor, a websocket client too, in projector view. The count it reads
  ("12 of 60 answered") is the element the projector's browser draws, taken from the same message
  the moment it arrives (a browser would add its own drawing time, a few milliseconds).
* :class:`LiveBrowser`: a student in Chromium (Playwright), a phone-sized one among them.
"""
from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable
from urllib.parse import parse_qs

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.WidgetStates_pb2 import WidgetState

from classroom_browser import CHROMIUM_ARGS, SETTLED
from classroom_common import Recorder, SettleTimeout
from classroom_runs import text_elements
from classroom_widgets import user_key
from classroom_ws import WsStudent

ANSWERED = re.compile(r"(\d+) of (\d+) answered")
JOINED = re.compile(r"Live class (\w{5}) · (\d+) joined")
PAUSED = "The class is paused"
TAKEN = "Your answer:"
ANSWER_KEY = "lmlab-live-in-"
ANSWER_BOX_WAIT = 20.0  # seconds a student waits for the answer box of the open question


class LiveWs(WsStudent):
    """A websocket student of a live class (see the module's docstring)."""

    def __init__(self, index: int, base_url: str, recorder: Recorder, settle_timeout: float) -> None:
        super().__init__(index, base_url, recorder, settle_timeout)
        self.follow_target: str | None = None  # the slide the instructor moved to ...
        self.follow_at: float | None = None  # ... and when this page first showed it
        self.paused_at: float | None = None  # when a paused message was last drawn
        self.taken_at: float | None = None  # when "Your answer: ..." was last drawn
        self.refused: str | None = None  # the last error message drawn
        self.counts: list[tuple[float, int]] = []  # (time, answered) each time the drawn count changed
        self.joined = 0  # the projector's "N joined"
        self.code = ""

    # ------------------------------------------------------------------ what arrives
    def _on_delta(self, msg, raw: bytes) -> None:
        super()._on_delta(msg, raw)
        element = msg.delta.new_element
        kind = element.WhichOneof("type") if msg.delta.WhichOneof("type") == "new_element" else None
        if kind == "markdown":
            body = element.markdown.body
        elif kind == "alert":
            body = element.alert.body
            if element.alert.format == Alert.ERROR:
                self.refused = body
        else:
            return
        now = time.monotonic()
        if PAUSED in body:
            self.paused_at = now
        elif body.startswith(TAKEN):
            self.taken_at = now
        elif found := ANSWERED.search(body):
            if not self.counts or self.counts[-1][1] != int(found[1]):
                self.counts.append((now, int(found[1])))
        elif found := JOINED.search(body):
            self.code, self.joined = found[1], int(found[2])

    def _handle(self, raw: bytes) -> None:
        finished = self.finished
        super()._handle(raw)
        if (self.follow_target is not None and self.follow_at is None and self.finished != finished
                and self.finished == self.runs and self.slide() == self.follow_target):
            self.follow_at = time.monotonic()

    def slide(self) -> str | None:
        return parse_qs(self.query).get("slide", [None])[0]

    async def until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Wait (at most ``timeout`` s) until ``condition()``, checked as messages arrive."""
        deadline = time.monotonic() + timeout
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.closing:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), min(remaining, 0.5))
            except TimeoutError:
                pass
        return True

    # ------------------------------------------------------------------ a student's actions
    def _field(self, prefix: str):
        return next(((kind, p) for kind, p in self.widgets.values() if user_key(p.id).startswith(prefix)), None)

    async def _submit(self, form_id: str, state: WidgetState) -> None:
        """Fill one field of a form and press its submit button, as the frontend does."""
        button = next(p for kind, p in self.widgets.values()
                      if kind == "button" and p.is_form_submitter and p.form_id == form_id)
        self.values[state.id] = state
        await self._rerun(extra=[WidgetState(id=button.id, trigger_value=True)],
                          fragment=self.fragment_of.get(button.id, ""))

    async def join(self, code: str, nickname: str, first_slide: str) -> None:
        """Open the join link, join, and wait until the page follows the instructor's slide."""
        self.follow_target = first_slide
        await self.connect("", "en", query=f"class={code}")
        _, field = self._field("lmlab-live-nickname") or (None, None)
        if field is None:
            raise SettleTimeout(f"no join card on the join link (page: {self.page_name()})")
        await self._submit(field.form_id, WidgetState(id=field.id, string_value=nickname))
        if not await self.until(lambda: self.follow_at is not None, self.timeout):
            raise SettleTimeout(f"joined, but not moved to slide {first_slide} (at {self.slide()})")

    def has_question(self, question: str) -> bool:
        return self._field(f"{ANSWER_KEY}{question}@") is not None

    async def answer(self, question: str, rng: random.Random) -> tuple[float, bool]:
        """Answer the open question (a random number or choice): (when it was sent, whether the
        page then said it was taken)."""
        kind, field = self._field(f"{ANSWER_KEY}{question}@")
        state = WidgetState(id=field.id)
        if kind == "radio":
            state.string_value = rng.choice(list(field.options))
        else:
            state.string_value = f"{rng.uniform(1.0, 60.0):.2f}"
        self.taken_at = self.refused = None
        sent = time.monotonic()
        await self._submit(field.form_id, state)
        # (the run waited for may be the box's own poll, started before the Send: wait for what Send drew)
        await self.until(lambda: self.taken_at is not None or self.refused is not None
                         or (self.paused_at is not None and self.paused_at >= sent), ANSWER_BOX_WAIT)
        return sent, self.taken_at is not None and self.taken_at >= sent

    async def press(self, key: str, timeout: float | None = None) -> float:
        """Press a button once the page is not in a full run (its widgets are drawn anew then)."""
        await self.quiet()
        if not await self.until(lambda: self.has_widget(key), ANSWER_BOX_WAIT):
            raise SettleTimeout(f"no button {key!r} on {self.page_name()}")
        return await self.click(key, timeout)


class Projector(LiveWs):
    """The instructor's projector view (a websocket client)."""

    async def start_class(self, page: str, slide: str) -> tuple[str, str]:
        """Open ``page`` in projector view at ``slide``, press "Start a live class": (code, token)."""
        await self.connect(page, "en", query=f"present=1&slide={slide}")
        await self.click("lmlab-live-start")
        links = [t for t in text_elements(self.page) if "teach=" in t]
        if not self.code or not links:
            raise SettleTimeout("no class code or instructor link on the projector after Start")
        return self.code, re.search(r"teach=([\w-]+)", links[0]).group(1)

    def count_since(self, start: int) -> list[tuple[float, int]]:
        return self.counts[start:]


class LiveBrowser:
    """A student in its own Chromium context (``viewport`` (w, h); a phone when narrow)."""

    def __init__(self, index: int, base_url: str, browser, viewport: tuple[int, int], recorder: Recorder,
                 timeout: float) -> None:
        self.index, self.base, self.browser, self.viewport = index, base_url.rstrip("/"), browser, viewport
        self.rec, self.timeout = recorder, timeout
        self.context = self.page = None

    async def join(self, code: str, nickname: str, first_slide: str) -> None:
        phone = self.viewport[0] < 600
        self.context = await self.browser.new_context(viewport={"width": self.viewport[0], "height": self.viewport[1]},
                                                      is_mobile=phone, has_touch=phone, locale="en-US")
        self.page = await self.context.new_page()
        self.page.on("crash", lambda _: self.rec.error(self.index, "disconnect", "the page crashed"))
        await self.page.goto(f"{self.base}/?class={code}", timeout=self.timeout * 1000)
        join = self.page.locator(".st-key-lmlab-live-join")
        await join.locator("input").fill(nickname, timeout=self.timeout * 1000)
        await join.locator("button").click(timeout=self.timeout * 1000)
        await self.wait_slide(first_slide, time.monotonic())

    async def wait_slide(self, slide: str, since: float) -> float:
        """Seconds from ``since`` until the page's address names ``slide`` and the page has settled."""
        condition = f"new URLSearchParams(location.search).get('slide') === {json.dumps(slide)} && ({SETTLED})()"
        await self.page.wait_for_function(condition, polling=50, timeout=self.timeout * 1000)
        return time.monotonic() - since

    async def answer(self, question: str, rng: random.Random) -> tuple[float, bool]:
        """Answer in the live box: a choice clicked or a number typed, then Send."""
        box = self.page.locator(".st-key-lmlab-live-box")
        wait = ANSWER_BOX_WAIT * 1000
        await box.locator("input, [data-testid='stRadio']").first.wait_for(timeout=wait)
        options = box.locator("[data-testid='stRadioGroup'] label")  # the choices (not the widget's own label)
        if await options.count():
            await options.nth(rng.randrange(await options.count())).click(timeout=wait)
        else:
            await box.locator("input").fill(f"{rng.uniform(1.0, 60.0):.2f}", timeout=wait)
        sent = time.monotonic()
        await box.locator("button").click(timeout=wait)
        try:
            await box.get_by_text(TAKEN).wait_for(timeout=wait)
            return sent, True
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: not taken
            return sent, False

    async def shows(self, text: str, timeout: float) -> bool:
        try:
            await self.page.get_by_text(text).first.wait_for(timeout=timeout * 1000)
            return True
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError
            return False

    async def exceptions(self) -> int:
        """Exception boxes or the word Traceback on the page now."""
        boxes = await self.page.locator("[data-testid='stException']").count()
        return boxes + ("Traceback" in await self.page.evaluate("document.body.innerText"))

    async def close(self) -> None:
        if self.context is not None:
            await self.context.close()


async def launch_chromium(playwright):
    """Debian's Chromium, headless (``playwright install`` cannot run here)."""
    from classroom_browser import CHROMIUM

    return await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
