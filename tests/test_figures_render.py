"""Figures drawn by plotly.js in Chromium at the width a 1280×720 screen gives them: the text a
student reads must not pile up (labels measured from the rendered SVG, not estimated)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.figure_cases import case_params

pytestmark = pytest.mark.browser
WORDS = ("the river ran past old mill and on to sea harbor marco boats were moored along quay "
         "fishermen mended their nets while gulls circled overhead").split()


@pytest.fixture(scope="module")
def page(plotly_page):
    return plotly_page


def draw(page, fig, width: int) -> None:
    spec = json.loads(fig.to_json())
    page.evaluate("""([spec, width]) => {
        const el = document.getElementById('plot'); Plotly.purge(el); el.style.width = width + 'px';
        return Plotly.newPlot(el, spec.data, Object.assign(spec.layout, {width: width}), {staticPlot: true});
    }""", [spec, width])


def boxes(page, selector: str) -> list[dict]:
    return page.evaluate("""(sel) => [...document.querySelectorAll(sel)].filter(t => t.textContent.trim())
        .map(t => { const b = t.getBoundingClientRect();
                    return {text: t.textContent, x0: b.left, y0: b.top, x1: b.right, y1: b.bottom,
                            transform: t.getAttribute('transform') || ''}; })""", selector)


def overlapping(a: list[dict], b: list[dict] | None = None, gap: float = 0.5) -> list[tuple[str, str]]:
    pairs = [(p, q) for i, p in enumerate(a) for q in (a[i + 1:] if b is None else b)]
    return [(p["text"], q["text"]) for p, q in pairs
            if p["x0"] + gap < q["x1"] and q["x0"] + gap < p["x1"] and p["y0"] + gap < q["y1"] and q["y0"] + gap < p["y1"]]


def _wide_tree(k: int, pruned: int):
    from lmcore.decoding import RandomScorer, beam_search
    from lmcore.figures.decoding import beam_tree_figure

    score = RandomScorer(len(WORDS), seed=3, temperature=0.7, end_id=0)
    tree = beam_search(score, k, 8, 0, pruned_per_parent=pruned)
    vocab = ["</s>"] + WORDS[1:]
    return beam_tree_figure(tree, vocab, lang="en"), tree


@pytest.mark.parametrize("k, pruned", [(10, 5), (10, 2), (4, 5)])
def test_beam_tree_labels_never_overlap(page, k, pruned):
    fig, tree = _wide_tree(k, pruned)
    draw(page, fig, 800)
    labels = boxes(page, ".textpoint text")
    assert labels and overlapping(labels) == []
    dots = page.evaluate("""() => [...document.querySelectorAll('.scatterlayer .points path.point')].map(p => {
        const b = p.getBoundingClientRect(); return {text: 'dot', x0: b.left, y0: b.top, x1: b.right, y1: b.bottom}; })""")
    assert dots and overlapping(labels, dots, gap=1.0) == []
    shown = sum(len([s for s in tr.text if s]) for tr in fig.data if tr.mode == "markers+text")
    assert len(labels) == shown


def test_textbook_tree_names_every_node(page):
    from lmcore.decoding import beam_search, textbook_scorer
    from lmcore.decoding.textbook import END, GREEDY_PATH, MAX_LEN, VOCAB
    from lmcore.figures.decoding import beam_tree_figure

    tree = beam_search(textbook_scorer(), 2, MAX_LEN, END, pruned_per_parent=2)
    draw(page, beam_tree_figure(tree, VOCAB, GREEDY_PATH), 800)
    labels = boxes(page, ".textpoint text")
    assert len(labels) == len(tree) and overlapping(labels) == []


def test_continuation_labels_do_not_overlap(page):
    from tests.figure_cases import cases

    fig = dict(cases()["ngram.continuation_figure"])[""]()
    draw(page, fig, 780)
    labels = boxes(page, ".textpoint text")
    assert {"harbor", "marco"} & {b["text"] for b in labels}
    assert overlapping(labels) == []


@pytest.mark.parametrize("n", [20, 60, 120])
def test_chinese_tokens_are_upright_and_apart(page, n):
    from lmcore.figures.lstm import unit_heatmap

    chars = list("语言模型可以预测下一个字也可以生成新的句子")
    symbols = (chars * (n // len(chars) + 1))[:n]
    draw(page, unit_heatmap(np.random.default_rng(0).random((4, n)), symbols, [0, 1, 2, 3], "f(t)", lang="zh"), 720)
    ticks = boxes(page, ".xtick text")
    assert len(ticks) >= min(n, 10)
    assert all("rotate" not in t["transform"] for t in ticks)
    assert overlapping(ticks) == []


@pytest.mark.parametrize("n_units", [8, 32, 64, 128])
def test_unit_numbers_do_not_overlap(page, n_units):
    from lmcore.figures.lstm import unit_heatmap

    values = np.random.default_rng(0).random((n_units, 12))
    draw(page, unit_heatmap(values, WORDS[:12], list(range(n_units))[::-1], "f(t)"), 720)
    ticks = boxes(page, ".ytick text")
    assert len(ticks) >= min(n_units, 8) and overlapping(ticks) == []


def test_mean_loss_label_is_not_drawn_over_a_bar(page):
    from lmcore.figures.rnn import step_loss_figure

    losses = np.array([2.0, 3.5, 1.0, 4.0, 2.5, 0.8, 3.1, 2.2])
    draw(page, step_loss_figure(losses, WORDS[:8], 2), 720)
    texts = boxes(page, "text")
    label = [t for t in texts if t["text"].startswith("J = ")]
    bars = page.evaluate("""() => [...document.querySelectorAll('.bars .point path')].map(p => {
        const b = p.getBoundingClientRect(); return {text: 'bar', x0: b.left, y0: b.top, x1: b.right, y1: b.bottom}; })""")
    assert label and len(bars) == len(losses)
    assert overlapping(label, bars) == []


ZH_WORDS = ["林", "小雨", "今年", "<unk>", "，", "上", "五年级", "。", "</s>", "她", "喜欢", "画画"]


@pytest.mark.parametrize("which", ["hidden", "loss"])
def test_rnn_token_axes_fit_a_half_page_column(page, which):
    """Both RNN charts sit side by side: at 400 px each, Chinese tokens stay upright and apart."""
    from lmcore.figures.rnn import hidden_state_heatmap, step_loss_figure

    n = len(ZH_WORDS)
    fig = (hidden_state_heatmap(np.tanh(np.random.default_rng(0).normal(size=(n, 8))), ZH_WORDS, 2, "zh")
           if which == "hidden" else step_loss_figure(np.linspace(1, 4, n), ZH_WORDS, 2, "zh"))
    draw(page, fig, 400)
    ticks = boxes(page, ".xtick text")
    assert len(ticks) >= 4 and all("rotate" not in t["transform"] for t in ticks)
    assert overlapping(ticks, gap=0.0) == []
    assert all(b["x0"] - a["x1"] >= 2 for a, b in zip(ticks, ticks[1:])), [t["text"] for t in ticks]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ngram_next_word_chart_keeps_its_labels_upright(page, lang):
    """The next-word chart, even as narrow as half a column (400 px): every word is written, upright,
    none over another."""
    from lmcore.figures.ngram import next_word_figure

    words = (ZH_WORDS if lang == "zh" else WORDS)[:12]
    dists = {m: np.linspace(0.1, 0.01, len(words)) for m in ("mle", "add-delta", "modified-kn", "kn-notes")}
    draw(page, next_word_figure(words, dists, lang), 400)
    ticks = boxes(page, ".ytick text")
    assert len(ticks) == len(words) and all("rotate" not in t["transform"] for t in ticks)
    assert overlapping(ticks) == [] and overlapping(boxes(page, ".xtick text")) == []


@pytest.mark.parametrize("width, which", [(780, "bars"), (400, "run")])
def test_chain_rule_tokens_of_a_long_chinese_sentence_stay_upright(page, width, which):
    from lmcore.figures.ngram import chain_rule_bars, running_perplexity_figure
    from lmcore.lm_protocol import TokenLogProbs

    tokens = (ZH_WORDS * 3)[:30]
    scores = TokenLogProbs(tokens, np.log(np.linspace(0.5, 0.01, 30)), np.zeros(30, dtype=bool))
    draw(page, (chain_rule_bars if which == "bars" else running_perplexity_figure)(scores, "zh"), width)
    ticks = boxes(page, ".xtick text")
    assert len(ticks) >= 5 and all("rotate" not in t["transform"] for t in ticks)
    assert overlapping(ticks) == []


@pytest.mark.parametrize("name, make", case_params())
def test_margins_already_fit_so_plotly_draws_once(page, name, make):
    """lmcore.figures.margins: every figure's margins hold its tick labels, titles, colour bars and
    legends, so Plotly's auto-margin keeps them (it draws the chart again whenever it widens one).
    At the page's full width: a narrower chart may wrap its legend (margins.LEGEND_WIDTH)."""
    fig = make()
    given = fig.layout.margin
    draw(page, fig, 940)
    size = page.evaluate("() => { const s = document.getElementById('plot')._fullLayout._size; "
                         "return {l: s.l, r: s.r, t: s.t, b: s.b}; }")
    widened = {side: round(px) for side, px in size.items() if px > (getattr(given, side) or 0) + 0.5}
    assert widened == {}, (name, widened, given)


