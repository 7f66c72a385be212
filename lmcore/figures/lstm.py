"""Figures of the LSTM page: gate heatmaps, gradient paths, counterfactual edits, training curves,
the perplexity comparison, and a passage coloured by one unit (HTML, every token escaped)."""
from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lmcore.figures.labels import plotly_text
from lmcore.figures.placement import token_axis

from lmcore.figures.style import log_axis, readable
from lmcore.i18n import t

GATE_SCALE = "Viridis"
SIGNED_SCALE = "RdBu_r"
AXIS_WIDTH = 640
"""Narrowest plotting-area width (px) of a token-axis chart at 1280×720 (beside a colour bar)."""


def _labels(symbols: Sequence[str]) -> list[str]:
    """Plotly renders a few HTML tags in labels: escape tokens such as ``<s>``; show spaces as ␣."""
    return [plotly_text("␣" if s == " " else s) for s in symbols]


def _token_axis(symbols: Sequence[str], max_ticks: int = 60) -> dict:
    """An x axis of positions 0..T−1 with the tokens as tick text (spaces as ␣), thinned to fit (:func:`token_axis`)."""
    return token_axis(["␣" if s == " " else str(s) for s in symbols], AXIS_WIDTH, labels=_labels(symbols), first=0,
                      slant=-60, max_ticks=max_ticks)


def unit_heatmap(values: np.ndarray, symbols: Sequence[str], units: Sequence[int], title: str,
                 signed: bool = False, lang: str = "en", marker: int | None = None) -> go.Figure:
    """Hidden units (rows, in the given order) × steps (columns, one per token) of one signal.

    ``signed``: diverging colours centred on 0 (cell states, differences); else a 0..1 gate scale.
    ``marker``: a step to outline (the edited token of a counterfactual).
    """
    n_units, n_steps = values.shape
    labels = _labels(symbols)
    custom = np.empty((n_units, n_steps, 2), dtype=object)
    custom[:, :, 0] = np.array(labels, dtype=object)[None, :]
    custom[:, :, 1] = np.asarray(units, dtype=object)[:, None]
    zmax = float(np.abs(values).max()) if signed and values.size else 1.0
    heat = go.Heatmap(
        z=values, x=list(range(n_steps)), y=list(range(n_units)), customdata=custom,
        colorscale=SIGNED_SCALE if signed else GATE_SCALE,
        zmin=-zmax if signed else 0.0, zmax=zmax if signed else 1.0, zmid=0.0 if signed else None,
        hovertemplate=t("lstm.fig.hover", lang) + "<extra></extra>",
    )
    fig = go.Figure(heat)
    if marker is not None:
        fig.add_vrect(x0=marker - 0.5, x1=marker + 0.5, line=dict(color="black", width=2))
    height = max(280, min(700, 10 * n_units + 140))
    row_px = (height - 130) / max(1, n_units)  # plotting area (margins 50 + 80) per unit row
    y_step = max(1, math.ceil(17 / row_px))  # unit numbers at least 17 px apart (13 px text)
    fig.update_layout(
        title=title, height=height, margin=dict(t=50, b=80),
        xaxis=dict(title=t("lstm.fig.position", lang), **_token_axis(symbols)),
        yaxis=dict(title=t("lstm.fig.unit", lang), autorange="reversed", tickmode="array",
                   tickvals=list(range(0, n_units, y_step)), ticktext=[str(u) for u in list(units)[::y_step]]),
    )
    return readable(fig)


def activation_html(symbols: Sequence[str], values: np.ndarray, char_level: bool = False,
                    signed: bool = True) -> str:
    """The passage with each token's background coloured by one unit's value.

    ``signed`` (c, h, c̃): blue for > 0, red for < 0, opacity |v| / max|v|; gates (0..1): one colour,
    opacity (v − min)/(max − min) over the passage. Every token goes through ``html.escape``:
    the result is safe for ``unsafe_allow_html``.
    """
    values = np.asarray(values, dtype=float)
    low, high = float(values.min(initial=0.0)), float(values.max(initial=1.0))
    scale = float(np.abs(values).max(initial=0.0)) or 1.0
    spans = []
    for symbol, value in zip(symbols, values):
        if signed:
            alpha = min(1.0, abs(float(value)) / scale)
            rgb = "33,102,172" if value >= 0 else "178,24,43"
        else:
            alpha = (float(value) - low) / (high - low) if high > low else 0.5
            rgb = "0,128,96"
        text = html.escape("␣" if symbol == " " and char_level else symbol)
        spans.append(f'<span title="{float(value):+.3f}" style="background:rgba({rgb},{alpha:.2f});'
                     f'padding:1px 2px;border-radius:3px;line-height:1.9">{text}</span>')
    return ('<div style="font-family:monospace">' + ("" if char_level else " ").join(spans) + "</div>")


