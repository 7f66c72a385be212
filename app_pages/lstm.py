"""LSTM gates & memory: train RNN/LSTM/GRU language models on the corpus, look at the LSTM's gates and
cell state on a passage, follow the gradient along the cell, edit one token, compare every model.

Opens at once: the built-in corpora have shipped models; for any other corpus the default LSTM is
trained in the background (the model's sections show a placeholder meanwhile). Every section with
controls of its own is a fragment: moving its control reruns and resends that section only.
"""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from lmcore.corpus import tokenize
from lmcore.figures.lstm import (
    activation_html, comparison_figure, edit_travel_figure, gradient_path_figure, next_token_shift_figure, training_curve_figure,
    unit_heatmap,
)
from lmcore.training.comparison import comparison_by_split, perplexity_floor
from lmcore.training.config import CELLS, LEVELS, TrainConfig
from lmcore.training.counterfactual import changed_units, counterfactual, suggest_edit
from lmcore.training.gradient_path import lstm_gradient_path, rnn_jacobian_norms
from lmcore.training.lstm_trace import SIGNALS, trace_passage, unit_order
from server.jobs import active_job
from server.models import session_models
from server.prefetch import ahead, neighbours
from server.training import start_default_training, start_lm_training
from ui.job_status import job_status, training_progress_text
from ui import teaching
from ui.charts import keyed_figure
from ui.state import current_corpus, keep_settings, labeller, lang, query_param, tr
from ui.formula_element import formula
from ui.markup_element import show_markup

MAX_SYMBOLS = 80
DEFAULT = TrainConfig()
ORDERS = ["forget", "variance", "index"]
SHOWN_UNITS = 32
SPLITS = ("test", "valid")  # the comparison's splits, the first shown first


# ---------------------------------------------------------------- cached computations (per model and passage)
@st.cache_data(show_spinner=False, max_entries=64)
def passage_trace(model_key: str, symbols: tuple, _lm):
    return trace_passage(_lm, list(symbols))


@st.cache_data(show_spinner=False, max_entries=64)
def lstm_path(model_key: str, symbols: tuple, shift: float, _lm):
    return lstm_gradient_path(_lm, list(symbols), shift)


@st.cache_data(show_spinner=False, max_entries=64)
def rnn_path(model_key: str, symbols: tuple, _rnn):
    return rnn_jacobian_norms(_rnn, list(symbols))


@st.cache_data(show_spinner=False, max_entries=64)
def default_edit(model_key: str, symbols: tuple, _lm) -> tuple[int, str, float]:
    return suggest_edit(_lm, list(symbols))


@st.cache_data(show_spinner=False, max_entries=64)
def edit_of(model_key: str, symbols: tuple, position: int, replacement: str, _lm):
    return counterfactual(_lm, list(symbols), position, replacement)


@st.cache_data(show_spinner=False, max_entries=16)
def comparison(corpus_key: str, model_keys: tuple, _corpus, _models: dict) -> dict[str, list[dict]]:
    """Both splits' rows, made together when the part first opens: switching the split then costs
    nothing (the other split alone took ~200 ms of the models' forward passes)."""
    return {split: [r.__dict__ for r in rows] for split, rows in comparison_by_split(_corpus, _models, SPLITS).items()}


@st.cache_data(show_spinner=False, max_entries=64)
def samples(model_key: str, tau: float, _lm) -> list[str]:
    """Three samples at temperature τ (seeds 0, 1, 2: the same texts for everyone)."""
    return [_lm.render(_lm.sample(seed=s, max_len=200 if _lm.table.level == "char" else 40, temperature=tau))
            for s in range(3)]


def model_key(lm) -> str:
    """Names one trained model (its corpus, settings, training length and object)."""
    return "" if lm is None else lm.key()


def curve(history, floor):
    scored = [p for p in history if p.valid_token_ppl is not None]
    return training_curve_figure([p.step for p in history], [p.train_ppl for p in history],
                                 [p.step for p in scored], [p.valid_token_ppl for p in scored], floor, lang())


def lean(values: np.ndarray) -> np.ndarray:
    """float32 for a chart: half the bytes of float64, and no eye tells them apart."""
    return np.asarray(values, dtype=np.float32)


