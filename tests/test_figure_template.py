"""lmcore/figures/template.py and ui/charts.py's ``spec``: a chart is sent with Streamlit's light theme
written into it, draws exactly as the same figure drawn by plotly.js with that theme as its template,
and is not drawn again when Plotly.react is handed the same figure anew (ui/plotly_element.js does,
on every run that shows an unchanged chart)."""
from __future__ import annotations

import copy
import json
import re

import plotly.graph_objects as go
import plotly.io
import pytest

from lmcore.figures.template import MAPS, inline_template
from tests.figure_cases import case_params
from ui import charts
from ui.navigation import PAGES

THEME = charts.THEME

# JS: clean(v, 0) is a resolved figure part as plain JSON, without private keys, uids and the template,
# typed arrays as arrays
CLEAN = """
  const seen = new WeakSet();
  const clean = (v, depth) => {
    if (ArrayBuffer.isView(v)) v = Array.from(v);
    if (typeof v === 'number' && isNaN(v)) return null;  // a gap either way (JSON has no NaN)
    if (v === null || typeof v !== 'object') return typeof v === 'function' ? undefined : v;
    if (depth > 7 || seen.has(v) || v instanceof Node) return undefined;
    seen.add(v);
    if (Array.isArray(v)) return v.map(x => clean(x, depth + 1));
    const out = {};
    for (const k of Object.keys(v).sort())
      if (!k.startsWith('_') && !['template', 'uid', 'datarevision'].includes(k)) {
        const c = clean(v[k], depth + 1); if (c !== undefined) out[k] = c; }
    return out;
  };
"""
# plotly.js's resolved figure (gd._fullLayout, gd._fullData), cleaned, and how many nodes it drew
FULL = """async (spec) => {
  const gd = document.getElementById('plot'); Plotly.purge(gd);
  await Plotly.newPlot(gd, spec.data, Object.assign(spec.layout, {width: 700}), {});
""" + CLEAN + """  return {layout: clean(gd._fullLayout, 0), data: gd._fullData.map(t => clean(t, 0)),
          nodes: gd.querySelectorAll('*').length};
}"""
# Plotly.react with the figure, then with a JSON copy of what it drew (as the chart element is handed
# the same figure by a run that did not change it): the number of DOM changes the copy caused
REDRAW = """async (spec) => {
  const gd = document.getElementById('plot'); Plotly.purge(gd);
  Object.assign(spec.layout, {width: 700, height: spec.layout.height || 450});
  await Plotly.react(gd, {data: spec.data, layout: spec.layout, config: {}});
  let changes = 0;
  const watch = new MutationObserver((records) => { changes += records.length; });
  watch.observe(gd, {subtree: true, childList: true, attributes: true, characterData: true});
  const copy = JSON.parse(JSON.stringify({data: gd.data, layout: gd.layout}));
  await Plotly.react(gd, {data: copy.data, layout: copy.layout, config: {}});
  await new Promise((done) => setTimeout(done, 20));
  watch.disconnect();
  return changes;
}"""


@pytest.fixture(scope="module")
def page(plotly_page):
    return plotly_page


def sent(fig) -> dict:
    """The spec as Streamlit sends it (its JSON)."""
    return json.loads(plotly.io.to_json(charts.spec(fig), validate=False))


def themed(fig: go.Figure) -> dict:
    """The figure as Streamlit's theme draws it today: its own spec with the theme as template (its
    phone layout, ``layout.meta.lmNarrow``, left out: see :func:`ui.charts.spec`), and the
    one thing ``charts.spec`` adds on purpose (tick labels not checked against the plot's box:
    ``unchecked_tick_labels``, tested in tests/test_charts.py) given the template's way."""
    spec = json.loads(fig.to_json())
    template = copy.deepcopy(THEME)
    for axis in ("xaxis", "yaxis"):
        template["layout"].setdefault(axis, {})["ticklabeloverflow"] = "allow"
    for kind in MAPS:
        for trace in template.setdefault("data", {}).setdefault(kind, [{}]):
            trace.setdefault("colorbar", {})["ticklabeloverflow"] = "allow"
    spec["layout"]["template"] = template
    meta = spec["layout"].get("meta")
    if isinstance(meta, dict) and meta.pop("lmNarrow", None) is not None and not meta:  # the phone layout: the element's
        del spec["layout"]["meta"]  # (charts.spec moves it out of the layout; it is not Plotly's)
    return spec


