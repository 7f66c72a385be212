"""Projector styling: every text of a Plotly figure large enough to read from the back of a room.

Sizes are for a 1280×720 screen (``scale=1``): ticks, legend, hover and bar labels 18 px, axis
titles 20 px, the figure title 24 px; ``scale`` multiplies them (1.5 for a 1920×1080 slide).
Existing larger sizes are kept; margins are made room for (automargin, a taller top margin).
"""
from __future__ import annotations

import threading

import plotly.graph_objects as go

from lmcore.figures.margins import TITLE_SIZE, text_width
from lmcore.figures.upright import LINE_ROOM, Y_AXIS, title_above, tick_room_scale
from lmcore.figures.upright import NAME as UPRIGHT

TICK, AXIS_TITLE, TITLE, LEGEND, HOVER, TEXT = 18, 20, 24, 18, 18, 18
MIN_HEIGHT = 460
TITLE_LINES = 2.2  # the figure's title takes this many of its font sizes from the top (measured: 53 px at 24 px)
# Plotly's Figure(fig) takes each trace's "type" out of ``fig`` for a moment and puts it back: a figure
# shared by sessions (ui/charts.py caches them) copied by two threads at once made one of them build a
# scatter of a bar's properties (ValueError: textposition 'outside', seen under a live class of 60).
_COPYING = threading.Lock()


def _at_least(current: float | None, size: float) -> float:
    return max(float(current or 0), size)


def projector_figure(fig: go.Figure, scale: float = 1.0, height: int | None = None) -> go.Figure:
    """A copy of ``fig`` with projector font sizes (× ``scale``); ``height`` if given, else ≥ 460·scale."""
    with _COPYING:
        out = go.Figure(fig)
    s = lambda size: round(size * scale)  # noqa: E731
    layout = out.layout
    out.update_layout(
        font=dict(size=_at_least(layout.font.size, s(TICK))),
        title=dict(font=dict(size=_at_least(layout.title.font.size, s(TITLE)))),
        legend=dict(font=dict(size=_at_least(layout.legend.font.size, s(LEGEND)))),
        hoverlabel=dict(font=dict(size=_at_least(layout.hoverlabel.font.size, s(HOVER)))),
        margin=dict(t=max(layout.margin.t or 0, s(90)), l=max(layout.margin.l or 0, s(60)),
                    b=max(layout.margin.b or 0, s(60)), r=max(layout.margin.r or 0, s(30))),
        height=height or max(layout.height or 0, s(MIN_HEIGHT)),
    )

    def axis(ax) -> None:
        ax.update(tickfont=dict(size=_at_least(ax.tickfont.size, s(TICK))),
                  title=dict(font=dict(size=_at_least(ax.title.font.size, s(AXIS_TITLE)))), automargin=True)

    out.for_each_xaxis(axis)
    out.for_each_yaxis(axis)
    plot_height = out.layout.height - out.layout.margin.t - out.layout.margin.b
    title_bottom = TITLE_LINES * out.layout.title.font.size if out.layout.title.text else 0
    for key in [key for key in out.layout.to_plotly_json() if Y_AXIS.match(key)]:
        ax = out.layout[key]
        low, high = ax.domain or (0, 1)
        middle = out.layout.margin.t + plot_height * (1 - (low + high) / 2)  # px from the top
        if ax.title.text and middle - text_width(ax.title.text, ax.title.font.size) / 2 < title_bottom:
            # turned, it would run up into the figure's title: a line above its plot, as a long Chinese one
            title_above(out, key, room=0)  # its line's room: above the figure's own top margin, as upright.py's
            out.layout.margin.t = max(out.layout.margin.t, (fig.layout.margin.t or 0) + round(
                LINE_ROOM * ax.title.font.size / TITLE_SIZE))
    for ann in out.layout.annotations:
        if ann.name == UPRIGHT:  # a Chinese y-axis title (lmcore/figures/upright.py): beside larger ticks
            ann.font.size = _at_least(ann.font.size, s(AXIS_TITLE))
            grow = tick_room_scale(s(TICK))
            ann.xshift = (ann.xshift or 0) * grow
            if ann.xanchor == "right":
                out.layout.margin.l = round(out.layout.margin.l * grow)
            elif ann.xanchor == "left" and ann.y != 1:
                out.layout.margin.r = round(out.layout.margin.r * grow)
        else:
            ann.font.size = _at_least(ann.font.size, s(TEXT))
    for trace in out.data:
        if "textfont" in trace:
            trace.textfont.size = _at_least(trace.textfont.size if not isinstance(trace.textfont.size, tuple) else None,
                                             s(TEXT))
        if "colorbar" in trace:
            trace.colorbar.tickfont.size = _at_least(trace.colorbar.tickfont.size, s(TICK))
            trace.colorbar.title.font.size = _at_least(trace.colorbar.title.font.size, s(AXIS_TITLE))
        if "hoverlabel" in trace and trace.hoverlabel.font.size is not None and not isinstance(trace.hoverlabel.font.size, tuple):
            trace.hoverlabel.font.size = _at_least(trace.hoverlabel.font.size, s(HOVER))
    return out