# ---------------------------------------------------------------- training
def training_section(corpus, models, floor) -> TrainConfig:
    """The training form (nothing reruns while its settings change; Train submits them)."""
    # Open while the corpus has no LSTM yet; decided once per corpus and session, so the box does
    # not fold up under the student when a model arrives.
    opened = st.session_state.setdefault(f"lstm_train_open_{corpus.key}",
                                         models.pick(corpus.key, "lstm", defaults=[DEFAULT]) is None)
    box = st.expander(tr("lstm.train.header"), expanded=opened, key="lstm_train_box", on_change="rerun")
    with box:
        with st.form("lstm_train_form", border=False):
            c = st.columns(4)
            cell = c[0].selectbox(tr("lstm.train.cell"), CELLS, index=CELLS.index(DEFAULT.cell), format_func=str.upper,
                                  key="lstm_cell")
            level = c[1].selectbox(tr("lstm.train.level"), LEVELS, format_func=labeller("lstm.level"), key="lstm_level")
            hidden = c[2].select_slider(tr("lstm.train.hidden"), [16, 32, 64, 128, 256], DEFAULT.hidden_size,
                                        key="lstm_hidden")
            steps = c[3].select_slider(tr("lstm.train.steps"), [50, 100, 200, 400, 800, 1600, 3200], DEFAULT.steps,
                                       key="lstm_steps")
            c = st.columns(4)
            lr = c[0].select_slider(tr("lstm.train.lr"), [1e-3, 2e-3, 3e-3, 5e-3, 1e-2], DEFAULT.lr, key="lstm_lr")
            clip = c[1].select_slider(tr("lstm.train.clip"), [0.0, 0.25, 0.5, 1.0, 5.0], DEFAULT.clip, key="lstm_clip")
            dropout = c[2].select_slider(tr("lstm.train.dropout"), [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6], DEFAULT.dropout,
                                         key="lstm_dropout")
            seed = int(c[3].number_input(tr("lstm.train.seed"), 0, 10_000, DEFAULT.seed, key="lstm_seed"))
            config = DEFAULT.with_(cell=cell, level=level, hidden_size=hidden, steps=steps, lr=lr, clip=clip,
                                  dropout=dropout, seed=seed)
            st.caption(tr("lstm.train.note", bptt=config.bptt))
            if st.form_submit_button(tr("lstm.train.button"), type="primary", key="lstm_train"):
                start_lm_training(corpus, [config])
        current = models.get(corpus.key, config)
        if current is not None and box.open:  # the curve and samples only while the box is open (lazy)
            if current.stopped:
                st.caption(tr("lstm.train.stopped_msg", step=current.steps_done))
            deck.chart(keyed_figure("curve", (model_key(current), floor, lang()), lambda: curve(current.history, floor)), "curve", key="lstm_curve")
            samples_section(current)
    job = job_status("lstm", describe=training_progress_text)
    if job is not None and job.state == "done" and job.result:
        st.success(tr("lstm.train.done", seconds=job.elapsed, ppl=job.result[-1].valid_ppl or float("nan")))
    return config


@st.fragment(key="lstm_samples")
def samples_section(lm) -> None:
    st.subheader(tr("lstm.sample.header"))
    tau = st.slider(tr("lstm.sample.temperature"), 0.1, 2.0, 1.0, 0.1, key="lstm_tau")
    st.caption(tr("lstm.sample.note"))
    for text in samples(model_key(lm), tau, lm):
        st.text(text)


# ---------------------------------------------------------------- gates on a passage
@st.fragment(key="lstm_gates")
def gates_section(lm, trace, trace_key: tuple) -> None:
    signal = st.radio(tr("lstm.signal"), SIGNALS, index=SIGNALS.index(query_param("sig", "f", choices=SIGNALS)),
                      format_func=labeller("lstm.signal"), key="lstm_signal", persist_state="page", horizontal=True)
    c = st.columns(2)
    order_by = c[0].selectbox(tr("lstm.sort"), ORDERS, index=ORDERS.index(query_param("sort", "forget", choices=ORDERS)),
                              format_func=labeller("lstm.sort"), key="lstm_sort", persist_state="page")
    shown = c[1].slider(tr("lstm.units_shown"), 1, trace.n_units, min(SHOWN_UNITS, trace.n_units), key="lstm_units")
    keep_settings(sig=signal, sort=order_by)
    order = unit_order(trace, order_by)[:shown]
    signed = signal in ("c", "h", "c_tilde")
    chart = keyed_figure("gates", (trace_key, signal, order_by, shown, lang()), lambda: unit_heatmap(
        lean(trace.signals[signal][order]), trace.symbols, order, tr(f"lstm.signal.{signal}"), signed, lang()))
    deck.chart(chart, "gates-chart", key="lstm_gates_chart")
    unit = st.selectbox(tr("lstm.unit"), list(order), key="lstm_unit_pick")
    st.caption(tr("lstm.unit.caption.signed" if signed else "lstm.unit.caption.gate", unit=unit,
                  signal=tr(f"lstm.signal.{signal}")))
    show_markup(activation_html(trace.symbols, trace.signals[signal][unit], lm.table.level == "char", signed))


