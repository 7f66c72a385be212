"""End to end in a real browser: Playwright drives Debian's Chromium against `streamlit run app.py`."""
from __future__ import annotations

import json
from urllib.request import urlopen

import pytest

from lmcore.i18n import t
from tests.browser_server import open_page, screenshot, SCREENSHOTS, streamlit_server, wait_for_app
from ui.navigation import PAGES

pytestmark = pytest.mark.browser


def _watch_dialogs(page):
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    return page


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    yield _watch_dialogs(context.new_page())
    context.close()


@pytest.fixture(scope="module")
def reading_context(browser):
    """One browser context for tests that only open pages (no upload, no training): each test's tab
    is a new session of its own; the context's cache spares every tab loading the frontend anew."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    yield context
    context.close()


@pytest.fixture
def reading_page(reading_context):
    page = _watch_dialogs(reading_context.new_page())
    yield page
    page.close()


def _exceptions(page) -> list[str]:
    """Texts of the tracebacks Streamlit shows on the page (none expected)."""
    return [e.inner_text()[:2000] for e in page.locator("[data-testid='stException']").all()]


def _sidebar(page):
    return page.locator("[data-testid='stSidebar']")


def _navigate_and_check_sidebar_kept(page, lang: str) -> list[str]:
    """Click through the navigation: language, corpus and tokenizer settings (and so the corpus
    key that every page's caches and the shipped models are found by) must stay as they were."""
    summary = page.locator("[data-testid='stSidebar'] .st-key-corpus_summary [data-testid='stCaptionContainer']")
    before = summary.inner_text()  # lowercased English sample: a reset checkbox changes the type count
    seen = [before]
    for stem in ("ngram", "home", "corpus"):
        heading = page.get_by_role("heading", name=t("app.title" if stem == "home" else f"nav.{stem}", lang)).first
        page.locator("[data-testid='stSidebarNav']").get_by_text(t(f"nav.{stem}", lang), exact=True).click()
        heading.wait_for(timeout=120_000)  # the new page's run has begun (each page differs from the one before)
        wait_for_app(page)
        assert summary.inner_text() == before, stem
        assert heading.is_visible()
        assert _exceptions(page) == [], stem
        seen.append(summary.inner_text())
    return seen


def test_deep_link_as_first_request_runs_the_whole_app(browser):
    """The first request a fresh server sees is a deep link: the shared sidebar must be there.

    With a folder named pages/ beside st.navigation, Streamlit 1.67 sent that very first run through
    its legacy page lookup, which popped up "Page not found" over the (correct) page; the pages live
    in app_pages/, so no lookup runs (an unknown address still says "Page not found")."""
    from playwright.sync_api import expect

    with streamlit_server() as url:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        open_page(page, f"{url}/corpus-stats?lang=zh")
        assert _sidebar(page).get_by_text(t("sidebar.corpus", "zh")).first.is_visible()
        assert page.get_by_role("heading", name=t("nav.corpus", "zh")).is_visible()
        assert _exceptions(page) == []
        expect(page.get_by_text("Page not found")).to_have_count(0, timeout=10_000)
        screenshot(page, "first-request-deep-link")
        # That legacy first run also gives the sidebar's widgets other ids than later runs do, so
        # Streamlit would drop their values on the next page change: they must survive it.
        _navigate_and_check_sidebar_kept(page, "zh")
        open_page(page, f"{url}/no-such-page?lang=zh")  # an address that really is unknown keeps the message
        expect(page.get_by_text("Page not found")).to_have_count(1, timeout=10_000)
        page.close()


def test_uploader_speaks_chinese(reading_page, app_server):
    """Streamlit draws the uploader's button and limit line in English only: in 中文 ours replace them."""
    page = reading_page
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, f"{app_server}/?lang=zh")
    zone = page.locator(".st-key-uploader [data-testid='stFileUploaderDropzone']")
    zone.scroll_into_view_if_needed()
    drawn = zone.evaluate("""z => [z.querySelector('button p'), z.querySelector('[data-testid=stFileUploaderDropzoneInstructions] span')]
        .map(e => [getComputedStyle(e).fontSize, getComputedStyle(e, '::after').content, getComputedStyle(e, '::after').fontSize])""")
    assert drawn == [["0px", '"上传"', "16px"], ["0px", '"每个文件最多 50 MB · TXT、MD"', "14px"]]
    SCREENSHOTS.mkdir(exist_ok=True)
    zone.screenshot(path=str(SCREENSHOTS / "uploader-zh.png"))
    open_page(page, f"{app_server}/?lang=en")
    english = page.locator(".st-key-uploader [data-testid='stFileUploaderDropzone'] button p")
    assert english.evaluate("e => getComputedStyle(e, '::after').content") == "none"
    assert english.inner_text() == "Upload"


# The pages no other browser test opens (home, the Corpus page, n-grams and LSTM are opened by the
# upload, navigation, teaching and training tests), each in one language, alternating: each page load
# in Chromium cost the suite ~13 s of a 2-core machine it shares with the other worker.
OPENED_ELSEWHERE = {"home", "corpus", "ngram", "lstm"}
DEEP_LINKS = [(stem, url, ("en", "zh")[i % 2])
              for i, (stem, url, _) in enumerate(p for p in PAGES if p[0] not in OPENED_ELSEWHERE)]


@pytest.mark.parametrize("stem, url_path, lang", DEEP_LINKS)
def test_a_page_loads_by_deep_link_with_the_sidebar(reading_page, app_server, stem, url_path, lang):
    """A page by its link, with the sidebar (AppTest runs every page in both languages:
    test_pages_apptest.py)."""
    page = reading_page
    open_page(page, f"{app_server}/{'' if stem == 'home' else url_path}?lang={lang}")
    screenshot(page, f"{stem}-{lang}")
    assert _exceptions(page) == []
    assert _sidebar(page).get_by_text(t("sidebar.corpus", lang)).first.is_visible()
    assert page.get_by_text("Page not found").count() == 0
    title = t("app.title", lang) if stem == "home" else t(f"nav.{stem}", lang)
    assert page.get_by_role("heading", name=title).first.is_visible()


