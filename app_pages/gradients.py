"""Vanishing & exploding gradients: norm vs distance for RNN/LSTM/GRU, why (spectrum, σ'), the LSTM's
f(t) approximation, token connectivity, and the clipping lab (Pascanu's cliff + a real training run).

Each section with its own controls is a fragment: moving one of its controls reruns (and resends)
that section only. Trained models and the clipping runs are shipped for the built-in corpora and
trained in the background for an upload; nothing trains in a script run."""
from dataclasses import replace
from functools import partial

import numpy as np
import streamlit as st

from lmcore.figures import gradients as figs
from lmcore.figures.labels import tex_words
from lmcore.recurrent.clip_lab import DEFAULT as CLIP_DEFAULT
from lmcore.recurrent.clip_lab import LEARNING_RATES, THRESHOLDS
from lmcore.recurrent.cliff import CliffTask, descend, loss_surface
from lmcore.recurrent.diagnostics import connectivity, lstm_panel, rnn_panels, rnn_product_norm, rnn_spectrum
from lmcore.recurrent.gradient_flow import activation_gamma, curves_over_seeds, regime, theory_line
from lmcore.recurrent.weights import W_H_KINDS, CellSpec
from lmcore.symbols import BOS, EOS
from lmcore.training.config import enough_to_train
from server.prefetch import ahead, neighbours
from server.recurrent_models import LSTM, RNN, white_box_of
from ui import teaching
from ui.recurrent_models import clip_logs, trained_models
from ui.charts import chart
from ui.state import current_corpus, keep_settings, labeller, lang, query_param, tr
from ui.formula_element import formula

T_OPTIONS = [10, 20, 50, 100, 200, 500, 1000]
HIDDEN_OPTIONS = [8, 16, 32, 64, 128]
CELLS = ["rnn", "lstm", "gru"]
ACTIVATIONS = ["tanh", "sigmoid", "relu"]
SCALE_RANGE = (0.1, 5.0, 0.05)  # the scale of W_h: lowest, highest, step
INPUT_DIM = 8
PANEL_MAX_T = 200  # per-step panels: one SVD per step, so the first steps only (T = 1000 took 4.6 s)
CONNECTIVITY_LENGTHS = (8, 40)  # tokens of a training sentence for the connectivity view
CLIFF_W, CLIFF_B = (0.0, 12.0), (-8.0, 2.0)
CLIFF_RESOLUTION = 100
CLIFF_STEPS = 150
CLIFF_LRS = [0.002, 0.005, 0.01, 0.02, 0.05, 0.1]
FINAL_WINDOW = 20  # the clipping run's "final loss" is the mean over its last steps
# an expander has no persist_state: its open state is written back by ui/sections.py while its part is closed
KEPT = ("grad_formula_open",)


@st.cache_data(show_spinner=False, max_entries=32)
def gradient_bands(cells: tuple, spec: CellSpec, T: int, input_scale: float, n_seeds: int) -> dict:
    return {c: curves_over_seeds(replace(spec, cell=c), T, input_scale, list(range(n_seeds))) for c in cells}


@st.cache_data(show_spinner=False, max_entries=32)
def panels(spec: CellSpec, T: int, input_scale: float):
    return rnn_panels(spec, T, input_scale, steps=PANEL_MAX_T), lstm_panel(spec, min(T, PANEL_MAX_T), input_scale)


@st.cache_data(show_spinner=False, max_entries=64)
def spectrum(spec: CellSpec) -> tuple[float, float]:
    """(σ1, ρ) of the RNN's W_h: all the curves part needs of :func:`panels` (a third of its cost)."""
    return rnn_spectrum(spec)


@st.cache_data(show_spinner=False, max_entries=64)
def product_at(spec: CellSpec, T: int, input_scale: float, d: int) -> float:
    return rnn_product_norm(spec, T, input_scale, d)


@st.cache_data(show_spinner=False, max_entries=4)
def cliff_surface():
    """The loss surface, sent as float32 (half the bytes; the contour shows 30 levels of log10 L)."""
    surface = loss_surface(CLIFF_W, CLIFF_B, CLIFF_RESOLUTION)
    return replace(surface, loss=surface.loss.astype(np.float32), grad_norm=surface.grad_norm.astype(np.float32))