# ---------------------------------------------------------------- gradient path
BIAS_RANGE = (-3.0, 5.0, 0.5)  # the forget-gate bias slider: lowest, highest, step


def gradient_view(lm, rnn, symbols: tuple, trace, shift: float, language: str):
    """The gradient path at forget-gate bias ``shift``: (LSTM path, the RNN's norms or None, figure)."""
    path = lstm_path(model_key(lm), symbols, shift, lm)
    rnn_norm = rnn_path(model_key(rnn), symbols, rnn) if rnn is not None else None
    chart = keyed_figure("gradient", (model_key(lm), model_key(rnn), symbols, shift, language), lambda: gradient_path_figure(
        trace.symbols, lean(path.forget_norm), lean(path.exact_norm), lean(path.forget_mean),
        lean(path.exact_diag_mean), None if rnn_norm is None else lean(rnn_norm), language))
    return path, rnn_norm, chart


@st.fragment(key="lstm_gradient")
def gradient_section(lm, rnn, symbols: tuple, trace) -> None:
    low, high, step = BIAS_RANGE
    shift = st.slider(tr("lstm.grad.bias"), low, high, 0.0, step, key="lstm_bias", persist_state="page")
    language = lang()
    with st.spinner(tr("lstm.busy.gradient")):
        path, rnn_norm, chart = gradient_view(lm, rnn, symbols, trace, shift, language)
    m = st.columns(3)
    m[0].metric(tr("lstm.grad.metric.forget"), f"{path.forget_mean[0]:.2e}")
    m[1].metric(tr("lstm.grad.metric.exact"), f"{path.exact_norm[0]:.2e}")
    if rnn_norm is not None:
        m[2].metric(tr("lstm.grad.metric.rnn"), f"{rnn_norm[0]:.2e}")
    else:
        st.caption(tr("lstm.grad.no_rnn"))
    deck.chart(chart, "gradient-chart", key="lstm_gradient_chart")
    for near in neighbours(shift, *BIAS_RANGE):  # the next move's values, made once this run has ended
        ahead(("lstm_gradient", model_key(lm), model_key(rnn), symbols, near, language),
              partial(gradient_view, lm, rnn, symbols, trace, near, language))


# ---------------------------------------------------------------- counterfactual edit
@st.fragment(key="lstm_edit")
def edit_section(lm, symbols: tuple) -> None:
    with st.spinner(tr("lstm.busy.edit")):
        suggested, suggested_to, _ = default_edit(model_key(lm), symbols, lm)
    if st.session_state.get("lstm_cf_for") != (model_key(lm), symbols):  # a new passage: start from its suggestion
        st.session_state["lstm_cf_for"] = (model_key(lm), symbols)
        for key in ("lstm_cf_pos", "lstm_cf_new"):
            st.session_state.pop(key, None)
    c = st.columns(3)
    position = c[0].selectbox(tr("lstm.cf.position"), range(len(symbols)), index=suggested,
                              format_func=lambda i: f"{i + 1}: {symbols[i]}", key="lstm_cf_pos")
    choices = [s for s in lm.vocab if s not in ("</s>", symbols[position])][:300]
    if suggested_to in choices:
        choices.remove(suggested_to)
        choices.insert(0, suggested_to)
    replacement = c[1].selectbox(tr("lstm.cf.replacement"), choices, index=0, key="lstm_cf_new")
    signal = c[2].selectbox(tr("lstm.signal"), SIGNALS, index=SIGNALS.index("c"), format_func=labeller("lstm.signal"),
                            key="lstm_cf_signal", persist_state="page")
    edit = edit_of(model_key(lm), symbols, position, replacement, lm)
    st.metric(tr("lstm.cf.kl"), f"{edit.kl:.4f}")
    units = changed_units(edit.delta[signal], SHOWN_UNITS)
    key = (model_key(lm), symbols, position, replacement, lang())
    deck.chart(keyed_figure("edit", (*key, signal), lambda: unit_heatmap(
        lean(edit.delta[signal][units]), edit.after.symbols, units, tr("lstm.cf.delta_title", signal=tr(f"lstm.signal.{signal}")),
        True, lang(), marker=edit.position)), "cf-chart", key="lstm_cf_chart")
    deck.chart(keyed_figure("travel", key, lambda: edit_travel_figure(
        edit.after.symbols, {n: lean(edit.change_per_step(n)) for n in ("f", "i", "o", "c", "h")}, edit.position, lang())), "cf-travel", key="lstm_cf_travel")
    deck.chart(keyed_figure("next", key, lambda: next_token_shift_figure(
        lm.vocab, edit.before.next_probs, edit.after.next_probs, lang=lang())), "cf-next", key="lstm_cf_next")


