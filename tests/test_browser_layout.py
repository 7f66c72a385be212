"""At 1280×720 (a projector) the home page shows every page name whole, in both languages."""
from __future__ import annotations

import pytest

from tests.browser_server import open_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_home_page_names_are_not_cut(browser, app_server, locale):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale=locale)
    page = context.new_page()
    open_page(page, f"{app_server}/?lang={locale[:2]}")
    links = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPageLink-NavLink] p')]
        .map(e => ({text: e.textContent, cut: e.scrollWidth > e.clientWidth + 1}))""")
    context.close()
    assert len(links) == 9  # the eight topic pages and the course's start in projector view
    assert [link["text"] for link in links if link["cut"]] == []


@pytest.mark.parametrize("lang, corpus", [("en", "chinese"), ("zh", "chinese"), ("en", "synthetic&sents=20000")])
def test_corpus_page_figures_are_not_cut(browser, app_server, lang, corpus):
    """The corpus's sizes and OOV rates each show whole at projector width (the largest synthetic
    sample has 7-digit counts)."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    open_page(page, f"{app_server}/corpus-stats?lang={lang}&corpus={corpus}")
    page.locator("[data-testid=stMetricValue]").nth(6).wait_for()
    shown = page.locator("[data-testid=stMetricValue]").count()
    values = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMetricValue], [data-testid=stMetricValue] *')]
        .map(e => ({text: e.textContent, cut: e.scrollWidth > e.clientWidth + 1}))""")
    context.close()
    assert shown == 7
    assert [v["text"] for v in values if v["cut"]] == []
