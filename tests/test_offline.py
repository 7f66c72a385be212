"""An offline classroom (issue 39): behind a firewall the browser reaches the app's server and nothing
else, so no page may ask any other origin for anything.

Every browser test of the suite runs under conftest's guard: a request or WebSocket of its browser
to anything but this machine fails that test. The guard is tried here on a page that asks another
machine. The browser tests open every page and every projector slide in English (tests/
test_lessons_browser.py walks each lesson's slides, its questions and, on a phone, its first part in
both languages); this sweep adds the rest: every page of the navigation in Chinese, each of its parts
(tabs) in turn, then the n-gram page's projector view with its QR code. It is stricter than the
guard: it fails on any request that leaves the server's origin (scheme, host and port), or on a
console message saying a name did not resolve. Requests to other origins are answered as a
firewall's DNS would (``net::ERR_NAME_NOT_RESOLVED``), so the test behaves the same with or without
an internet link."""
from __future__ import annotations

import re
from collections import Counter
from urllib.parse import urlsplit

import plotly.graph_objects as go
import pytest

from lmcore.i18n import t
from lmcore.teaching import export
from tests.browser_server import NOT_NETWORK, move_to, on_this_machine, open_page, part_button, wait_for_app
from lmcore.teaching.course import part_label_key
from ui.navigation import PAGES, PARTS