# ---------------------------------------------------------------- one corpus feeds every model
@st.fragment(key="lstm_compare")
def comparison_section(corpus, models, level: str, floor) -> None:
    level_models = {}
    for name in CELLS:
        lm = models.pick(corpus.key, name, level, defaults=[DEFAULT.with_(cell=name, level=level)])
        if lm is not None:
            level_models[name.upper()] = lm
    missing = [n.upper() for n in CELLS if n.upper() not in level_models]
    split = st.radio(tr("lstm.cmp.split"), SPLITS, format_func=labeller("lstm.cmp.split"), horizontal=True,
                     key="lstm_cmp_split", persist_state="page")
    with st.spinner(tr("lstm.busy.compare")):
        rows = comparison(corpus.key, tuple(model_key(m) for m in level_models.values()), corpus, level_models)[split]
    if missing:
        st.caption(tr("lstm.cmp.missing", cells=", ".join(missing)))
        if st.button(tr("lstm.cmp.train_missing", cells=", ".join(missing)), key="lstm_cmp_train"):
            start_lm_training(corpus, [DEFAULT.with_(cell=name.lower(), level=level) for name in missing])
            st.rerun(scope="app")  # the run's progress shows below the training section
    if floor is not None:
        st.caption(tr("lstm.cmp.floor", ppl=floor))
    names = [tr(f"lstm.cmp.row.{r['model']}") if r["family"] == "ngram" else r["model"] for r in rows]
    deck.table(pd.DataFrame({tr("lstm.cmp.model"): names, tr("lstm.cmp.ppl"): [r["ppl"] for r in rows]}), "perplexities",
               formats={tr("lstm.cmp.ppl"): "{:.2f}"})
    deck.chart(keyed_figure("compare", (corpus.key, tuple(names), tuple(r["ppl"] for r in rows), floor, lang()),
                           lambda: comparison_figure(names, [r["ppl"] for r in rows], [r["family"] for r in rows], floor,
                                                     lang())), "cmp-chart", key="lstm_cmp_chart")


def inspected_lstm(corpus, models, config: TrainConfig):
    """The LSTM the page looks into: the one of the training settings, else this browser's newest,
    else a shipped one; None when this corpus has none yet."""
    lm = models.get(corpus.key, config) if config.cell == "lstm" else None
    return lm or models.pick(corpus.key, "lstm", defaults=[DEFAULT, DEFAULT.with_(level="char")])


def passage_symbols(corpus, lm) -> tuple | None:
    """The passage chosen (a validation sentence or a typed one) in the model's symbols."""
    candidates = sorted([s for s in corpus.valid if len(s) >= 3][:40] or corpus.valid[:40], key=len, reverse=True)
    c = st.columns([2, 3])
    idx = c[0].selectbox(tr("lstm.passage"), range(len(candidates)),
                         index=query_param("p", 0, lo=0, hi=max(len(candidates) - 1, 0)),
                         format_func=lambda i: " ".join(candidates[i])[:80], key="lstm_passage")
    custom = c[1].text_input(tr("lstm.passage.custom"), "", max_chars=400, key="lstm_custom")
    keep_settings(p=idx)
    tokens = tokenize(custom, corpus.settings.tokenizer, corpus.settings.lowercase) if custom.strip() else candidates[idx]
    symbols = lm.table.symbols(corpus.vocab.map(list(tokens)))
    if len(symbols) > MAX_SYMBOLS:
        st.caption(tr("lstm.passage.cut", n=MAX_SYMBOLS))
    return tuple(symbols[:MAX_SYMBOLS]) or None


