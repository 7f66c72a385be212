"""Vanishing & exploding gradients: norm vs distance for RNN/LSTM/GRU, why (spectrum, σ'), the LSTM's
f(t) approximation, token connectivity, and the clipping lab (Pascanu's cliff + a real training run)."""
import numpy as np
import streamlit as st

from lmcore.figures import gradients as figs
from lmcore.recurrent.cliff import descend, loss_surface
from lmcore.recurrent.corpus_models import ClipRunSettings, corpus_clip_experiment, enough_text, trained_corpus_lm
from lmcore.recurrent.diagnostics import connectivity, lstm_panel, rnn_panels
from lmcore.recurrent.gradient_flow import activation_gamma, curves_over_seeds, regime, theory_line
from lmcore.recurrent.weights import CellSpec
from ui import teaching
from ui.state import current_corpus, labeller, lang, query_param, set_query_params, tr

T_OPTIONS = [10, 20, 50, 100, 200, 500, 1000]
CELLS = ["rnn", "lstm", "gru"]
CLIFF_W, CLIFF_B = (0.0, 12.0), (-8.0, 2.0)


@st.cache_data(show_spinner=False, max_entries=32)
def gradient_bands(cells: tuple, spec: CellSpec, T: int, input_scale: float, n_seeds: int) -> dict:
    seeds = list(range(n_seeds))
    return {c: curves_over_seeds(CellSpec(c, spec.hidden, spec.input_dim, spec.kind, spec.scale, spec.activation,
                                          spec.forget_bias), T, input_scale, seeds) for c in cells}


@st.cache_data(show_spinner=False, max_entries=32)
def panels(spec: CellSpec, T: int, input_scale: float):
    return rnn_panels(spec, T, input_scale), lstm_panel(spec, min(T, 200), input_scale)


@st.cache_resource(show_spinner=False, max_entries=4)
def corpus_models(key: str, _sentences: list) -> dict:
    return {cell: trained_corpus_lm(_sentences, cell, steps=150)[0] for cell in ("rnn", "lstm")}


@st.cache_data(show_spinner=False, max_entries=16)
def clip_runs(key: str, _sentences: list, settings: ClipRunSettings) -> dict:
    return corpus_clip_experiment(_sentences, settings)


@st.cache_data(show_spinner=False, max_entries=16)
def cliff(threshold: float, lr: float, start: tuple):
    paths = {"plain": descend(start, lr, 150), "clipped": descend(start, lr, 150, threshold=threshold)}
    return loss_surface(CLIFF_W, CLIFF_B, 120), paths


corpus = current_corpus()
deck = teaching.deck("gradients")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
st.title(tr("nav.gradients"))
st.caption(tr("gradients.caption"))

# ---------------------------------------------------------------- gradient norm vs distance
deck.section("curves")
st.header(tr("gradients.curves.header"))
with st.expander(tr("gradients.controls"), expanded=True):
    c1, c2, c3 = st.columns(3)
    cells = c1.multiselect(tr("gradients.cells"), CELLS, default=CELLS, format_func=str.upper, key="grad_cells")
    t_default = query_param("T", 100)
    T = c1.select_slider(tr("gradients.T"), T_OPTIONS, value=t_default if t_default in T_OPTIONS else 100, key="grad_T")
    hidden = c1.select_slider(tr("gradients.hidden"), [8, 16, 32, 64, 128], value=32, key="grad_hidden")
    kind_default = query_param("kind", "orthogonal")
    kind = c2.radio(tr("gradients.kind"), ["orthogonal", "gaussian"], key="grad_kind", format_func=labeller("gradients.kind"),
                    index=1 if kind_default == "gaussian" else 0)
    scale = c2.slider(tr(f"gradients.scale.{kind}"), 0.1, 5.0, float(np.clip(query_param("s1", 1.0), 0.1, 5.0)), 0.05, key="grad_scale")
    act_default = query_param("act", "tanh")
    activation = c2.selectbox(tr("gradients.activation"), ["tanh", "sigmoid", "relu"], key="grad_act",
                              index=["tanh", "sigmoid", "relu"].index(act_default) if act_default in ("tanh", "sigmoid", "relu") else 0)
    forget_bias = c3.slider(tr("gradients.forget_bias"), -2.0, 5.0, 1.0, 0.5, key="grad_fb")
    input_scale = c3.slider(tr("gradients.input_scale"), 0.0, 3.0, 1.0, 0.1, key="grad_input")
    n_seeds = c3.slider(tr("gradients.seeds"), 1, 5, 3, key="grad_seeds")