@pytest.mark.browser
@pytest.mark.parametrize(("name", "make"), case_params())
def test_a_sent_figure_draws_as_under_the_theme_template(page, name, make):
    fig = make()
    want, got = page.evaluate(FULL, themed(fig)), page.evaluate(FULL, sent(fig))
    assert got == want


# Still drawn twice: ``meta`` (the tests' role tags) is compared by identity as well, and so is
# something of an overlaying axis; left as they are (two pages' charts).
REDRAWN = ("decoding.beam_tree_figure", "decoding.beam_sweep_figure", "seq2seq.length_curves",
           "gradients.forget_gate_figure")


@pytest.mark.browser
@pytest.mark.parametrize(("name", "make"), [
    pytest.param(*p.values, marks=[*p.marks, pytest.mark.xfail(strict=True, reason="drawn again")], id=p.id)
    if p.values[0] in REDRAWN else p for p in case_params()])
def test_a_sent_figure_is_not_drawn_again_from_a_copy(page, name, make):
    fig = make()
    assert page.evaluate(REDRAW, sent(fig)) == 0
    assert page.evaluate(REDRAW, themed(fig)) > 0  # with the theme as a template (compared by identity): drawn again


def test_template_values_fill_only_what_the_figure_leaves_unset():
    template = {"layout": {"font": {"size": 12, "color": "#111"}, "xaxis": {"gridcolor": "#eee", "showgrid": False}},
                "data": {"bar": [{"type": "bar", "opacity": 0.5}, {"type": "bar", "opacity": 0.9}]}}
    spec = {"data": [{"type": "bar", "y": [1]}, {"type": "bar", "y": [2], "opacity": 1.0}, {"type": "bar", "y": [3]},
                     {"type": "scatter", "y": [4], "xaxis": "x2"}],
            "layout": {"font": {"size": 20}, "template": {"layout": {"font": {"size": 99}}}}}
    out = inline_template(spec, template)
    assert "template" not in out["layout"]
    assert out["layout"]["font"] == {"size": 20, "color": "#111"}  # the figure's own size wins
    assert [t.get("opacity") for t in out["data"]] == [0.5, 1.0, 0.5, None]  # k-th bar gets template k mod 2
    assert out["layout"]["xaxis"]["gridcolor"] == out["layout"]["xaxis2"]["gridcolor"] == "#eee"  # every x axis
    assert spec["layout"]["template"] and "opacity" not in spec["data"][0]  # the input is left as it was


def test_sent_spec_has_no_template_no_typed_arrays_and_a_content_revision():
    a = charts.spec(go.Figure(go.Bar(y=[1.0, 2.0])))
    b = charts.spec(go.Figure(go.Bar(y=[1.0, 2.5])))
    text = plotly.io.to_json(a, validate=False)
    assert "template" not in a["layout"] and "bdata" not in text
    assert a["data"][0]["y"] == [1.0, 2.0]
    assert a["layout"]["datarevision"] == charts.spec(go.Figure(go.Bar(y=[1.0, 2.0])))["layout"]["datarevision"]
    assert a["layout"]["datarevision"] != b["layout"]["datarevision"]