def _upload(page, app_server, name: str, data: bytes, tmp_path):
    path = tmp_path / name
    path.write_bytes(data)
    open_page(page, f"{app_server}/corpus-stats?lang=en")
    _sidebar(page).locator("input[type='file']").set_input_files(str(path))
    page.wait_for_timeout(500)
    wait_for_app(page)


def test_gbk_upload_becomes_the_corpus(page, app_server, tmp_path):
    text = "我们今天去学校上课。老师说，明天会下雨，大家要带伞。小明和小红在图书馆看书，他们很喜欢读故事。\n" * 20
    _upload(page, app_server, "lesson-gbk.txt", text.encode("gbk"), tmp_path)
    screenshot(page, "upload-gbk")
    assert _sidebar(page).get_by_text(t("sidebar.sample.upload", "en", name="lesson-gbk.txt")).is_visible()
    assert page.get_by_text("gb18030").first.is_visible()
    assert _exceptions(page) == []


def test_binary_upload_shows_the_clear_error(page, app_server, tmp_path):
    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 16
    _upload(page, app_server, "photo.txt", png, tmp_path)
    screenshot(page, "upload-binary")
    assert page.get_by_text(t("error.binary", "en")).first.is_visible()
    assert _exceptions(page) == []


def test_uploaded_html_is_shown_as_text_and_never_runs(page, app_server, tmp_path):
    evil = "Hello <script>alert(1)</script> there.\nA picture <img src=x onerror=alert(1)> here.\nThe end is near.\n"
    _upload(page, app_server, "evil.txt", evil.encode("utf-8"), tmp_path)
    page.wait_for_timeout(1000)
    screenshot(page, "upload-html")
    assert page.get_by_text("<script>alert(1)</script>", exact=False).first.is_visible()
    assert page.get_by_text("<img src=x onerror=alert(1)>", exact=False).first.is_visible()
    assert page.dialogs == []
    assert page.locator("img[src='x']").count() == 0


def test_sidebar_choices_survive_navigation(reading_page, app_server):
    page = reading_page
    open_page(page, f"{app_server}/?lang=zh&corpus=english")
    summaries = _navigate_and_check_sidebar_kept(page, "zh")
    assert len(summaries) == 4 and len(set(summaries)) == 1 and "词元" in summaries[0]


def test_home_imports_the_chart_code_before_any_chart_page(page, app_server):
    """server/preload.py: while home is read, the browser already imports Plotly's chunk (and the other
    pages' element code); the first chart page then loads no more Plotly code of its own."""
    from server.preload import chunk_files

    plotly_chunk = next(name for name in chunk_files() if name.startswith("PlotlyChart."))
    open_page(page, f"{app_server}/?lang=en")
    loaded = "(name) => performance.getEntriesByType('resource').filter(e => e.name.endsWith('/' + name)).length"
    page.wait_for_function(f"({loaded})({plotly_chunk!r}) > 0", timeout=60_000)
    assert page.get_by_test_id("stPlotlyChart").count() == 0  # home itself draws no chart
    page.locator("[data-testid='stSidebarNav'] a[href$='/perplexity']").first.click()
    page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=120_000)
    wait_for_app(page)
    assert page.evaluate(loaded, plotly_chunk) == 1  # imported once, by home: the page reused it
    assert page.get_by_test_id("stException").count() == 0


def test_no_frame_around_the_page_can_drive_it(reading_page, app_server):
    """The app is opened directly, never framed by a host: the server names no origin whose frame may
    drive it (``client.allowedOrigins``), so the frontend does not listen to its host's messages
    (Streamlit's default list would let such a frame stop or rerun a student's run, and has the
    page check the origin of every message it posts itself). Its components' listener stays."""
    with urlopen(f"{app_server}/_stcore/host-config", timeout=30) as response:
        assert json.load(response)["allowedOrigins"] == []
    open_page(reading_page, app_server)
    cdp = reading_page.context.new_cdp_session(reading_page)
    window = cdp.send("Runtime.evaluate", {"expression": "window", "objectGroup": "listeners"})["result"]["objectId"]
    listeners = cdp.send("DOMDebugger.getEventListeners", {"objectId": window})["listeners"]
    handlers = [entry["handler"].get("description", "") for entry in listeners if entry["type"] == "message"]
    assert handlers and not [text for text in handlers if "window.parent" in text], handlers


def test_a_move_of_a_control_leaves_the_address_and_history_alone(reading_page, app_server):
    """A link's setting opens the page with it, then leaves the address (ui/state.py keep_settings);
    moves of the control add no history entry, so Back leaves the page instead of stepping through
    every value moved (each change of address also cost the frontend a render of the whole app)."""
    open_page(reading_page, f"{app_server}/beam-search?k=4")
    thumb = reading_page.locator(".st-key-decoding_k").get_by_role("slider")
    assert thumb.get_attribute("aria-valuetext") == "4" and "k=" not in reading_page.url
    entries = reading_page.evaluate("history.length")
    for value in (5, 6, 7):
        thumb.focus()
        thumb.press("ArrowRight")
        wait_for_app(reading_page)
        assert thumb.get_attribute("aria-valuetext") == str(value)
    assert reading_page.evaluate("history.length") == entries and "k=" not in reading_page.url
    assert reading_page.get_by_text("Beam (k = 7)").count() == 1  # the page shows the moved value
