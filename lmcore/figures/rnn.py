"""Figures of the RNN forward pass & BPTT page: h(t) over time, J(t) per step, the BPTT t × k
contribution matrix with a truncation window, and the truncation error per window."""
from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

from lmcore.figures.labels import plotly_text
from lmcore.figures.placement import token_axis
from lmcore.figures.style import HIGHLIGHT, readable
from lmcore.i18n import t

STEP_FILL = "rgba(214, 39, 40, 0.15)"  # behind the bar of the step shown (layer below the bars)
AXIS_WIDTH = {"hidden": 250, "loss": 320, "bptt": 340, "animation": 380}
"""Plotting-area width (px) of each token-axis chart at 1280×720 (half-page columns, colour bars)."""


def _token_axis(tokens: list[str], title: str, width: float) -> dict:
    """Integer positions 1..T with the tokens as tick labels, thinned to fit ``width`` px (:func:`token_axis`)."""
    return dict(title=title, **token_axis(tokens, width, labels=[plotly_text(tok) for tok in tokens]))


def hidden_state_heatmap(h: np.ndarray, tokens: list[str], step: int | None = None,
                         lang: str = "en") -> go.Figure:
    """h(t) for t = 1..T (columns, labelled by the input word x(t)) and units (rows)."""
    T, n = h.shape
    fig = go.Figure(go.Heatmap(
        z=h.T, x=list(range(1, T + 1)), y=list(range(1, n + 1)), colorscale="RdBu", zmid=0,
        colorbar=dict(title="h_i(t)"), hovertemplate="t=%{x}, i=%{y}: %{z:.3f}<extra></extra>",
    ))
    if step is not None:
        fig.add_vrect(x0=step - 0.5, x1=step + 0.5, line=dict(color="black", width=2), name=HIGHLIGHT)
    fig.update_layout(
        title=t("rnn_bptt.fig.h_title", lang),
        xaxis=_token_axis(tokens, t("rnn_bptt.fig.input_axis", lang), AXIS_WIDTH["hidden"]),
        yaxis=dict(title=t("rnn_bptt.fig.unit_axis", lang)),
        margin=dict(t=60, b=40), height=380,
    )
    return readable(fig)


def step_loss_figure(losses: np.ndarray, targets: list[str], step: int | None = None,
                     lang: str = "en") -> go.Figure:
    """J(t) = −log ŷ(t)[x(t+1)] per step (bars, labelled by the target word) and J = mean J(t); step t
    framed as on :func:`hidden_state_heatmap` (a shape: a new step redraws the frame alone)."""
    T = len(losses)
    fig = go.Figure(go.Bar(x=list(range(1, T + 1)), y=losses, marker_color="#1f77b4", showlegend=False,
                           hovertemplate="t=%{x}: J(t)=%{y:.3f}<extra></extra>"))
    if step is not None:
        fig.add_vrect(x0=step - 0.5, x1=step + 0.5, fillcolor=STEP_FILL, layer="below", line=dict(color="black", width=2),
                      name=HIGHLIGHT)
    J = float(np.mean(losses))
    # the mean is named in the legend above the plot, never written over a bar
    fig.add_scatter(x=[0.5, T + 0.5], y=[J, J], mode="lines", line=dict(dash="dash", color="#262730"),
                    name=t("rnn_bptt.fig.mean_J", lang, J=J, ppl=np.exp(J)), hoverinfo="skip")
    fig.update_layout(
        title=t("rnn_bptt.fig.loss_title", lang),
        xaxis=_token_axis(targets, t("rnn_bptt.fig.target_axis", lang), AXIS_WIDTH["loss"]),
        yaxis=dict(title=t("rnn_bptt.fig.loss_axis", lang)), showlegend=True,
        legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1, xanchor="right"),
        margin=dict(t=80, b=40), height=360,
    )
    return readable(fig)


