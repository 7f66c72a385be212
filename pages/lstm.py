"""LSTM gates & memory: train RNN/LSTM/GRU language models on the corpus, look at the LSTM's gates and
cell state on a passage, follow the gradient along the cell, edit one token, compare every model."""

import numpy as np
import pandas as pd
import streamlit as st

from lmcore.corpus import tokenize
from lmcore.figures.lstm import (
    activation_html, comparison_figure, edit_travel_figure, gradient_path_figure, next_token_shift_figure, training_curve_figure,
    unit_heatmap,
)
from lmcore.training.comparison import comparison_rows, perplexity_floor
from lmcore.training.config import CELLS, LEVELS, TrainConfig
from lmcore.training.counterfactual import counterfactual
from lmcore.training.gradient_path import lstm_gradient_path
from lmcore.training.lstm_trace import SIGNALS, trace_passage, unit_order
from ui.jobs import job_status
from ui.models import session_models
from ui.training import start_lm_training
from ui.state import current_corpus, labeller, lang, query_param, set_query_params, tr

MAX_SYMBOLS = 80
DEFAULT = TrainConfig()


@st.cache_data(show_spinner=False, max_entries=64)
def gradient_path(model_id: str, rnn_id: str, symbols: tuple, shift: float, _lm, _rnn):
    return lstm_gradient_path(_lm, list(symbols), shift, _rnn)


@st.cache_data(show_spinner=False, max_entries=16)
def comparison(corpus_key: str, model_ids: tuple, split: str, _corpus, _models: dict):
    return [r.__dict__ for r in comparison_rows(_corpus, _models, split)]


def model_id(lm) -> str:
    return "" if lm is None else f"{lm.corpus_key}:{lm.config.key()}:{id(lm)}"


def progress_text(job) -> str:
    p = job.status
    valid = "–" if p.valid_token_ppl is None else f"{p.valid_token_ppl:.1f}"
    return tr("lstm.train.progress", step=p.step, total=p.total_steps, train=p.train_ppl, valid=valid, seconds=p.elapsed)


def curve(history, floor):
    scored = [p for p in history if p.valid_token_ppl is not None]
    return training_curve_figure([p.step for p in history], [p.train_ppl for p in history],
                                 [p.step for p in scored], [p.valid_token_ppl for p in scored], floor, lang())


corpus = current_corpus()
models = session_models()  # this browser's trained models, and the shipped ones
floor = perplexity_floor(corpus)
st.title(tr("nav.lstm"))
st.caption(tr("lstm.caption"))

# ---------------------------------------------------------------- training
with st.expander(tr("lstm.train.header"), expanded=models.pick(corpus.key, "lstm", defaults=[DEFAULT]) is None):
    c = st.columns(4)
    cell = c[0].selectbox(tr("lstm.train.cell"), CELLS, index=CELLS.index(DEFAULT.cell), format_func=str.upper,
                          key="lstm_cell")
    level = c[1].selectbox(tr("lstm.train.level"), LEVELS, format_func=labeller("lstm.level"), key="lstm_level")
    hidden = c[2].select_slider(tr("lstm.train.hidden"), [16, 32, 64, 128, 256], DEFAULT.hidden_size, key="lstm_hidden")
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
    if st.button(tr("lstm.train.button"), type="primary", key="lstm_train"):
        start_lm_training(corpus, [config])
    job = job_status("lstm", describe=progress_text)
    if job is not None and job.state == "done" and job.result:
        st.success(tr("lstm.train.done", seconds=job.elapsed, ppl=job.result[-1].valid_ppl or float("nan")))
    current = models.get(corpus.key, config)
    if current is not None:
        if current.stopped:
            st.caption(tr("lstm.train.stopped_msg", step=current.steps_done))
        st.plotly_chart(curve(current.history, floor), width="stretch", key="lstm_curve")
        st.subheader(tr("lstm.sample.header"))
        tau = st.slider(tr("lstm.sample.temperature"), 0.1, 2.0, 1.0, 0.1, key="lstm_tau")
        st.caption(tr("lstm.sample.note"))
        for s in range(3):
            st.text(current.render(current.sample(seed=s, max_len=200 if current.table.level == "char" else 40, temperature=tau)))