@pytest.mark.parametrize("stem", [stem for stem, _, _ in PAGES if stem != "home"])
def test_every_chart_of_a_page_is_sent_themed_once(stem):
    from tests.apptest_helpers import errors, run_page

    at = run_page(stem)
    assert not errors(at)
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        assert "template" not in spec["layout"], stem
        assert spec["layout"]["datarevision"] and "bdata" not in chart.proto.spec, stem
        assert spec["layout"]["font"]["family"] == THEME["layout"]["font"]["family"], stem


# The chart element (ui/plotly_element.js as the app runs it: ``script``) and ``show(parent, spec)``, which
# hands it ``spec`` and waits for its draw loop to end (bounded: a hang fails, never a speed)
ELEMENT = """
  const element = (await import(URL.createObjectURL(new Blob([script], {type: 'text/javascript'})))).default;
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const settled = async (gd) => {
    for (const end = Date.now() + 30000; gd.lmDrawing || gd.lmNext || !gd._fullLayout;) {
      if (Date.now() > end) throw new Error('the chart element never finished drawing');
      await new Promise((done) => setTimeout(done, 10));
    }
    await frame(); await frame();
  };
  const show = async (parent, spec) => { element({data: spec, parentElement: parent});
    const gd = parent.querySelector('.lmlab-plot'); await settled(gd); return gd; };
"""
# The chart element (ui/plotly_element.js, run as the app runs it) shown figure ``a`` then ``b`` (as when a
# control moves), against a new element shown ``b``: what is drawn (resolved figure, shapes, bars,
# heatmap image, tick labels) and the DOM changes outside the shapes' layer the move caused
MOVE = """async ([script, a, b]) => {""" + ELEMENT + """  const drawn = (gd) => {
""" + CLEAN + """    const marks = [...gd.querySelectorAll('.shapelayer path, .bars path, .hm image, .xtick text, .ytick text')]
      .map(e => e.getAttribute('d') || e.getAttribute('href') || e.textContent);
    return {layout: clean(gd._fullLayout, 0), data: gd._fullData.map(t => clean(t, 0)), marks};
  };
  const box = (id) => { const div = document.createElement('div'); div.id = id; div.style.width = '700px';
    document.body.appendChild(div); return div; };
  const want = drawn(await show(box('fresh'), b));
  const parent = box('moved');
  const gd = await show(parent, a);
  const outside = [];
  const watch = new MutationObserver((records) => {
    for (const r of records.filter(r => !(r.target.closest && r.target.closest('.shapelayer, .shape-group'))))
      outside.push(`${r.type} ${r.attributeName || ''} ${r.target.nodeName}.${r.target.getAttribute && r.target.getAttribute('class')}`); });
  watch.observe(gd, {subtree: true, childList: true, attributes: true, characterData: true});
  await show(parent, b);
  watch.disconnect();
  const got = drawn(gd);
  for (const id of ['fresh', 'moved']) { window.Plotly.purge(document.querySelector(`#${id} .lmlab-plot`));
    document.getElementById(id).remove(); }
  return {want, got, outside};
}"""


def _drawn(resolved: dict) -> dict:
    """A resolved figure without its marks and its axes' tick spacing (set when an axis is drawn, so
    absent after a redraw of the highlight alone; the tick labels drawn are among the marks)."""
    layout = {key: ({k: v for k, v in value.items() if k not in ("dtick", "tick0")}
                    if key[1:5] == "axis" and isinstance(value, dict) else value)
              for key, value in resolved["layout"].items()}
    return {"layout": layout, "data": resolved["data"]}


