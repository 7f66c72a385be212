"""What every figure shares so that a student reads it right.

- Log axes carry explicit ticks: powers of ten when the data span three decades or more (thinned to
  every 2nd, 5th… power when there are many), otherwise the 1-2-5 (or finer) numbers of the span,
  each written in full ("20", "50", "0.02", "2,000"; 10^k as a superscript beyond 10^5). Plotly's own
  log ticks write 20 and 50 as a bare "2" and "5" between decades ("5, 10, 2, 5, 100"), which reads
  as the wrong numbers.
- Tick text is 13 px and dark: Streamlit's theme draws it small and light grey, hard to read when
  projected.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import plotly.graph_objects as go

from lmcore.figures.margins import fit_margins
from lmcore.figures.upright import upright_y_titles

# the name of a shape marking a place inside the data (the step shown, a descent path over the cliff):
# moving it redraws the shapes alone (ui/charts.py keeps it out of the datarevision; it changes no axis range)
HIGHLIGHT = "highlight"
TICK_FONT = dict(size=13, color="#262730")
TITLE_FONT = dict(size=14, color="#262730")
MANTISSAS: tuple[tuple[int, ...], ...] = ((1,), (1, 2, 5), (1, 2, 3, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9))
POWER_STEPS = (1, 2, 3, 5, 10, 20, 25, 50, 100)
FULL_DIGITS = (-3, 5)
"""Exponents written as full numbers (0.001 … 100,000); others as m×10^k."""


def _number(m: int, e: int) -> float:
    return float(f"{m}e{e}")


def _split(value: float) -> tuple[int, int]:
    """(m, e) with value = m·10^e, m an integer 1..9 (values are tick values, so exact)."""
    e = math.floor(math.log10(value) + 1e-9)
    return round(value / 10.0 ** e), e


def tick_label(value: float) -> str:
    """``value`` written so it reads as itself: 0.02, 50, 2,000, 100,000; 10⁻⁵ or 2×10⁸ outside
    10^-3 … 10^5 (Plotly superscript markup, the minus sign as U+2212)."""
    m, e = _split(value)
    if FULL_DIGITS[0] <= e <= FULL_DIGITS[1]:
        return f"{_number(m, e):,.{max(0, -e)}f}"
    power = f"10<sup>{str(e).replace('-', '−')}</sup>"
    return power if m == 1 else f"{m}×{power}"


def log_scale(lo: float, hi: float, max_ticks: int = 8) -> tuple[list[float], tuple[float, float]]:
    """Ticks and range (log10 units) of a log axis showing the values in [lo, hi], 0 < lo ≤ hi.

    The range is [lo, hi] padded by 4 % of its span (at least 0.05 decade). Ticks are every power of
    ten inside it (every 2nd, 3rd, 5th… when more than ``max_ticks``) when it spans three decades or
    more; otherwise the numbers m·10^k inside it for the coarsest m-set of 1 · 1-2-5 · 1-2-3-5 · 1…9
    giving three ticks. A span too narrow for two ticks is widened to the nearest ticks around it.
    """
    if not (0 < lo <= hi and math.isfinite(hi)):
        raise ValueError("need 0 < lo <= hi < inf")
    low, high = math.log10(lo), math.log10(hi)
    pad = max(0.05, 0.04 * (high - low))
    r0, r1 = max(low - pad, -305.0), min(high + pad, 305.0)
    if r1 - r0 >= 3:
        step = next((s for s in POWER_STEPS if (r1 - r0) / s <= max_ticks - 1), POWER_STEPS[-1])
        exps = range(math.ceil(r0 / step) * step, math.floor(r1 / step) * step + 1, step)
        return [_number(1, e) for e in exps], (r0, r1)
    a, b = math.floor(r0), math.ceil(r1)
    ticks: list[float] = []
    for mantissas in MANTISSAS:
        grid = sorted(_number(m, e) for e in range(a - 1, b + 1) for m in mantissas)
        ticks = [v for v in grid if r0 <= math.log10(v) <= r1]
        if len(ticks) >= 3:
            return ticks, (r0, r1)
    if len(ticks) < 2:
        below = max(v for v in grid if v <= lo)
        above = min(v for v in grid if v >= hi and v > below)
        r0, r1 = min(r0, math.log10(below) - 0.02), max(r1, math.log10(above) + 0.02)
        ticks = [v for v in grid if r0 <= math.log10(v) <= r1]
    return ticks, (r0, r1)


def _on_axis(trace, axis: str) -> bool:
    letter = axis[0]
    ref = getattr(trace, f"{letter}axis", None) or letter
    return ref == axis


def axis_values(fig: go.Figure, axis: str = "y") -> list[float]:
    """Positive finite values drawn on ``axis`` ("x", "y", "y2"…): trace coordinates and the
    positions of horizontal/vertical lines (shapes) placed in its data units."""
    letter = axis[0]
    values: list[float] = []
    for trace in fig.data:
        if _on_axis(trace, axis):
            coords = getattr(trace, letter, None)
            values += _positive(() if coords is None else coords)
    for shape in fig.layout.shapes or ():
        if getattr(shape, f"{letter}ref", None) == axis:
            values += _positive((getattr(shape, f"{letter}0"), getattr(shape, f"{letter}1")))
    return values


def _positive(values: Iterable) -> list[float]:
    out = []
    for v in values:
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f) and f > 0:
            out.append(f)
    return out


def log_axis(fig: go.Figure, axis: str = "y", values: Sequence[float] | None = None,
             headroom: float = 0.0, ceiling: float = 1e300, floor: float = 1e-300) -> go.Figure:
    """Make ``axis`` a log axis with readable explicit ticks and its range (see :func:`log_scale`);
    ``headroom`` adds that many decades on top (room for bar
    labels). Values beyond [floor, ceiling] are clipped so a tick never reads "Infinity"."""
    found = [min(max(v, floor), ceiling) for v in (values if values is not None else axis_values(fig, axis))]
    key = f"{axis[0]}axis{axis[1:]}"
    if not found:
        fig.update_layout({key: dict(type="log")})
        return fig
    ticks, (lo, hi) = log_scale(min(found), max(found))
    fig.update_layout({key: dict(type="log", tickmode="array", tickvals=ticks,
                                 ticktext=[tick_label(v) for v in ticks], range=[lo, hi + headroom])})
    return fig


BAR_TEXT_MIN_PX = 10
"""The smallest value written on a bar: Plotly shrinks one to the bar's width (to 6 px on a phone's
narrow bars); one that would be smaller is hidden instead (its hover still says it)."""


def readable(fig: go.Figure) -> go.Figure:
    """Dark 13 px tick text and dark axis titles on every axis (and colour bar) of ``fig``; dark
    text on bars and markers, a bar's value never below :data:`BAR_TEXT_MIN_PX`; Chinese y-axis
    titles upright (:func:`upright_y_titles`); margins that already fit the labels
    (:func:`fit_margins`: Plotly does not draw the chart a second time to widen them)."""
    with fig.batch_update():  # set on each axis: a third of update_xaxes/update_yaxes's time
        for axis in (*fig.select_xaxes(), *fig.select_yaxes()):
            axis.tickfont, axis.title.font = TICK_FONT, TITLE_FONT
    for trace in fig.data:
        if "colorbar" in trace and getattr(trace, "showscale", True) is not False:
            trace.colorbar.tickfont = TICK_FONT
        if trace.type in ("bar", "scatter") and trace.text is not None and trace.textfont.color is None:
            trace.textfont.color = TICK_FONT["color"]  # values over bars, token labels
    if fig.layout.uniformtext.minsize is None and any(tr.type == "bar" and tr.text is not None for tr in fig.data):
        fig.layout.uniformtext = dict(minsize=BAR_TEXT_MIN_PX, mode="hide")
    return fit_margins(upright_y_titles(fig))