# ---------------------------------------------------------------- which LSTM to inspect
lstm = models.get(corpus.key, config) if config.cell == "lstm" else None
lstm = lstm or models.pick(corpus.key, "lstm", defaults=[DEFAULT, DEFAULT.with_(level="char")])
if lstm is None:
    st.info(tr("lstm.no_model"))
    st.stop()
rnn = models.pick(corpus.key, "rnn", lstm.config.level, defaults=[DEFAULT.with_(cell="rnn", level=lstm.config.level)])
source = tr("lstm.source.pretrained") if models.is_shipped(lstm) else tr("lstm.source.trained")
st.caption(tr("lstm.model_info", cell="LSTM", level=tr(f"lstm.level.{lstm.config.level}"),
              hidden=lstm.config.hidden_size, steps=lstm.steps_done,
              stopped=tr("lstm.stopped") if lstm.stopped else "", best=lstm.selected_step,
              ppl=lstm.valid_ppl or float("nan"), source=source))

# ---------------------------------------------------------------- passage
st.header(tr("lstm.gates.header"))
candidates = sorted([s for s in corpus.valid if len(s) >= 3][:40] or corpus.valid[:40], key=len, reverse=True)
idx = int(np.clip(query_param("p", 0), 0, max(len(candidates) - 1, 0)))
c = st.columns([2, 3])
idx = c[0].selectbox(tr("lstm.passage"), range(len(candidates)), index=idx,
                     format_func=lambda i: " ".join(candidates[i])[:80], key="lstm_passage")
custom = c[1].text_input(tr("lstm.passage.custom"), "", max_chars=400, key="lstm_custom")
set_query_params(p=idx)
tokens = tokenize(custom, corpus.settings.tokenizer, corpus.settings.lowercase) if custom.strip() else candidates[idx]
symbols = lstm.table.symbols(corpus.vocab.map(list(tokens)))
if not symbols:
    st.warning(tr("lstm.passage.empty"))
    st.stop()
if len(symbols) > MAX_SYMBOLS:
    symbols = symbols[:MAX_SYMBOLS]
    st.caption(tr("lstm.passage.cut", n=MAX_SYMBOLS))

trace = trace_passage(lstm, symbols)
c = st.columns(3)
orders = ["forget", "variance", "index"]
signal_default, order_default = query_param("sig", "f"), query_param("sort", "forget")
signal = c[0].selectbox(tr("lstm.signal"), SIGNALS, index=SIGNALS.index(signal_default) if signal_default in SIGNALS else 0,
                        format_func=labeller("lstm.signal"), key="lstm_signal")
order_by = c[1].selectbox(tr("lstm.sort"), orders, index=orders.index(order_default) if order_default in orders else 0,
                          format_func=labeller("lstm.sort"), key="lstm_sort")
n_units = trace.n_units
shown = c[2].slider(tr("lstm.units_shown"), 1, n_units, min(32, n_units), key="lstm_units")
set_query_params(sig=signal, sort=order_by)
order = unit_order(trace, order_by)[:shown]
signed = signal in ("c", "h", "c_tilde")
st.plotly_chart(unit_heatmap(trace.signals[signal][order], trace.symbols, order, tr(f"lstm.signal.{signal}"),
                             signed, lang()), width="stretch")
unit = st.selectbox(tr("lstm.unit"), list(order), key="lstm_unit_pick")
st.caption(tr("lstm.unit.caption.signed" if signed else "lstm.unit.caption.gate", unit=unit, signal=tr(f"lstm.signal.{signal}")))
st.markdown(activation_html(trace.symbols, trace.signals[signal][unit], lstm.table.level == "char", signed),
            unsafe_allow_html=True)  # every token is html.escape'd by activation_html

# ---------------------------------------------------------------- gradient path
st.header(tr("lstm.grad.header"))
st.latex(r"\frac{\partial c^{(t)}}{\partial c^{(t-1)}} \approx f^{(t)} \;\Rightarrow\; "
         r"\frac{\partial c^{(T)}}{\partial c^{(k)}} \approx \prod_{t=k+1}^{T} f^{(t)}")