def gradient_path_figure(symbols: Sequence[str], forget_norm: np.ndarray, exact_norm: np.ndarray,
                         forget_mean: np.ndarray, exact_diag_mean: np.ndarray,
                         rnn_norm: np.ndarray | None = None, lang: str = "en") -> go.Figure:
    """How much of c(k) (or h(k)) still reaches step T, for every k (log scale)."""
    x = list(range(len(symbols)))
    fig = go.Figure()
    fig.add_scatter(x=x, y=forget_norm, mode="lines+markers", name=t("lstm.fig.forget_norm", lang))
    fig.add_scatter(x=x, y=exact_norm, mode="lines+markers", name=t("lstm.fig.exact_norm", lang))
    fig.add_scatter(x=x, y=forget_mean, mode="lines", line=dict(dash="dot"), name=t("lstm.fig.forget_mean", lang))
    fig.add_scatter(x=x, y=np.abs(exact_diag_mean), mode="lines", line=dict(dash="dot"),
                    name=t("lstm.fig.exact_diag", lang))
    if rnn_norm is not None:
        fig.add_scatter(x=x, y=rnn_norm, mode="lines+markers", line=dict(color="black"),
                        name=t("lstm.fig.rnn_norm", lang))
    fig.update_layout(
        title=t("lstm.fig.gradient_title", lang), height=480, margin=dict(t=60, b=80),
        xaxis=dict(title=t("lstm.fig.k", lang), **_token_axis(symbols)),
        yaxis=dict(title=t("lstm.fig.gain", lang)),
        legend=dict(orientation="h", y=-0.35),
    )
    log_axis(fig, "y")
    return readable(fig)


def edit_travel_figure(symbols: Sequence[str], norms: dict[str, np.ndarray], position: int,
                       lang: str = "en") -> go.Figure:
    """‖Δs(t)‖₂ over units for each signal s, per step: how far downstream the edit is felt."""
    fig = go.Figure()
    for name, values in norms.items():
        fig.add_scatter(x=list(range(len(symbols))), y=values, mode="lines+markers",
                        name=t(f"lstm.signal.{name}", lang))
    fig.add_vline(x=position, line=dict(dash="dot", color="black"))
    fig.update_layout(title=t("lstm.fig.travel_title", lang), height=340, margin=dict(t=50, b=80),
                      xaxis=dict(title=t("lstm.fig.position", lang), **_token_axis(symbols)),
                      yaxis=dict(title="‖Δ‖₂"), legend=dict(orientation="h", y=-0.45))
    return readable(fig)


def next_token_shift_figure(vocab: Sequence[str], before: np.ndarray, after: np.ndarray, top: int = 12,
                            lang: str = "en") -> go.Figure:
    """The most likely next symbols before and after the edit (grouped bars)."""
    keep = np.argsort(-np.maximum(before, after), kind="stable")[:top][::-1]
    labels = _labels([vocab[i] for i in keep])
    fig = go.Figure()
    fig.add_bar(y=labels, x=before[keep], orientation="h", name=t("lstm.fig.before", lang))
    fig.add_bar(y=labels, x=after[keep], orientation="h", name=t("lstm.fig.after", lang))
    fig.update_layout(title=t("lstm.fig.next_title", lang), barmode="group", height=60 + 28 * len(keep),
                      xaxis=dict(title=t("lstm.fig.prob", lang)), yaxis=dict(title=t("lstm.fig.next_y", lang)),
                      margin=dict(t=50, b=40))
    return readable(fig)


def training_curve_figure(steps: Sequence[int], train_ppl: Sequence[float], valid_steps: Sequence[int],
                          valid_ppl: Sequence[float], floor: float | None = None, lang: str = "en") -> go.Figure:
    """Train perplexity (running, per model symbol) and validation perplexity (per token) vs step."""
    fig = go.Figure()
    fig.add_scatter(x=list(steps), y=list(train_ppl), mode="lines", name=t("lstm.fig.train_ppl", lang))
    fig.add_scatter(x=list(valid_steps), y=list(valid_ppl), mode="lines+markers", name=t("lstm.fig.valid_ppl", lang))
    if floor is not None:
        _named_line(fig, floor, "grey", t("lstm.fig.floor", lang, ppl=floor))
    fig.update_layout(title=t("lstm.fig.curve_title", lang), height=360, margin=dict(t=50, b=40),
                      xaxis=dict(title=t("lstm.fig.step", lang)), yaxis=dict(title="PPL"))
    log_axis(fig, "y")
    return readable(fig)


def _named_line(fig: go.Figure, y: float, colour: str, name: str) -> None:
    """A dashed horizontal line at ``y`` named in the legend (a label on the plot would sit over
    the curves or bars)."""
    fig.add_hline(y=y, line=dict(dash="dash", color=colour))
    fig.add_scatter(x=[None], y=[None], mode="lines", line=dict(dash="dash", color=colour), name=name)


def comparison_figure(names: Sequence[str], ppl: Sequence[float], families: Sequence[str],
                      floor: float | None = None, lang: str = "en") -> go.Figure:
    """One bar per model (n-gram grey, neural blue); an infinite perplexity is written, not drawn."""
    finite = [p for p in ppl if math.isfinite(p)]
    cap = 1.15 * max(finite) if finite else 1.0
    fig = go.Figure(go.Bar(
        x=list(names), y=[p if math.isfinite(p) else cap for p in ppl], showlegend=False,
        text=[f"{p:.2f}" if math.isfinite(p) else "∞" for p in ppl], textposition="outside",
        marker=dict(color=["#1f77b4" if f == "neural" else "#9e9e9e" for f in families],
                    pattern=dict(shape=["" if math.isfinite(p) else "/" for p in ppl])),
    ))
    if floor is not None:
        _named_line(fig, floor, "red", t("lstm.fig.floor", lang, ppl=floor))
    fig.update_layout(title=t("lstm.fig.compare_title", lang), height=400, margin=dict(t=80, b=40),
                      xaxis=dict(title=t("lstm.fig.model", lang)), yaxis=dict(title="PPL", range=[0, cap * 1.1]),
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1, xanchor="right"))
    return readable(fig)
