"""N-grams & smoothing: one context under six methods, sparsity, a perplexity grid, continuation counts."""
import math
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from lmcore.corpus.segmentation import tokenize
from lmcore.corpus.stats import continuation_example
from lmcore.figures.labels import tex_words
from lmcore.i18n import t
from lmcore.figures.ngram import (continuation_figure, method_label, next_word_figure, perplexity_heatmap,
                                  sparsity_figure)
from lmcore.ngram import METHODS
from lmcore.ngram.analysis import continuation_counts, perplexity_grid, top_by, unseen_share_by_order
from lmcore.ngram.arpa import arpa_lines
from lmcore.ngram.compare import NextWordTable, frequent_contexts, next_word_table, table_frame
from lmcore.ngram.explain import kn_terms
from lmcore.ngram.latex import NOTES_KN, add_delta_latex, kn_notes_latex
from ui import teaching
from server.models import ngram_counts, ngram_model
from server.prefetch import ahead, neighbours
from ui.charts import chart
from ui.state import current_corpus, keep_settings, labeller, lang, query_param, tr
from ui.markup_element import show_markup
from ui.tables import html_table
from ui.formula_element import formula

GRID_ORDERS = [1, 2, 3, 4, 5]
MAX_ORDER = 6
DEFAULT_SHOWN = ["mle", "add-delta", "modified-kn", "kn-notes"]
# an expander has no persist_state: its open state is written back by ui/sections.py while its part is closed
KEPT = ("ngram_formula_open",)


@st.cache_data(show_spinner=False, max_entries=16)
def grid_for(key: str, delta: float, d: float, _counts, _valid):
    return perplexity_grid(_counts, _valid, GRID_ORDERS, list(METHODS), delta, d)


@st.cache_data(show_spinner=False, max_entries=8)
def sparsity_for(key: str, _counts, _valid):
    return unseen_share_by_order(_counts, _valid, 5)


@st.cache_data(show_spinner=False, max_entries=8)
def example_for(key: str, _cc, _train):
    return continuation_example(_cc.words, _cc.count, _cc.continuation, _train)


@st.cache_resource(show_spinner=False, max_entries=64)
def contexts_for(key: str, order: int, _mle) -> list[list[str]]:
    """The contexts offered for this corpus and order (a pass over all its n-grams: once, not per move)."""
    return frequent_contexts(_mle, 30)


@st.cache_resource(show_spinner=False, max_entries=256)
def table_view(key: str, order: int, delta: float, d: float, context: tuple[str, ...], n_rows: int, language: str,
               _models: dict) -> tuple[NextWordTable, pd.DataFrame, str]:
    """The next-word table after ``context``, its frame and its HTML, for the models of (corpus ``key``,
    ``order``, δ, D): a slider moved back and forth shows them again without computing them again."""
    table = next_word_table(_models, list(context), n_rows=n_rows)
    frame = table_frame(table, language)
    mle = method_label("mle", language)
    formats = {column: "{:.4f}" for column in frame.columns[2:]} | {t("ngram.table.count", language): "{:,.0f}"}
    html = html_table(frame, formats=formats, shade=lambda column, value: "#f8c9c9" if column == mle and value == 0 else None)
    return table, frame, html


def table_and_chart(corpus, order: int, delta: float, d: float, context: list[str], n_rows: int, shown: list[str],
                    language: str, models: dict) -> tuple[NextWordTable, pd.DataFrame, str, object]:
    """The next-word table after ``context`` (its frame and HTML) and its chart of the methods ``shown``."""
    table, frame, html = table_view(corpus.key, order, delta, d, tuple(context), n_rows, language, models)
    return table, frame, html, chart(next_word_figure, table.words, {m: table.probs[m] for m in shown}, lang=language)


def words_ahead(corpus, order: int, delta: float, d: float, n_rows: int, shown: list[str], language: str) -> None:
    """What a move of the order to ``order`` shows first, made ahead (server/prefetch.py): its models,
    the contexts offered, and the table and chart after the first of them (a new order's contexts
    are new options: the pick starts at the first)."""
    models = {m: ngram_model(corpus, order, m, delta, d) for m in METHODS}
    context = list(contexts_for(corpus.key, order, models["mle"])[0]) if order > 1 else []
    table_and_chart(corpus, order, delta, d, context, n_rows, shown, language, models)


@st.cache_data(show_spinner=False, max_entries=8)
def arpa_for(key: str, order: int, _model) -> str:
    return "\n".join(arpa_lines(_model)) + "\n"