def _numbers(mark: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", mark)]


def _letters(mark: str) -> str:
    return re.sub(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", "#", mark)


def _differences(got, want, path: str = "") -> list[str]:
    """Where two resolved figures differ (the first ten paths), for a failure's message."""
    if isinstance(got, dict) and isinstance(want, dict):
        found = [d for key in sorted(set(got) | set(want)) for d in _differences(got.get(key), want.get(key), f"{path}.{key}")]
    elif isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        found = [d for i, (g, w) in enumerate(zip(got, want)) for d in _differences(g, w, f"{path}[{i}]")]
    else:
        found = [] if got == want else [f"{path}: {str(got)[:60]} != {str(want)[:60]}"]
    return found[:10]


def _moves():
    """(name, figure before, figure after, whether only shapes or annotations change)."""
    import numpy as np

    from lmcore.figures.gradients import cliff_figure
    from lmcore.figures.rnn import hidden_state_heatmap, step_loss_figure
    from lmcore.recurrent.cliff import descend, loss_surface

    surface = loss_surface((0.0, 12.0), (-8.0, 2.0), 40)
    cliffs = [cliff_figure(surface, {"plain": descend((10.0, -3.0), 0.01, 60),
                                     "clipped": descend((10.0, -3.0), 0.01, 60, threshold=threshold)})
              for threshold in (20.0, 5.0)]
    h, words = np.tanh(np.linspace(-2, 2, 24).reshape(6, 4)), ["</s>", "a", "b", "a", "c", "d"]
    losses = np.array([2.0, 3.5, 1.0, 4.0, 2.5, 0.8])
    ticks = [go.Figure(go.Bar(y=[1.0, 2.0, 3.0]), layout={"xaxis": {"tickvals": v, "ticktext": ["x", "y"]}})
             for v in ([0, 1], [1, 2])]
    return [("heatmap step", hidden_state_heatmap(h, words, 2), hidden_state_heatmap(h, words, 5), True),
            ("loss step", step_loss_figure(losses, words, 2), step_loss_figure(losses, words, 5), True),
            ("bar data", go.Figure(go.Bar(y=[1.0, 2.0])), go.Figure(go.Bar(y=[1.0, 2.5])), False),
            ("tick values", ticks[0], ticks[1], False),
            ("heatmap data", hidden_state_heatmap(h, words, 2), hidden_state_heatmap(-h, words, 2), False),
            ("cliff threshold", cliffs[0], cliffs[1], True)]


@pytest.fixture(scope="module")
def app_plotly_page(browser):
    """A page with the plotly.js the chart element draws with: Streamlit's frontend chunk, served (with
    the chunks it imports) from Streamlit's static folder by a server on a free local port."""
    import functools
    import http.server
    import threading

    from ui.placed_element import STATIC_JS, frontend_chunk

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(STATIC_JS.parent.parent))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"http://127.0.0.1:{server.server_port}/static/js/")  # the folder's listing: same origin
        # the chunk loads Streamlit's frontend, which mounts on #root (hidden here; no server to reach)
        page.set_content("<html><body style='margin:0'><div id='root' hidden></div><div id='plot'></div></body></html>")
        page.evaluate("(chunk) => import('/static/js/' + chunk).then(() => Boolean(window.Plotly))",
                      frontend_chunk("PlotlyChart"))
        yield page
    finally:
        page.close()
        server.shutdown()


@pytest.mark.browser
@pytest.mark.parametrize("case", range(6))
def test_a_moved_figure_draws_as_a_new_plot_of_it(app_plotly_page, case):
    from ui.plotly_element import SCRIPT

    name, before, after, shapes_only = _moves()[case]
    moved = app_plotly_page.evaluate(MOVE, [SCRIPT, charts.spec_json(before).decode(), charts.spec_json(after).decode()])
    got, want = (_drawn(moved[which]) for which in ("got", "want"))
    assert got == want, (name, _differences(got, want))
    assert len(moved["got"]["marks"]) == len(moved["want"]["marks"]), name
    for mine, fresh in zip(moved["got"]["marks"], moved["want"]["marks"]):  # within a pixel (automargin's rounding)
        assert _numbers(mine) == pytest.approx(_numbers(fresh), abs=1.01) and _letters(mine) == _letters(fresh), name
    assert moved["want"]["marks"], name  # something of it is compared
    if shapes_only:  # the highlight moved alone: nothing else was drawn again
        assert sent(before)["layout"]["datarevision"] == sent(after)["layout"]["datarevision"], name
        assert moved["outside"] == [], name
    else:
        assert len(moved["outside"]) > 20, name


