"""Figures of the RNN forward pass & BPTT page: h(t) over time, J(t) per step, the BPTT t × k
contribution matrix with a truncation window, and the truncation error per window."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lmcore.figures.gradients import plain
from lmcore.i18n import t


def _token_axis(tokens: list[str], title: str) -> dict:
    """Integer positions 1..T with the tokens as tick labels (repeated tokens stay separate)."""
    return dict(title=title, tickvals=list(range(1, len(tokens) + 1)),
                ticktext=[plain(tok) for tok in tokens], tickangle=-45)


def hidden_state_heatmap(h: np.ndarray, tokens: list[str], step: int | None = None,
                         lang: str = "en") -> go.Figure:
    """h(t) for t = 1..T (columns, labelled by the input word x(t)) and units (rows)."""
    T, n = h.shape
    fig = go.Figure(go.Heatmap(
        z=h.T, x=list(range(1, T + 1)), y=list(range(1, n + 1)), colorscale="RdBu", zmid=0,
        colorbar=dict(title="h_i(t)"), hovertemplate="t=%{x}, i=%{y}: %{z:.3f}<extra></extra>",
    ))
    if step is not None:
        fig.add_vrect(x0=step - 0.5, x1=step + 0.5, line=dict(color="black", width=2))
    fig.update_layout(
        title=t("rnn_bptt.fig.h_title", lang),
        xaxis=_token_axis(tokens, t("rnn_bptt.fig.input_axis", lang)),
        yaxis=dict(title=t("rnn_bptt.fig.unit_axis", lang)),
        margin=dict(t=60, b=40), height=380,
    )
    return fig


def step_loss_figure(losses: np.ndarray, targets: list[str], step: int | None = None,
                     lang: str = "en") -> go.Figure:
    """J(t) = −log ŷ(t)[x(t+1)] per step (bars, labelled by the target word) and J = mean J(t)."""
    T = len(losses)
    colours = ["#d62728" if step == k else "#1f77b4" for k in range(1, T + 1)]
    fig = go.Figure(go.Bar(x=list(range(1, T + 1)), y=losses, marker_color=colours,
                           hovertemplate="t=%{x}: J(t)=%{y:.3f}<extra></extra>"))
    J = float(np.mean(losses))
    fig.add_hline(y=J, line=dict(dash="dash"), annotation_text=t("rnn_bptt.fig.mean_J", lang, J=J, ppl=np.exp(J)))
    fig.update_layout(
        title=t("rnn_bptt.fig.loss_title", lang),
        xaxis=_token_axis(targets, t("rnn_bptt.fig.target_axis", lang)),
        yaxis=dict(title=t("rnn_bptt.fig.loss_axis", lang)),
        margin=dict(t=60, b=40), height=340,
    )
    return fig


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
        xaxis=dict(title=t("rnn_bptt.fig.k_axis", lang), tickvals=steps, ticktext=[plain(s) for s in tokens]),
        yaxis=dict(title=t("rnn_bptt.fig.t_axis", lang), autorange="reversed", tickvals=steps),
        legend=dict(orientation="h", y=-0.25), margin=dict(t=60, b=40), height=520,
    )
    return fig


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
    return fig