set_query_params(T=T, s1=scale, kind=kind, act=activation)

spec = CellSpec("rnn", hidden, 8, kind, scale, activation, forget_bias)
rnn, lstm_approx = panels(spec, T, input_scale)
gamma = activation_gamma(activation)
sg = rnn.sigma1 * gamma
m = st.columns(4)
m[0].metric(tr("gradients.metric.sigma1"), f"{rnn.sigma1:.3f}")
m[1].metric(tr("gradients.metric.rho"), f"{rnn.rho:.3f}")
m[2].metric(tr("gradients.metric.gamma"), f"{gamma:g}")
m[3].metric(tr("gradients.metric.sg"), f"{sg:.3f}")
st.markdown(tr("gradients.regime_note", sg=sg, regime=tr(f"gradients.regime.{regime(sg)}")))

if not cells:
    st.warning(tr("gradients.no_cell"))
else:
    bands = gradient_bands(tuple(cells), spec, T, input_scale, n_seeds)
    deck.chart(figs.gradient_curves_figure(bands, rnn.sigma1, gamma, lang=lang()), "gradient-curves")
    for cell, band in bands.items():
        if band.exploded_at is not None:
            st.warning(tr("gradients.exploded_msg", cell=cell.upper(), k=band.exploded_at))
        if band.vanished_at is not None:
            st.info(tr("gradients.underflow_msg", cell=cell.upper(), k=band.vanished_at))
        forward = [c.forward_exploded_at for c in band.curves if c.forward_exploded_at is not None]
        if forward:
            st.warning(tr("gradients.forward_exploded_msg", cell=cell.upper(), k=min(forward)))
    overflow = np.flatnonzero(~np.isfinite(theory_line(rnn.sigma1, gamma, np.arange(T))))
    if overflow.size:
        st.warning(tr("gradients.theory_overflow_msg", k=int(overflow[0])))

    with st.expander(tr("gradients.formula_header"), expanded=False):
        st.latex(r"\frac{\partial J^{(t)}}{\partial h^{(k)}} = \frac{\partial J^{(t)}}{\partial h^{(t)}}"
                 r"\prod_{j=k+1}^{t} W_h^T \,\mathrm{diag}\!\left(\sigma'(z^{(j)})\right),\qquad"
                 r"\Big\|\prod_{j=k+1}^{t} W_h^T \,\mathrm{diag}(\sigma'(z^{(j)}))\Big\| \le (\sigma_1\gamma)^{t-k}")
        d = st.slider(tr("gradients.distance_pick"), 0, T - 1, min(10, T - 1), key="grad_d")
        measured = bands["rnn"].curves[0].norm_h[d] if "rnn" in bands else float("nan")
        bound = float(theory_line(rnn.sigma1, gamma, np.array([d]))[0])
        st.markdown(tr("gradients.formula_note", d=d, prod=rnn.product[d] if d < len(rnn.product) else float("nan"),
                       bound=bound, meas=measured))

deck.section("panels")
st.subheader(tr("gradients.panels.header"))
left, mid, right = st.columns(3)
deck.chart(figs.eigenvalue_figure(rnn.eigs, rnn.sigma1, lang=lang()), "eigenvalues", left)
deck.chart(figs.per_step_figure(rnn.mean_deriv, gamma, "deriv", lang=lang()), "activation-derivative", mid)
deck.chart(figs.per_step_figure(rnn.step_norms, sg, "jacobian", lang=lang()), "step-jacobian", right)

deck.section("lstm")
st.subheader(tr("gradients.lstm.header"))
st.latex(r"\frac{\partial c^{(t)}}{\partial c^{(t-1)}} = \mathrm{diag}(f^{(t)}) + "
         r"\underbrace{\frac{\partial c^{(t)}}{\partial h^{(t-1)}}\,\mathrm{diag}\!\left(o^{(t-1)}\odot(1-\tanh^2 c^{(t-1)})\right)}"
         r"_{\text{" + tr("gradients.lstm.ignored") + "}}")
st.markdown(tr("gradients.lstm.note", err=float(np.median(lstm_approx["relative_error"]))))
deck.chart(figs.forget_gate_figure(lstm_approx, lang=lang()), "forget-gate")

# ---------------------------------------------------------------- connectivity
deck.section("connectivity")
st.header(tr("gradients.conn.header"))
st.caption(tr("gradients.conn.caption"))
train = corpus.mapped("train")
candidates = [s for s in train if 8 <= len(s) <= 40]
if not enough_text(train):
    st.warning(tr("gradients.too_small"))