LEVELS = """([z, n]) => { const gd = document.createElement('div'); document.body.appendChild(gd);
  window.Plotly.newPlot(gd, [{type: 'contour', z, ncontours: n}]);
  const {start, end, size} = gd._fullData[0].contours; window.Plotly.purge(gd); gd.remove(); return {start, end, size}; }"""


@pytest.mark.browser
def test_the_cliffs_contour_levels_are_those_plotly_would_choose(app_plotly_page):
    """The cliff's contour levels are set on the server (a move of its paths keeps the contour drawn):
    they must be the levels plotly.js's autocontour draws, for the cliff's own surface and for ranges
    whose step sits on a boundary of 2, 5 and 10 (0.2 from 0…6 in 30 is not a step: plotly.js takes
    the next, 0.5)."""
    import numpy as np

    from lmcore.figures.gradients import contour_levels
    from lmcore.recurrent.cliff import loss_surface

    surface = loss_surface((0.0, 12.0), (-8.0, 2.0), 100)
    cliff = np.round(np.log10(surface.loss.astype(float) + 1e-12), 3)
    cases = [(cliff, 30), (np.array([[0.0, 6.0]]), 30), (np.array([[0.0, 1.0]]), 30), (np.array([[0.0, 1.0]]), 15),
             (np.array([[-1.0, 1.0]]), 20), (np.array([[0.1, 0.97]]), 7), (np.array([[-3.3, 7.7]]), 30),
             (np.array([[0.0, 1000.0]]), 10), (np.array([[2.0, 2.05]]), 30)]
    for z, n in cases:
        plotly_levels = app_plotly_page.evaluate(LEVELS, [z.tolist(), n])
        ours = contour_levels(z, n)
        assert ours == pytest.approx(plotly_levels, rel=1e-12, abs=1e-12), (z.min(), z.max(), n)


# The chart element shown ``specs`` in turn (as the seq2seq page does: a map, hidden, the map again):
# after each, whether the box is shown, Plotly draws since the previous one, and the plot's width
HIDE_AND_SHOW = """async ([script, specs]) => {""" + ELEMENT + """
  const parent = document.createElement('div'); parent.style.width = '640px'; document.body.appendChild(parent);
  let draws = 0, hooked = null; const out = [];
  for (const spec of specs) {
    const gd = await show(parent, spec);
    if (hooked !== gd) { gd.on('plotly_afterplot', () => { draws += 1; }); hooked = gd; draws = 1; }
    out.push({shown: gd.parentElement.style.display !== 'none', draws, width: gd._fullLayout.width}); draws = 0;
  }
  window.Plotly.purge(parent.querySelector('.lmlab-plot')); parent.remove();
  return out;
}"""


@pytest.mark.browser
def test_a_chart_shown_again_as_it_was_hidden_is_not_drawn_again(app_plotly_page):
    """hidden_chart keeps a plot out of sight; shown again with the same figure it is not drawn again
    (Plotly.react would redraw it whole), shown with another it is drawn once, at the box's width."""
    from ui.charts import HIDDEN
    from ui.plotly_element import SCRIPT

    a = charts.spec_json(go.Figure(go.Heatmap(z=[[0.1, 0.9], [0.7, 0.3]]))).decode()
    b = charts.spec_json(go.Figure(go.Heatmap(z=[[0.5, 0.5], [0.2, 0.8]]))).decode()
    steps = app_plotly_page.evaluate(HIDE_AND_SHOW, [SCRIPT, [a, HIDDEN.decode(), a, HIDDEN.decode(), b]])
    assert [s["shown"] for s in steps] == [True, False, True, False, True]
    assert [s["draws"] for s in steps] == [1, 0, 0, 0, 1]
    assert {s["width"] for s in steps} == {640}
