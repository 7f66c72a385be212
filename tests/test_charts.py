"""ui/charts.py: a figure is built once per builder and argument values, shared, and never stale."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from tests.apptest_helpers import errors, run_page
from tests.figure_cases import case_params
from ui import charts

ROOT = Path(__file__).resolve().parents[1]

calls: list[tuple] = []


def bars(values: np.ndarray, title: str = "", lang: str = "en") -> go.Figure:
    calls.append((tuple(values), title, lang))
    return go.Figure(go.Bar(y=values), layout=dict(title=f"{title} {lang}"))


def lines(values: np.ndarray, title: str = "", lang: str = "en") -> go.Figure:
    return go.Figure(go.Scatter(y=values), layout=dict(title=title))


@pytest.fixture(autouse=True)
def fresh_cache():
    charts.forget_figures()
    calls.clear()
    yield
    charts.forget_figures()


def test_the_same_arguments_give_the_same_figure_built_once():
    first = charts.chart(bars, np.array([1.0, 2.0]), title="a", lang="zh")
    again = charts.chart(bars, np.array([1.0, 2.0]), lang="zh", title="a")  # keyword order does not matter
    assert again is first and len(calls) == 1


@pytest.mark.parametrize("changed", [
    dict(values=np.array([1.0, 2.5])), dict(values=np.array([1.0, 2.0, 3.0])), dict(values=np.array([1, 2])),
    dict(title="b"), dict(lang="en")])
def test_any_other_argument_value_gives_its_own_figure(changed):
    base = dict(values=np.array([1.0, 2.0]), title="a", lang="zh")
    charts.chart(bars, base["values"], title=base["title"], lang=base["lang"])
    other = {**base, **changed}
    fig = charts.chart(bars, other["values"], title=other["title"], lang=other["lang"])
    assert len(calls) == 2
    assert fig.to_dict() == bars(other["values"], other["title"], other["lang"]).to_dict()


def test_two_builders_with_the_same_arguments_do_not_share_a_figure():
    a = charts.chart(bars, np.array([1.0]))
    b = charts.chart(lines, np.array([1.0]))
    assert a.data[0].type == "bar" and b.data[0].type == "scatter"


def test_forget_figures_builds_them_again():
    charts.chart(bars, np.array([1.0]))
    charts.forget_figures()
    charts.chart(bars, np.array([1.0]))
    assert len(calls) == 2


def test_arguments_it_cannot_hash_still_give_the_figure():
    class Opaque:  # Streamlit's hasher refuses objects it cannot reduce
        def __reduce__(self):
            raise TypeError("no")

    def titled(thing, values):
        return bars(values, title=type(thing).__name__)

    fig = charts.chart(titled, Opaque(), np.array([3.0]))
    assert fig.layout.title.text == "Opaque en"


def _charts_json(at) -> list[str]:
    return [element.proto.spec for element in at.get("plotly_chart")]


def test_a_page_shows_the_figures_of_its_own_settings_and_language():
    """Two sessions, other languages, same corpus: each sees its own labels (the language is an
    argument); the same session again sees exactly what a fresh build shows."""
    english, chinese = run_page("chain_rule", "en"), run_page("chain_rule", "zh")
    assert not errors(english) and not errors(chinese)
    assert _charts_json(english) != _charts_json(chinese)
    english.run()
    shown = _charts_json(english)
    charts.forget_figures()
    english.run()
    assert _charts_json(english) == shown


def test_a_cached_figure_carries_its_shown_spec_built_once(monkeypatch):
    built = []
    real = charts.spec_json
    monkeypatch.setattr(charts, "spec_json", lambda fig: built.append(fig) or real(fig))
    first = charts.chart(bars, np.array([1.0, 2.0]))
    again = charts.chart(bars, np.array([1.0, 2.0]))
    assert again is first and len(built) == 1  # once per figure, not per run that shows it
    assert json.loads(first._shown_json) == charts.spec(bars(np.array([1.0, 2.0])))


def _two_charts_and_a_refilled_box():
    import plotly.graph_objects as go
    import streamlit as st

    from ui.charts import plot

    n = st.slider("n", 1, 5, 2, key="n")
    left, right = st.columns(2)
    plot(go.Figure(go.Bar(y=list(range(n)))), left)
    plot(go.Figure(go.Scatter(y=[n, 1])), right)
    box = st.empty()  # filled twice in one run: the second chart takes the first one's place
    plot(go.Figure(go.Bar(y=[1])), box)
    plot(go.Figure(go.Bar(y=[2])), box)


def test_a_chart_keeps_its_element_when_its_figure_changes(monkeypatch):
    """The browser updates an element it has (Plotly.react: one draw) and mounts a new one for a new
    element id (a plot made from scratch): a chart's id must not change with its figure."""
    from streamlit.testing.v1 import AppTest

    # AppTest leaves its script as __main__: a process spawned later (multiprocessing) would run it
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])

    at = AppTest.from_function(_two_charts_and_a_refilled_box).run()
    assert not errors(at)
    before = [(chart.proto.id, json.loads(chart.proto.spec)) for chart in at.get("plotly_chart")]
    at.slider(key="n").set_value(4).run()
    after = [(chart.proto.id, json.loads(chart.proto.spec)) for chart in at.get("plotly_chart")]
    assert not errors(at) and len(after) == 3 and len({chart_id for chart_id, _ in after}) == 3
    assert [chart_id for chart_id, _ in after] == [chart_id for chart_id, _ in before]
    assert [spec["data"][0]["y"] for _, spec in after] == [[0, 1, 2, 3], [4, 1], [2]]
    assert [spec["data"][0]["y"] for _, spec in before][:2] == [[0, 1], [2, 1]]


