"""A real Streamlit server and Debian's Chromium for end-to-end tests (Playwright, no downloaded browser)."""
from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import deque
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from classroom_common import PART_BAR  # noqa: E402
from streamlit_process import streamlit_process  # noqa: E402
CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]


NOT_NETWORK = ("data", "blob", "about", "chrome-error")  # the browser makes these itself: no request leaves it


def on_this_machine(url: str) -> bool:
    """Whether ``url`` names this machine (localhost, 127.0.0.0/8, ::1) or no network at all: what a
    classroom behind a firewall still reaches. Every test server listens on loopback."""
    parts = urlsplit(url)
    if parts.scheme in NOT_NETWORK:
        return True
    host = (parts.hostname or "").strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OffMachine:
    """Records what browser contexts ask of anything but this machine (requests and WebSockets), for
    conftest's guard: every browser test fails on such a request (issue 39, the offline classroom)."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def _request(self, request) -> None:
        if not on_this_machine(request.url):
            self.found.append(f"{request.resource_type} {request.url}")

    def _websocket(self, ws) -> None:
        if not on_this_machine(ws.url):
            self.found.append(f"websocket {ws.url}")

    def watch_page(self, page) -> None:
        page.on("websocket", self._websocket)

    def watch(self, context) -> None:
        context.on("request", self._request)
        context.on("page", self.watch_page)
        for page in context.pages:
            self.watch_page(page)


class PageEvents:
    """What a page did, for a failure's message: its console, failed requests and WebSockets, and the
    requests still waiting for an answer (a page that never connected says where it stood)."""

    def __init__(self, page) -> None:
        self.seen: deque[str] = deque(maxlen=40)
        self.pending: dict[str, float] = {}
        page.on("console", lambda m: self._add(f"console {m.type}: {m.text[:300]}"))
        page.on("requestfailed", lambda r: self._add(f"failed {r.url}: {r.failure}"))
        page.on("request", lambda r: self.pending.__setitem__(r.url, time.monotonic()))
        page.on("requestfinished", lambda r: self.pending.pop(r.url, None))
        page.on("websocket", self._websocket)

    def _add(self, text: str) -> None:
        self.seen.append(f"{time.strftime('%H:%M:%S')} {text}")

    def _websocket(self, ws) -> None:
        self._add(f"websocket {ws.url}")
        ws.on("close", lambda _: self._add(f"websocket closed {ws.url}"))
        ws.on("socketerror", lambda error: self._add(f"websocket error {error}"))

    def report(self, page) -> str:
        now = time.monotonic()
        state = page.evaluate("() => { const app = document.querySelector('[data-testid=stApp]');"
                              " return app ? [app.dataset.testConnectionState, app.dataset.testScriptState]"
                              " : document.body.innerHTML.slice(0, 200); }")
        waiting = {url: round(now - start, 1) for url, start in self.pending.items()}
        return f"app (connection, script): {state}; requests unanswered (s): {waiting}; events: {list(self.seen)}"


def _watch_events(page) -> None:
    page.lmlab_events = PageEvents(page)


class GuardedBrowser:
    """A Playwright browser whose every context (``new_context``, ``new_page``) is watched by ``off``."""

    def __init__(self, browser, off: OffMachine) -> None:
        self._browser, self.off = browser, off

    def __getattr__(self, name: str):
        return getattr(self._browser, name)

    def new_context(self, **kwargs):
        context = self._browser.new_context(**kwargs)
        self.off.watch(context)
        context.on("page", _watch_events)
        return context

    def new_page(self, **kwargs):
        page = self._browser.new_page(**kwargs)
        self.off.watch(page.context)
        self.off.watch_page(page)
        _watch_events(page)
        return page


def require_chromium() -> None:
    """Skip outside CI when Chromium or Playwright is missing; in CI (CI=true) that is a failure."""
    missing = [what for what, ok in [("Chromium at /usr/bin/chromium", Path(CHROMIUM).exists()),
                                     ("the playwright package", _has_playwright())] if not ok]
    if missing:
        reason = f"browser tests need {' and '.join(missing)} (install with: apt-get install chromium; pip install -r requirements-dev.txt)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def _has_playwright() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def streamlit_server():
    """Start ``streamlit run app.py`` on a free port (bench/streamlit_process.py); yield its base URL once
    /_stcore/health says ok. Its output goes to screenshots/server-*.log when that folder exists."""
    with ExitStack() as stack:
        log = (stack.enter_context(tempfile.NamedTemporaryFile("w", dir=SCREENSHOTS, prefix="server-", suffix=".log",
                                                               delete=False))
               if SCREENSHOTS.exists() else subprocess.DEVNULL)
        url, _ = stack.enter_context(streamlit_process(ROOT, stdout=log, timeout=90, stop_grace=10))
        yield url


@contextmanager
def open_test_app(browser, script: str, ready: str):
    """A 1280×720 page of ``streamlit run <script>`` (a test app in tests/, on a free port), yielded
    once the app has run and the JS expression ``ready`` holds (its elements drawn)."""
    with streamlit_process(ROOT, script=script) as (url, _):
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        try:
            open_page(page, url)
            page.wait_for_function(ready, timeout=30_000)
            yield page
        finally:
            page.close()


# (plot, selector) → the texts of ``selector`` in a Plotly plot that are drawn in a box under 12 px high:
# text under ~10 px, too small to read (13 px text, the charts' own size, is drawn in a 16 px box).
SMALL_TEXT = """(plot, selector) => [...plot.querySelectorAll(selector)]
  .filter(t => t.textContent.trim() && t.getBoundingClientRect().width && t.getBoundingClientRect().height < 12)
  .map(t => `${t.textContent}: ${t.getBoundingClientRect().height.toFixed(1)} px`)"""
CONNECTED = "[data-testid='stApp'][data-test-connection-state='CONNECTED']"
RELOAD_AFTER_MS = 60_000


def page_report(page) -> str:
    """Where a page stands and what it did (:class:`PageEvents`, on pages of a guarded browser)."""
    events = getattr(page, "lmlab_events", None)
    return events.report(page) if events is not None else "(no events recorded for this page)"


def open_page(page, url: str, timeout: float = 120_000, reload_after: float = RELOAD_AFTER_MS) -> None:
    """Open ``url`` and wait for the app (:func:`wait_for_app`). A page not connected after 60 s is
    reloaded once, as a student would, with a warning that says what it had done: twice in two suite
    runs here a new context's first page waited 120 s for the server with nothing to go on (its
    server answered other pages; a stress of 124 first opens under load did not reproduce it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page.goto(url, timeout=timeout)
    try:
        page.wait_for_selector(CONNECTED, timeout=min(timeout, reload_after))
    except PlaywrightTimeoutError:
        before = page_report(page)
        warnings.warn(f"{url} was not connected after {reload_after / 1000:.0f} s; reloaded once. {before}", stacklevel=2)
        page.reload(timeout=timeout)
        try:
            page.wait_for_selector(CONNECTED, timeout=timeout)
        except PlaywrightTimeoutError:
            raise AssertionError(f"{url} never connected, reloaded once\nbefore: {before}\nafter: {page_report(page)}") from None
    wait_for_app(page, timeout)