elif not candidates:
    st.info(tr("gradients.conn.too_short"))
else:
    models = corpus_models(corpus.key, train)
    idx = st.slider(tr("gradients.conn.sentence"), 0, len(candidates) - 1, 0, key="grad_sentence")
    sentence = candidates[idx]
    inputs, targets = ["</s>"] + sentence, sentence + ["</s>"]
    position = st.slider(tr("gradients.conn.position"), 1, len(inputs), len(inputs) - 1, key="grad_position")
    st.text(tr("gradients.conn.predicting", word=targets[position - 1], context=" ".join(inputs[:position])))
    norms = connectivity(models, sentence, position)
    deck.chart(figs.connectivity_figure(inputs, norms, targets[position - 1], lang=lang()), "connectivity")

# ---------------------------------------------------------------- clipping lab
deck.section("clipping")
st.header(tr("gradients.clip.header"))
st.markdown(tr("gradients.clip.rule"))
st.latex(r"\hat{g} \leftarrow \begin{cases} \dfrac{\text{threshold}}{\|\hat{g}\|}\,\hat{g} & \text{if } "
         r"\|\hat{g}\| > \text{threshold} \\ \hat{g} & \text{otherwise}\end{cases}")
st.subheader(tr("gradients.cliff.header"))
st.caption(tr("gradients.cliff.caption"))
c1, c2, c3, c4 = st.columns(4)
threshold = c1.slider(tr("gradients.cliff.threshold"), 1.0, 50.0, 20.0, 1.0, key="cliff_threshold")
lr = c2.select_slider(tr("gradients.cliff.lr"), [0.002, 0.005, 0.01, 0.02, 0.05, 0.1], value=0.01, key="cliff_lr")
start_w = c3.slider(tr("gradients.cliff.start_w"), CLIFF_W[0], CLIFF_W[1], 10.0, 0.25, key="cliff_w")
start_b = c4.slider(tr("gradients.cliff.start_b"), CLIFF_B[0], CLIFF_B[1], -3.0, 0.25, key="cliff_b")
surface, paths = cliff(threshold, lr, (start_w, start_b))
deck.chart(figs.cliff_figure(surface, paths, lang=lang()), "cliff")
steps = {k: np.linalg.norm(np.diff(p.points, axis=0), axis=1) for k, p in paths.items()}
m = st.columns(3)
m[0].metric(tr("gradients.cliff.max_step_plain"), f"{steps['plain'].max(initial=0):.3g}")
m[1].metric(tr("gradients.cliff.max_step_clip"), f"{steps['clipped'].max(initial=0):.3g}")
m[2].markdown(tr("gradients.cliff.final", plain=paths["plain"].loss[-1], clip=paths["clipped"].loss[-1]))

deck.section("run")
st.subheader(tr("gradients.run.header"))
run_settings = ClipRunSettings()
if not enough_text(train):
    st.warning(tr("gradients.too_small"))
else:
    c1, c2 = st.columns(2)
    run_threshold = c1.select_slider(tr("gradients.run.threshold"), [0.25, 0.5, 1.0, 2.0, 5.0], value=1.0, key="run_threshold")
    run_lr = c2.select_slider(tr("gradients.run.lr"), [1.0, 2.0, 5.0, 8.0], value=run_settings.lr, key="run_lr")
    run_settings = ClipRunSettings(lr=run_lr, threshold=run_threshold)
    st.caption(tr("gradients.run.caption", v=2000, steps=run_settings.steps, seq=run_settings.seq_len, s1=run_settings.init_sigma1))
    logs = clip_runs(corpus.key, train, run_settings)
    m = st.columns(3)
    m[0].metric(tr("gradients.run.share"), f"{logs['clipped'].clipped_share:.1%}")
    m[1].metric(tr("gradients.run.final_plain"), f"{np.nanmean(logs['unclipped'].loss[-20:]):.3f}")
    m[2].metric(tr("gradients.run.final_clip"), f"{np.nanmean(logs['clipped'].loss[-20:]):.3f}")
    if logs["unclipped"].diverged_at is not None:
        st.warning(tr("gradients.run.diverged", k=logs["unclipped"].diverged_at + 1))
    left, right = st.columns(2)
    deck.chart(figs.training_norm_figure(logs, run_threshold, lang=lang()), "training-norm", left)
    deck.chart(figs.training_loss_figure(logs, lang=lang()), "training-loss", right)
    st.info(tr("gradients.run.lesson"))
deck.end(hidden=hidden, input_scale=input_scale)  # teaching mode: questions / question slide