# Counts the reads of a chart box's size (ui/plotly_element.js's box: class stPlotlyChart). Read while a
# run is changing the page, a size makes the browser lay out the whole page there and then.
BOX_READS = """
window.__boxReads = 0;
for (const name of ['clientWidth', 'clientHeight']) {
  const own = Object.getOwnPropertyDescriptor(Element.prototype, name);
  Object.defineProperty(Element.prototype, name, {configurable: true, get() {
    if (this.classList && this.classList.contains('stPlotlyChart')) window.__boxReads += 1;
    return own.get.call(this);
  }});
}
"""


@pytest.mark.browser
def test_a_move_draws_the_chart_once_in_the_browser(browser):
    """bench/one_slider_app.py in Chromium: each slider move draws the element's chart once, on the
    plot it has, at its container's width, with the modebar's PNG export and Fullscreen buttons as
    st.plotly_chart's, and nothing is fetched from another server; st.plotly_chart, counted the same
    way, made a new plot and drew it twice. The element's moves read no size of its box (its resize
    observer tells it when the box changed: a narrower window narrows the plot): no layout forced in the
    middle of a run."""
    import tests.browser_server  # noqa: F401 - puts bench/ on the path
    from latency_browser import Tab
    from streamlit_process import streamlit_process

    with streamlit_process(ROOT, script="bench/one_slider_app.py") as (url, _):
        counted, elsewhere, reads = {}, [], {}
        for kind in ("element", "plotly"):
            tab = Tab(browser)
            tab.context.add_init_script(BOX_READS)
            tab.page.on("request", lambda request: None if request.url.startswith((url, "blob:", "data:")) else elsewhere.append(request.url))
            tab.open(f"{url}/?chart={kind}")
            tab.page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')  # plotly.js loaded and drawn
            counted[kind] = []
            tab.page.evaluate("window.__boxReads = 0")
            for step in range(3):
                tab.draws()
                tab.move("k", "slider", step)
                counted[kind].append(tab.draws())
            reads[kind] = tab.page.evaluate("window.__boxReads")
            tab.page.set_viewport_size({"width": 500, "height": 1000})  # a narrower window: the plot follows its box
            tab.page.wait_for_function("""() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')]
                .every(gd => gd._fullLayout && gd._fullLayout.width === gd.parentElement.clientWidth && gd._fullLayout.width < 500)""",
                                       timeout=20_000)
            drawn = tab.page.evaluate("""() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')]
                .map(gd => [gd._fullLayout.width, gd.parentElement.clientWidth, gd._fullLayout.title.text,
                            gd.querySelectorAll('.modebar-btn[data-title="Download plot as a PNG"]').length
                            + gd.querySelectorAll('.modebar-btn[data-title="Fullscreen"]').length])""")
            tab.close()
            assert len(drawn) == 2 and drawn[0][0] == drawn[0][1] > 300 and drawn[0][3] == 2, kind
            assert drawn[0][2] == "Next word, k = 11", kind  # 10 → 11 → 10 → 11
            assert elsewhere == [], kind
    assert all(c["draws"] == 1 and c["made"] == 0 and c["calls"] == {"react": 1} for c in counted["element"]), counted
    assert reads["element"] == 0, reads  # its box's size comes from its resize observer, not read mid-run
    assert all(c["draws"] == 2 and c["made"] == 1 for c in counted["plotly"]), counted


