"""ui/formula_element.py in Chromium: a formula is laid out exactly as st.latex lays it out (the same
KaTeX, the same CSS), a formula KaTeX cannot parse shows its error, and markup in a formula's text
is shown as text. In AppTest, the app's formulas read as ``latex`` elements (tests/apptest_helpers.py)."""
import pytest

from tests.apptest_helpers import run_page
from tests.browser_server import open_test_app
from tests.formula_app import FORMULAS

pytest.importorskip("playwright")

# Every glyph of a formula as [text, x, y, width, height] in px, x and y from the first glyph's (the
# formula is centred in its box, and the two boxes need not be as wide).
GLYPHS = """(box) => {
  const root = document.querySelector(box + ' .katex-html');
  if (!root) return null;
  const glyphs = [...root.querySelectorAll('span')].filter((s) => !s.children.length && s.textContent.trim());
  const origin = glyphs[0].getBoundingClientRect();
  return glyphs.map((s) => {
    const r = s.getBoundingClientRect();
    return [s.textContent, r.left - origin.left, r.top - origin.top, r.width, r.height];
  });
}"""


# Both formulas measured in one evaluation once every font the page asked for has arrived: one CI
# run measured ours, then st.latex's with a later glyph 2.7 px further right (a KaTeX font that
# arrived between the two measurements moves what follows it).
BOTH = f"""async ([ours, theirs]) => {{
  await document.fonts.ready;
  const glyphs = {GLYPHS};
  return [glyphs(ours), glyphs(theirs)];
}}"""


def _glyphs(page, ours: str, theirs: str) -> tuple[list, list]:
    return tuple(page.evaluate(BOTH, [ours, theirs]))


@pytest.fixture(scope="module")
def formula_page(browser):
    with open_test_app(browser, "tests/formula_app.py",
                       f"document.querySelectorAll('.lmlab-formula:not(:empty)').length >= {len(FORMULAS) + 3}") as page:
        yield page


@pytest.mark.parametrize("i", range(len(FORMULAS)))
def test_a_formula_is_laid_out_as_st_latex_lays_it_out(formula_page, i):
    ours, theirs = _glyphs(formula_page, f".st-key-formula_{i}", f".st-key-latex_{i}")
    assert theirs and ours and [g[0] for g in ours] == [g[0] for g in theirs]
    for mine, st_latex in zip(ours, theirs):
        assert all(abs(a - b) <= 0.5 for a, b in zip(mine[1:], st_latex[1:])), (mine, st_latex)


def test_a_formula_katex_cannot_parse_shows_its_error_as_text(formula_page):
    box = formula_page.locator(".st-key-broken .lmlab-formula")
    assert box.locator(".katex-error").count() == 1
    assert r"\frac{1}{" in box.inner_text()


def test_markup_in_a_formula_is_shown_as_text(formula_page):
    box = formula_page.locator(".st-key-hostile .lmlab-formula")
    assert box.locator("img").count() == 0 and box.locator("b").count() == 0
    assert "<img src=x onerror=alert(1)> <b>bold</b>" in box.locator(".katex-html").inner_text().replace("\xa0", " ")


def test_a_formula_shown_again_is_the_formula_not_the_last_one(formula_page):
    """A switch A → B → A → B: the element draws a formula it has drawn before from its memory
    (ui/formula_element.js), and each time it is laid out as st.latex lays that formula out."""
    radios = formula_page.locator(".st-key-switch").get_by_role("radio")
    for shown in (0, 1, 0, 1):
        radios.nth(shown).click(force=True)
        formula_page.wait_for_function(  # the formula now shown reads as st.latex's of the one chosen
            f"() => ({GLYPHS})('.st-key-switching')?.map((g) => g[0]).join('') === "
            f"({GLYPHS})('.st-key-latex_{shown}').map((g) => g[0]).join('')", timeout=30_000)
        ours, theirs = _glyphs(formula_page, ".st-key-switching", f".st-key-latex_{shown}")
        for mine, st_latex in zip(ours, theirs):
            assert all(abs(a - b) <= 0.5 for a, b in zip(mine[1:], st_latex[1:])), (mine, st_latex)


def test_the_pages_formulas_are_formula_elements_in_apptest():
    at = run_page("chain_rule")
    assert at.latex and any(r"\prod" in el.value for el in at.latex)
    assert all(type(el).__name__ == "UnknownElement" for el in at.latex)  # ours: st.latex's would be Latex
