"""Teaching mode in a real browser at 1280×720 (a projector): chart tick labels and titles measured
≥ 16 px, sidebar collapsed, arrow keys change slides, and a question's answer is nowhere in the DOM
until Reveal is pressed. Screenshots of the projector view in both languages go to screenshots/."""
from __future__ import annotations

import functools
import re

import pytest

from lmcore.ngram import MAX_ORDER, count_ngrams
from lmcore.samples import default_settings, load_sample
from lmcore.teaching import LESSONS, LessonInputs, topic_questions
from lmcore.teaching.course import slide_param
from tests.browser_server import open_page, screenshot, wait_for_app

pytestmark = pytest.mark.browser
PROJECTOR = {"width": 1280, "height": 720}
FONT_SIZES = """() => {
  const size = (sel) => [...document.querySelectorAll(sel)].filter(e => e.getBoundingClientRect().width > 0)
                                                           .map(e => parseFloat(getComputedStyle(e).fontSize));
  return {ticks: size('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text'),
          titles: size('.js-plotly-plot .gtitle'), axis: size('.js-plotly-plot .xtitle, .js-plotly-plot .ytitle'),
          legend: size('.js-plotly-plot .legendtext'), charts: document.querySelectorAll('.js-plotly-plot').length};
}"""
# Plotly draws a chart after the script has finished: every chart element holds a drawn plot (its
# SVG with text in it). A slide without charts is drawn at once.
CHARTS_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .every(c => c.querySelector('.js-plotly-plot .main-svg text'))"""


def wait_for_charts(page) -> None:
    page.wait_for_function(CHARTS_DRAWN, timeout=120_000)


@pytest.fixture(scope="module")
def projector(browser):
    """One browser context per language for the module: each test opens a tab (a session of its own)
    and the tabs reuse the context's cache of the frontend."""
    contexts = {}

    def context(lang: str):
        if lang not in contexts:
            contexts[lang] = browser.new_context(viewport=PROJECTOR, locale="zh-CN" if lang == "zh" else "en-US")
        return contexts[lang]

    yield context
    for context_ in contexts.values():
        context_.close()


def open_slide(projector, app_server, slide: str, lang: str):
    page = projector(lang).new_page()
    open_page(page, f"{app_server}/smoothing?present=1&slide={slide}&lang={lang}", timeout=300_000)
    wait_for_charts(page)
    return page


@functools.cache
def english_questions():
    corpus = load_sample("english", default_settings("english"), 0)
    counts = count_ngrams(corpus.mapped("train"), MAX_ORDER)
    inputs = LessonInputs(counts, corpus.mapped("test"), "", order=3, delta=1.0, discount=0.75)
    return {q.qid: q for q in topic_questions("ngram", inputs, 0) + topic_questions("perplexity", inputs, 0)}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_projector_chart_text_is_at_least_16px_at_1280x720(projector, app_server, lang):
    page = open_slide(projector, app_server, "charts", lang)
    # the chart element draws once plotly.js has loaded, which may be after the page has settled
    page.wait_for_selector("[data-testid='stMain'] .js-plotly-plot .main-svg", timeout=60_000)
    sizes = page.evaluate(FONT_SIZES)
    screenshot(page, f"teaching-projector-charts-{lang}", max_height=720)
    assert sizes["charts"] == 1, sizes  # one slide: the next-word chart of this section only
    assert sizes["ticks"] and min(sizes["ticks"]) >= 16, sizes
    assert sizes["titles"] and min(sizes["titles"]) >= 16, sizes
    assert min(sizes["axis"] + sizes["legend"]) >= 16, sizes
    sidebar = page.locator("[data-testid='stSidebar']")
    assert sidebar.get_attribute("aria-expanded") == "false" or sidebar.bounding_box()["width"] < 50
    after = slide_param(LESSONS["ngram"][LESSONS["ngram"].index("sec:charts") + 1])
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"slide=" + re.escape(after) + "(&|$)"), timeout=120_000)
    wait_for_app(page)
    assert f"slide={after}" in page.url
    page.close()


@pytest.mark.parametrize("lang", ["zh"])  # the mechanism has no language (AppTest checks both: test_teaching_pages.py)
def test_answer_is_not_in_the_dom_before_reveal(projector, app_server, lang):
    q = english_questions()["ngram.add_delta"]
    page = open_slide(projector, app_server, "q-ngram.add_delta", lang)
    html = page.content()
    h, w = q.table.rows[0][:2]
    assert f"“{w}” | “{h}”" in html  # the question of the server is the one computed here
    for secret in (q.reveal.render(lang), q.answer_text(lang)):
        assert secret not in html and secret not in page.inner_text("body")
    screenshot(page, f"teaching-projector-question-{lang}", max_height=720)
    page.get_by_role("textbox").first.fill(f"{q.answer:.6f}")
    page.get_by_role("button", name="Reveal the answer" if lang == "en" else "揭晓答案").click()
    page.wait_for_function("(text) => document.body.innerText.includes(text)", arg=q.answer_text(lang), timeout=120_000)
    wait_for_app(page)
    wait_for_charts(page)
    body = page.inner_text("body")
    assert q.answer_text(lang) in body and ("Right" in body or "答对了" in body)
    assert page.evaluate(FONT_SIZES)["charts"] == 1  # the chart that explains it
    screenshot(page, f"teaching-projector-revealed-{lang}", max_height=1400)
    page.close()