@pytest.mark.parametrize("answer", [0.02, 1.48])
def test_the_live_answer_label_fits_beside_its_line_on_the_projector(page, answer):
    """The revealed answer's label on the projector (1280×720: the chart ~1200 px wide), the answer
    near either edge: the label stays inside the plot, and the x axis still spans the answers only
    (a label written to the right of an answer near the right edge made Plotly stretch the axis to
    fit it: a third of the chart empty, the bars squeezed)."""
    from lmcore.figures.live import live_histogram
    from lmcore.teaching.projector import projector_figure

    fig = projector_figure(live_histogram([0.0, 0.5, 1.0, 1.5], [2, 5, 1], (answer - 0.01, answer + 0.01), answer),
                           height=400)
    draw(page, fig, 1200)
    [label] = [t for t in boxes(page, ".annotation-text") if t["text"].startswith("answer")]
    plot = page.evaluate("() => { const gd = document.getElementById('plot'), s = gd._fullLayout._size;"
                         " const left = gd.querySelector('svg.main-svg').getBoundingClientRect().left;"
                         " return {x0: left + s.l, x1: left + s.l + s.w}; }")  # the plotting area
    low, high = page.evaluate("() => document.getElementById('plot')._fullLayout.xaxis.range")
    assert plot["x0"] <= label["x0"] and label["x1"] <= plot["x1"], (label, plot)
    assert -0.1 <= low and high <= 1.6, (low, high)


