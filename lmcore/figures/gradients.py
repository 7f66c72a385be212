"""Figures of the gradients page: norm vs distance, W_h's spectrum, σ', per-step Jacobians,
token connectivity, the LSTM's f(t) approximation, Pascanu's cliff and the clipping training run.

Non-finite values never reach Plotly as numbers: overflow (inf/NaN) becomes a gap plus an
"exploded at distance k" marker; exact zeros (float64 underflow) become an "underflow" marker.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from lmcore.figures.labels import plotly_text
from lmcore.figures.placement import token_axis

from lmcore.figures.style import HIGHLIGHT, log_axis, readable
from lmcore.i18n import t
from lmcore.recurrent.cliff import LossSurface, Trajectory
from lmcore.recurrent.clip_run import TrainingLog
from lmcore.recurrent.gradient_flow import SeedBand, regime, theory_line

CONNECTIVITY_WIDTH = 460  # px: the connectivity map's plotting area at 1280×720 (its colour bar beside it)
CLIFF_PLOT_PX = (520, 340)  # px: the cliff's plotting area at 1280×720 (its marks are square there)
COLOURS = {"rnn": "#1f77b4", "lstm": "#d62728", "gru": "#2ca02c", "theory": "#555555"}


def _loggable(values: np.ndarray) -> list[float | None]:
    """Positive finite values, None elsewhere (a gap on a log axis)."""
    return [float(v) if np.isfinite(v) and v > 0 else None for v in np.asarray(values, dtype=float)]


def gradient_curves_figure(bands: dict[str, SeedBand], sigma1: float, gamma: float,
                           lang: str = "en") -> go.Figure:
    """Median ‖∂J(T)/∂h(k)‖ (band: min–max over seeds) vs T − k per cell, log y, theory dashed."""
    fig = go.Figure()
    distance = next(iter(bands.values())).distance
    for cell, band in bands.items():
        colour = COLOURS.get(cell, None)
        fig.add_scatter(x=distance, y=_loggable(band.high), mode="lines", line=dict(width=0),
                        showlegend=False, hoverinfo="skip", legendgroup=cell)
        fig.add_scatter(x=distance, y=_loggable(band.low), mode="lines", line=dict(width=0),
                        fill="tonexty", fillcolor=_alpha(colour, 0.15), showlegend=False,
                        hoverinfo="skip", legendgroup=cell)
        fig.add_scatter(x=distance, y=_loggable(band.median), mode="lines", legendgroup=cell,
                        name=t("gradients.fig.curve", lang, cell=cell.upper()), line=dict(color=colour))
        if band.median_c is not None:
            fig.add_scatter(x=distance, y=_loggable(band.median_c), mode="lines", legendgroup=cell,
                            name=t("gradients.fig.curve_c", lang, cell=cell.upper()),
                            line=dict(color=colour, dash="dot"))
        _marker(fig, band.exploded_at, t("gradients.fig.exploded", lang, cell=cell.upper(), k=band.exploded_at), colour)
        _marker(fig, band.vanished_at, t("gradients.fig.underflow", lang, cell=cell.upper(), k=band.vanished_at), colour)
    sg = sigma1 * gamma
    theory = theory_line(sigma1, gamma, distance)
    fig.add_scatter(x=distance, y=_loggable(theory), mode="lines", line=dict(color=COLOURS["theory"], dash="dash"),
                    name=t("gradients.fig.theory", lang, sg=sg))
    overflow = np.flatnonzero(~np.isfinite(theory))
    if overflow.size:
        _marker(fig, int(overflow[0]), t("gradients.fig.theory_overflow", lang, k=int(overflow[0])), COLOURS["theory"])
    fig.update_layout(
        title=t("gradients.fig.curves_title", lang, sg=sg, regime=t(f"gradients.regime.{regime(sg)}", lang)),
        xaxis=dict(title=t("gradients.fig.distance", lang)),
        yaxis=dict(title=t("gradients.fig.norm", lang)),
        legend=dict(orientation="h", y=-0.2), margin=dict(t=60, b=40), height=480,
    )
    log_axis(fig, "y", ceiling=1e300)  # capped below float64's 1e308: no tick reads "Infinity"
    return readable(fig)


def _marker(fig: go.Figure, k: int | None, label: str, colour: str | None) -> None:
    if k is not None:
        fig.add_vline(x=k, line=dict(color=colour or "black", dash="dot", width=2),
                      annotation=dict(text=label, textangle=-90, font=dict(color=colour or "black")),
                      annotation_position="top left")


def _alpha(colour: str | None, a: float) -> str:
    colour = colour or "#7f7f7f"
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{a})"


def eigenvalue_figure(eigs: np.ndarray, sigma1: float, lang: str = "en") -> go.Figure:
    """Eigenvalues λ of W_h in the complex plane against the unit circle |λ| = 1."""
    theta = np.linspace(0, 2 * np.pi, 200)
    rho = float(np.abs(eigs).max()) if eigs.size else 0.0
    fig = go.Figure()
    fig.add_scatter(x=np.cos(theta), y=np.sin(theta), mode="lines", line=dict(color="grey", dash="dash"),
                    name=t("gradients.fig.unit_circle", lang))
    fig.add_scatter(x=eigs.real, y=eigs.imag, mode="markers", marker=dict(size=6), name="λ(W_h)")
    reach = max(1.1, rho * 1.1)
    fig.update_layout(
        title=dict(text=t("gradients.fig.eig_title", lang, rho=rho, sigma1=sigma1), font=dict(size=13)),
        xaxis=dict(title=t("gradients.fig.real", lang), range=[-reach, reach], zeroline=True),
        yaxis=dict(title=t("gradients.fig.imag", lang), range=[-reach, reach], scaleanchor="x"),
        legend=dict(orientation="h", y=-0.2), margin=dict(t=60, b=40), height=420,
    )
    return readable(fig)


def per_step_figure(values: np.ndarray, reference: float, kind: str, lang: str = "en") -> go.Figure:
    """A per-step series j = 1..T with a horizontal reference: ``kind`` 'deriv' (mean σ'(z(j)),
    reference γ) or 'jacobian' (‖W_hᵀ diag σ'(z(j))‖₂, reference σ1·γ)."""
    steps = np.arange(1, len(values) + 1)
    fig = go.Figure()
    finite = [float(v) if np.isfinite(v) else None for v in np.asarray(values, dtype=float)]
    fig.add_scatter(x=steps, y=_loggable(values) if kind == "jacobian" else finite, mode="lines",
                    name=t(f"gradients.fig.{kind}", lang))
    fig.add_hline(y=reference, line=dict(dash="dash", color=COLOURS["theory"]),
                  annotation_text=t(f"gradients.fig.{kind}_ref", lang, v=reference))
    fig.update_layout(
        title=dict(text=t(f"gradients.fig.{kind}_title", lang), font=dict(size=13)),
        xaxis=dict(title=t("gradients.fig.step", lang)),
        yaxis=dict(title=t(f"gradients.fig.{kind}_axis", lang)),
        showlegend=False, margin=dict(t=60, b=40), height=320,
    )
    if kind == "jacobian":
        log_axis(fig, "y")
    return readable(fig)


def connectivity_figure(tokens: list[str], norms: dict[str, np.ndarray], target: str,
                        lang: str = "en") -> go.Figure:
    """Distill-style connectivity: input token k shaded by log10 ‖∂J(t)/∂x(k)‖ for the loss of
    predicting ``target``, one row per model (relative to the row's largest value). The tokens are
    the axis's labels, at the axis's size: written in the cells, Plotly shrank them to fit (6 px at
    1280×720, 3 px on a phone)."""
    rows, text, custom = [], [], []
    words = [plotly_text(tok) for tok in tokens]
    for values in norms.values():
        logs = np.log10(np.clip(values, 1e-300, None))
        top = logs.max() if logs.size else 0.0
        row = logs - top
        rows.append([float(v) if np.isfinite(v) else None for v in row] + [None] * (len(tokens) - len(row)))
        text.append(words)
        custom.append([f"{v:.2e}" for v in values] + [""] * (len(tokens) - len(values)))
    fig = go.Figure(go.Heatmap(
        z=rows, x=list(range(1, len(tokens) + 1)), y=[m.upper() for m in norms], text=text, customdata=custom,
        hovertemplate="k = %{x} · %{text}: %{customdata}<extra></extra>", colorscale="Blues",
        zmin=-6, zmax=0, colorbar=dict(title=t("gradients.fig.conn_colour", lang)), xgap=2, ygap=6,
    ))
    height = 300  # the slanted words under the map take ~60 px of it
    fig.update_layout(
        title=t("gradients.fig.conn_title", lang, word=plotly_text(target)),
        xaxis=dict(title=t("gradients.fig.conn_axis", lang), **token_axis(tokens, CONNECTIVITY_WIDTH, labels=words)),
        yaxis=dict(title=t("gradients.fig.conn_model", lang)), margin=dict(t=60, b=40), height=height,
        # on a phone (ui/plotly_element.js): the colour bar lies under the map, not beside it, where it
        # and its title took all but ~40 px of the width from the map
        meta=dict(lmNarrow=dict(below=600, layout=dict(margin=dict(r=16, b=150), height=height + 110),
                                data=[dict(colorbar=dict(orientation="h", x=0.5, xanchor="center", y=-0.62,
                                                         yanchor="top", len=0.9, thickness=12, title=dict(side="top")))])),
    )
    return readable(fig)


def forget_gate_figure(approx: dict[str, np.ndarray], lang: str = "en") -> go.Figure:
    """‖∂c(t)/∂c(t−1)‖₂ exact vs ‖diag f(t)‖₂, and the relative error of the notes' approximation."""
    steps = np.arange(1, len(approx["exact"]) + 1)
    fig = go.Figure()
    fig.add_scatter(x=steps, y=approx["exact"], name=t("gradients.fig.lstm_exact", lang), mode="lines")
    fig.add_scatter(x=steps, y=approx["forget"], name=t("gradients.fig.lstm_f", lang), mode="lines", line=dict(dash="dash"))
    fig.add_scatter(x=steps, y=approx["relative_error"], name=t("gradients.fig.lstm_err", lang), mode="lines", yaxis="y2")
    fig.update_layout(
        title=t("gradients.fig.lstm_title", lang),
        xaxis=dict(title=t("gradients.fig.step", lang)),
        yaxis=dict(title=t("gradients.fig.lstm_axis", lang)),
        yaxis2=dict(title=t("gradients.fig.lstm_err_axis", lang), overlaying="y", side="right", tickformat=".0%"),
        legend=dict(orientation="h", y=-0.25), margin=dict(t=60, b=40), height=360,
    )
    return readable(fig)


def cliff_figure(surface: LossSurface, paths: dict[str, Trajectory], lang: str = "en") -> go.Figure:
    """Contours of log10 L(w, b) of the one-unit RNN with gradient-descent trajectories.

    log10 L is sent to 3 decimals (its contours are 0.5 apart): a third of the bytes that
    every move of a path's control sends and the browser parses. The paths are drawn as shapes
    named ``HIGHLIGHT`` (a legend entry each, drawn by a trace without points): a move of the
    threshold, the step size or the start moves them alone, and the browser keeps the contour it
    drew (its levels are set here, as plotly.js would choose them: :func:`contour_levels`)."""
    z = np.round(np.log10(surface.loss.astype(float) + 1e-12), 3)
    fig = go.Figure(go.Contour(
        x=surface.w, y=surface.b, z=z, colorscale="Viridis", autocontour=False, contours=contour_levels(z, 30),
        colorbar=dict(title=t("gradients.fig.cliff_colour", lang), dtick=1), hovertemplate="w=%{x:.2f}, b=%{y:.2f}<extra></extra>",
    ))
    styles = {"plain": dict(color="white", dash="solid", width=3), "clipped": dict(color="orange", dash="dash", width=2)}
    outline = {"plain": dict(color="#262730", width=1)}  # a white path's mark in the (white) legend, and on yellow
    px = ((surface.w[-1] - surface.w[0]) / CLIFF_PLOT_PX[0], (surface.b[-1] - surface.b[0]) / CLIFF_PLOT_PX[1])
    for name, path in paths.items():
        inside = _inside(path.points, surface)
        style, edge = styles.get(name, dict(color="orange", width=2)), outline.get(name, dict(width=0))
        mark = 5 if name in outline else 4  # px: a step's square mark
        fig.add_scatter(x=[None], y=[None], mode="lines+markers", line=style, hoverinfo="skip",
                        marker=dict(symbol="square", size=mark + 1, color=style["color"], line=edge),
                        name=t(f"gradients.fig.path_{name}", lang))
        fig.add_shape(type="path", path=polyline_path(inside), line=style, name=HIGHLIGHT, layer="above")
        fig.add_shape(type="path", path=squares_path(inside, mark / 2 * px[0], mark / 2 * px[1]), fillcolor=style["color"],
                      fillrule="nonzero", line=edge, name=HIGHLIGHT, layer="above")
    fig.update_layout(
        title=t("gradients.fig.cliff_title", lang),
        xaxis=dict(title=t("gradients.fig.w", lang), range=[surface.w[0], surface.w[-1]]),
        yaxis=dict(title=t("gradients.fig.b", lang), range=[surface.b[0], surface.b[-1]]),
        legend=dict(orientation="h", y=-0.2), margin=dict(t=60, b=40), height=480,
    )
    return readable(fig)


def contour_levels(z: np.ndarray, n: int) -> dict:
    """The levels plotly.js's autocontour draws for ``n`` contours of ``z`` (its autoContours): a step
    dz = 10^k·{2, 5, 10}, the smallest such above (max z − min z)/n; levels from the first multiple
    of dz above min z to the last below max z. In plotly.js's floating-point steps (a 10^k found as
    log x / ln 10), so that the levels are the same."""
    lo, hi = float(np.min(z)), float(np.max(z))
    rough = (hi - lo) / n
    power = 10.0 ** math.floor(math.log(rough) / math.log(10))
    size = power * next(m for m in (2, 5, 10) if m > rough / power)
    start, end = math.ceil(lo / size - 1e-9) * size, math.floor(hi / size + 1e-9) * size
    start, end = start + size * math.isclose(start, lo), end - size * math.isclose(end, hi)
    return dict(start=start, end=end, size=size)


def polyline_path(points: np.ndarray) -> str:
    """An SVG path through ``points`` (data coordinates): M x,y L x,y …"""
    return "M" + "L".join(f"{x:.5g},{y:.5g}" for x, y in points)


def squares_path(points: np.ndarray, half_x: float, half_y: float) -> str:
    """An SVG path of a square mark (half sides ``half_x``, ``half_y`` in data units) at each point."""
    return "".join(f"M{x - half_x:.5g},{y - half_y:.5g}H{x + half_x:.5g}V{y + half_y:.5g}H{x - half_x:.5g}Z"
                   for x, y in points)


def _inside(points: np.ndarray, surface: LossSurface) -> np.ndarray:
    """The trajectory up to its first point outside the plotted window (plus that point, clipped)."""
    w_lo, w_hi, b_lo, b_hi = surface.w[0], surface.w[-1], surface.b[0], surface.b[-1]
    out = np.flatnonzero((points[:, 0] < w_lo) | (points[:, 0] > w_hi) | (points[:, 1] < b_lo) | (points[:, 1] > b_hi))
    end = int(out[0]) + 1 if out.size else len(points)
    kept = points[:end].copy()
    kept[:, 0] = np.clip(kept[:, 0], w_lo, w_hi)
    kept[:, 1] = np.clip(kept[:, 1], b_lo, b_hi)
    return kept


def training_norm_figure(logs: dict[str, TrainingLog], threshold: float, lang: str = "en") -> go.Figure:
    """‖ĝ‖ per training step (before clipping), log y, with the clipping threshold line."""
    fig = go.Figure()
    for name, log in logs.items():
        fig.add_scatter(x=np.arange(1, len(log.grad_norm) + 1), y=_loggable(log.grad_norm), mode="lines",
                        name=t(f"gradients.fig.run_{name}", lang))
        if log.diverged_at is not None:
            _marker(fig, log.diverged_at + 1, t("gradients.fig.diverged", lang, k=log.diverged_at + 1), None)
    fig.add_hline(y=threshold, line=dict(dash="dash", color="black"),
                  annotation_text=t("gradients.fig.threshold", lang, v=threshold))
    fig.update_layout(
        title=t("gradients.fig.norm_trace_title", lang),
        xaxis=dict(title=t("gradients.fig.train_step", lang)),
        yaxis=dict(title=t("gradients.fig.grad_norm", lang)),
        legend=dict(orientation="h", y=-0.2), margin=dict(t=60, b=40), height=380,
    )
    log_axis(fig, "y")
    return readable(fig)


def training_loss_figure(logs: dict[str, TrainingLog], lang: str = "en") -> go.Figure:
    """Training loss J per step with and without clipping (same seed, same batches)."""
    fig = go.Figure()
    for name, log in logs.items():
        fig.add_scatter(x=np.arange(1, len(log.loss) + 1), y=[v if np.isfinite(v) else None for v in log.loss],
                        mode="lines", name=t(f"gradients.fig.run_{name}", lang))
    fig.update_layout(
        title=t("gradients.fig.loss_title", lang),
        xaxis=dict(title=t("gradients.fig.train_step", lang)),
        yaxis=dict(title=t("gradients.fig.loss_axis", lang)),
        legend=dict(orientation="h", y=-0.2), margin=dict(t=60, b=40), height=380,
    )
    return readable(fig)