st.caption(tr("lstm.grad.note"))
shift = st.slider(tr("lstm.grad.bias"), -3.0, 5.0, 0.0, 0.5, key="lstm_bias")
path = gradient_path(model_id(lstm), model_id(rnn), tuple(symbols), shift, lstm, rnn)
m = st.columns(3)
m[0].metric(tr("lstm.grad.metric.forget"), f"{path.forget_mean[0]:.2e}")
m[1].metric(tr("lstm.grad.metric.exact"), f"{path.exact_norm[0]:.2e}")
if path.rnn_norm is not None:
    m[2].metric(tr("lstm.grad.metric.rnn"), f"{path.rnn_norm[0]:.2e}")
else:
    st.caption(tr("lstm.grad.no_rnn"))
st.plotly_chart(gradient_path_figure(trace.symbols, path.forget_norm, path.exact_norm, path.forget_mean,
                                     path.exact_diag_mean, path.rnn_norm, lang()), width="stretch")

# ---------------------------------------------------------------- counterfactual edit
st.header(tr("lstm.cf.header"))
st.caption(tr("lstm.cf.note"))
c = st.columns(2)
position = c[0].selectbox(tr("lstm.cf.position"), range(len(symbols)), index=min(1, len(symbols) - 1),
                          format_func=lambda i: f"{i + 1}: {symbols[i]}", key="lstm_cf_pos")
choices = [s for s in lstm.vocab if s not in ("</s>", symbols[position])][:300]
replacement = c[1].selectbox(tr("lstm.cf.replacement"), choices, index=min(1, len(choices) - 1), key="lstm_cf_new")
edit = counterfactual(lstm, symbols, position, replacement)
st.metric(tr("lstm.cf.kl"), f"{edit.kl:.4f}")
st.plotly_chart(unit_heatmap(edit.delta[signal][order], edit.after.symbols, order,
                             tr("lstm.cf.delta_title", signal=tr(f"lstm.signal.{signal}")), True, lang(),
                             marker=edit.position), width="stretch")
st.plotly_chart(edit_travel_figure(edit.after.symbols, {n: edit.change_per_step(n) for n in ("f", "i", "o", "c", "h")},
                                   edit.position, lang()), width="stretch")
st.plotly_chart(next_token_shift_figure(lstm.vocab, edit.before.next_probs, edit.after.next_probs, lang=lang()),
                width="stretch")

# ---------------------------------------------------------------- one corpus feeds every model
st.header(tr("lstm.cmp.header"))
st.caption(tr("lstm.cmp.note"))
level_models = {}
for name in CELLS:
    lm = models.pick(corpus.key, name, lstm.config.level, defaults=[DEFAULT.with_(cell=name, level=lstm.config.level)])
    if lm is not None:
        level_models[name.upper()] = lm
missing = [n.upper() for n in CELLS if n.upper() not in level_models]
split = st.radio(tr("lstm.cmp.split"), ["test", "valid"], format_func=labeller("lstm.cmp.split"), horizontal=True,
                 key="lstm_cmp_split")
rows = comparison(corpus.key, tuple(model_id(m) for m in level_models.values()), split, corpus, level_models)
if missing:
    st.caption(tr("lstm.cmp.missing", cells=", ".join(missing)))
    if st.button(tr("lstm.cmp.train_missing", cells=", ".join(missing)), key="lstm_cmp_train"):
        start_lm_training(corpus, [DEFAULT.with_(cell=name.lower(), level=lstm.config.level) for name in missing])
        st.rerun()
if floor is not None:
    st.caption(tr("lstm.cmp.floor", ppl=floor))
names = [tr(f"lstm.cmp.row.{r['model']}") if r["family"] == "ngram" else r["model"] for r in rows]
st.dataframe(pd.DataFrame({tr("lstm.cmp.model"): names, tr("lstm.cmp.ppl"): [r["ppl"] for r in rows]}),
             hide_index=True)
st.plotly_chart(comparison_figure(names, [r["ppl"] for r in rows],
                                  [r["family"] for r in rows], floor, lang()), width="stretch")
