"""RNN forward pass & BPTT: step through a corpus sentence with a small RNN LM — h(t), top-k next
words, J(t), J, PPL — then the t × k matrix of BPTT contributions and truncated BPTT."""
import numpy as np
import pandas as pd
import streamlit as st
import torch

from lmcore.figures.rnn import (
    bptt_heatmap, forward_animation, hidden_state_heatmap, step_loss_figure, truncation_error_figure,
)
from lmcore.recurrent.corpus_models import EMB, HIDDEN, enough_text, random_corpus_lm, trained_corpus_lm
from lmcore.recurrent.rnn_lm import run_sentence, sentence_bptt, top_k_next
from ui.state import current_corpus, labeller, lang, query_param, set_query_params, tr

MODELS = ["trained", "random"]


@st.cache_resource(show_spinner=False, max_entries=8)
def language_model(key: str, kind: str, _sentences: list):
    if kind == "random":
        return random_corpus_lm(_sentences)
    return trained_corpus_lm(_sentences, "rnn")[0]


@st.cache_data(show_spinner=False, max_entries=64)
def animation_spec(key: str, kind: str, idx: int, k: int, language: str, _lm, _sentence: list) -> dict:
    """The step-through figure as a plain dict (building its frames costs ~35 ms; a dict is cheap)."""
    with torch.no_grad():
        run = run_sentence(_lm, _sentence)
    return forward_animation(torch.stack(run.trace.h[1:]).numpy(), [_lm.itos[i] for i in run.inputs],
                             top_k_next(_lm, run, k), [_lm.itos[i] for i in run.targets], lang=language).to_dict()


corpus = current_corpus()
st.title(tr("nav.rnn_bptt"))
st.caption(tr("rnn_bptt.caption"))
train = corpus.mapped("train")
candidates = [s for s in corpus.mapped("test") if 3 <= len(s) <= 30][:500]
if not enough_text(train):
    st.warning(tr("rnn_bptt.too_small"))
    st.stop()
if not candidates:
    st.warning(tr("rnn_bptt.no_sentence"))
    st.stop()

c1, c2 = st.columns(2)
kind_default = query_param("model", "trained")
kind = c1.radio(tr("rnn_bptt.model"), MODELS, index=MODELS.index(kind_default) if kind_default in MODELS else 0,
                format_func=labeller("rnn_bptt.model"), horizontal=True, key="rnn_model")
idx = c2.slider(tr("rnn_bptt.sentence"), 0, len(candidates) - 1,
                int(np.clip(query_param("s", 0), 0, len(candidates) - 1)), key="rnn_sentence")
set_query_params(model=kind, s=idx)
lm = language_model(corpus.key, kind, train)
st.caption(tr("rnn_bptt.model_info", v=len(lm.itos), d=EMB, n=HIDDEN))

sentence = candidates[idx]
with torch.no_grad():
    run = run_sentence(lm, sentence)
inputs = [lm.itos[i] for i in run.inputs]
targets = [lm.itos[i] for i in run.targets]
T = len(inputs)
st.text(" ".join(inputs + ["</s>"]))

m = st.columns(3)
m[0].metric(tr("rnn_bptt.metric.T"), T)
m[1].metric(tr("rnn_bptt.metric.J"), f"{run.J:.4f}")
m[2].metric(tr("rnn_bptt.metric.ppl"), f"{run.perplexity:.2f}")

# ---------------------------------------------------------------- forward pass
st.header(tr("rnn_bptt.forward.header"))
step = st.slider(tr("rnn_bptt.step"), 1, T, 1, key="rnn_step")
p_target = float(run.probs[step - 1, run.targets[step - 1]])
st.text(tr("rnn_bptt.step_caption", t=step, word=inputs[step - 1], target=targets[step - 1], p=p_target))
with st.expander(tr("rnn_bptt.formulas"), expanded=True):
    h_norm = float(run.trace.h[step].norm())
    st.latex(rf"h^{{({step})}} = \tanh\!\left(W_h h^{{({step - 1})}} + W_x x^{{({step})}} + b_h\right),\quad "
             rf"\|h^{{({step})}}\| = {h_norm:.3f}")
    st.latex(rf"\hat{{y}}^{{({step})}} = \mathrm{{softmax}}(W_y h^{{({step})}} + b_y),\quad "
             rf"J^{{({step})}} = -\log \hat{{y}}^{{({step})}}_{{x^{{({step + 1})}}}} = -\log {p_target:.4f} = {run.losses[step - 1]:.4f}")
    st.latex(rf"J = \frac{{1}}{{T}}\sum_{{t=1}}^{{T}} J^{{(t)}} = \frac{{{run.losses.sum():.3f}}}{{{T}}} = {run.J:.4f},\qquad "
             rf"\mathrm{{PPL}} = \exp(J) = {run.perplexity:.2f}")
