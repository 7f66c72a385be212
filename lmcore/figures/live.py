"""The projector's figure of a live class's answers: a histogram of numeric answers (the band
counted right shaded once it is revealed) or one bar per choice (the right one marked once revealed).
Pure: plain numbers and labels in, a Figure out."""
from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from lmcore.figures.labels import plotly_text
from lmcore.figures.style import readable
from lmcore.i18n import t

BAR_COLOUR, RIGHT_COLOUR, BAND_COLOUR = "#1f77b4", "#2ca02c", "rgba(44, 160, 44, 0.18)"
LABEL_BACKGROUND = "rgba(255, 255, 255, 0.85)"


def _layout(fig: go.Figure, n: int, lang: str, x_title: str) -> go.Figure:
    fig.update_layout(title=t("live.fig.title", lang, n=n), bargap=0.08, showlegend=False,
                      xaxis=dict(title=x_title), yaxis=dict(title=t("live.fig.y", lang), rangemode="tozero",
                                                            tickformat=",d", dtick=1 if n <= 8 else None),
                      height=340, margin=dict(t=60, b=50))
    return readable(fig)


def live_histogram(edges: Sequence[float], counts: Sequence[int], band: tuple[float, float] | None = None,
                   answer: float | None = None, lang: str = "en") -> go.Figure:
    """Numeric answers in bins (``counts[i]`` between ``edges[i]`` and ``edges[i + 1]``); ``band``
    (the range counted right) and ``answer`` are drawn only when given (after the reveal)."""
    edges, counts = [float(e) for e in edges], [int(c) for c in counts]
    centres = [(a + b) / 2 for a, b in zip(edges, edges[1:])]
    widths = [(b - a) for a, b in zip(edges, edges[1:])]
    fig = go.Figure(go.Bar(x=centres, y=counts, width=widths, marker_color=BAR_COLOUR,
                           hovertemplate="%{x:.4g}: %{y}<extra></extra>"))
    if band is not None:  # the range counted right, shaded behind the bars
        fig.add_vrect(x0=band[0], x1=band[1], fillcolor=BAND_COLOUR, line_width=0, layer="below")
    if answer is not None:
        half = f"{(band[1] - band[0]) / 2:.3g}" if band is not None else "0"
        fig.add_vline(x=answer, line_color=RIGHT_COLOUR, line_width=3,
                      annotation_text=plotly_text(t("live.fig.answer", lang, answer=f"{answer:.4g}", band=half)),
                      annotation_bgcolor=LABEL_BACKGROUND,  # readable where it lies over the bars
                      # the label on the side with room: beside an answer near the right edge it was cut off
                      annotation_position="top left" if answer > (edges[0] + edges[-1]) / 2 else "top right")
    return _layout(fig, sum(counts), lang, t("live.fig.x", lang))


def live_choices(labels: Sequence[str], counts: Sequence[int], right: int | None = None, lang: str = "en") -> go.Figure:
    """One bar per choice (``labels`` shown as text); the ``right`` one green once revealed."""
    colours = [RIGHT_COLOUR if i == right else BAR_COLOUR for i in range(len(labels))]
    fig = go.Figure(go.Bar(x=[plotly_text(label) for label in labels], y=[int(c) for c in counts],
                           marker_color=colours, text=[str(int(c)) for c in counts], textposition="outside",
                           cliponaxis=False, hovertemplate="%{x}: %{y}<extra></extra>"))
    fig.update_xaxes(type="category")
    return _layout(fig, sum(int(c) for c in counts), lang, t("live.fig.choice", lang))
