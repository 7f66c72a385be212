"""Shared fixtures: the browser, a blank plotly.js page, one app server, and no training left running at exit."""
import os
import sys

import pytest

os.environ.setdefault("TORCH_NUM_THREADS", "1")

# The longest files first (seconds of one worker here, session 10): with ``--dist loadfile`` a worker
# takes the next file when it is free, so a long file collected last left the other worker idle at the
# end. A scheduling hint only: the order of the tests inside a file, and what they check, is unchanged.
LONG_FILES = ("test_browser.py", "test_deploy.py", "test_offline.py", "test_classroom_load.py", "test_page_lstm.py",
              "test_teaching_browser.py", "test_instant_pages.py", "test_hostile_inputs.py", "test_pages_apptest.py",
              "test_page_gradients.py", "test_teaching_export.py", "test_page_controls.py", "test_browser_pages.py")


def pytest_collection_modifyitems(items) -> None:
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))  # stable: the rest keep their order


@pytest.fixture(autouse=True)
def the_real_main_module_after_each_test():
    """AppTest runs its script as the process's ``__main__`` and leaves it there. A process started
    later with ``spawn`` (the corpus workers, server/corpus_worker.py) re-runs ``__main__``'s file as
    ``__mp_main__``: a script from ``AppTest.from_function(f, args=...)`` raised NameError in the child,
    which broke the pool for every later test of that pytest worker (app.py guards against it)."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


@pytest.fixture(scope="session", autouse=True)
def no_training_left_running_at_exit():
    """Runs that pages queued in AppTest go on in the scheduler's threads; a thread still inside
    torch when the interpreter exits aborts the process ("terminate called ..."). Stop them first."""
    yield
    from server.job_queue import scheduler

    sched = scheduler()
    sched.stop_all()
    sched.wait_idle(120)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, one per test module (tests/browser_server.py)."""
    from tests.browser_server import CHROMIUM, CHROMIUM_ARGS, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def plotly_page(browser):
    """A blank 1280×720 page in Chromium with plotly.js (the copy Plotly ships) and a ``#plot`` div."""
    import tests.browser_server  # noqa: F401 - puts bench/ on the path
    from latency_browser import plotly_page as blank_plotly_page

    page = blank_plotly_page(browser, {"width": 1280, "height": 720})
    yield page
    page.close()


@pytest.fixture(scope="session")
def app_server():
    """One ``streamlit run app.py`` for the browser tests that do not need a fresh server; it has
    run the app once, so no test meets a cold server's first-request behaviour by accident."""
    import urllib.request

    from tests.browser_server import require_chromium, streamlit_server

    require_chromium()
    with streamlit_server() as url:
        urllib.request.urlopen(url + "/", timeout=60).read()
        yield url
