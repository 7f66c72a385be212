"""Margins wide enough for a figure's tick labels and axis titles, worked out before it is drawn.

Plotly's auto-margin (on for every axis by default in Plotly.js 3 and in Streamlit's theme) draws a
chart, measures its tick labels and titles, and when they need more room than the margins it was
given, draws the whole chart again with wider margins. Every chart here was drawn twice that way
(Streamlit's theme leaves the left margin to it); in Chromium on this machine the second pass was
about half of Plotly's time per chart (the charts as pages hand them to Plotly, median of 7 draws:
n-gram page 125–155 → 83 ms, chain rule 144–165 → 119, decoding 144–154 → 70, LSTM 189–228 → 98).
:func:`fit_margins` estimates the room from the label texts (a CJK character about as wide as the
font size, any other about half of it) and sets margins at least that wide; auto-margin stays on,
so a label wider than estimated still fits (by the second pass).
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

_AXIS = re.compile(r"([xy])axis(\d*)$")

TICK_SIZE = 13
"""Tick label font size (px), :data:`lmcore.figures.style.TICK_FONT`."""
TITLE_SIZE = 14
TITLE_ROOM = {"x": 20 + 20, "y": 24 + 22}
"""Axis title: Streamlit's theme puts it this far from the tick labels (standoff) plus its height."""
COLORBAR_ROOM = 110
"""Right margin of a chart with a colour bar (its bar, ticks and title)."""
PAD = 8
LATIN, WIDE = 0.52, 1.1
"""Width of a non-CJK and of a CJK character as a share of the font size (Streamlit's Source Sans and
the system's CJK font, 13 px)."""
LEGEND_ROW = 24
"""Height (px) of a row of a horizontal legend; ``LEGEND_PAD`` its padding beside the plot, ``LEGEND_GAP``
the room between a legend under the plot and the x axis's title above it."""
LEGEND_PAD = 40
LEGEND_GAP = 16
LEGEND_ITEM = 46
"""Width (px) a legend item adds to its name (its line or box sample and gaps)."""
LEGEND_WIDTH = 800
"""Width (px) a horizontal legend is assumed to wrap at (a chart the page's full width; a narrower one
may need Plotly's second pass when its legend wraps to more rows)."""
SLIDER_ROOM = 110
"""Room (px) below the plotting area for an animation's slider and play buttons."""
_TAG = re.compile(r"<[^>]+>")
_ENTITY = re.compile(r"&(amp|lt|gt|quot|#\d+);")


def text_width(text: str, size: float = TICK_SIZE) -> float:
    """Width in px of ``text`` (Plotly markup: tags dropped, entities one character, the longest
    ``<br>`` line) in a ``size`` px font: CJK characters ``WIDE·size`` wide, others ``LATIN·size``."""
    lines = re.split(r"<br\s*/?>", str(text), flags=re.IGNORECASE)
    widest = 0.0
    for line in lines:
        plain = _ENTITY.sub("x", _TAG.sub("", line))
        widest = max(widest, sum((WIDE if unicodedata.east_asian_width(c) in "WF" else LATIN) * size for c in plain))
    return widest