def test_a_cached_figure_is_styled_for_the_projector_once_by_one_thread():
    """A class on one slide: every page run (many threads at once) gets the one styled copy."""
    import threading
    import time

    from lmcore.teaching.projector import projector_figure

    fig = charts.chart(bars, np.array([1.0, 2.0]))
    styled: list[int] = []
    start = threading.Barrier(4)

    def style(f):
        styled.append(1)
        time.sleep(0.05)  # while another thread asks for it too
        return projector_figure(f)

    got: list = []

    def page_run():
        start.wait(5)
        got.append(charts.styled_once(fig, style))

    threads = [threading.Thread(target=page_run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(styled) == 1 and len(got) == 4 and all(g is got[0] for g in got)
    assert json.loads(got[0]._shown_json) == charts.spec(projector_figure(fig))
    uncached = bars(np.array([3.0]))
    assert charts.styled_once(uncached, style) is not charts.styled_once(uncached, style)  # not kept


def test_a_shown_spec_leaves_tick_labels_unchecked_unless_the_figure_says_otherwise():
    """Every axis (the template's and the figure's own, a second y axis too) and every colour bar is
    sent with ticklabeloverflow "allow"; an axis whose figure chose a value keeps it."""
    fig = go.Figure([go.Heatmap(z=[[1, 2], [3, 4]]), go.Scatter(y=[1, 2], yaxis="y2")],
                    layout=dict(yaxis2=dict(overlaying="y", side="right"), xaxis=dict(ticklabeloverflow="hide past domain")))
    shown = charts.spec(fig)
    axes = {key: axis.get("ticklabeloverflow") for key, axis in shown["layout"].items() if key[1:5] == "axis"}
    assert axes == {"xaxis": "hide past domain", "yaxis": "allow", "yaxis2": "allow"}
    assert shown["data"][0]["colorbar"]["ticklabeloverflow"] == "allow"
    assert fig.layout.yaxis.ticklabeloverflow is None  # the figure itself is left as it was


ANIMATION = """() => {
  const gd = document.querySelector('.js-plotly-plot'), box = (sel) => gd.querySelector(sel)?.getBoundingClientRect();
  const rect = (r) => r && {top: r.top, bottom: r.bottom, left: r.left, right: r.right};
  return {frames: gd._transitionData._frames.length, bars: gd.data[1].x.slice(), width: gd._fullLayout.width,
          heat: rect(box('.draglayer .xy .nsewdrag')), barsPlot: rect(box('.draglayer .x2y2 .nsewdrag')),
          stepTitle: rect(box('.xtitle')), colorbar: rect(box('.colorbar')), slider: rect(box('.slider-container'))};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("view", [{"width": 1280, "height": 720}, {"width": 390, "height": 844}], ids=["laptop", "phone"])
def test_the_rnn_step_through_plays_and_fits_a_phone(browser, app_server, view):
    """The RNN page's step-through (Plotly frames) reaches the browser with its frames, so ▶ moves
    it (our chart element once dropped them: the button did nothing); on a phone its two plots are
    stacked, the colour bar beside h(t) and the player below the bars, nothing over anything."""
    from tests.browser_server import open_page

    phone = view["width"] < 500
    page = browser.new_page(viewport=view, is_mobile=phone, has_touch=phone)
    try:
        open_page(page, f"{app_server}/rnn-forward-bptt?lang=en&part=topk")
        page.wait_for_function("() => document.querySelector('.js-plotly-plot .main-svg text')", timeout=120_000)
        before = page.evaluate(ANIMATION)
        assert before["frames"] >= 3
        page.locator(".js-plotly-plot .updatemenu-button").first.click()  # ▶
        page.wait_for_function(f"() => JSON.stringify(document.querySelector('.js-plotly-plot').data[1].x) !== "
                               f"{json.dumps(json.dumps(before['bars']))}", timeout=30_000)
        shown = page.evaluate(ANIMATION)
        heat, bars, colorbar = shown["heat"], shown["barsPlot"], shown["colorbar"]
        assert None not in shown.values(), shown
        if phone:
            assert shown["width"] < 400
            assert shown["stepTitle"]["bottom"] < bars["top"]  # h(t)'s step axis above the bars
            assert colorbar["left"] >= heat["right"] and colorbar["bottom"] <= bars["top"]
        else:
            assert heat["right"] < colorbar["left"] and colorbar["right"] <= bars["left"]  # side by side
        assert shown["slider"]["top"] >= max(bars["bottom"], shown["stepTitle"]["bottom"])
        assert page.locator(".js-plotly-plot").first.evaluate(TEXTS_OVERLAP) == []
    finally:
        page.close()


# Texts of a chart that run into each other: its title, axis titles, annotations (a Chinese y title
# written above the plot), tick labels and its colour bar's title and ticks, each pair's boxes
# overlapping by more than 2 px (two tick labels of one axis aside: slanted ones' boxes overlap,
# tests/test_lessons_browser.TICKS_COLLIDE checks those).
TEXTS_OVERLAP = """(plot) => {
  const texts = [...plot.querySelectorAll('.gtitle, .xtitle, .ytitle, .annotation-text, .xtick text, .ytick text, '
                                         + '.cbtitle text, .cbaxis text')]
    .filter((t) => t.textContent.trim())
    .map((t) => [t.textContent, t.getBoundingClientRect(), t.closest('.xaxislayer-above, .yaxislayer-above, .cbaxis')])
    .filter(([, r]) => r.width);
  const bad = [];
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
    const [a, r, axis] = texts[i], [b, q, other] = texts[j];
    if (axis && axis === other) continue;
    if (Math.min(r.right, q.right) - Math.max(r.left, q.left) > 2 && Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top) > 2)
      bad.push(a + ' / ' + b);
  }
  return bad;
}"""


HEAT_MAPS = ("encoder-decoder?part=example", "vanishing-gradients?part=connectivity")


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("screen", ["phone", "laptop"])
def test_heat_maps_have_no_text_over_text_and_room_to_draw(browser, app_server, screen, lang):
    """On a 390x844 phone and a 1280x720 laptop. The seq2seq attention map has its keys' axis below
    the map: on top it ran into the title on a phone, and in Chinese into the query axis's title,
    written above the plot, on both. The gradients' connectivity map lays its colour bar under the
    map on a phone: beside it, the bar and its title left the map ~40 px of 358 and ran into each
    other. No text in a map or under it is drawn under ~10 px (a box under 12 px high): the connectivity
    map's words, written in its cells, were 6 px on a laptop and 3 px on a phone. One tab goes from map
    to map (the language is the session's: a tab per language)."""
    from tests.browser_server import SMALL_TEXT, move_to, open_page

    phone = screen == "phone"
    page = browser.new_page(viewport={"width": 390, "height": 844} if phone else {"width": 1280, "height": 720},
                            is_mobile=phone, has_touch=phone)
    seen, title = {}, None
    try:
        for where in HEAT_MAPS:
            if title is None:
                open_page(page, f"{app_server}/{where}&lang={lang}")
            else:
                move_to(page, f"/{where}")
            title = page.wait_for_function("""(before) => {
                const title = document.querySelector('.js-plotly-plot .gtitle');
                return title && title.textContent !== before && document.querySelector('.js-plotly-plot .main-svg .xtick text')
                       && title.textContent; }""", arg=title, timeout=120_000).json_value()
            plot = page.locator(".js-plotly-plot").first
            width, drawn = plot.evaluate("(p) => [p._fullLayout.width, p._fullLayout._size.w]")
            small = plot.evaluate(f"(p) => ({SMALL_TEXT})(p, '.heatmaplayer text, .xtick text')")
            seen[where] = (width, drawn, plot.evaluate(TEXTS_OVERLAP) + small)
    finally:
        page.close()
    bad = {where: found for where, found in seen.items()  # the attention map: 158 of 358 px on a phone
           if not ((found[0] < 400) == phone and found[1] >= 0.4 * found[0] and found[2] == [])}
    assert len(seen) == len(HEAT_MAPS) and not bad, bad


@pytest.mark.parametrize("stem, part", [("corpus", "tokens"), ("chain_rule", None), ("ngram", "words"),
                                        ("rnn_bptt", "step"), ("rnn_bptt", "topk"), ("gradients", "curves"),
                                        ("gradients", "clipping"), ("lstm", "gates"), ("lstm", "gradient"),
                                        ("lstm", "compare"), ("seq2seq", "example"), ("decoding", None)])
def test_a_page_run_again_shows_every_chart_from_the_json_kept_with_it(monkeypatch, stem, part):
    """A rerun with nothing changed (as a move back to a value seen before) serialises no figure: each
    chart is a cached figure shown from the spec built with it (the RNN page's step-through, cached
    as a dict, was serialised again by every move of top-k: 8 of its 19 ms)."""
    at = run_page(stem, query={"part": part} if part else None)
    assert not errors(at)
    serialised = []
    real = charts.spec_json
    monkeypatch.setattr(charts, "spec_json", lambda fig: serialised.append(fig) or real(fig))
    at.run()
    assert not errors(at)
    shown = [fig.to_dict() if isinstance(fig, go.Figure) else fig for fig in serialised]
    assert [[trace.get("type") for trace in spec["data"]] for spec in shown] == []  # the trace types of each


@pytest.mark.parametrize(("name", "make"), case_params())
def test_a_spec_written_by_orjson_reads_as_the_json_modules(name, make):
    """ui/charts.py writes specs with orjson: the same figure written by Python's json module (Plotly's
    other engine) reads back as the same values, the NaN of a gap as null in both."""
    import plotly.io

    fig = make()
    written = plotly.io.to_json(charts.spec(fig), validate=False, engine="json")
    assert json.loads(charts.spec_json(fig)) == json.loads(written)