@st.cache_data(show_spinner=False, max_entries=32)
def cliff_paths(threshold: float, lr: float, start: tuple) -> dict:
    return {"plain": descend(start, lr, CLIFF_STEPS), "clipped": descend(start, lr, CLIFF_STEPS, threshold=threshold)}


# ---------------------------------------------------------------- gradient norm vs distance
def curve_controls() -> tuple:
    """The cell settings but the scale (in the curves and the why part: only one of them runs per run) →
    (cells, spec with scale 1, T, input_scale, n_seeds)."""
    with st.expander(tr("gradients.controls"), expanded=True):
        c1, c2, c3 = st.columns(3)
        cells = c1.multiselect(tr("gradients.cells"), CELLS, default=CELLS, format_func=str.upper, key="grad_cells",
                               persist_state="page")
        T = c1.select_slider(tr("gradients.T"), T_OPTIONS, value=query_param("T", 100, choices=T_OPTIONS), key="grad_T",
                             persist_state="page")
        hidden = c1.select_slider(tr("gradients.hidden"), HIDDEN_OPTIONS, value=32, key="grad_hidden", persist_state="page")
        kind = c2.radio(tr("gradients.kind"), W_H_KINDS, key="grad_kind", persist_state="page",
                        format_func=labeller("gradients.kind"),
                        index=W_H_KINDS.index(query_param("kind", "orthogonal", choices=W_H_KINDS)))
        activation = c2.selectbox(tr("gradients.activation"), ACTIVATIONS, key="grad_act", persist_state="page",
                                  index=ACTIVATIONS.index(query_param("act", "tanh", choices=ACTIVATIONS)))
        forget_bias = c3.slider(tr("gradients.forget_bias"), -2.0, 5.0, 1.0, 0.5, key="grad_fb", persist_state="page")
        input_scale = c3.slider(tr("gradients.input_scale"), 0.0, 3.0, 1.0, 0.1, key="grad_input", persist_state="page")
        n_seeds = c3.slider(tr("gradients.seeds"), 1, 5, 3, key="grad_seeds", persist_state="page")
    keep_settings(T=T, kind=kind, act=activation)
    return cells, CellSpec("rnn", hidden, INPUT_DIM, kind, 1.0, activation, forget_bias), T, input_scale, n_seeds


def with_scale(spec: CellSpec) -> CellSpec:
    """The scale of W_h, the curves' main control (under the other settings, beside what it moves), in ``spec``."""
    scale = st.slider(tr(f"gradients.scale.{spec.kind}"), *SCALE_RANGE[:2],
                      query_param("s1", 1.0, lo=SCALE_RANGE[0], hi=SCALE_RANGE[1]), SCALE_RANGE[2], key="grad_scale",
                      persist_state="page")
    keep_settings(s1=scale)
    return replace(spec, scale=scale)


def curves_section(with_why: bool = False) -> None:
    """The curves part (a fragment in normal view); ``with_why`` (projector view: the page runs whole)
    adds the why panels, under the same controls, as the deck's next section."""
    st.header(tr("gradients.curves.header"))
    deck.fragment(curves, "grad_curves")(*curve_controls(), with_why)


def curves_chart(cells: tuple, spec: CellSpec, T: int, input_scale: float, n_seeds: int, language: str) -> tuple[dict, object]:
    """The gradient curves of ``cells`` (cell → band over the seeds) and their chart."""
    sigma1, _ = spectrum(spec)
    bands = gradient_bands(cells, spec, T, input_scale, n_seeds)
    return bands, chart(figs.gradient_curves_figure, bands, sigma1, activation_gamma(spec.activation), lang=language)