pytestmark = pytest.mark.browser
QR_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPopoverBody"] img')]
  .some(img => img.complete && img.naturalWidth > 0)"""


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with ws/wss counted as http/https and default ports filled in."""
    parts = urlsplit(url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return scheme, parts.hostname or "", parts.port or {"http": 80, "https": 443}.get(scheme)


def page_paths() -> list[tuple[str, str]]:
    """(stem, path) of every page of the navigation (the default page lives at the root)."""
    return [(stem, "/" if stem == "home" else f"/{url_path}") for stem, url_path, _ in PAGES]


class Outside:
    """What a browser context asked of origins other than ``server``: requests, WebSockets, and
    console messages about names that did not resolve, each with the page that was open."""

    def __init__(self, server: str) -> None:
        self.server = origin(server)
        self.opening = ""
        self.found: list[str] = []

    def leaves(self, url: str) -> bool:
        return urlsplit(url).scheme not in NOT_NETWORK and origin(url) != self.server

    def request(self, request) -> None:
        if self.leaves(request.url):
            self.found.append(f"{self.opening}: {request.resource_type} {request.url}")

    def websocket(self, ws) -> None:
        if self.leaves(ws.url):
            self.found.append(f"{self.opening}: websocket {ws.url}")

    def console(self, message) -> None:
        if "ERR_NAME_NOT_RESOLVED" in message.text:
            self.found.append(f"{self.opening}: console {message.type}: {message.text}")

    def watch(self, context) -> None:
        context.on("request", self.request)
        context.route(lambda url: self.leaves(url), lambda route: route.abort("namenotresolved"))

    def watch_page(self, page) -> None:
        page.on("websocket", self.websocket)
        page.on("console", self.console)


def test_no_page_asks_another_origin_for_anything(browser, app_server):
    lang = "zh"  # English: every page and slide under the guard, in the other browser tests
    outside = Outside(app_server)
    context = browser.new_context(viewport={"width": 1280, "height": 720},
                                  locale="zh-CN" if lang == "zh" else "en-US")
    outside.watch(context)
    try:
        page = context.new_page()
        outside.watch_page(page)
        main = page.get_by_test_id("stMainBlockContainer")
        for i, (stem, path) in enumerate(page_paths()):
            outside.opening = f"{path}?lang={lang}"
            if i == 0:
                open_page(page, f"{app_server}{path}?lang={lang}", timeout=300_000)
            else:  # as a student moves on: the app's code is loaded once, each page then runs in the same tab
                move_to(page, f"{path}?lang={lang}", timeout=300_000)
            for part in PARTS.get(stem, ())[1:]:  # a part runs when it is opened: open each
                outside.opening = f"{path}?lang={lang}, part {part}"
                part_button(main, t(part_label_key(stem, part), lang)).click()
                wait_for_app(page, timeout=300_000)
            assert main.get_by_test_id("stException").count() == 0, outside.opening  # it ran to its end
        outside.opening = f"/smoothing?present=1&lang={lang} (QR code)"
        open_page(page, f"{app_server}/smoothing?present=1&lang={lang}", timeout=300_000)
        # the share box (the slide bar's QR-code button; the other popover is the lesson menu): the view's QR code
        page.get_by_test_id("stPopover").get_by_role("button", name="qr_code_2").click()
        page.wait_for_function(QR_DRAWN, timeout=60_000)
        page.wait_for_timeout(500)  # the icon is requested after the page has settled
        assert page.get_by_test_id("stException").count() == 0, outside.opening
    finally:
        context.close()
    if outside.found:
        pytest.fail("asked outside the server:\n" + "\n".join(f"{n}x {what}" for what, n in Counter(outside.found).items()))


def test_origin_tells_the_server_from_the_rest():
    assert origin("http://127.0.0.1:8501/_stcore/health") == origin("ws://127.0.0.1:8501/_stcore/stream")
    assert origin("http://localhost/") == ("http", "localhost", 80)
    outside = Outside("http://127.0.0.1:8501")
    assert not outside.leaves("http://127.0.0.1:8501/media/x.png") and not outside.leaves("data:image/svg+xml;base64,AA")
    assert outside.leaves("https://fonts.gstatic.com/s/i/short-term/release/materialsymbolsrounded/translate/default/24px.svg")
    assert outside.leaves("http://127.0.0.1:8502/") and outside.leaves("http://localhost:8501/")
    assert page_paths()[0] == ("home", "/") and len(page_paths()) == len(PAGES)


def test_the_guard_fails_a_test_whose_page_asks_another_machine(browser):
    """conftest's guard sees a page's request to another machine (answered here as a firewall would:
    nothing leaves), and this machine's own addresses pass it."""
    off = browser.off
    before = len(off.found)
    page = browser.new_page()
    try:
        page.route("**/*", lambda route: route.abort("namenotresolved"))
        page.set_content('<img src="http://lmlab-outside.invalid/icon.svg"><img src="http://127.0.0.1:9/x.png">')
        page.wait_for_function("[...document.images].every(img => img.complete)")
    finally:
        page.close()
    asked = off.found[before:]
    del off.found[before:]  # seen: this test's page is not a failure of this test
    assert asked == ["image http://lmlab-outside.invalid/icon.svg"]
    assert on_this_machine("http://localhost:8501/") and on_this_machine("ws://127.0.0.2:1/_stcore/stream")
    assert on_this_machine("http://[::1]:8501/") and on_this_machine("data:image/png;base64,AA")
    assert not on_this_machine("https://fonts.gstatic.com/s/i/x.svg") and not on_this_machine("http://198.18.0.2/")


def test_a_figure_export_loads_its_scripts_from_this_machine(monkeypatch):
    """The PNG/SVG export renders in Chromium a page that kaleido writes: its scripts must be files of
    this machine (plotly.js from the plotly package), not kaleido's default CDN copy of MathJax."""
    import kaleido

    asked = {}
    monkeypatch.setattr(export, "chromium_path", lambda: "/usr/bin/chromium")
    monkeypatch.setattr(kaleido, "calc_fig_sync", lambda fig, opts, kopts: asked.update(kopts) or b"png")
    assert export.figure_image(go.Figure(go.Bar(x=["a"], y=[1]))) == b"png"
    page = kaleido.PageGenerator(plotly=asked.get("plotlyjs"), mathjax=asked.get("mathjax")).generate_index()
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert scripts and all(src.startswith("file://") for src in scripts), scripts