left, right = st.columns(2)
h = torch.stack(run.trace.h[1:]).numpy()
left.plotly_chart(hidden_state_heatmap(h, inputs, step, lang=lang()), width="stretch")
right.plotly_chart(step_loss_figure(run.losses, targets, step, lang=lang()), width="stretch")

k = st.slider(tr("rnn_bptt.k"), 1, 10, 5, key="rnn_topk")
top = top_k_next(lm, run, k)
st.caption(tr("rnn_bptt.play"))
st.plotly_chart(animation_spec(corpus.key, kind, idx, k, lang(), lm, sentence), width="stretch")
st.caption(tr("rnn_bptt.topk", k=k))
st.dataframe(pd.DataFrame({
    tr("rnn_bptt.col.t"): range(1, T + 1),
    tr("rnn_bptt.col.input"): inputs,
    tr("rnn_bptt.col.target"): targets,
    tr("rnn_bptt.col.p_target"): [float(run.probs[t, run.targets[t]]) for t in range(T)],
    tr("rnn_bptt.col.J"): run.losses,
    tr("rnn_bptt.col.top", k=k): [" · ".join(f"{w} {p:.3f}" for w, p in row) for row in top],
}), hide_index=True, height=min(400, 38 + 35 * T),
    column_config={tr("rnn_bptt.col.p_target"): st.column_config.NumberColumn(format="%.4f"),
                   tr("rnn_bptt.col.J"): st.column_config.NumberColumn(format="%.3f")})

# ---------------------------------------------------------------- BPTT
st.header(tr("rnn_bptt.bptt.header"))
st.latex(r"\frac{\partial J^{(t)}}{\partial W_h} = \sum_{k=1}^{t} \frac{\partial J^{(t)}}{\partial h^{(t)}}"
         r"\left(\prod_{j=k+1}^{t} \frac{\partial h^{(j)}}{\partial h^{(j-1)}}\right)\frac{\partial h^{(k)}}{\partial W_h}"
         r"\;=\;\sum_{k=1}^{t} G(t,k),\qquad G(t,k) = \delta(t,k)\,h^{(k-1)\,T}")
st.caption(tr("rnn_bptt.bptt.caption"))
contrib = sentence_bptt(lm, run)
window = st.slider(tr("rnn_bptt.window"), 1, T, min(5, T), key="rnn_window")
full = float(contrib.total.norm())
err = contrib.truncation_error(window)
m = st.columns(3)
m[0].metric(tr("rnn_bptt.metric.grad_norm"), f"{full:.4g}")
m[1].metric(tr("rnn_bptt.metric.dropped"), f"{100 * contrib.dropped_share(window):.3g}%")
m[2].metric(tr("rnn_bptt.metric.trunc_err"), f"{100 * err:.3g}%")
st.latex(rf"\frac{{\partial J}}{{\partial W_h}} = \frac{{1}}{{T}}\sum_{{t=1}}^{{{T}}}\sum_{{k=1}}^{{t}} G(t,k),\quad"
         rf"\Big\|\frac{{\partial J}}{{\partial W_h}}\Big\| = {full:.4g},\quad"
         rf"\Big\|\frac{{\partial J}}{{\partial W_h}} - g_{{\,t-k<{window}}}\Big\| = {err * full:.3g}")
left, right = st.columns([3, 2])
left.plotly_chart(bptt_heatmap(contrib.norms, inputs, window, lang=lang()), width="stretch")
errors = np.array([contrib.truncation_error(w) for w in range(1, T + 1)])
right.plotly_chart(truncation_error_figure(errors, window, lang=lang()), width="stretch")