def curves(cells: list, spec: CellSpec, T: int, input_scale: float, n_seeds: int, with_why: bool) -> None:
    """The scale and all it moves (a fragment in the curves' fragment: a move of the scale reruns
    this, not the settings above it)."""
    spec = with_scale(spec)
    activation = spec.activation
    sigma1, rho = spectrum(spec)
    gamma = activation_gamma(activation)
    sg = sigma1 * gamma
    c_sigma, c_rho, c_gamma, c_sg = st.columns(4)
    c_sigma.metric(tr("gradients.metric.sigma1"), f"{sigma1:.3f}")
    c_rho.metric(tr("gradients.metric.rho"), f"{rho:.3f}")
    c_gamma.metric(tr("gradients.metric.gamma"), f"{gamma:g}")
    c_sg.metric(tr("gradients.metric.sg"), f"{sg:.3f}")
    st.markdown(tr("gradients.regime_note", sg=sg, regime=tr(f"gradients.regime.{regime(sg)}"))
                + " " + tr(f"gradients.slope_note.{activation}"))
    if "lstm" not in cells:
        st.caption(tr("gradients.forget_bias_note"))
    if "rnn" not in cells:
        st.caption(tr("gradients.activation_note"))

    if not cells:
        st.warning(tr("gradients.no_cell"))
    else:
        bands, figure = curves_chart(tuple(cells), spec, T, input_scale, n_seeds, lang())
        deck.chart(figure, "gradient-curves")
        for near in neighbours(spec.scale, *SCALE_RANGE):  # the next move's curves: made once this run has ended
            ahead(("grad_curves", tuple(cells), replace(spec, scale=near), T, input_scale, n_seeds, lang()),
                  partial(curves_chart, tuple(cells), replace(spec, scale=near), T, input_scale, n_seeds, lang()))
        for cell, band in bands.items():
            if band.exploded_at is not None:
                st.warning(tr("gradients.exploded_msg", cell=cell.upper(), k=band.exploded_at))
            if band.vanished_at is not None:
                st.info(tr("gradients.underflow_msg", cell=cell.upper(), k=band.vanished_at))
            forward = [c.forward_exploded_at for c in band.curves if c.forward_exploded_at is not None]
            if forward:
                st.warning(tr("gradients.forward_exploded_msg", cell=cell.upper(), k=min(forward)))
        overflow = np.flatnonzero(~np.isfinite(theory_line(sigma1, gamma, np.arange(T))))
        if overflow.size:
            st.warning(tr("gradients.theory_overflow_msg", k=int(overflow[0])))

        box = st.expander(tr("gradients.formula_header"), key="grad_formula_open", on_change="rerun")
        if box.open:  # runs only when open: closed, a move of the scale sends neither the distance's slider nor its note
            with box:
                product_and_bound(spec, T, input_scale, sigma1, gamma, bands)

    if with_why:
        deck.section("why")
        st.header(tr("gradients.panels.header"))
        why_panels(spec, T, input_scale)


def product_and_bound(spec: CellSpec, T: int, input_scale: float, sigma1: float, gamma: float, bands: dict) -> None:
    """The product of Jacobians and its bound (σ₁γ)^(t−k), at a distance the student picks."""
    formula(r"\frac{\partial J^{(t)}}{\partial h^{(k)}} = \frac{\partial J^{(t)}}{\partial h^{(t)}}"
             r"\prod_{j=k+1}^{t} W_h^T \,\mathrm{diag}\!\left(\sigma'(z^{(j)})\right),\qquad"
             r"\Big\|\prod_{j=k+1}^{t} W_h^T \,\mathrm{diag}(\sigma'(z^{(j)}))\Big\| \le (\sigma_1\gamma)^{t-k}")
    d = st.slider(tr("gradients.distance_pick"), 0, T - 1, min(10, T - 1), key="grad_d")
    bound = float(theory_line(sigma1, gamma, np.array([d]))[0])
    prod = product_at(spec, T, input_scale, d)
    if "rnn" in bands:
        st.markdown(tr("gradients.formula_note", d=d, prod=prod, bound=bound,
                       meas=bands["rnn"].curves[0].norm_h[d]))
    else:
        st.markdown(tr("gradients.formula_note_no_rnn", d=d, prod=prod, bound=bound))


@st.fragment
def why_section() -> None:
    st.header(tr("gradients.panels.header"))
    _, spec, T, input_scale, _ = curve_controls()
    why_panels(with_scale(spec), T, input_scale)


