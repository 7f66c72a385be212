"""Every page a lesson, in a real browser (issue 36).

- 1280×720 with ``?present=1`` (a projector), on every lesson page: the sidebar collapsed, every chart
  text ≥ 16 px on every slide, the arrow keys move the slides and the address names the slide shown
  after every move; → at a lesson's last slide opens the next lesson's first.
- Every lesson page has at least three predict-then-reveal questions whose answer (the working the
  reveal prints) is nowhere in the page's HTML or text until its Reveal button is pressed.
- 390×844 (a phone), on every lesson page: nothing reaches past the screen's right edge unless it is
  inside a box that scrolls sideways, no chart's x tick labels run into each other, and no value
  written on a bar is shrunk to fit it below a readable size (it is hidden instead: the hover has it).
Screenshots of both sizes go to screenshots/.
"""
from __future__ import annotations

import html as html_module
import re
import urllib.parse

import pytest

from lmcore.teaching import COURSE, LESSON_OF
from lmcore.teaching.course import next_lesson, slide_param
from tests.browser_server import SMALL_TEXT, move_to, open_page, screenshot, wait_for_app
from ui.navigation import PAGES

pytestmark = pytest.mark.browser
PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
URL = {stem: path for stem, path, _ in PAGES}
LESSON_PAGES = [lesson.page for lesson in COURSE]
FONT_SIZES = """() => {
  const size = (sel) => [...document.querySelectorAll(sel)].filter(e => e.getBoundingClientRect().width > 0)
                                                           .map(e => parseFloat(getComputedStyle(e).fontSize));
  return {ticks: size('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text'),
          titles: size('.js-plotly-plot .gtitle'), axis: size('.js-plotly-plot .xtitle, .js-plotly-plot .ytitle'),
          legend: size('.js-plotly-plot .legendtext'), notes: size('.js-plotly-plot .annotation-text'),
          charts: document.querySelectorAll('.js-plotly-plot').length};
}"""
CHARTS_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .every(c => c.querySelector('.js-plotly-plot .main-svg text'))"""
# Elements of the page whose right edge is past the window's, and that no box scrolling sideways
# (overflow-x auto or scroll, itself inside the window) holds: what a phone would cut off. Only boxes
# inside the page's content count (Streamlit's main area scrolls as a whole: it would hold anything).
CUT_OFF = """() => {
  const width = document.documentElement.clientWidth, cut = [];
  for (const e of document.querySelectorAll('[data-testid="stMain"] *')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= width + 1) continue;
    if (e.matches('input[type=range]')) continue;  // a slider thumb's see-through input, centred on the thumb
    let box = e.parentElement, held = false;
    for (; box && !box.matches('[data-testid="stMainBlockContainer"], [data-testid="stMain"]'); box = box.parentElement) {
      const x = getComputedStyle(box).overflowX;
      if ((x === 'auto' || x === 'scroll') && box.getBoundingClientRect().right <= width + 1) { held = true; break; }
    }
    if (!held) cut.push(`${e.tagName}.${e.getAttribute('data-testid') || ''} right=${Math.round(r.right)}`);
  }
  return cut;
}"""
# Chart titles wider than their plot: Plotly does not wrap a title, and its SVG clips what overflows.
TITLES_CUT = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].flatMap(plot => {
  const svg = plot.querySelector('svg.main-svg'), title = plot.querySelector('.g-gtitle');
  if (!svg || !title) return [];
  const box = svg.getBoundingClientRect(), r = title.getBoundingClientRect();
  return r.width && (r.left < box.left - 1 || r.right > box.right + 1) ? [title.textContent] : [];
})"""

# Tick labels of an x axis that run into each other: side by side, two labels' boxes overlap; rotated,
# two neighbours' anchors are less than a line apart across the slant.
TICKS_COLLIDE = r"""() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].flatMap(plot => {
  const labels = [...plot.querySelectorAll('.xtick text')].filter(t => t.textContent.trim() && t.getBoundingClientRect().width);
  const bad = [];
  const title = (plot.querySelector('.gtitle') || {}).textContent || '?';
  for (let i = 1; i < labels.length; i++) {
    const a = labels[i - 1].getBoundingClientRect(), b = labels[i].getBoundingClientRect();
    const turn = (labels[i].getAttribute('transform') || '').match(/rotate\((-?[\d.]+)/);
    const size = parseFloat(getComputedStyle(labels[i]).fontSize);
    if (turn && Math.abs(parseFloat(turn[1])) > 5) {
      const across = Math.abs(b.right - a.right) * Math.sin(Math.abs(parseFloat(turn[1])) * Math.PI / 180);
      if (across < 0.9 * size) bad.push(`${title}: ${labels[i - 1].textContent} / ${labels[i].textContent}`);
    } else if (a.right > b.left + 1 && a.bottom > b.top && b.bottom > a.top) {
      bad.push(`${title}: ${labels[i - 1].textContent} / ${labels[i].textContent}`);
    }
  }
  return bad;
})"""


