"""RNN forward pass & BPTT: step through a corpus sentence with the RNN language model of lmcore.training
(shipped for the built-in corpora, trained in the background for an upload) in its white-box view —
h(t), top-k next words, J(t), J, PPL — then the t × k matrix of BPTT contributions and truncated BPTT."""
import numpy as np
import pandas as pd
import streamlit as st
import torch

from lmcore.figures.rnn import (
    bptt_heatmap, forward_animation, hidden_state_heatmap, step_loss_figure, truncation_error_figure,
)
from lmcore.recurrent.rnn_lm import most_varying_units, run_sentence, sentence_bptt, top_k_next
from lmcore.symbols import EOS
from server.recurrent_models import RNN, derived, untrained, white_box_of
from ui.recurrent_models import trained_models
from ui import teaching
from ui.charts import chart, keyed_figure
from ui.state import current_corpus, keep_settings, labeller, lang, query_param, tr
from ui.formula_element import formula

MODELS = ["trained", "random"]
SENTENCE_LENGTHS = (3, 30)  # tokens of a test sentence worth stepping through
MAX_SENTENCES = 500
ANIMATED_UNITS = 32  # the step-through animation resends h per frame: show the units that vary most
DEFAULT_WINDOW = 5


def animation_figure(model_key: str, idx: int, k: int, language: str, h: np.ndarray, top: list, run):
    """The step-through of h(t) (the run's hidden states) and ``top`` (its top-k words per step), built
    once per model, sentence, k and language and shared with the JSON it is shown as (ui/charts.py: a
    warm move of k sends it without serialising its 20-odd frames again)."""
    return keyed_figure("forward-animation", (model_key, idx, k, language), lambda: forward_animation(
        np.round(h[:, most_varying_units(h, ANIMATED_UNITS)], 3), run.inputs_text, top, run.targets_text, lang=language))


@st.fragment
def step_section(run) -> None:
    """The forward pass at one step t (its slider reruns only this section)."""
    inputs, targets, T = run.inputs_text, run.targets_text, run.T
    step = st.slider(tr("rnn_bptt.step"), 1, T, 1, key="rnn_step")
    p_target = float(run.probs[step - 1, run.targets[step - 1]])
    st.text(tr("rnn_bptt.step_caption", t=step, word=inputs[step - 1], target=targets[step - 1], p=p_target))
    with st.expander(tr("rnn_bptt.formulas"), expanded=True):
        h_norm = float(run.trace.h[step].norm())
        formula(rf"h^{{({step})}} = \tanh\!\left(W_h h^{{({step - 1})}} + W_x x^{{({step})}} + b_h\right),\quad "
                 rf"\|h^{{({step})}}\| = {h_norm:.3f}")
        formula(rf"\hat{{y}}^{{({step})}} = \mathrm{{softmax}}(W_y h^{{({step})}} + b_y),\quad "
                 rf"J^{{({step})}} = -\log \hat{{y}}^{{({step})}}_{{x^{{({step + 1})}}}} = -\log {p_target:.4f}"
                 rf" = {run.losses[step - 1]:.4f}")
        formula(rf"J = \frac{{1}}{{T}}\sum_{{t=1}}^{{T}} J^{{(t)}} = \frac{{{run.losses.sum():.3f}}}{{{T}}} = {run.J:.4f},"
                 rf"\qquad \mathrm{{PPL}} = \exp(J) = {run.perplexity:.2f}")
    left, right = st.columns(2)
    h = torch.stack(run.trace.h[1:]).numpy()
    deck.chart(chart(hidden_state_heatmap, np.round(h, 3), inputs, step, lang=lang()), "hidden-state", left)
    deck.chart(chart(step_loss_figure, run.losses, targets, step, lang=lang()), "step-loss", right)


@st.fragment
def top_k_section(wb, run, model_key: str, idx: int) -> None:
    """ŷ(t)'s top-k words at every step: the browser-side animation and the table (k reruns only this)."""
    inputs, targets, T = run.inputs_text, run.targets_text, run.T
    h = torch.stack(run.trace.h[1:]).numpy()
    k = st.slider(tr("rnn_bptt.k"), 1, 10, 5, key="rnn_topk", persist_state="page")
    top = top_k_next(wb, run, k)
    st.caption(tr("rnn_bptt.play", units=min(ANIMATED_UNITS, h.shape[1]), n=h.shape[1]))
    deck.chart(animation_figure(model_key, idx, k, lang(), h, top, run), "forward-animation")
    st.caption(tr("rnn_bptt.topk", k=k))
    deck.table(pd.DataFrame({
        tr("rnn_bptt.col.t"): range(1, T + 1),
        tr("rnn_bptt.col.input"): inputs,
        tr("rnn_bptt.col.target"): targets,
        tr("rnn_bptt.col.p_target"): [float(run.probs[t, run.targets[t]]) for t in range(T)],
        tr("rnn_bptt.col.J"): run.losses,
        tr("rnn_bptt.col.top", k=k): [" · ".join(f"{w} {p:.3f}" for w, p in row) for row in top],
    }), "top-k", formats={tr("rnn_bptt.col.p_target"): "{:.4g}", tr("rnn_bptt.col.J"): "{:.4f}"}, max_height=400)