def why_panels(spec: CellSpec, T: int, input_scale: float) -> None:
    """The spectrum of W_h, σ' and the Jacobian per step, and the LSTM's f(t) approximation."""
    rnn, lstm_approx = panels(spec, T, input_scale)
    gamma = activation_gamma(spec.activation)
    sg = rnn.sigma1 * gamma
    if T > PANEL_MAX_T:
        st.caption(tr("gradients.panels.first_steps", n=PANEL_MAX_T, T=T))
    left, mid, right = st.columns(3)
    deck.chart(chart(figs.eigenvalue_figure, rnn.eigs, rnn.sigma1, lang=lang()), "eigenvalues", left)
    deck.chart(chart(figs.per_step_figure, rnn.mean_deriv, gamma, "deriv", lang=lang()), "activation-slope", mid)
    deck.chart(chart(figs.per_step_figure, rnn.step_norms, sg, "jacobian", lang=lang()), "jacobian-norms", right)

    st.subheader(tr("gradients.lstm.header"))
    formula(r"\frac{\partial c^{(t)}}{\partial c^{(t-1)}} = \mathrm{diag}(f^{(t)}) + "
             r"\underbrace{\frac{\partial c^{(t)}}{\partial h^{(t-1)}}\,\mathrm{diag}\!\left(o^{(t-1)}\odot(1-\tanh^2 c^{(t-1)})\right)}"
             r"_{\text{" + tr("gradients.lstm.ignored") + "}}")
    st.markdown(tr("gradients.lstm.note", err=float(np.median(lstm_approx["relative_error"]))))
    deck.chart(chart(figs.forget_gate_figure, lstm_approx, lang=lang()), "forget-gate")


# ---------------------------------------------------------------- connectivity
@st.fragment
def connectivity_section(corpus) -> None:
    st.header(tr("gradients.conn.header"))
    st.caption(tr("gradients.conn.caption"))
    lo, hi = CONNECTIVITY_LENGTHS
    candidates = [s for s in corpus.mapped("train") if lo <= len(s) <= hi]
    if not candidates:
        st.info(tr("gradients.conn.too_short", lo=lo, hi=hi))
        return
    found = trained_models(corpus, [RNN, LSTM])
    if any(lm is None for lm in found.values()):
        return
    if len(candidates) > 1:
        idx = st.slider(tr("gradients.conn.sentence"), 0, len(candidates) - 1, 0, key="grad_sentence")
    else:
        idx = 0
        st.caption(tr("gradients.conn.one_sentence"))
    sentence = candidates[idx]
    inputs, targets = [BOS, *sentence], [*sentence, EOS]
    position = st.slider(tr("gradients.conn.position"), 1, len(inputs), len(inputs) - 1, key="grad_position")
    st.text(tr("gradients.conn.predicting", word=targets[position - 1], context=" ".join(inputs[:position])))
    norms = connectivity({cell: white_box_of(lm) for cell, lm in found.items()}, sentence, position)
    deck.chart(chart(figs.connectivity_figure, inputs, norms, targets[position - 1], lang=lang()), "connectivity")


# ---------------------------------------------------------------- clipping lab: the cliff
@st.fragment
def cliff_section() -> None:
    st.subheader(tr("gradients.cliff.header"))
    task = CliffTask()
    st.caption(tr("gradients.cliff.caption", h0=task.h0, T=task.T, target=task.target))
    c_th, c_lr, c_w, c_b = st.columns(4)
    threshold = c_th.slider(tr("gradients.cliff.threshold"), 1.0, 50.0, 20.0, 1.0, key="cliff_threshold", persist_state="page")
    lr = c_lr.select_slider(tr("gradients.cliff.lr"), CLIFF_LRS, value=0.01, key="cliff_lr", persist_state="page")
    start_w = c_w.slider(tr("gradients.cliff.start_w"), *CLIFF_W, 10.0, 0.25, key="cliff_w", persist_state="page")
    start_b = c_b.slider(tr("gradients.cliff.start_b"), *CLIFF_B, -3.0, 0.25, key="cliff_b", persist_state="page")
    paths = cliff_paths(threshold, lr, (start_w, start_b))
    deck.chart(chart(figs.cliff_figure, cliff_surface(), paths, lang=lang()), "cliff")
    steps = {name: np.linalg.norm(np.diff(p.points, axis=0), axis=1) for name, p in paths.items()}
    c_plain, c_clip, c_final = st.columns(3)
    c_plain.metric(tr("gradients.cliff.max_step_plain"), f"{steps['plain'].max(initial=0):.3g}")
    c_clip.metric(tr("gradients.cliff.max_step_clip"), f"{steps['clipped'].max(initial=0):.3g}")
    c_final.markdown(tr("gradients.cliff.final", plain=paths["plain"].loss[-1], clip=paths["clipped"].loss[-1]))
    if not paths["clipped"].clipped.any():
        st.info(tr("gradients.cliff.never_clipped", threshold=threshold,
                   norm=float(np.nanmax(paths["clipped"].grad_norm, initial=0.0))))