def bptt_heatmap(norms: np.ndarray, tokens: list[str], window: int | None = None,
                 lang: str = "en") -> go.Figure:
    """log10 ‖G(t, k)‖ = log10 ‖∂J(t)/∂W_h through step k‖ (rows t, columns k ≤ t); the cells
    truncated BPTT with this window drops (t − k ≥ window) are outlined by the boundary line."""
    T = norms.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(norms > 0, np.log10(norms), np.nan)
    z = [[float(v) if np.isfinite(v) else None for v in row] for row in logs]
    steps = list(range(1, T + 1))
    fig = go.Figure(go.Heatmap(
        z=z, x=steps, y=steps, colorscale="Viridis", colorbar=dict(title=t("rnn_bptt.fig.bptt_colour", lang)),
        hovertemplate="t=%{y}, k=%{x}: log10‖G‖=%{z:.2f}<extra></extra>",
    ))
    if window is not None and window < T:
        # staircase between kept (t − k < window) and dropped (t − k ≥ window) cells
        xs, ys = [], []
        for row in range(window + 1, T + 1):
            k_edge = row - window + 0.5
            xs += [k_edge - 1, k_edge, k_edge]
            ys += [row - 0.5, row - 0.5, row + 0.5]
        fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(color="white", width=3, dash="dash"),
                        name=t("rnn_bptt.fig.window", lang, w=window), hoverinfo="skip", showlegend=True)
    fig.update_layout(
        title=t("rnn_bptt.fig.bptt_title", lang),
        xaxis=_token_axis(tokens, t("rnn_bptt.fig.k_axis", lang), AXIS_WIDTH["bptt"]),
        yaxis=dict(title=t("rnn_bptt.fig.t_axis", lang), autorange="reversed", tickvals=steps),
        legend=dict(orientation="h", y=-0.25), margin=dict(t=60, b=40), height=520,
    )
    return readable(fig)


def truncation_error_figure(errors: np.ndarray, window: int | None = None, lang: str = "en") -> go.Figure:
    """‖truncated − full ∂J/∂W_h‖ / ‖full‖ for windows 1..T."""
    windows = np.arange(1, len(errors) + 1)
    fig = go.Figure(go.Scatter(x=windows, y=errors, mode="lines+markers",
                               hovertemplate="w=%{x}: %{y:.2%}<extra></extra>"))
    if window is not None:
        fig.add_vline(x=window, line=dict(dash="dot"))
    fig.update_layout(
        title=t("rnn_bptt.fig.trunc_title", lang),
        xaxis=dict(title=t("rnn_bptt.fig.window_axis", lang)),
        yaxis=dict(title=t("rnn_bptt.fig.trunc_axis", lang), tickformat=".0%"),
        margin=dict(t=60, b=40), height=320,
    )
    return readable(fig)