def next_words(corpus, models: dict, order: int, delta: float, d: float) -> None:
    """Context, next-word table, charts and formulas: their controls rerun only this (a fragment)."""
    context: list[str] = []
    mode = st.session_state.get("ngram_context_mode", "pick")
    if order == 1:
        st.info(tr("ngram.unigram_note"))
    else:
        mode = st.radio(tr("ngram.context_mode"), ["pick", "type"], horizontal=True,
                        format_func=labeller("ngram.context_mode"), key="ngram_context_mode", persist_state="page")
        if mode == "pick":
            options = contexts_for(corpus.key, order, models["mle"])
            context = st.selectbox(tr("ngram.context_pick"), options, format_func=" ".join, key="ngram_context_pick")
        else:
            text = st.text_input(tr("ngram.context_typed"), "", key="ngram_context_typed", persist_state="page")
            typed = tokenize(text, corpus.settings.tokenizer, corpus.settings.lowercase) if text.strip() else []
            full = len(typed) >= order - 1  # the last n−1 typed words fill the context: <s> cannot enter it
            start = st.checkbox(tr("ngram.sentence_start"), value=not typed, key="ngram_start", persist_state="page",
                                disabled=full,
                                help=tr("ngram.sentence_start_full", k=order - 1) if full else None)
            context = (["<s>"] if start else []) + corpus.vocab.map(typed)

    n_rows = st.slider(tr("ngram.table.n_rows"), 3, 30, 10, key="ngram_rows", persist_state="page")
    shown = st.session_state.get("ngram_methods", DEFAULT_SHOWN)  # the chart's methods (chosen below it)
    table, frame, table_html, figure = table_and_chart(corpus, order, delta, d, context, n_rows, shown, lang(), models)
    st.subheader(tr("ngram.table.header"))
    st.caption(tr("ngram.context_shown", h=" ".join(table.context) or "∅", c=int(table.context_count)))
    if order > 1 and table.context_count == 0:
        st.warning(tr("ngram.context_unseen"))
    n_seen = int(np.count_nonzero(table.counts))
    if n_seen < n_rows:  # the slider asks for more words than ever follow h
        st.caption(tr("ngram.table.none_seen" if n_seen == 0 else "ngram.table.fewer", seen=n_seen,
                      unseen=len(table.words) - n_seen, n=n_rows))
    show_markup(table_html)
    st.caption(tr("ngram.table.note"))
    st.download_button(tr("ngram.download.csv"), lambda: frame.to_csv(index=False).encode("utf-8"),
                       file_name=deck.file_name("next-words", "csv"), mime="text/csv")

    deck.section("charts")
    st.multiselect(tr("ngram.methods_shown"), list(METHODS), default=DEFAULT_SHOWN, format_func=labeller("ngram.method"),
                   key="ngram_methods", persist_state="page")
    deck.chart(figure, "next-words")
    if mode == "pick":  # the next move of the order shows its first context: made once this run has ended
        for near in neighbours(order, 1, MAX_ORDER, 1):
            ahead(("ngram_words", corpus.key, near, delta, d, n_rows, tuple(shown), lang()),
                  partial(words_ahead, corpus, near, delta, d, n_rows, shown, lang()))

    deck.section("formula")
    if deck.projector:  # a slide of its own
        st.subheader(tr("ngram.formula.header"))
        formulas(models, table, context, delta)
        return
    box = st.expander(tr("ngram.formula.header"), key="ngram_formula_open", on_change="rerun")
    if box.open:  # runs only when open: closed, a move of the order draws no formula (KaTeX is the browser's
        with box:  # costliest element here: about a fifth of a move's time to settle)
            formulas(models, table, context, delta)


def formulas(models: dict, table: NextWordTable, context: list[str], delta: float) -> None:
    """add-δ and the notes' Kneser-Ney for one word of the table, with this corpus's numbers."""
    word = st.selectbox(tr("ngram.formula.word"), table.words or ["</s>"], key="ngram_word")
    lm_add = models["add-delta"]
    st.markdown(tr("ngram.formula.add_delta"))
    formula(tex_words(add_delta_latex(word, lm_add.count(table.context + [word]), table.context_count, delta,
                                       len(lm_add.vocab), lm_add.prob(word, context)), lang(), ("smooth",)))
    st.markdown(tr("ngram.formula.kn"))
    formula(tex_words(NOTES_KN, lang()))
    formula(kn_notes_latex(word, kn_terms(models["kn-notes"], word, context)))
    st.caption(tr("ngram.formula.kn_counts", value=f"{models['kn-interp'].prob(word, context):.5f}"))


def samples(models: dict) -> None:
    """Sentences sampled from one model (a fragment: method and seed rerun only this)."""
    st.subheader(tr("ngram.sample.header"))
    s1, s2 = st.columns(2)
    sample_method = s1.selectbox(tr("ngram.sample.method"), list(METHODS), index=4, format_func=labeller("ngram.method"),
                                 key="ngram_sample_method", persist_state="page")
    seed = int(s2.number_input(tr("ngram.sample.seed"), 0, 10_000, 0, key="ngram_seed", persist_state="page"))
    for i in range(3):
        st.text("· " + (" ".join(models[sample_method].sample(seed * 3 + i, 40)) or "∅"))


