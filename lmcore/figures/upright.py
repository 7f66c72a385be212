"""Chinese y-axis titles that read upright.

Plotly draws a y-axis title turned by 90°, so a Chinese title ("下一个词 w") reads sideways. A title
with CJK characters is drawn instead as a horizontal annotation: a short one (up to
:data:`MAX_STACKED` characters and Latin runs) as a column of upright characters left of the tick
labels (and no Latin run wider than :data:`MAX_COLUMN` font sizes), any other as a line above the plotting area, starting at the axis. English titles keep
Plotly's turned title. The annotations are named :data:`NAME` so that projector styling
(lmcore/teaching/projector.py) can move them with the larger tick labels.
"""
from __future__ import annotations

import re
import unicodedata

import plotly.graph_objects as go

from lmcore.figures.margins import PAD, TICK_SIZE, TITLE_SIZE, WIDE, _widest, tick_labels

NAME = "lmlab-upright-y-title"
TITLE_FONT = dict(size=TITLE_SIZE, color="#262730")  # lmcore.figures.style.TITLE_FONT
MAX_STACKED = 10
MAX_COLUMN = 2.5
"""The widest unit (a Latin run such as ``P(w|h)``) a column may hold, in font sizes: a wider one would
take the plot's width on a phone, so such a title goes above the plot."""
LINE_ROOM = 24
"""Height (px) added to the top margin for a title written above the plotting area."""
Y_AXIS = re.compile(r"yaxis(\d*)$")
_UNIT = re.compile(r"\s*([^\sA-Za-z0-9_()|•.,'′^<>/=+\-−‖∂]|[A-Za-z0-9_()|•.,'′^<>/=+\-−‖∂]+)")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a wide (CJK) character."""
    return any(unicodedata.east_asian_width(c) in "WF" for c in text)


VERTICAL = {"(": "︵", "（": "︵", ")": "︶", "）": "︶", "：": "︰", ":": "︰", "，": "︐", "、": "︑"}
"""Brackets and marks standing alone in a column, in their vertical forms (as vertical Chinese text
prints them): "(" lies on its side above the words it opens."""


def title_units(text: str) -> list[str]:
    """``text`` cut into what a column stacks: each CJK character or punctuation mark on its own (a
    bracket in its vertical form), a run of Latin letters, digits and formula signs kept whole
    (``P(w|h)``); spaces dropped."""
    return [VERTICAL.get(m[1], m[1]) for m in _UNIT.finditer(text) if m[1].strip()]


def upright_y_titles(fig: go.Figure) -> go.Figure:
    """``fig`` with each CJK y-axis title drawn horizontally (a column of upright characters, or a
    line above the plot); margins made room for. Changes ``fig`` in place and returns it."""
    layout, data = fig._layout, fig._data  # read only
    for key, axis in list(layout.items()):
        match = Y_AXIS.match(key)
        if not match or not isinstance(axis, dict):
            continue
        title = axis.get("title") or {}
        text = title.get("text") if isinstance(title, dict) else title
        if not text or not has_cjk(str(text)):
            continue
        ref = "y" + match[1]
        right = axis.get("side") == "right"
        anchor = axis.get("anchor") or "x"
        ticks = _widest(tick_labels(axis, data, "y", ref))
        units = title_units(str(text))
        margin = dict(layout.get("margin") or {})
        side = "r" if right else "l"
        if len(units) <= MAX_STACKED and _widest(units, TITLE_SIZE) <= MAX_COLUMN * TITLE_SIZE:
            widest = _widest(units, TITLE_SIZE)
            fig.add_annotation(text="<br>".join(units), name=NAME, showarrow=False, textangle=0,
                               xref=f"{anchor} domain", yref=f"{ref} domain", x=1 if right else 0, y=0.5,
                               xanchor="left" if right else "right", yanchor="middle",
                               xshift=(1 if right else -1) * (ticks + 2 * PAD), font=TITLE_FONT, align="center")
            margin[side] = max(margin.get(side) or 0, round(ticks + 3 * PAD + max(widest, WIDE * TITLE_SIZE)))
            fig.layout[key].title.text = None
            fig.layout.margin = margin
        else:
            title_above(fig, key)
    return fig


def title_above(fig: go.Figure, key: str, font: dict = TITLE_FONT, room: int = LINE_ROOM) -> None:
    """The title of y axis ``key`` (``"yaxis"``, ``"yaxis2"``, …) written as a line above its plotting
    area, starting at the axis, in ``font``; ``room`` px added to the top margin. In place."""
    axis = fig.layout[key]
    right, ref = axis.side == "right", "y" + Y_AXIS.match(key)[1]
    fig.add_annotation(text=str(axis.title.text), name=NAME, showarrow=False, textangle=0,
                       xref=f"{axis.anchor or 'x'} domain", yref=f"{ref} domain", x=1 if right else 0, y=1,
                       xanchor="right" if right else "left", yanchor="bottom", yshift=4, font=font, align="left")
    fig.layout.margin.t = (fig.layout.margin.t or 0) + room
    axis.title.text = None


def tick_room_scale(size: float) -> float:
    """How much farther a title column sits from the axis when tick labels are ``size`` px, not 13."""
    return size / TICK_SIZE