def forward_animation(h: np.ndarray, inputs: list[str], top: list[list[tuple[str, float]]],
                      targets: list[str], lang: str = "en") -> go.Figure:
    """Client-side step-through (Plotly frames): frame t reveals h(1..t) and ŷ(t)'s top-k words.

    ``top[t−1]`` lists (word, probability) for step t; the bar of the true next word is red. A frame
    carries only what changes (z; the bars), so the traces keep their colour bar and its place. Side
    by side on a wide screen; on a phone (``layout.meta.lmNarrow``, ui/plotly_element.js) stacked.
    """
    from plotly.subplots import make_subplots

    T, n = h.shape
    k = max(len(row) for row in top)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.6, 0.4], horizontal_spacing=0.2,
                        subplot_titles=(t("rnn_bptt.fig.h_title", lang), t("rnn_bptt.fig.topk_title", lang)))

    def heat(step: int) -> np.ndarray:  # units × steps, the steps after ``step`` not yet shown (NaN: drawn empty, sent as null)
        z = np.array(h.T, dtype=float)
        z[:, step:] = np.nan
        return z

    def bars(step: int) -> dict:
        row = top[step - 1]
        return dict(x=[p for _, p in row][::-1], y=list(range(1, len(row) + 1)),
                    text=[plotly_text(w) for w, _ in row][::-1],
                    marker=dict(color=["#d62728" if w == targets[step - 1] else "#1f77b4" for w, _ in row][::-1]))

    fig.add_trace(go.Heatmap(z=heat(1), x=list(range(1, T + 1)), y=list(range(1, n + 1)), colorscale="RdBu", zmid=0,
                             zmin=-1, zmax=1, colorbar=dict(title="h_i(t)", x=0.56, len=1), hoverinfo="skip"),
                  row=1, col=1)
    fig.add_trace(go.Bar(orientation="h", textposition="auto", hovertemplate="%{text}: %{x:.4f}<extra></extra>",
                         **bars(1)), row=1, col=2)
    # plain dicts, a frame's z an array: as Frame and Heatmap objects, the frames took 50 ms of the 60 ms the
    # figure took to build (a new top-k on the RNN page), for the same spec
    fig.frames = [dict(data=[dict(type="heatmap", z=heat(s)), dict(type="bar", **bars(s))], traces=[0, 1], name=str(s))
                  for s in range(1, T + 1)]
    animate = dict(frame=dict(duration=700, redraw=True), transition=dict(duration=0), mode="immediate")
    fig.update_layout(
        height=540, margin=dict(t=60, b=180), showlegend=False,
        updatemenus=[dict(type="buttons", direction="left", x=0, y=-0.62, xanchor="left", yanchor="top", buttons=[
            dict(label="▶", method="animate", args=[None, dict(animate, fromcurrent=True)]),
            dict(label="❚❚", method="animate", args=[[None], dict(animate, frame=dict(duration=0))]),
        ])],
        sliders=[dict(x=0.16, y=-0.58, len=0.84, yanchor="top", currentvalue=dict(prefix="t = "), steps=[
            dict(label=str(s), method="animate", args=[[str(s)], animate]) for s in range(1, T + 1)])],
        meta=dict(lmNarrow=_stacked_animation(t("rnn_bptt.fig.h_title", lang))),
    )
    fig.update_xaxes(**_token_axis(inputs, t("rnn_bptt.fig.input_axis", lang), AXIS_WIDTH["animation"]), row=1, col=1)
    fig.update_yaxes(title_text=t("rnn_bptt.fig.unit_axis", lang), row=1, col=1)
    fig.update_xaxes(title_text=t("rnn_bptt.fig.prob_axis", lang), range=[0, 1], row=1, col=2)
    fig.update_yaxes(showticklabels=False, range=[0.5, k + 0.5], row=1, col=2)
    return readable(fig)


def _stacked_animation(heat_title: str) -> dict:
    """The step-through below 600 px (a phone): h(t) above, the top-k bars below, each the full width,
    the colour bar beside h(t), the player under the bars; h(t)'s title in two lines (its bracket
    on the second)."""
    heat, bars = (0.55, 1.0), (0.0, 0.32)
    brackets = list(re.finditer(r"\s+\(|\s*（", heat_title))  # the last bracket: "h(t)" is not one
    title = heat_title[:brackets[-1].start()] + "<br>" + heat_title[brackets[-1].end() - 1:] if brackets else heat_title
    return dict(below=600, layout=dict(
        height=780, margin=dict(l=50, r=20, t=80, b=210),
        xaxis=dict(domain=[0, 0.84]), yaxis=dict(domain=list(heat)),
        xaxis2=dict(domain=[0, 1]), yaxis2=dict(domain=list(bars)),
        annotations=[dict(x=0.5, y=heat[1], text=title), dict(x=0.5, y=bars[1])],  # the two subplot titles
        updatemenus=[dict(y=-0.15)], sliders=[dict(x=0, len=1, y=-0.24)],
    ), data=[dict(colorbar=dict(x=0.87, y=sum(heat) / 2, len=heat[1] - heat[0], yanchor="middle", thickness=14))])
