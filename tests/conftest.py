"""Shared fixtures: the browser, a blank plotly.js page, one app server, and no training left running at exit."""
import os
import sys

import pytest

os.environ.setdefault("TORCH_NUM_THREADS", "1")

# The longest files first (seconds in a suite run of session 32: lessons 174, browser 72, multihost drill 60,
# queue worker 59, hostile inputs 48, LSTM page 47, classroom load 45, live class 41, ...): with
# ``--dist loadfile`` a worker takes the next file when it is almost free, so a long file collected
# last left the other worker idle at the end (pytest.ini turns off xdist's own reordering). A
# scheduling hint only: the order of the tests inside a file, and what they check, is unchanged.
LONG_FILES = ("test_lessons_browser.py", "test_browser.py", "test_multihost_drill.py", "test_queue_worker.py",
              "test_hostile_inputs.py", "test_page_lstm.py", "test_classroom_load.py", "test_live_class_browser.py",
              "test_deploy_browser.py", "test_figure_template.py", "test_offline.py", "test_replica_failover.py",
              "test_pages_apptest.py", "test_deploy.py", "test_teaching_browser.py", "test_charts.py",
              "test_browser_layout.py", "test_teaching_export.py", "test_figures_render.py", "test_teaching_pages.py",
              "test_recurrent_clip_lab.py", "test_page_gradients.py", "test_instant_pages.py", "test_corpus_worker.py",
              "test_browser_pages.py", "test_sections.py", "test_page_controls.py")


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


_OFF_MACHINE: list = []  # the OffMachine recorder of this worker's browsers (tests/browser_server.py)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, one per test module (tests/browser_server.py). Every
    context it makes is watched: a request to anything but this machine fails the test that made it
    (:func:`nothing_asked_off_this_machine`)."""
    from tests.browser_server import CHROMIUM, CHROMIUM_ARGS, GuardedBrowser, OffMachine, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    if not _OFF_MACHINE:
        _OFF_MACHINE.append(OffMachine())
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield GuardedBrowser(launched, _OFF_MACHINE[0])
        launched.close()


@pytest.fixture(autouse=True)
def nothing_asked_off_this_machine():
    """An offline classroom (issue 39): no page may ask anything of another machine. A browser test
    that made its browser do so fails here, with what was asked."""
    before = len(_OFF_MACHINE[0].found) if _OFF_MACHINE else 0
    yield
    asked = _OFF_MACHINE[0].found[before:] if _OFF_MACHINE else []
    if asked:
        pytest.fail("the browser asked another machine for:\n" + "\n".join(sorted(set(asked))))


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