@st.fragment
def bptt_section(wb, run) -> None:
    """BPTT contributions and truncation (its slider reruns only this section)."""
    st.header(tr("rnn_bptt.bptt.header"))
    formula(r"\frac{\partial J^{(t)}}{\partial W_h} = \sum_{k=1}^{t} \frac{\partial J^{(t)}}{\partial h^{(t)}}"
             r"\left(\prod_{j=k+1}^{t} \frac{\partial h^{(j)}}{\partial h^{(j-1)}}\right)\frac{\partial h^{(k)}}{\partial W_h}"
             r"\;=\;\sum_{k=1}^{t} G(t,k),\qquad G(t,k) = \delta(t,k)\,h^{(k-1)\,T}")
    st.caption(tr("rnn_bptt.bptt.caption"))
    T = run.T
    contrib = sentence_bptt(wb, run)
    window = st.slider(tr("rnn_bptt.window"), 1, T, min(DEFAULT_WINDOW, T), key="rnn_window")
    full = float(contrib.total.norm())
    err = contrib.truncation_error(window)
    c_norm, c_dropped, c_err = st.columns(3)
    c_norm.metric(tr("rnn_bptt.metric.grad_norm"), f"{full:.4g}")
    c_dropped.metric(tr("rnn_bptt.metric.dropped"), f"{100 * contrib.dropped_share(window):.3g}%")
    c_err.metric(tr("rnn_bptt.metric.trunc_err"), f"{100 * err:.3g}%")
    formula(rf"\frac{{\partial J}}{{\partial W_h}} = \frac{{1}}{{T}}\sum_{{t=1}}^{{{T}}}\sum_{{k=1}}^{{t}} G(t,k),\quad"
             rf"\Big\|\frac{{\partial J}}{{\partial W_h}}\Big\| = {full:.4g},\quad"
             rf"\Big\|\frac{{\partial J}}{{\partial W_h}} - g_{{\,t-k<{window}}}\Big\| = {err * full:.3g}")
    left, right = st.columns([3, 2])
    deck.chart(chart(bptt_heatmap, contrib.norms, run.inputs_text, window, lang=lang()), "bptt", left)
    errors = np.array([contrib.truncation_error(w) for w in range(1, T + 1)])
    deck.chart(chart(truncation_error_figure, errors, window, lang=lang()), "truncation-error", right)


# ---------------------------------------------------------------- model and sentence
corpus = current_corpus()
deck = teaching.deck("rnn_bptt")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
st.title(tr("nav.rnn_bptt"))
st.caption(tr("rnn_bptt.caption"))
deck.section("sentence")
lo, hi = SENTENCE_LENGTHS
candidates = [s for s in corpus.mapped("test") if lo <= len(s) <= hi][:MAX_SENTENCES]
if not candidates:
    st.warning(tr("rnn_bptt.no_sentence", lo=lo, hi=hi))
    st.stop()

c_model, c_sentence = st.columns(2)
kind = c_model.radio(tr("rnn_bptt.model"), MODELS, index=MODELS.index(query_param("model", "trained", choices=MODELS)),
                     format_func=labeller("rnn_bptt.model"), horizontal=True, key="rnn_model")
wanted = query_param("s", 0, lo=0, hi=len(candidates) - 1)
if len(candidates) > 1:
    idx = c_sentence.slider(tr("rnn_bptt.sentence"), 0, len(candidates) - 1, wanted, key="rnn_sentence")
else:
    idx = 0
    c_sentence.caption(tr("rnn_bptt.one_sentence"))
keep_settings(model=kind, s=idx)

if kind == "trained":
    lm = trained_models(corpus, [RNN])[RNN.cell]
    if lm is None:
        st.caption(tr("rnn_bptt.meanwhile"))
        st.stop()
else:
    lm = untrained(corpus, RNN)
wb = white_box_of(lm)
model_key = f"{kind}:{lm.key()}"
st.caption(tr("rnn_bptt.model_info", v=len(wb.itos), d=lm.config.embed_dim, n=lm.config.hidden_size,
              steps=lm.steps_done))
sentence = candidates[idx]
with torch.no_grad():
    run = run_sentence(wb, sentence)
st.text(" ".join([*run.inputs_text, EOS]))

c_T, c_J, c_ppl, c_split = st.columns(4)
c_T.metric(tr("rnn_bptt.metric.T"), run.T)
c_J.metric(tr("rnn_bptt.metric.J"), f"{run.J:.4f}")
c_ppl.metric(tr("rnn_bptt.metric.ppl"), f"{run.perplexity:.2f}")
split_ppl = derived(lm, f"ppl:{corpus.key}:test", lambda: lm.perplexity(corpus.mapped("test")).ppl)
c_split.metric(tr("rnn_bptt.metric.split_ppl"), f"{split_ppl:.2f}")



def step_part() -> None:
    deck.section("step")
    st.header(tr("rnn_bptt.forward.header"))
    step_section(run)


def top_k_part() -> None:
    deck.section("topk")
    top_k_section(wb, run, model_key, idx)


def bptt_part() -> None:
    deck.section("bptt")
    bptt_section(wb, run)


deck.settings(rnn=lm)  # teaching mode: the questions are on the model shown
deck.parts({"step": step_part, "topk": top_k_part, "bptt": bptt_part})
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