# Values written on bars that Plotly shrank to fit a bar's width below a readable size (SMALL_TEXT).
BAR_TEXT_SHRUNK = f"""() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].flatMap(plot =>
  ({SMALL_TEXT})(plot, 'text.bartext').map(small => `${{(plot.querySelector('.gtitle') || {{}}).textContent || '?'}}: ${{small}}`))"""


@pytest.fixture(scope="module")
def contexts(browser):
    """One browser context per screen and language, shared by the module's tests (each opens its own
    tab): a student's browser, whose cache already holds the app's code after the first page (a new
    context fetched and compiled it all again, Plotly's 4.7 MB included, for every test)."""
    made = {}

    def context(viewport: dict, lang: str = "en"):
        key = (viewport["width"], viewport["height"], lang)
        if key not in made:
            made[key] = browser.new_context(viewport=viewport, locale="zh-CN" if lang == "zh" else "en-US",
                                            is_mobile=viewport["width"] < 500, has_touch=viewport["width"] < 500)
        return made[key]

    yield context
    for context_ in made.values():
        context_.close()


@pytest.fixture(scope="module")
def tabs(contexts, app_server):
    """One tab per use (``kind``: the projector walks, the phone checks) and language, moved from
    lesson page to lesson page (:func:`move_to`, as Back and Forward move a student's tab) instead
    of a new tab for each test: the app's code loads once a tab. Neither reveals an answer."""
    made = {}

    def tab(kind: str, viewport: dict, lang: str, stem: str, query: str):
        page = made.get((kind, lang))
        if page is None:  # its first page is loaded, as a student's first
            page = made[kind, lang] = contexts(viewport, lang).new_page()
            open_page(page, f"{app_server}/{URL[stem]}?{query}", timeout=300_000)
        else:
            move_to(page, f"/{URL[stem]}?{query}", timeout=300_000)
        page.wait_for_function(CHARTS_DRAWN, timeout=180_000)
        return page

    yield tab
    for page in made.values():
        page.close()


def new_page(context, app_server, stem: str, query: str):
    page = context.new_page()
    open_page(page, f"{app_server}/{URL[stem]}?{query}", timeout=300_000)
    page.wait_for_function(CHARTS_DRAWN, timeout=180_000)
    return page


def settle(page) -> None:
    """After a move whose run has started (its address changed): the run ended, every chart drawn."""
    wait_for_app(page, timeout=300_000, started=True)
    page.wait_for_function(CHARTS_DRAWN, timeout=180_000)


def query_of(page) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


def assert_projector_text(page, where: str) -> None:
    sizes = page.evaluate(FONT_SIZES)
    if sizes["charts"]:
        every = sizes["ticks"] + sizes["titles"] + sizes["axis"] + sizes["legend"] + sizes["notes"]
        assert sizes["ticks"] and min(every) >= 16, (where, sizes)


@pytest.mark.parametrize("stem", LESSON_PAGES)
def test_projector_walks_the_lesson_with_the_arrow_keys(tabs, stem):
    slides = LESSON_OF[stem].slides
    page = tabs("projector", PROJECTOR, "en", stem, "present=1&lang=en")
    sidebar = page.locator("[data-testid='stSidebar']")
    assert sidebar.get_attribute("aria-expanded") == "false" or sidebar.bounding_box()["width"] < 50
    for i, slide in enumerate(slides):
        assert query_of(page).get("slide") == slide_param(slide), (i, page.url)
        assert f"{i + 1} / {len(slides)} ·" in page.inner_text("[data-testid='stMain']"), slide
        assert_projector_text(page, slide)
        if i == 1:
            screenshot(page, f"lesson-projector-{stem}-en")
        if i + 1 < len(slides):
            page.keyboard.press("ArrowRight")
            page.wait_for_url(re.compile(r"[?&]slide=" + re.escape(slide_param(slides[i + 1])) + r"(&|$)"),
                              timeout=180_000)
            settle(page)
    after = next_lesson(stem)
    if after is not None:  # the course goes on with Next alone
        page.keyboard.press("ArrowRight")
        page.wait_for_url(re.compile(f"/{URL[after.page]}\\?"), timeout=180_000)
        settle(page)
        assert query_of(page).get("slide") == slide_param(after.slides[0]) and query_of(page).get("present") == "1"
    # ← goes back: from the next lesson's first slide to this lesson's last, or (the course's last
    # lesson) from its last slide to the one before. (The address it expects is not the one shown
    # before the key: waiting for that one passed at once whenever the move had not yet begun.)
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(f"/{URL[stem]}\\?(.*&)?slide=" + re.escape(slide_param(slides[-1 if after else -2]))
                                 + r"(&|$)"), timeout=180_000)
    wait_for_app(page, timeout=300_000)  # (a course move runs twice: the page that moves, the page it opens)