def _legend_under_the_plot(fig) -> bool:
    """A horizontal legend below the plot: a fraction of its height under it, or at the figure's bottom edge."""
    legend = fig.layout.legend
    at_bottom = legend.yref == "container" and legend.y == 0 and legend.yanchor == "bottom"
    return legend.orientation == "h" and legend.y is not None and (legend.y < 0 or at_bottom)


@pytest.mark.parametrize("view, width", [("projector", 1200), ("laptop", 820), ("phone", 358)])
@pytest.mark.parametrize("name, make", [p for p in case_params() if _legend_under_the_plot(p.values[1]())])
def test_a_legend_under_the_plot_clears_the_x_axis(page, name, make, view, width):
    """The chart's width on a 1280×720 screen in projector view (~1200 px, ticks and axis titles
    enlarged), on a laptop (~820 px) and on a 390 px phone: a legend row under the plot sits below the
    x axis's tick labels and title, not over them. It hung a fixed fraction of the plot's height below
    the plot, which larger axis text (the projector's) and tokens turned −60° (the LSTM page's
    gradient path, on a laptop) reached into."""
    from lmcore.teaching.projector import projector_figure
    from ui.charts import spec

    fig = projector_figure(make()) if view == "projector" else make()
    shown = spec(fig)  # as the page sends it: Streamlit's theme written in
    page.evaluate("""([spec, width]) => { const el = document.getElementById('plot'); Plotly.purge(el); el.style.width = width + 'px';
        return Plotly.newPlot(el, spec.data, Object.assign(spec.layout, {width}), {staticPlot: true}); }""", [shown, width])
    legend = boxes(page, ".legend .legendtext")
    axis = boxes(page, ".xtitle") + boxes(page, ".xaxislayer-above .xtick text")
    assert legend and axis
    assert not overlapping(legend, axis), overlapping(legend, axis)
    assert min(box["y0"] for box in legend) >= max(box["y1"] for box in axis)  # under the axis, not beside it


