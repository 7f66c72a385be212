"""At 1280×720 (a projector) the home page shows every page name whole, in both languages."""
from __future__ import annotations

import pytest

from tests.browser_server import CHROMIUM, CHROMIUM_ARGS, require_chromium, streamlit_server, wait_for_app

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_home_page_names_are_not_cut(locale):
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, streamlit_server() as url:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1280, "height": 720}, locale=locale).new_page()
        page.goto(url)
        wait_for_app(page)
        links = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPageLink-NavLink] p')]
            .map(e => ({text: e.textContent, cut: e.scrollWidth > e.clientWidth + 1}))""")
        browser.close()
    assert len(links) == 8
    assert [link["text"] for link in links if link["cut"]] == []