@pytest.mark.parametrize("stem", LESSON_PAGES)
def test_three_answers_are_absent_until_their_reveal(contexts, app_server, stem):
    # a new tab (session) each: a question revealed on one page stays revealed on another page that
    # asks it too (the perplexity guess of the chain-rule and n-gram lessons)
    page = new_page(contexts(PROJECTOR), app_server, stem, "part=questions&lang=en")
    reveals = page.get_by_role("button", name="Reveal the answer")
    assert reveals.count() >= 3, stem
    for n in range(3):
        html, text = page.content(), page.inner_text("body")
        reveals.first.click()  # a revealed question loses its form: the next one is first
        page.wait_for_function(f"() => document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]').length"
                               f" && [...document.body.innerText.matchAll(/(^|\\n)Answer: /g)].length >= {n + 1}",
                               timeout=180_000)
        settle(page)
        shown = _last_reveal(page)
        assert shown, (stem, n)
        working = plain(shown)[:80]
        assert working not in plain(text), (stem, working)
        assert working not in plain(html_module.unescape(re.sub(r"<[^>]+>", " ", html))), (stem, working)
    screenshot(page, f"lesson-revealed-{stem}-en")
    page.close()


def plain(text: str) -> str:
    """``text`` without backslashes (Markdown escapes) and with its white space collapsed."""
    return " ".join(text.replace("\\", "").split())


def _last_reveal(page) -> str | None:
    """The working printed under the last "Answer:" of the page."""
    return page.evaluate("""() => {
      const blocks = [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')];
      let last = -1;
      blocks.forEach((b, i) => { if (/^Answer:/.test(b.innerText.trim())) last = i; });
      return last < 0 || last + 1 >= blocks.length ? null : blocks[last + 1].innerText.trim();
    }""")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stem", LESSON_PAGES)
def test_nothing_is_cut_off_on_a_phone(tabs, stem, lang):
    page = tabs("phone", PHONE, lang, stem, f"lang={lang}")
    assert page.evaluate(CUT_OFF) == [], stem
    assert page.evaluate(TITLES_CUT) == [], stem
    assert page.evaluate(TICKS_COLLIDE) == [], stem
    assert page.evaluate(BAR_TEXT_SHRUNK) == [], stem
    screenshot(page, f"lesson-phone-{stem}-{lang}")


def test_the_cut_off_check_sees_a_wide_element(contexts, app_server):
    """The check above can fail: an element wider than the phone, outside any scrolling box."""
    page = new_page(contexts(PHONE), app_server, "decoding", "lang=en")
    page.evaluate("""() => { const d = document.createElement('div'); d.style.width = '900px'; d.textContent = 'wide';
                             document.querySelector('[data-testid="stMainBlockContainer"]').appendChild(d); }""")
    assert page.evaluate(CUT_OFF) != []
    page.close()


def test_the_browser_back_button_shows_the_slide_its_address_names(contexts, app_server):
    """The address is the only record of the slide: Back after two moves shows the slide before."""
    slides = LESSON_OF["decoding"].slides
    page = new_page(contexts(PROJECTOR), app_server, "decoding", "present=1&lang=en")
    for i in (1, 2):
        page.keyboard.press("ArrowRight")
        page.wait_for_url(re.compile(r"[?&]slide=" + re.escape(slide_param(slides[i])) + r"(&|$)"), timeout=180_000)
        settle(page)
    page.go_back()
    page.wait_for_url(re.compile(r"[?&]slide=" + re.escape(slide_param(slides[1])) + r"(&|$)"), timeout=180_000)
    wait_for_app(page, timeout=300_000)  # Back changes the address before the run starts: not settle's case
    page.wait_for_function(CHARTS_DRAWN, timeout=180_000)
    assert f"2 / {len(slides)} ·" in page.inner_text("[data-testid='stMain']")
    page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_phone_in_projector_view_has_previous_and_next_side_by_side(contexts, app_server, lang):
    """A student following a live class is in projector view on a phone: the slide bar's Previous
    and Next share one row above the slide, each wide enough for its label (Streamlit stacks
    columns on a phone: the bar took five full-width rows)."""
    page = new_page(contexts(PHONE, lang), app_server, "chain_rule", f"present=1&lang={lang}")
    prev, next_ = (page.locator(f".st-key-lmlab-{key} button").bounding_box() for key in ("prev", "next"))
    assert abs(prev["y"] - next_["y"]) < 2 and prev["x"] < next_["x"], (prev, next_)
    assert min(prev["width"], next_["width"]) >= 120, (prev, next_)
    assert page.evaluate(CUT_OFF) == []
    page.close()