@pytest.mark.parametrize("width", [410, 358])
def test_a_histograms_chinese_y_title_clears_its_count_labels(page, width):
    """The corpus page's sentence-length histogram in Chinese, in its half column (410 px) and on a
    phone: the upright y title (a column of characters beside the axis) stands clear of the count
    labels, which Plotly works out itself (the title was placed as if the axis had no labels and sat
    over "60" and "80")."""
    from lmcore.figures.corpus import length_histogram
    from ui.charts import spec

    lengths = np.random.default_rng(0).geometric(0.1, 1600)
    shown = spec(length_histogram(lengths, lang="zh"))
    page.evaluate("""([spec, width]) => { const el = document.getElementById('plot'); Plotly.purge(el); el.style.width = width + 'px';
        return Plotly.newPlot(el, spec.data, Object.assign(spec.layout, {width}), {staticPlot: true}); }""", [shown, width])
    title = boxes(page, ".annotation-text")
    ticks = boxes(page, ".yaxislayer-above .ytick text")
    assert title and max(float(t["text"]) for t in ticks) >= 100  # three-digit counts
    assert not overlapping(title, ticks), overlapping(title, ticks)


@pytest.mark.parametrize("projector", [False, True])
def test_the_cliffs_colour_bar_names_every_decade_apart(page, projector):
    """The cliff's colour bar (log10 L from −4 to 2) says each whole decade, also in the projector's
    18 px ticks, where plotly.js's own choice left two labels (−2.5 and 0) for the whole bar."""
    from lmcore.figures.gradients import cliff_figure
    from lmcore.recurrent.cliff import descend, loss_surface
    from lmcore.teaching.projector import projector_figure
    from ui import charts

    surface = loss_surface((0.0, 12.0), (-8.0, 2.0), 100)
    fig = cliff_figure(surface, {"plain": descend((10.0, -3.0), 0.01, 150),
                                 "clipped": descend((10.0, -3.0), 0.01, 150, threshold=20.0)}, "zh")
    sent = charts.spec(projector_figure(fig) if projector else fig)  # in Streamlit's theme, as the app sends it
    page.evaluate("""([spec, width]) => { const el = document.getElementById('plot'); Plotly.purge(el);
        return Plotly.newPlot(el, spec.data, {...spec.layout, width}, {staticPlot: true}); }""",
                  [sent, 1180 if projector else 700])
    ticks = boxes(page, ".colorbar text")[:-1]  # the last is the bar's title
    assert [t["text"] for t in ticks] == ["−4", "−3", "−2", "−1", "0", "1", "2"]
    assert overlapping(ticks) == []


@pytest.mark.parametrize(("name", "make"), case_params())
def test_on_the_projector_no_y_title_runs_into_the_figures_title(page, name, make):
    """On the projector (lmcore/teaching/projector.py, a 1180 px slide) a y-axis title, turned or written
    above its plot, keeps clear of the figure's title: turned, the LSTM page's long English one ran up
    into it (the plot is shorter there, the title's letters larger)."""
    from lmcore.figures.upright import NAME
    from lmcore.teaching.projector import projector_figure
    from ui import charts

    sent = charts.spec(projector_figure(make()))  # as the app sends it
    page.evaluate("""([spec, width]) => { const el = document.getElementById('plot'); Plotly.purge(el);
        return Plotly.newPlot(el, spec.data, {...spec.layout, width}, {staticPlot: true}); }""", [sent, 1180])
    lines = [a["text"] for a in sent["layout"].get("annotations", []) if a.get("name") == NAME]
    y_titles = boxes(page, ".ytitle") + [b for b in boxes(page, ".annotation-text") if b["text"] in lines]
    assert overlapping(boxes(page, ".gtitle"), y_titles) == []