def _numeric_labels(values: Sequence[float], tickformat: str | None) -> list[str]:
    """The longest tick labels Plotly would write for an axis over ``values`` (roughly: its ends at
    the precision of about six ticks, thousands as k/M, percentages when ``tickformat`` has %)."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    step = (hi - lo) / 6 or abs(hi) or 1.0
    if tickformat and "%" in tickformat:
        decimals = int(re.search(r"\.(\d+)", tickformat)[1]) if re.search(r"\.(\d+)", tickformat) else 0
        return [f"{100 * v:.{decimals}f}%" for v in (lo, hi)]
    decimals = max(0, -math.floor(math.log10(step)) + 1) if step < 1 else 0
    labels = []
    for v in (lo, hi):
        if abs(v) >= 10_000:
            labels.append(f"{v / 1000:.0f}k" if abs(v) < 1e6 else f"{v / 1e6:.0f}M")
        else:
            labels.append(f"{v:.{min(decimals, 4)}f}")
    return labels


def _coordinates(data: list[dict], letter: str, ref: str) -> tuple[list[str], list[float]]:
    """Category labels, and the ends of the numbers, that the traces on axis ``ref`` ("x", "y2"…)
    place along it (a heat map's row or column indices, and a bound on a histogram's counts, included)."""
    labels: list[str] = []
    ends: list[float] = []
    for trace in data:
        if trace.get(f"{letter}axis", letter) != ref:
            continue
        coords = trace.get(letter)
        other = trace.get("y" if letter == "x" else "x")
        if coords is None and trace.get("type") == "histogram" and other is not None and not trace.get("histnorm"):
            ends += [0.0, float(len(other))]  # its counts, which Plotly works out: at most one per value
            continue
        if coords is None and trace.get("type") == "heatmap" and trace.get("z") is not None:
            shape = np.shape(trace["z"])
            coords = np.arange(shape[0] if letter == "y" else (shape[1] if len(shape) > 1 else 1))
        if coords is None:
            continue
        values = np.asarray(coords)
        if values.dtype.kind == "O":  # numbers with gaps (None, e.g. a curve that reached −∞) are numbers
            try:
                values = values.astype(float)
            except (TypeError, ValueError):
                pass  # text: category labels
        if values.dtype.kind in "iuf":
            finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
            if finite.size:
                ends += [float(finite.min()), float(finite.max())]
        else:
            labels += [str(v) for v in values.ravel().tolist()]
    return labels, ends


def tick_labels(axis: dict, data: list[dict], letter: str, ref: str) -> list[str]:
    """The tick labels an axis (its layout dict) will show: its ``ticktext``, else the category
    values of its traces, else the numbers Plotly is likely to write for their range."""
    if axis.get("visible") is False or axis.get("showticklabels") is False:
        return []
    if axis.get("ticktext") is not None:
        return [str(t) for t in axis["ticktext"]]
    labels, ends = _coordinates(data, letter, ref)
    if labels or axis.get("type") == "category":
        return labels + [f"{v:g}" for v in ends]
    if axis.get("range") is not None and axis.get("type") != "log":
        ends += [float(v) for v in axis["range"] if v is not None]
    return _numeric_labels(ends, axis.get("tickformat"))


def _title(container: dict) -> str:
    title = container.get("title") or {}
    return (title.get("text") if isinstance(title, dict) else title) or ""


def _widest(labels: Iterable[str], size: float = TICK_SIZE) -> float:
    return max((text_width(label, size) for label in labels), default=0.0)


def fit_margins(fig: go.Figure) -> go.Figure:
    """Set ``fig``'s margins to at least the room its axes' tick labels and titles, its colour bars,
    legend and animation controls need (the margins a builder gave are kept where they are wider).
    A horizontal legend the builder put under the plot (``y < 0``) is moved to the figure's bottom
    edge, with the bottom margin the axis's room plus the legend's rows.
    Reads the figure's own dictionaries (Plotly's property access would cost more than the rest)."""
    layout, data = fig._layout, fig._data  # read only
    margin = dict(layout.get("margin") or {})
    need = {"l": 0.0, "r": 0.0, "t": 0.0, "b": 0.0}
    for key, axis in layout.items():
        match = _AXIS.match(key)
        if not match or not isinstance(axis, dict):
            continue
        letter, ref = match[1], match[1] + match[2]
        labels = tick_labels(axis, data, letter, ref)
        titled = bool(_title(axis))
        if letter == "y":
            side = "r" if axis.get("side") == "right" else "l"
            width = _widest(labels)
            room = width + (width > 0) * PAD + titled * TITLE_ROOM["y"] + PAD
        else:
            side = "t" if axis.get("side") == "top" else "b"
            angle = abs(axis.get("tickangle") or 0)
            height = 0.0 if not labels else (
                TICK_SIZE * 1.3 if angle == 0 else _widest(labels) * math.sin(math.radians(angle)) + TICK_SIZE)
            room = height + PAD + titled * TITLE_ROOM["x"] + PAD + (side == "t" and bool(_title(layout))) * 40
        need[side] = max(need[side], room)
    bars = [trace for trace in data if trace.get("type") in ("heatmap", "contour") and trace.get("showscale") is not False]
    if bars:  # a colour bar: its bar and tick labels, or its title above it when that is wider
        titles = [_title(trace.get("colorbar") or {}) for trace in bars]
        need["r"] = max(need["r"], COLORBAR_ROOM, _widest(titles, TITLE_SIZE) + 50)
    names = [trace["name"] for trace in data if trace.get("name") and trace.get("showlegend") is not False]
    legend = layout.get("legend") or {}
    shown = len(names) >= 2 or any(trace.get("showlegend") for trace in data)  # Plotly's default
    if layout.get("showlegend") or (layout.get("showlegend") is None and shown):
        if legend.get("orientation") == "h":
            rows = math.ceil(sum(text_width(n) + LEGEND_ITEM for n in names) / LEGEND_WIDTH)
            y = legend.get("y")
            if y is not None and y < 0 and legend.get("yref", "paper") == "paper":  # a row under the plot
                # Placed a fraction of the plot's height below it, it met the x axis's title whenever the
                # tick labels took more room than that (tokens turned −60°). At the figure's bottom edge
                # instead, under the room the axis needs:
                fig.layout.legend.update(yref="container", y=0, yanchor="bottom")
                need["b"] += rows * LEGEND_ROW + LEGEND_GAP
            elif (y or 0) >= 1 and rows > 1:  # above the plotting area: the title's margin has one row
                need["t"] = max(need["t"], (margin.get("t") or 0) + (rows - 1) * LEGEND_ROW)
        elif legend.get("x") is None or legend["x"] >= 1:  # beside the plotting area, on the right
            need["r"] = max(need["r"], _widest(names) + LEGEND_ITEM + LEGEND_PAD)
    if layout.get("sliders") or layout.get("updatemenus"):
        need["b"] = max(need["b"], (margin.get("b") or 0) + SLIDER_ROOM)
    fig.layout.margin = {**margin, **{side: max(math.ceil(px), margin.get(side) or 0) for side, px in need.items()}}
    return fig