# ---------------------------------------------------------------- the page
corpus = current_corpus()
models = session_models()  # this browser's trained models, and the shipped ones
floor = perplexity_floor(corpus)
deck = teaching.deck("lstm")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
st.title(tr("nav.lstm"))
st.caption(tr("lstm.caption"))
deck.section("model")
config = training_section(corpus, models, floor)
with st.spinner(tr("lstm.busy.load")):
    lstm = inspected_lstm(corpus, models, config)


def waiting_part(section: str, header: str):
    def part() -> None:
        deck.section(section)
        st.header(tr(header))
        st.info(tr("jobs.waiting_model") if active_job("lstm") else tr("lstm.no_model"))
    return part


def comparison_part(level: str) -> None:
    deck.section("compare")
    st.header(tr("lstm.cmp.header"))
    st.caption(tr("lstm.cmp.note"))
    comparison_section(corpus, models, level, floor)


if lstm is None:  # no model for this corpus yet: the default one trains in the background
    if start_default_training(corpus, DEFAULT):
        st.rerun()  # show the run's progress below the training section
    deck.settings()
    deck.parts({"gates": waiting_part("gates", "lstm.gates.header"),
                "gradient": waiting_part("gradient", "lstm.grad.header"),
                "edit": waiting_part("edit", "lstm.cf.header"), "compare": lambda: comparison_part("word")})
    deck.tools()
    st.stop()
with st.spinner(tr("lstm.busy.load")):
    rnn = models.pick(corpus.key, "rnn", lstm.config.level, defaults=[DEFAULT.with_(cell="rnn", level=lstm.config.level)])
source = tr("lstm.source.pretrained") if models.is_shipped(lstm) else tr("lstm.source.trained")
st.caption(tr("lstm.model_info", cell="LSTM", level=tr(f"lstm.level.{lstm.config.level}"),
              hidden=lstm.config.hidden_size, steps=lstm.steps_done,
              stopped=tr("lstm.stopped") if lstm.stopped else "", best=lstm.selected_step,
              ppl=lstm.valid_ppl or float("nan"), source=source))
symbols = passage_symbols(corpus, lstm)  # the passage the gates, gradient and edit parts look at


def with_passage(section: str, run):
    """The deck's section ``section``: ``run(symbols)``, or a warning when the passage has no symbol of the model."""
    def part() -> None:
        deck.section(section)
        if symbols is None:
            st.warning(tr("lstm.passage.empty"))
        else:
            run(symbols)
    return part


def gates_part(symbols: tuple) -> None:
    st.header(tr("lstm.gates.header"))
    trace = passage_trace(model_key(lstm), symbols, lstm)
    gates_section(lstm, trace, (model_key(lstm), symbols))


def gradient_part(symbols: tuple) -> None:
    st.header(tr("lstm.grad.header"))
    formula(r"\frac{\partial c^{(t)}}{\partial c^{(t-1)}} \approx f^{(t)} \;\Rightarrow\; "
             r"\frac{\partial c^{(T)}}{\partial c^{(k)}} \approx \prod_{t=k+1}^{T} f^{(t)}")
    st.caption(tr("lstm.grad.note"))
    gradient_section(lstm, rnn, symbols, passage_trace(model_key(lstm), symbols, lstm))


def edit_part(symbols: tuple) -> None:
    st.header(tr("lstm.cf.header"))
    st.caption(tr("lstm.cf.note"))
    edit_section(lstm, symbols)


deck.settings(lstm=lstm)  # teaching mode: the questions are on the LSTM inspected
deck.parts({"gates": with_passage("gates", gates_part), "gradient": with_passage("gradient", gradient_part),
            "edit": with_passage("edit", edit_part), "compare": lambda: comparison_part(lstm.config.level)})
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
