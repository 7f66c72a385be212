"""ui/markup_element.py in Chromium: a table's every header and cell, and every token of the LSTM
page's coloured passage, reads as the very text it was given (no tag of an uploaded word becomes an
element), and a changed table is written again into the element already shown."""
import pytest

from tests.browser_server import open_test_app
from tests.test_tables import HOSTILE

pytest.importorskip("playwright")
CELLS = "(box) => [...document.querySelectorAll(box + ' .lmlab-markup tr')].map((r) => [...r.children].map((c) => c.textContent))"


@pytest.fixture(scope="module")
def table_page(browser):
    with open_test_app(browser, "tests/markup_app.py",
                       "document.querySelectorAll('.lmlab-markup table').length >= 2 "
                       "&& document.querySelectorAll('.st-key-passage .lmlab-markup span').length > 0") as page:
        yield page


def test_hostile_words_are_shown_as_text(table_page):
    rows = table_page.evaluate(CELLS, ".st-key-hostile")
    assert rows[0] == ["<th>word", "n"]
    assert [row[0] for row in rows[1:]] == HOSTILE
    box = table_page.locator(".st-key-hostile .lmlab-markup")
    assert box.locator("b, img, script, s, a").count() == 0


def test_a_passage_of_hostile_tokens_is_shown_as_text(table_page):
    box = table_page.locator(".st-key-passage .lmlab-markup")
    assert box.locator("span").all_text_contents() == HOSTILE
    assert box.locator("b, img, script, s, a").count() == 0


def test_a_changed_table_is_written_into_the_same_element(table_page):
    box = table_page.locator(".st-key-changing .lmlab-markup")
    box.evaluate("(el) => { el.lmlabMark = 1; }")  # the element's box, to find it again after the change
    radios = table_page.locator(".st-key-rows").get_by_role("radio")
    for index, rows in ((1, 5), (0, 2), (1, 5)):
        radios.nth(index).click(force=True)
        table_page.wait_for_function(f"({CELLS})('.st-key-changing').length === {rows + 1}", timeout=30_000)
        assert table_page.evaluate(CELLS, ".st-key-changing")[1:] == [[f"w{i}", str(i)] for i in range(rows)]
    assert box.evaluate("(el) => el.lmlabMark") == 1