def wait_for_app(page, timeout: float = 120_000, started: bool = False) -> None:
    """Wait until the script has run: connected, not running, no skeleton placeholders. A run the
    caller has not seen start (``started``: it has, say the address it changes changed) is given
    300 ms to start first."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_selector(CONNECTED, timeout=timeout)
    except PlaywrightTimeoutError:
        raise AssertionError(f"{page.url} not connected within {timeout / 1000:.0f} s: {page_report(page)}") from None
    if not started:
        page.wait_for_timeout(300)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0", timeout=timeout)


def move_to(page, path: str, timeout: float = 120_000) -> None:
    """Show the app's ``path`` (``/page?lang=xx``) in the same tab, as the browser's Back and Forward
    do (history.pushState, then popstate: the app runs the page the address names), not a new load
    (a new tab cost 2-4 s a page here, this under 1 s). The run it starts is seen start, then end (a
    run under way before the move could take the tab elsewhere): the app's script state leaves
    "notRunning" after the move, or the script completes the address (its part, its slide): a move
    to another page can mount the app anew with its state already set, which no attribute change shows."""
    page.evaluate("""(path) => {
        window.__lmlabRan = false;
        const seen = new MutationObserver((records) => {
            if (records.some((r) => r.target.getAttribute('data-test-script-state') !== 'notRunning')) {
                window.__lmlabRan = true;
                seen.disconnect();
            }
        });
        seen.observe(document.body, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
        history.pushState({}, '', path);
        dispatchEvent(new PopStateEvent('popstate', {state: {}}));
    }""", path)
    page.wait_for_function("(path) => location.pathname === new URL(path, location.href).pathname"
                           " && (window.__lmlabRan || location.pathname + location.search !== path)", arg=path, timeout=timeout)
    wait_for_app(page, timeout, started=True)


def part_button(scope, label: str):
    """The button of the part ``label`` in the bar of parts of the page ``scope`` is part of (a radio:
    ``aria-checked`` says whether that part is open)."""
    return scope.locator(PART_BAR).get_by_role("radio", name=label, exact=True)


def server_stacks(pids, logs, tail: int = 12000) -> str:
    """Each server's threads' stacks (app.py: SIGUSR1 makes faulthandler write them to its log), then
    the end of each log: what a server was doing when a page never connected to it."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGUSR1)
    time.sleep(2)
    return "\n".join(f"--- {log.name}:\n{log.read_text(errors='replace')[-tail:]}" for log in logs if log.exists())


def screenshot(page, name: str, max_height: int = 5000) -> None:
    """Save what the browser's window shows (a projector's view at the test's 1280×720). With
    ``LMLAB_FULL_PAGE_SCREENSHOTS=1`` save the whole page instead, up to ``max_height`` pixels:
    Streamlit scrolls inside its main container, so the window grows to fit it (a suite run skips
    that: rasterising pages of up to 5000 px in software cost it a second or two each)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = str(SCREENSHOTS / f"{name}.png")
    if not os.environ.get("LMLAB_FULL_PAGE_SCREENSHOTS"):
        page.screenshot(path=path)
        return
    size = page.viewport_size
    height = page.evaluate("(document.querySelector('[data-testid=\"stMain\"]') || document.body).scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(max(height, size["height"]), max_height)})
    page.wait_for_timeout(500)
    page.screenshot(path=path)
    page.set_viewport_size(size)


def chromium_installed() -> bool:
    return Path(CHROMIUM).exists() and shutil.which(CHROMIUM) is not None