corpus = current_corpus()
deck = teaching.deck("ngram")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
train, valid = corpus.mapped("train"), corpus.mapped("valid") or corpus.mapped("test")
st.title(tr("nav.ngram"))
st.caption(tr("ngram.caption"))
deck.section("table")
if not train:
    st.error(tr("ngram.error.empty"))
    st.stop()
with st.spinner(tr("ngram.fitting")):
    counts = ngram_counts(corpus)


def sparsity_and_grid(delta: float, d: float) -> None:
    """How many held-out n-grams training never saw, and the perplexity of every order × method."""
    deck.section("sparsity")
    st.subheader(tr("ngram.sparsity.header"))
    if not valid:
        return
    deck.chart(chart(sparsity_figure, sparsity_for(corpus.key, counts, valid), lang=lang()), "sparsity")
    deck.section("grid")
    st.subheader(tr("ngram.grid.header"))
    st.caption(tr("ngram.grid.caption"))
    floor = math.exp(corpus.true_entropy) if corpus.true_entropy is not None else None
    if floor is not None:
        st.info(tr("ngram.grid.floor", h=corpus.true_entropy, floor=floor))
    with st.spinner(tr("ngram.fitting")):
        grid = grid_for(corpus.key, delta, d, counts, valid)
    deck.chart(chart(perplexity_heatmap, GRID_ORDERS, list(METHODS), grid, floor, lang=lang()), "perplexity-grid")


def continuation() -> None:
    """Continuation counts N1+(• w) against raw counts C(w): the word Kneser-Ney demotes."""
    deck.section("continuation")
    cc = continuation_counts(counts)
    example = example_for(corpus.key, cc, train)
    st.subheader(tr("ngram.cont.header_example", word=example.word) if example else tr("ngram.cont.header"))
    st.caption(tr("ngram.cont.caption"))
    if example:
        st.caption(tr("ngram.cont.example", word=example.word, count=example.count, contexts=example.contexts,
                      before=example.before, before_count=example.before_count))
    ratio = cc.count / np.maximum(cc.continuation, 1)
    ratio[:2] = 0
    label = [int(i) for i in np.argsort(-ratio)[:10]]
    deck.chart(chart(continuation_figure, cc.words, cc.count, cc.continuation, label, lang=lang()), "continuation")
    left, right = st.columns(2)
    for col, key, title in ((left, "count", "ngram.cont.by_count"), (right, "continuation", "ngram.cont.by_cont")):
        idx = top_by(cc, key, 15)
        col.markdown(f"**{tr(title)}**")
        deck.table(pd.DataFrame({tr("ngram.table.word"): [cc.words[i] for i in idx], "C(w)": cc.count[idx],
                                 "N1+(• w)": cc.continuation[idx]}), f"top-by-{key}", col)


def settings_and_parts(part: str | None) -> None:
    """Order, δ and D and the open ``part`` (under the bar of parts, drawn before) with all that follows from
    them (a fragment: they rerun this, not the bar of parts or the sidebar); the sidebar's teaching tools
    are drawn after it, by the whole-page run."""
    c1, c2, c3 = st.columns(3)
    order = c1.slider(tr("ngram.order"), 1, MAX_ORDER, query_param("n", 3, lo=1, hi=MAX_ORDER), key="ngram_order")
    delta = c2.slider(tr("ngram.delta"), 0.01, 2.0, query_param("delta", 1.0, lo=0.01, hi=2.0), 0.01, key="ngram_delta")
    d = c3.slider(tr("ngram.discount"), 0.05, 0.95, query_param("d", 0.75, lo=0.05, hi=0.95), 0.05, key="ngram_d")
    keep_settings(n=order, delta=delta, d=d)
    deck.settings(order=order, delta=delta, discount=d)  # teaching mode: what the questions and share link use
    with st.spinner(tr("ngram.fitting")):
        models = {m: ngram_model(corpus, order, m, delta, d) for m in METHODS}

    def words() -> None:
        deck.fragment(next_words, "ngram_next_words")(corpus, models, order, delta, d)
        kn_model = models["modified-kn"]
        st.download_button(tr("ngram.download.arpa"), lambda: arpa_for(corpus.key, order, kn_model).encode("utf-8"),
                           file_name=f"{order}gram-modified-kn.arpa", mime="text/plain")

    def sampled() -> None:
        deck.section("sample")
        deck.fragment(samples, "ngram_samples")(models)

    deck.parts({"words": words, "sparsity": lambda: sparsity_and_grid(delta, d), "continuation": continuation,
                "sample": sampled}, keep=KEPT, open_part=part)  # and the questions: a part, or the question slides


deck.fragment(settings_and_parts, "ngram_settings")(deck.part_bar())
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
