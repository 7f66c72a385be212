"""tests/browser_server.open_page on a stand-in page (served by the browser itself, no server): a page
not connected in time is reloaded once, with a warning saying what it had done; one that never
connects fails with its state and events, not a bare timeout."""
import pytest

from tests.browser_server import open_page

pytestmark = pytest.mark.browser
URL = "http://127.0.0.1:9/app"  # answered by the route below: nothing listens there


def _stand_in(connect_at_load: int) -> str:
    """A page that says which load it is (its console) and is 'connected' from load ``connect_at_load`` on."""
    return ("<div data-testid='stApp' data-test-script-state='notRunning'>app</div><script>"
            "const n = Number(sessionStorage.n || 0) + 1; sessionStorage.n = n; console.log('load ' + n);"
            f"if (n >= {connect_at_load}) document.querySelector('[data-testid=stApp]')"
            ".dataset.testConnectionState = 'CONNECTED';</script>")


@pytest.fixture
def page(browser):
    page = browser.new_page()
    yield page
    page.close()


def test_a_page_connected_at_once_is_not_reloaded(page, recwarn):
    page.route(URL, lambda route: route.fulfill(content_type="text/html", body=_stand_in(1)))
    open_page(page, URL, timeout=10_000, reload_after=1000)
    assert page.evaluate("sessionStorage.n") == "1" and not recwarn.list


def test_a_page_not_connected_in_time_is_reloaded_once_with_a_warning(page):
    page.route(URL, lambda route: route.fulfill(content_type="text/html", body=_stand_in(2)))
    with pytest.warns(UserWarning, match=r"reloaded once.*console log: load 1"):
        open_page(page, URL, timeout=10_000, reload_after=1000)
    assert page.evaluate("sessionStorage.n") == "2"


def test_a_page_that_never_connects_fails_with_what_it_did(page):
    page.route(URL, lambda route: route.fulfill(content_type="text/html", body=_stand_in(99)))
    with pytest.warns(UserWarning), pytest.raises(AssertionError, match=r"(?s)never connected.*after: app \(connection, script\): "
                                                                       r"\[None, 'notRunning'\].*load 2"):
        open_page(page, URL, timeout=3000, reload_after=1000)


def test_a_page_whose_own_script_fails_is_reloaded_at_once(page, browser):
    """Its app cannot start (Chromium drops requests in flight when the machine's network changes):
    reloaded long before the time a slow page is given, with a warning naming the failed script."""
    from tests.browser_server import PageEvents

    page.lmlab_events = PageEvents(page)
    script = "http://127.0.0.1:9/static/js/index.js"
    loads = []

    def serve(route):
        loads.append(route.request.url)
        if route.request.url == script and loads.count(script) == 1:
            route.abort("connectionreset")  # the first load's chunk never arrives
        elif route.request.url == script:
            route.fulfill(content_type="text/javascript", body="document.querySelector('[data-testid=stApp]')"
                                                               ".dataset.testConnectionState = 'CONNECTED';")
        else:
            route.fulfill(content_type="text/html", body=f"<div data-testid='stApp' data-test-script-state='notRunning'>"
                                                         f"app</div><script src='{script}'></script>")

    page.route("http://127.0.0.1:9/**", serve)
    with pytest.warns(UserWarning, match=r"a script of its own failed to arrive; reloaded once.*failed .*index\.js"):
        open_page(page, URL, timeout=30_000, reload_after=25_000)
    assert loads.count(URL) == 2 and loads.count(script) == 2
