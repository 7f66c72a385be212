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