# ---------------------------------------------------------------- clipping lab: a real training run
@st.fragment
def clip_run_section(corpus) -> None:
    st.subheader(tr("gradients.run.header"))
    if not enough_to_train(corpus.mapped("train")):
        st.warning(tr("gradients.too_small"))
        return
    c_th, c_lr = st.columns(2)
    threshold = c_th.select_slider(tr("gradients.run.threshold"), THRESHOLDS, value=CLIP_DEFAULT.threshold,
                                   key="run_threshold", persist_state="page")
    lr = c_lr.select_slider(tr("gradients.run.lr"), LEARNING_RATES, value=CLIP_DEFAULT.lr, key="run_lr", persist_state="page")
    settings = replace(CLIP_DEFAULT, lr=lr, threshold=threshold)
    st.caption(tr("gradients.run.caption", v=len(corpus.vocab), steps=settings.steps, bptt=settings.bptt,
                  batch=settings.batch, s1=settings.init_sigma1, emb=settings.embed_dim, n=settings.hidden))
    logs = clip_logs(corpus, settings)
    if logs is None:
        return
    plain, clipped = logs["unclipped"], logs["clipped"]
    c_share, c_plain, c_clip = st.columns(3)
    c_share.metric(tr("gradients.run.share"), f"{clipped.clipped_share:.1%}")
    c_plain.metric(tr("gradients.run.final_plain"), f"{np.nanmean(plain.loss[-FINAL_WINDOW:]):.3f}")
    c_clip.metric(tr("gradients.run.final_clip"), f"{np.nanmean(clipped.loss[-FINAL_WINDOW:]):.3f}")
    if plain.diverged_at is not None:
        st.warning(tr("gradients.run.diverged", k=plain.diverged_at + 1))
    left, right = st.columns(2)
    deck.chart(chart(figs.training_norm_figure, logs, threshold, lang=lang()), "clipping-norms", left)
    deck.chart(chart(figs.training_loss_figure, logs, lang=lang()), "clipping-loss", right)
    st.info(tr("gradients.run.lesson"))


corpus = current_corpus()
deck = teaching.deck("gradients")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
st.title(tr("nav.gradients"))
st.caption(tr("gradients.caption"))


def clipping_section() -> None:
    deck.section("clipping")
    st.header(tr("gradients.clip.header"))
    st.markdown(tr("gradients.clip.rule"))
    formula(tex_words(r"\hat{g} \leftarrow \begin{cases} \dfrac{\text{threshold}}{\|\hat{g}\|}\,\hat{g} & \text{if } "
                       r"\|\hat{g}\| > \text{threshold} \\ \hat{g} & \text{otherwise}\end{cases}", lang()))
    cliff_section()


def sectioned(name: str, run):
    """``run`` as the page's section ``name`` of the teaching deck."""
    def part() -> None:
        deck.section(name)
        run()
    return part


deck.settings(hidden=st.session_state.get("grad_hidden", 32), input_scale=st.session_state.get("grad_input", 1.0))
curves_part = sectioned("curves", lambda: deck.fragment(curves_section)(with_why=deck.projector))
deck.parts({"curves": curves_part,
            "why": curves_part if deck.projector else why_section,  # projector: drawn under the curves' controls
            "connectivity": sectioned("connectivity", lambda: connectivity_section(corpus)),
            "clipping": clipping_section, "run": sectioned("run", lambda: clip_run_section(corpus))},
           keep=KEPT)
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
