"""One student in a real Chromium tab (Playwright, one browser context each): what a page really shows.

Settled = [data-testid=stApp][data-test-connection-state=CONNECTED], script state notRunning and
no stSkeleton (as Streamlit's own e2e tests wait). An init script counts the script runs that
start (data-test-script-state becoming "running"), so an action waits for its own run instead of
a fixed pause. A navigation clicked while a status fragment's poll runs never sees the state
become "running" (it already is): it counts as started once the new page's title is drawn.
Errors: stException elements, the text "Traceback", a disconnected app, a closed websocket, an HTTP
response ≥ 500, a crashed page.
"""
from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from classroom_common import PAGES, PART_BAR, REPLICA_COOKIE, Recorder, SettleTimeout

from lmcore.i18n import t

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-dev-shm-usage"]
COUNT_RUNS = """
window.__runs = 0;
new MutationObserver(ms => ms.forEach(m => {
  if (m.target.getAttribute('data-test-script-state') === 'running') window.__runs += 1;
})).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
"""
SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
    && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.querySelectorAll('[data-testid="stSkeleton"]').length === 0;
}"""
NO_RUN_AFTER_MS = 2000  # an action that starts no run within this time changed nothing
CLICK_TIMEOUT_MS = 15000  # a control that cannot be clicked for this long is a client error


class BrowserStudent:
    """A Streamlit session in its own Playwright browser context."""

    def __init__(self, index: int, base_url: str, recorder: Recorder, settle_timeout: float, browser) -> None:
        self.index, self.base, self.rec, self.timeout, self.browser = index, base_url.rstrip("/"), recorder, settle_timeout, browser
        self.context = self.page = None
        self.closing = False
        self.current = self.lang = ""

    async def connect(self, url_path: str, lang: str) -> float:
        self.lang = lang
        self.context = await self.browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
        await self.context.add_init_script(COUNT_RUNS)
        self.page = await self.context.new_page()
        self.page.on("response", self._on_response)
        self.page.on("websocket", self._on_websocket)
        self.page.on("crash", lambda _: self.rec.error(self.index, "disconnect", "the page crashed"))
        start = time.monotonic()
        await self.page.goto(f"{self.base}/{url_path}?lang={lang}", timeout=self.timeout * 1000)
        await self._settle(0)
        self.current = url_path
        for cookie in await self.context.cookies():
            if cookie["name"] == REPLICA_COOKIE:
                self.rec.replicas[self.index] = cookie["value"]
        return time.monotonic() - start

    def _on_response(self, response) -> None:
        if response.status >= 500:
            self.rec.error(self.index, "http", f"{response.request.method} {response.url}: {response.status}")

    def _on_websocket(self, ws) -> None:
        def closed(_):
            if not self.closing:
                self.rec.error(self.index, "disconnect", "the app's websocket closed")
        ws.on("close", closed)

    async def close(self) -> None:
        self.closing = True
        if self.context is not None:
            await self.context.close()

    async def _settle(self, runs_before: int, timeout: float | None = None, must_run: bool = False,
                      or_drawn: str = "false") -> bool:
        """Wait for a run started after the action (or ``or_drawn``, a JS condition, true) to finish;
        False when the action started none."""
        try:
            wait = (timeout or self.timeout) * 1000 if must_run else NO_RUN_AFTER_MS
            await self.page.wait_for_function(f"window.__runs > {runs_before} || ({or_drawn})", timeout=wait)
            started = True
        except Exception as error:  # noqa: BLE001 - Playwright's TimeoutError: no run started
            if must_run:
                raise SettleTimeout(f"no run started within {wait / 1000:.0f} s") from error
            started = False
        try:
            await self.page.wait_for_function(SETTLED, timeout=(timeout or self.timeout) * 1000, polling=50)
        except Exception as error:  # noqa: BLE001
            raise SettleTimeout(f"page not settled within {timeout or self.timeout:.0f} s") from error
        await self._check_errors()
        return started

    async def _runs(self) -> int:
        return await self.page.evaluate("window.__runs")

    async def _check_errors(self) -> None:
        boxes = self.page.locator("[data-testid='stException']")
        n_boxes = await boxes.count()
        for n in range(n_boxes):
            self.rec.error(self.index, "exception", (await boxes.nth(n).inner_text())[:300])
        if not n_boxes and "Traceback" in await self.text():
            self.rec.error(self.index, "traceback", "the page shows the text 'Traceback'")

    async def _timed(self, act, timeout: float | None = None, must_run: bool = False,
                     or_drawn: str = "false") -> float | None:
        before = await self._runs()
        start = time.monotonic()
        await act()
        started = await self._settle(before, timeout, must_run, or_drawn)
        return time.monotonic() - start if started else None

    async def navigate(self, url_path: str) -> float | None:
        link = self.page.locator(f"[data-testid='stSidebarNav'] a[href$='/{url_path}']")
        stem = next(stem for stem, url, _ in PAGES if url == url_path or (stem == "home" and not url_path))
        titles = [t(f"nav.{stem}", self.lang)] + ([t("app.title", self.lang)] if stem == "home" else [])
        drawn = (f"location.pathname.endsWith('/{url_path}') && [...document.querySelectorAll('h1')]"
                 f".some(h => {json.dumps(titles)}.some(title => h.innerText.includes(title)))")
        seconds = await self._timed(lambda: link.first.click(timeout=self.timeout * 1000), must_run=True, or_drawn=drawn)
        self.current = url_path
        return seconds

    async def move_control(self, rng: random.Random) -> float | None:
        """Click a radio option or nudge a slider (the controls a click or a key press moves)."""
        # Not inside a collapsed expander: its content is inert (no clicks) though laid out.
        options = self.page.locator("[data-testid='stRadio'] label:not([inert] *):visible")
        sliders = self.page.locator("[data-testid='stSlider'] [tabindex='0']:not([inert] *):visible")  # the thumb (no ARIA role in 1.67)
        n_options, n_sliders = await options.count(), await sliders.count()
        if n_options + n_sliders == 0:
            return None
        pick = rng.randrange(n_options + n_sliders)
        if pick < n_options:
            return await self._timed(lambda: options.nth(pick).click(timeout=CLICK_TIMEOUT_MS))
        slider = sliders.nth(pick - n_options)

        async def nudge():
            await slider.focus()
            await slider.press(rng.choice(["ArrowRight", "ArrowLeft"]))
        return await self._timed(nudge)

    def widget_keys(self) -> list[str]:
        return []

    def has_widget(self, key: str) -> bool:
        return True  # checked on the page by click()

    async def click(self, key: str, timeout: float | None = None) -> float | None:
        expander = self.page.locator("[data-testid='stExpander'] details:not([open]) summary")
        container = self.page.locator(f".st-key-{key} button")
        if not await container.first.is_visible():
            for n in range(await expander.count()):
                await expander.nth(n).click()
        return await self._timed(lambda: container.first.click(timeout=self.timeout * 1000), timeout, must_run=True)

    async def upload(self, name: str, data: bytes) -> float | None:
        path = Path(tempfile.mkdtemp(prefix="classroom-")) / name
        path.write_bytes(data)
        field = self.page.locator("[data-testid='stSidebar'] .st-key-uploader input[type='file']")
        try:
            return await self._timed(lambda: field.set_input_files(str(path), timeout=self.timeout * 1000), must_run=True)
        finally:
            path.unlink()
            path.parent.rmdir()

    async def quiet(self) -> None:
        """Wait until the page is not running (see WsStudent.quiet)."""
        try:
            await self.page.wait_for_function(SETTLED, timeout=self.timeout * 1000, polling=50)
        except Exception as error:  # noqa: BLE001
            raise SettleTimeout(f"page not settled within {self.timeout:.0f} s") from error

    async def open_part(self, labels: set[str]) -> bool:
        """Click the page's part labelled one of ``labels`` in its bar of parts (ui/sections.py: a
        segmented control, its buttons radios) if not open yet; False if there is none."""
        for label in labels:
            button = self.page.locator(PART_BAR).get_by_role("radio", name=label, exact=True)
            if await button.count():
                if await button.first.get_attribute("aria-checked") != "true":
                    await button.first.click()
                    await self.quiet()
                return True
        return False

    async def text(self) -> str:
        return await self.page.evaluate("document.body.innerText")

    async def shows_in_text_element(self, marker: str) -> bool:
        return await self.page.locator("[data-testid='stText']", has_text=marker).count() > 0

    async def preview(self) -> str:
        """The start of the first st.text element (what the Corpus page previews), for error details."""
        texts = self.page.locator("[data-testid='stText']")
        return (await texts.first.inner_text())[:60] if await texts.count() else "(no text element)"

    async def error_messages(self) -> list[str]:
        boxes = self.page.locator("[data-testid='stAlertContentError']")
        return [await boxes.nth(n).inner_text() for n in range(await boxes.count())]

    def training_active(self) -> bool:
        return False  # training is started by websocket students only
